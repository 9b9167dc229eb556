#!/usr/bin/env bash
# test_analyze_oracle.sh - the differential check: "tunectl analyze fusion",
# through its launcher share/tools/analyze_profiler.py, on the input sets
# of tests/fixtures/analysis-oracle (bad inputs, evidence errors, association
# blockers, several SKs) writes what the reference analyzer wrote on them:
# the same exit status, stderr and Markdown byte for byte, the same JSON
# byte for byte (after canonical form with mask M3 where collection
# manifests make digests run-dependent).
. "$(dirname "$0")/lib.sh"

FIX=$TUNECTL_SRC/tests/fixtures/analysis-oracle
TUNECTL=$TUNECTL_BIN python3 "$FIX/oracle.py" run "$FIX/cases" "$T/got" -- \
    "$TUNECTL_SRC/share/tools/analyze_profiler.py" > /dev/null 2> "$T/run.err"
rc=$?
expect_rc 0 "every input set runs (their prep included)"
python3 "$FIX/oracle.py" compare "$FIX/ref" "$T/got" > "$T/compare.txt"
for c in "$FIX"/cases/*/; do
	c=$(basename "$c")
	check "$c: as the reference" grep -qx "ok   $c" "$T/compare.txt"
done
grep -A3 '^DIFF' "$T/compare.txt" | head -40 >&2
# the check itself can fail: a changed document is told apart
cp -r "$T/got/legacy-base" "$T/got/legacy-base.x"
sed -i 's/"reprofile"/"keep"/' "$T/got/legacy-base.x/out/analysis.json"
mkdir -p "$T/exp"
cp -r "$FIX/ref/legacy-base" "$T/exp/legacy-base.x"
check "a changed decision is a difference" \
    bash -c '! python3 "$1/oracle.py" compare "$2/exp" "$2/got" legacy-base.x > /dev/null' _ "$FIX" "$T"

finish
