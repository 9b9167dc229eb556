#!/usr/bin/env bash
# test_analyze_oracle.sh - the differential check: "tunectl analyze fusion",
# through its launcher share/tools/analyze_profiler.py, on the input sets
# of tests/fixtures/analysis-oracle (bad inputs, evidence errors, association
# blockers, several SKs, the exact rung with a source_scope_map_v2 bundle)
# writes what the reference analyzer wrote on them:
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
# the exact-rung cases reach the rung: the reference mapped every SK of
# smap-exact through the bundle, and so did tunectl
for r in "$FIX/ref" "$T/got"; do
	check "smap-exact in $(basename "$r"): every SK source_scope_map" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["source_scope_mapping"]["status"] == "exact"
assert {x["mapping_method"] for x in d["per_sk_decisions"]} == {"source_scope_map"}
' "$r/smap-exact/out/analysis.json"
done
# the check itself can fail: a changed document is told apart
cp -r "$T/got/legacy-base" "$T/got/legacy-base.x"
sed -i 's/"reprofile"/"keep"/' "$T/got/legacy-base.x/out/analysis.json"
mkdir -p "$T/exp"
cp -r "$FIX/ref/legacy-base" "$T/exp/legacy-base.x"
check "a changed decision is a difference" \
    bash -c '! python3 "$1/oracle.py" compare "$2/exp" "$2/got" legacy-base.x > /dev/null' _ "$FIX" "$T"

# A documented deviation (docs/analysis.md "Deviations from the
# reference"): a non-finite number in the declared change set's other
# fields.  The reference crashes with a Python traceback (exit 1, its last
# line "ValueError: <location> must contain only standard JSON values");
# tunectl refuses the input with that message, exit 2, nothing written.
D=$T/nan
mkdir -p "$D/out"
cp -r "$FIX/cases/legacy-base/in" "$D/in"
chmod -R u+w "$D"
mapfile -t A < "$FIX/cases/legacy-base/argv"
long=$(printf 'k%.0s' $(seq 120))
for c in 'x": NaN|$.declared_change_set.x' \
    'a": {"b": [1, -Infinity]}|$.declared_change_set.a.b[1]' \
    "$long\": [Infinity]|\$.declared_change_set.$(printf 'k%.0s' $(seq 24))...$(printf 'k%.0s' $(seq 43))[0]" \
    '名前": {"é": NaN}|$.declared_change_set.名前.é'; do
	printf '{"allowed_json_pointers": ["/superkernel/enabled"], "%s}\n' "${c%%|*}" \
	    > "$D/in/declared-change.json"
	(cd "$D" && TUNECTL=$TUNECTL_BIN "$TUNECTL_SRC/share/tools/analyze_profiler.py" \
	    "${A[@]}" > "$D/stdout" 2> "$D/stderr")
	rc=$?
	expect_eq "$rc|$(tail -n 1 "$D/stderr")" \
	    "2|analyze_fusion_performance.py: error: ${c#*|} must contain only standard JSON values" \
	    "a non-finite declared change set value (${c#*|}) is refused, exit 2, named"
	check "and nothing is written for ${c#*|}" test -z "$(ls "$D/out")" -a ! -s "$D/stdout"
done

# The other documented deviation: the analysis and the report are written
# with the umask's mode (the reference's temporary files leave them 0600)
cp "$FIX/cases/legacy-base/in/declared-change.json" "$D/in/declared-change.json"
(cd "$D" && umask 022 && TUNECTL=$TUNECTL_BIN "$TUNECTL_SRC/share/tools/analyze_profiler.py" \
    "${A[@]}" > /dev/null 2>&1)
expect_eq "$(cd "$D/out" && stat -c '%a %n' analysis.json report.md | tr '\n' ' ')" \
    "644 analysis.json 644 report.md " "the analysis and report are 0644 under umask 022"

# Unmasked: both analyzers on one staging of each structural case (the
# same files, so the same manifest digests) must write the same bytes,
# mapping_fingerprint, graph_occurrence_fingerprint and the sk_ids they
# disambiguate included.  The reference is not in the tree: set
# TUNECTL_REFERENCE to its analyze_fusion_performance.py to run this.
side() {
	python3 "$FIX/oracle.py" side "$FIX/cases" "$T/side$1" "${@:2}"
}
prep_cases=$(cd "$FIX/cases" && for c in */prep; do echo "${c%/prep}"; done)
if [ -n "${TUNECTL_REFERENCE:-}" ]; then
	TUNECTL=$TUNECTL_BIN side 1 $prep_cases -- python3 "$TUNECTL_REFERENCE" \
	    -- "$TUNECTL_SRC/share/tools/analyze_profiler.py" > "$T/side.txt"
	for c in $prep_cases; do
		check "$c: unmasked, as the reference" grep -qx "ok   $c" "$T/side.txt"
	done
	grep -A3 '^DIFF' "$T/side.txt" | head -20 >&2
else
	skip "unmasked comparison: TUNECTL_REFERENCE is not set"
fi
# the side check shares one staging (two runs give the same digests) and
# tells a difference apart
TUNECTL=$TUNECTL_BIN side 2 struct-base -- "$TUNECTL_SRC/share/tools/analyze_profiler.py" \
    -- "$TUNECTL_SRC/share/tools/analyze_profiler.py" > "$T/side2.txt"
check "one staging, two runs: the same bytes" grep -qx "ok   struct-base" "$T/side2.txt"
TUNECTL=$TUNECTL_BIN side 3 struct-base -- sh -c 'echo extra; exec "$0" "$@"' \
    "$TUNECTL_SRC/share/tools/analyze_profiler.py" \
    -- "$TUNECTL_SRC/share/tools/analyze_profiler.py" > "$T/side3.txt"
check "an extra line is a difference" grep -qx "DIFF struct-base" "$T/side3.txt"

finish
