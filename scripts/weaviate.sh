#!/usr/bin/env bash
# Runs a throwaway Weaviate server on loopback for tests and local runs.
#
#   scripts/weaviate.sh build   build weaviate-server into the cache (skipped when present)
#   scripts/weaviate.sh start   build if needed, start on free ports with a fresh data dir,
#                               wait until ready, then print
#                                 WEAVIATE_URL=http://127.0.0.1:<B>
#                                 WEAVIATE_GRPC=127.0.0.1:<B+1>
#                                 WEAVIATE_STATE=<state file>
#   scripts/weaviate.sh stop    stop the server started with the same state file, remove its data
#   scripts/weaviate.sh pause   stop the server but keep its data dir and ports (an outage)
#   scripts/weaviate.sh resume  start a paused server again on the same ports and data
#   scripts/weaviate.sh status  print the state file's variables if the server runs
#
# The server is built with `go install` into a cache outside every module graph: it must
# never become a module dependency (it breaks weaviate-go-client/v4, see
# shared/docs/weaviate-and-nats.md).
#
# Environment:
#   WEAVIATE_STATE   state file (default ${TMPDIR:-/tmp}/skillmatch-weaviate.state); give each
#                    concurrent server its own.
#   SKILLMATCH_CACHE cache root (default ~/.cache/skillmatch)
#   WEAVIATE_VERSION server version (default v1.35.2)
#   WEAVIATE_PORT    base port B to use instead of a free one (B..B+5 must be free)
#   GO               go command (default go)
#
# Note: gRPC (B+1) and the cluster data port (B+3) listen on all interfaces whatever the
# settings (hard-coded in Weaviate); run inside `unshare -n` to keep them private.
set -euo pipefail

VERSION="${WEAVIATE_VERSION:-v1.35.2}"
CACHE="${SKILLMATCH_CACHE:-${HOME}/.cache/skillmatch}"
BINDIR="${CACHE}/weaviate-${VERSION}"
BIN="${BINDIR}/weaviate-server"
STATE="${WEAVIATE_STATE:-${TMPDIR:-/tmp}/skillmatch-weaviate.state}"
GO="${GO:-go}"
READY_TIMEOUT=60

log() { echo "weaviate.sh: $*" >&2; }
die() { log "$*"; exit 1; }

build() {
	if [[ -x "${BIN}" ]]; then
		return 0
	fi
	mkdir -p "${BINDIR}"
	# One build at a time: concurrent test packages may all ask for it.
	exec 9>"${BINDIR}.lock"
	flock 9
	if [[ -x "${BIN}" ]]; then
		return 0
	fi
	log "building weaviate-server ${VERSION} into ${BINDIR} (about 6 minutes cold)"
	local tmp
	tmp="$(mktemp -d)"
	# Outside any module or workspace, into a private GOBIN, then moved into place
	# so a half-written binary is never picked up.
	(cd "${tmp}" && GOWORK=off GOFLAGS=-mod=mod GOBIN="${tmp}" CGO_ENABLED=0 \
		"${GO}" install "github.com/weaviate/weaviate/cmd/weaviate-server@${VERSION}") \
		|| { rm -rf "${tmp}"; die "build failed"; }
	mv "${tmp}/weaviate-server" "${BIN}"
	rm -rf "${tmp}"
	log "built ${BIN}"
}

port_busy() { # port: 0 when something listens on it (TCP) or holds it (UDP)
	(exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
	ss -Hlnu "sport = :$1" 2>/dev/null | grep -q . && return 0
	ss -Hlnt "sport = :$1" 2>/dev/null | grep -q . && return 0
	return 1
}

# free_base picks six free ports below the kernel's ephemeral range: a base
# inside it could be taken by any outgoing connection while a paused server
# is down (a restart test failed to bind its gRPC port that way).
free_base() {
	local b i busy lo span=40000
	read -r lo _ </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || lo=""
	if [[ "${lo}" =~ ^[0-9]+$ ]] && ((lo > 21000)); then
		span=$((lo - 20000 - 6))
	fi
	for _ in $(seq 1 200); do
		b=$((20000 + (RANDOM * 32768 + RANDOM) % span))
		busy=0
		for i in 0 1 2 3 4 5; do
			if port_busy $((b + i)); then busy=1; break; fi
		done
		if [[ ${busy} == 0 ]]; then
			echo "${b}"
			return 0
		fi
	done
	die "no free port range found"
}

alive() { [[ -n "${1:-}" ]] && kill -0 "$1" 2>/dev/null; }

load_state() {
	WPID="" WDIR="" WPORT=""
	if [[ -f "${STATE}" ]]; then
		# shellcheck disable=SC1090
		source "${STATE}"
	fi
}

start() {
	load_state
	if alive "${WPID}"; then
		die "already running (pid ${WPID}, state ${STATE}); run stop first or set WEAVIATE_STATE"
	fi
	build
	local attempt b dir
	for attempt in 1 2 3; do
		b="${WEAVIATE_PORT:-$(free_base)}"
		dir="$(mktemp -d "${TMPDIR:-/tmp}/skillmatch-weaviate.XXXXXX")"
		mkdir -p "${dir}/data"
		if launch "${b}" "${dir}"; then
			return 0
		fi
		log "server exited during start (attempt ${attempt}, ports ${b}..$((b + 5))); last log lines:"
		tail -n 5 "${dir}/weaviate.log" >&2 || true
		rm -rf "${dir}" "${STATE}"
		[[ -n "${WEAVIATE_PORT:-}" ]] && break
	done
	die "start failed"
}

# launch BASE DIR: starts the server on ports BASE..BASE+5 with its data in DIR/data,
# records it in the state file and waits until it is ready. Fails if the server exits.
launch() {
	local b="$1" dir="$2" pid deadline
	env PERSISTENCE_DATA_PATH="${dir}/data" \
		AUTHENTICATION_ANONYMOUS_ACCESS_ENABLED=true \
		DEFAULT_VECTORIZER_MODULE=none ENABLE_MODULES= \
		DISABLE_TELEMETRY=true GO_PROFILING_DISABLE=true AUTOSCHEMA_ENABLED=false \
		CLUSTER_HOSTNAME=node1 CLUSTER_ADVERTISE_ADDR=127.0.0.1 CLUSTER_BIND_ADDR=127.0.0.1 \
		CLUSTER_GOSSIP_BIND_PORT=$((b + 2)) CLUSTER_DATA_BIND_PORT=$((b + 3)) \
		GRPC_PORT=$((b + 1)) RAFT_PORT=$((b + 4)) RAFT_INTERNAL_RPC_PORT=$((b + 5)) \
		RAFT_JOIN="node1:$((b + 4))" RAFT_BOOTSTRAP_EXPECT=1 RAFT_TIMEOUTS_MULTIPLIER=1 \
		PERSISTENCE_MEMTABLES_FLUSH_DIRTY_AFTER_SECONDS=2 \
		QUERY_DEFAULTS_LIMIT=25 LOG_LEVEL=warning \
		"${BIN}" --host 127.0.0.1 --port "${b}" --scheme http \
		>>"${dir}/weaviate.log" 2>&1 </dev/null &
	pid=$!
	printf 'WPID=%s\nWDIR=%q\nWPORT=%s\n' "${pid}" "${dir}" "${b}" >"${STATE}"
	deadline=$((SECONDS + READY_TIMEOUT))
	while alive "${pid}" && ((SECONDS < deadline)); do
		if curl -sf -o /dev/null "http://127.0.0.1:${b}/v1/.well-known/ready"; then
			echo "WEAVIATE_URL=http://127.0.0.1:${b}"
			echo "WEAVIATE_GRPC=127.0.0.1:$((b + 1))"
			echo "WEAVIATE_STATE=${STATE}"
			return 0
		fi
		sleep 0.2
	done
	if alive "${pid}"; then
		log "not ready after ${READY_TIMEOUT}s; last log lines:"
		tail -n 20 "${dir}/weaviate.log" >&2 || true
		stop
		die "start failed"
	fi
	return 1
}

# halt: stops the server process, leaving its data and the state file.
halt() {
	load_state
	if alive "${WPID}"; then
		kill -TERM "${WPID}"
		local deadline=$((SECONDS + 30))
		while alive "${WPID}" && ((SECONDS < deadline)); do sleep 0.1; done
		if alive "${WPID}"; then
			log "pid ${WPID} ignored TERM for 30s; killing it"
			kill -KILL "${WPID}" 2>/dev/null || true
		fi
	fi
}

stop() {
	halt
	if [[ -n "${WDIR}" && "${WDIR}" == */skillmatch-weaviate.* ]]; then
		rm -rf "${WDIR}"
	fi
	rm -f "${STATE}"
}

resume() {
	load_state
	[[ -n "${WDIR}" && -d "${WDIR}/data" ]] || die "nothing paused (state ${STATE})"
	alive "${WPID}" && die "already running (pid ${WPID})"
	launch "${WPORT}" "${WDIR}" || {
		tail -n 5 "${WDIR}/weaviate.log" >&2 || true
		die "resume failed"
	}
}

status() {
	load_state
	alive "${WPID}" || die "not running (state ${STATE})"
	echo "WEAVIATE_URL=http://127.0.0.1:${WPORT}"
	echo "WEAVIATE_GRPC=127.0.0.1:$((WPORT + 1))"
	echo "WEAVIATE_STATE=${STATE}"
}

case "${1:-}" in
build) build ;;
start) start ;;
stop) stop ;;
pause) halt ;;
resume) resume ;;
status) status ;;
*) die "usage: $0 build|start|stop|pause|resume|status" ;;
esac
