#!/usr/bin/env bash
# eval-transfer: how well a model fitted on some golden sets carries over to
# a set it never saw. For each set with a dev split it fits one model on the
# training splits of the other sets and evaluates it on the set's dev split,
# beside the built-in model. sgd and sgd-x1 hold the same tasks (sgd-x1
# rewords the cards), so they are left out together.
#
# Fits use --examples=false: another catalog's training texts name skills the
# held-out catalog does not have, so only the weights and the calibration
# can transfer (as for the built-in model).
#
# FIT_FLAGS are the fit's regime flags (default: each set fitted with and
# without its training texts as examples, probabilities calibrated at the
# sets' own share of no-match tasks).
#
# EVAL_FLAGS are passed to every eval (e.g. --self-calibrate).
#
# WORK, when set, is a folder that keeps the fitted models and the eval
# --json files (otherwise a temporary one, removed at the end). NICE runs
# every fit and eval under `nice -n $NICE` on a shared machine.
#
# Usage: scripts/eval-transfer.sh   (GOLDEN=../shared/golden, BIN=bin/skillmatch, FIT_FLAGS=..., WORK=dir, NICE=15,
#        BUILTIN=0 to leave out the built-in model's rows)
set -euo pipefail

GOLDEN=${GOLDEN:-../shared/golden}
BIN=${BIN:-bin/skillmatch}
SETS=${SETS:-"clinc150 a2a-samples sgd sgd-x1"}
FIT_FLAGS=${FIT_FLAGS:-"--both-text-regimes --calibration-no-match-weight 1"}
EVAL_FLAGS=${EVAL_FLAGS:-}
if [ -n "${WORK:-}" ]; then
	work=$WORK
	mkdir -p "$work"
else
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
fi
run() { if [ -n "${NICE:-}" ]; then nice -n "$NICE" "$@"; else "$@"; fi; }

has_split() { grep -q "\"split\": *\"$2\"" "$GOLDEN/$1/tasks.jsonl"; }

# group prints the sets left out with $1.
group() {
	case $1 in
	sgd | sgd-x1) echo "sgd sgd-x1" ;;
	*) echo "$1" ;;
	esac
}

# field reads a number (or null) from an eval --json file; $3 = bm25 reads
# it from the plain-BM25 object.
field() {
	local json
	json=$(cat "$1")
	if [ "${3:-}" = bm25 ]; then json=${json#*\"bm25\":}; else json=${json%%\"bm25\":*}; fi
	local v
	v=$(printf '%s' "$json" | grep -o "\"$2\":[^,}]*" | head -n1 | cut -d: -f2)
	case $v in
	null | "") echo "n/a" ;;
	*) printf '%.3f' "$v" ;;
	esac
}

row() { # set, fitted-on, json file
	printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$1" "$2" \
		"$(field "$3" top1)" "$(field "$3" precision)" "$(field "$3" coverage)" \
		"$(field "$3" refusal)" "$(field "$3" ece)" "$(field "$3" top1 bm25)"
}

present=()
for s in $SETS; do
	if [ -f "$GOLDEN/$s/tasks.jsonl" ]; then present+=("$s"); else echo "skip $s: not in $GOLDEN" >&2; fi
done

echo "| set | fitted on | top-1 | precision | coverage | refusal | ECE | plain BM25 top-1 |"
echo "|---|---|---|---|---|---|---|---|"
done_groups=" "
for s in "${present[@]}"; do
	has_split "$s" dev || continue
	g=$(group "$s")
	# One fit per group: the sets left out together share it.
	key=${g// /+}
	model="$work/$key.model.json"
	if [[ $done_groups != *" $key "* ]]; then
		done_groups+="$key "
		args=()
		names=()
		for o in "${present[@]}"; do
			[[ " $g " == *" $o "* ]] && continue
			has_split "$o" train || continue
			args+=(--set "$GOLDEN/$o")
			names+=("$o")
		done
		if [ ${#args[@]} -gt 0 ]; then
			# shellcheck disable=SC2086 # FIT_FLAGS is a list of flags
			run "$BIN" fit "${args[@]}" --split train --examples=false $FIT_FLAGS --quiet -o "$model" >&2
			echo "${names[*]}" | sed 's/ /+/g' >"$model.names"
		fi
	fi
	if [ -f "$model" ]; then
		run "$BIN" eval --set "$GOLDEN/$s" --split dev --model "$model" $EVAL_FLAGS --quiet --json "$work/$s.fit.json" >/dev/null
		row "$s" "$(cat "$model.names") train" "$work/$s.fit.json"
	else
		echo "| $s | (no other set to fit on) | | | | | | |"
	fi
	[ "${BUILTIN:-1}" = 0 ] && continue
	run "$BIN" eval --set "$GOLDEN/$s" --split dev $EVAL_FLAGS --quiet --json "$work/$s.builtin.json" >/dev/null
	row "$s" "built-in" "$work/$s.builtin.json"
done
