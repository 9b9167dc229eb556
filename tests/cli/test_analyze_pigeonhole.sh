#!/usr/bin/env bash
# A hostile stream assignment (docs/analysis.md "The structural
# association"; issue 32).  tests/fixtures/analysis/symmetric/mkcase.py
# builds N origin streams that all run MatMulV2 then Add, and an SK-off
# profile of N streams over three steps (fewer is refused: "fewer than
# three steps") in which, in step 3 only, one stream runs Add then MatMulV2
# (--swapped 1 --swapped-step 3).  Step 3 is then a pigeonhole: N streams,
# each with the same N-1 candidates.  Every check before the search
# passes: the stream counts are equal, the kernel counts per operator
# match, every origin stream has candidates.  One more is on the way: the
# canonical labeling of the origin graph refuses a topology whose cells of
# identical streams have more than 10^6 labelings ("stream topology exceeds
# deterministic canonical-labeling safety bound"; 10 identical streams
# already do), so the streams are split into three classes by trailing
# RESET nodes (--classes 3: cells of 5, 4 and 4), which the projection
# skips (topology-only), so they are one (operator, core) sequence to it.
#
# With N = 6 the search finishes (5 * 5! visits at most) and proves there
# is no injective assignment; with N = 13 it would need about e * 12!
# (1.3e9) visits, gives up after SEARCH_VISITS_MAX (2 * 10^7 visits shared
# by the steps of one device and model, src/analysis/projection.c) and
# blocks the step as ambiguous, with no alternative counted: the command
# ends, well within the timeout.
. "$(dirname "$0")/lib.sh"

FIX=$TUNECTL_SRC/tests/fixtures/analysis
SREC=$FIX/afp-struct-classify

# run_case NAME STREAMS: capture and analyse the case; sets rc, $S
run_case() {
	S=$T/$1
	mkdir -p "$S/out"
	cp -r "$FIX/in" "$S/in"
	chmod -R u+w "$S"
	(cd "$S" && "$FIX/symmetric/capture.sh" ph --streams "$2" --steps 3 \
	    --swapped 1 --swapped-step 3 --classes 3) > /dev/null 2>&1
	rc=$?
	expect_rc 0 "the $2-stream case is captured"
	read -r -a ARGV < "$SREC/command"
	ARGV=("${ARGV[@]:1}")
	ARGV=("${ARGV[@]/in\/held-out\/struct\/sk_meta/ph/sk_meta}")
	pushd "$S" > /dev/null || exit 1
	# (not under valgrind: 2 * 10^7 visits would take it past the timeout)
	SECONDS=0
	timeout 120 "$TUNECTL_BIN" analyze fusion "${ARGV[@]}" > "$T/fusion.out" \
	    2> "$T/fusion.err"
	rc=$?
	popd > /dev/null || exit 1
	echo "# analyze fusion of $2 streams took ${SECONDS}s"
	expect_rc 0 "the $2-stream case ends within the timeout and is analysed"
}

# check_case FILE STREAMS BLOCKERS: every SK of the associated case has
# those mapping blockers (comma-separated) and steps 1-2 one alternative
# (look-alike streams), step 3 none
check_case() {
	python3 - "$@" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
a = d["association_protocol"]
assert a["status"] == "associated" and a["blockers"] == [], a
assert len(d["per_sk_decisions"]) == int(sys.argv[2]), len(d["per_sk_decisions"])
for key, p in d["graph_alignment_proof"].items():
    assert p["alternative_solution_count_by_step"] == {"1": 1, "2": 1, "3": 0}, p
for x in d["per_sk_decisions"]:
    assert x["mapping_blockers"] == sys.argv[3].split(","), x
    assert (x["classification"], x["action"]) == ("insufficient_evidence", "reprofile"), x
PY
}

run_case small 6
check "6 streams: the search proves step 3 has no injective assignment" \
    check_case "$S/out/analysis.json" 6 \
    kernel_projection_injective_assignment_missing,kernel_projection_stream_assignment_ambiguous

run_case hostile 13
check "13 streams: the search gives up on step 3, blocked as ambiguous" \
    check_case "$S/out/analysis.json" 13 kernel_projection_stream_assignment_ambiguous

finish
