#!/usr/bin/env bash
# test_reference_replay.sh - the reference controller's recorded scenarios
# replayed against tunectl: a reference-policy session must print and
# write what the reference printed and wrote (after masking clocks and
# paths), file for file.  Two copies are replayed: the sample beside the
# project (../shared/reference/sk-scenarios-sample, when it is there; from
# a git worktree, the one beside the main checkout) and
# the copy in tests/fixtures/sk-scenarios (always).  A scenario listed in
# tests/fixtures/sk-scenarios/DEVIATIONS differs on purpose: it is
# reported as a TAP skip naming why, and a listed scenario that comes out
# the same fails, so the list cannot go stale.
. "$(dirname "$0")/lib.sh"

DEVIATIONS=$TUNECTL_SRC/tests/fixtures/sk-scenarios/DEVIATIONS

replay() {	# replay LABEL DIR
	local label=$1 dir=$2 verdict name why n=0
	if [ ! -f "$dir/replay.sh" ]; then
		skip "$label: $dir is not here"
		return
	fi
	# from the project root: the harness finds the shipped phase
	# manifests (share/phases) there
	(cd "$TUNECTL_SRC" && TMPDIR=$T timeout 900 bash "$dir/replay.sh" \
	    "$TUNECTL_BIN") >"$T/replay.log" 2>&1
	while read -r verdict name; do
		case $verdict in
		same|differ) ;;
		*) continue ;;
		esac
		n=$((n + 1))
		why=$(awk -F '\t' -v s="$name" '$1 == s { print $2 }' "$DEVIATIONS")
		if [ "$verdict" = same ] && [ -z "$why" ]; then
			ok "$label: $name comes out as the reference's"
		elif [ "$verdict" = same ]; then
			not_ok "$label: $name is listed in DEVIATIONS but now matches: remove it from the list"
		elif [ -n "$why" ]; then
			skip "$label: $name: recorded deviation: $why"
		else
			not_ok "$label: $name comes out as the reference's" \
			    "$(sed -n "/^differ  $name\$/,/^\(same\|differ\) /p" "$T/replay.log" | head -8)"
		fi
	done <"$T/replay.log"
	check "$label: the replay ran its scenarios" test "$n" -gt 0
}

# The sample lies beside the project: beside this checkout, or, in a git
# worktree elsewhere, beside the main checkout.
sample=$TUNECTL_SRC/../shared/reference/sk-scenarios-sample
if [ ! -f "$sample/replay.sh" ] &&
    common=$(git -C "$TUNECTL_SRC" rev-parse --path-format=absolute \
    --git-common-dir 2>/dev/null) &&
    [ -f "$(dirname "$common")/../shared/reference/sk-scenarios-sample/replay.sh" ]; then
	sample=$(dirname "$common")/../shared/reference/sk-scenarios-sample
fi
replay "shared sample" "$sample"
replay "fixtures" "$TUNECTL_SRC/tests/fixtures/sk-scenarios"
finish
