#!/bin/sh
# check-modules.sh: every module builds on its own (GOWORK=off) from its
# own go.mod and go.sum, as `go install` outside this repo would build it.
# Each module is copied to a temporary folder with one replace added,
# pointing the shared module at ./shared (it is not published); nothing in
# the tree is changed. -mod=readonly makes a missing requirement or go.sum
# line an error instead of a silent download. Usage: scripts/check-modules.sh [MODULE...]
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
shared=github.com/skillmatch/skillmatch/shared
[ $# -gt 0 ] || set -- shared cmd/skillmatch services/extractor services/retriever services/reranker services/decider services/feedback services/console services/frontdoor
tmp=$(mktemp -d "${TMPDIR:-/tmp}/check-modules.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
failed=0
for m in "$@"; do
	dir=$tmp/$(echo "$m" | tr / _)
	mkdir -p "$dir"
	cp -R "$root/$m/." "$dir/"
	if [ "$m" != shared ]; then
		(cd "$dir" && GOWORK=off go mod edit -replace="$shared=$root/shared")
	fi
	if (cd "$dir" && GOWORK=off GOFLAGS="${GOFLAGS:-} -mod=readonly" go build ./...); then
		echo "ok    $m"
	else
		echo "FAIL  $m" >&2
		failed=1
	fi
done
exit $failed
