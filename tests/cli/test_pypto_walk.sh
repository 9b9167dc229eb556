#!/usr/bin/env bash
# The PyPTO-Pro example walk end to end (examples/pypto-op/walk.sh), then
# tampered evidence that stage5-check must catch: an edited sample, a
# swapped timing CSV and a copied aggregate.
. "$(dirname "$0")/lib.sh"

if ! command -v python3 >/dev/null 2>&1; then
	echo "ok 1 # SKIP python3 is not installed (the example operator is Python)"
	echo "1..1"
	exit 0
fi

W=$T/walk
OP=$W/project/custom/rmsnorm
DISPATCH=$TUNECTL_SRC/examples/pypto-op/op/dispatch.json

"$TUNECTL_SRC/examples/pypto-op/walk.sh" "$TUNECTL_BIN" "$W" >"$T/walk.log" 2>&1
rc=$?
check "walk.sh exits 0" test "$rc" = 0
[ "$rc" = 0 ] || { tail -40 "$T/walk.log" | sed 's/^/#   /'; finish; exit 1; }

check "four formal rounds were archived" test -d "$OP/docs/perf/round_004"
check "the frozen contract exists" test -f "$OP/docs/perf/frozen_contract.json"
check "the report carries the evidence block" grep -q '```json stage5-evidence' "$OP/PERFORMANCE_REPORT.md"
check "perf_report.md was rendered" grep -q '# 性能评估结果' "$OP/perf_report.md"
check "performance.log was rendered" grep -q 'PyPTO Performance Collection (runner_reported): rmsnorm' "$OP/performance.log"

tc pypto check stage5 --op-dir "$OP" --dispatch "$DISPATCH"
expect_rc 0 "stage5-check passes every file-decidable gate"
expect_out '"verdict": "NOT_COMPLETE"' "but never claims a PASS"
expect_err "Stage 5 verification NOT COMPLETE" "the human verdict says why"

tc pypto state --op-dir "$OP" --project "$W/project" show
expect_out '"5": "completed"' "the walk completed Stage 5"

tc pypto select --op-dir "$OP" --candidates "$OP/docs/perf/candidates.json"
expect_rc 0 "select recomputes from the archived rounds"
expect_out '"tie_rule"' "and prints the recomputable table"

pyedit() {	# pyedit FILE PYTHON-EXPR-ON-d
	python3 - "$1" "$2" <<'EOF'
import json, sys
path, expr = sys.argv[1], sys.argv[2]
d = json.load(open(path, encoding="utf-8"))
exec(expr)
open(path, "w", encoding="utf-8").write(json.dumps(d, indent=2) + "\n")
EOF
}

# 1. an edited sample in the baseline round
M=$(ls -d "$OP"/docs/perf/round_001/case_p0_large_*)/measurement.json
cp "$M" "$T/m.bak"
pyedit "$M" 'd["duration_samples_us"][0] *= 0.5'
tc pypto check stage5 --op-dir "$OP" --dispatch "$DISPATCH"
expect_rc 1 "an edited baseline sample fails the check"
expect_out '"failed_checks": [' "and names failed checks"
expect_err "raw timing duration mismatch: p0_large repeat 1" "the sample no longer matches its CSV"
cp "$T/m.bak" "$M"

# 2. swapped timing CSVs in the final round
C=$(ls -d "$OP"/docs/perf/round_004/case_p0_small_*)
mv "$C/repeat_001/timing.csv" "$T/t1.csv"
mv "$C/repeat_002/timing.csv" "$C/repeat_001/timing.csv"
mv "$T/t1.csv" "$C/repeat_002/timing.csv"
tc pypto check stage5 --op-dir "$OP" --dispatch "$DISPATCH"
expect_rc 1 "a swapped timing CSV fails the check"
expect_err "archived timing row belongs to case p0_small repeat 2" "the CSV names its own repeat"
mv "$C/repeat_001/timing.csv" "$T/t1.csv"
mv "$C/repeat_002/timing.csv" "$C/repeat_001/timing.csv"
mv "$T/t1.csv" "$C/repeat_002/timing.csv"

# 3. a copied aggregate in performance.json
cp "$OP/performance.json" "$T/p.bak"
pyedit "$OP/performance.json" 'd["per_case"][1]["asc_us"] = d["per_case"][0]["asc_us"]'
tc pypto check stage5 --op-dir "$OP" --dispatch "$DISPATCH"
expect_rc 1 "a copied aggregate fails the check"
expect_err "performance.json PyPTO duration mismatch: p0_large" "performance.json no longer re-verifies"
cp "$T/p.bak" "$OP/performance.json"

tc pypto check stage5 --op-dir "$OP" --dispatch "$DISPATCH"
expect_rc 0 "the restored evidence passes the file gates again"

# The compare command itself (under valgrind when VALGRIND=1).
tc pypto compare --op-dir "$OP" --case-manifest "$OP/PERFORMANCE_CASES.json" --collection-id extra
expect_rc 0 "a further formal compare under the frozen contract succeeds"
expect_out '"round": "'"$OP"'/docs/perf/round_005"' "into the next free round"
tc pypto compare --op-dir "$OP" --case-manifest "$OP/PERFORMANCE_CASES.json" --repeats 1
expect_rc 1 "a compare off the frozen protocol is refused"
expect_err "formal compare protocol differs from the frozen contract: --repeats 1, frozen 3" "with the frozen value"

finish
