#!/usr/bin/env bash
# The PyPTO-Pro example operator end to end (tunectl demo --pipeline pypto):
# five stages with fresh workers through the script host, Stage 5 closed on
# a bound stage5-check PASS.  Then the Stage 5 contract on its evidence:
# the handoff, the experiments, quick never formal, every frozen input
# modified, the updatable-only boundary, the required inputs, tampered
# rounds, and the check passing again once everything is restored.
. "$(dirname "$0")/lib.sh"

if ! command -v python3 >/dev/null 2>&1; then
	echo "ok 1 # SKIP python3 is not installed (the example operator is Python)"
	echo "1..1"
	exit 0
fi

jq_() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }
sha() { sha256sum "$1" | cut -d' ' -f1; }

# The demo runs tunectl itself (not under valgrind: it starts dozens of
# worker processes); the checks below use tc.
"$TUNECTL_BIN" demo --pipeline pypto --artifact-root "$T/demo" >"$T/demo.out" 2>"$T/demo.err"
rc=$?
check "tunectl demo --pipeline pypto exits 0" test "$rc" = 0
[ "$rc" = 0 ] || { tail -40 "$T/demo.err" | sed 's/^/#   /'; finish; exit 1; }
check "the demo reports Stage 5 closed on a bound PASS" \
    grep -q "Stage 5 closed on a stage5-check PASS bound in the state" "$T/demo.err"

P=$(cd "$T/demo/latest/project" && pwd)
OP=$P/custom/rmsnorm
S=$OP/.orchestrator_state.json
export TUNECTL=$TUNECTL_BIN PYTHONPATH=$TUNECTL_SRC/examples/pypto-op/shim${PYTHONPATH:+:$PYTHONPATH}

expect_eq "$(jq_ "$S" "','.join(d['stage_status'][k] for k in '12345')")" \
    "completed,completed,completed,completed,completed" "all five stages are completed"
steps=$(jq_ "$S" "' '.join(e['step_id'].split('-', 2)[2] for e in d['orchestration']['history'] if e['event'] == 'step')")
# Stage 5 may take more than one optimizer round: on a loaded CPU the
# independent final compare can drift past the frozen stability range, and
# P7 then sends the raw evidence back to the optimizer to re-measure.
check "one fresh worker per step, in the pipeline's order" \
    grep -Eqx "planner verifier-stage1-check mathematician architect verifier-stage3-check coder verifier-stage4-check( optimizer verifier-stage5-check)+" <<<"$steps"
verdicts=$(for c in "$OP"/.orchestrator/stage5/check-*.json; do jq_ "$c" "d['verdict']"; done | tr '\n' ' ')
check "every stage5-check before the last failed and went back to the optimizer" \
    grep -Eqx "(FAILED )*PASS " <<<"$verdicts"
for r in $(ls -d "$OP"/.orchestrator/dispatches/*-attempt-001); do
	[ "$(jq_ "$r/dispatch-receipt.json" "d['runner_status']")" = passed ] || bad="$bad $r"
done
expect_eq "${bad:-}" "" "every attempt has a passed receipt"
CHECK=$OP/$(jq_ "$S" "d['orchestration']['stage5']['check']['path']")
expect_eq "$(jq_ "$S" "d['orchestration']['stage5']['check']['verdict']")" PASS "the state binds a PASS"
expect_eq "$(jq_ "$S" "d['orchestration']['stage5']['check']['sha256']")" "$(sha "$CHECK")" \
    "by the report's digest"
expect_eq "$(jq_ "$CHECK" "(d['checks_total'], d['checks_passed'])")" "(25, 25)" \
    "the 15 Stage 4 items, the two contract gates and P1-P8 all passed"
expect_eq "$(jq_ "$CHECK" "d['runner_sha256']")" "$(sha "$OP/test_rmsnorm.py")" \
    "for the final test as it is"
tc pypto state --project "$P" --op-dir "$OP" complete_stage --stage 5
expect_rc 1 "a completed Stage 5 does not complete twice"

# ---- the result comes from the interleaved compare --------------------------------------------
RES=$(python3 - "$OP/PERFORMANCE_REPORT.md" <<'EOF'
import json, sys
t = open(sys.argv[1]).read()
print(json.loads(t.split("```json stage5-evidence\n")[1].split("```")[0])["result"])
EOF
)
case $RES in
no_change_kept)
	check "the baseline kept is reported as no change kept" \
	    grep -q "best version baseline: no change kept" "$T/demo.err"
	check "with the spread of the same code, never a speedup" \
	    test "$(sed -n '/pipeline completed/,$p' "$T/demo.err" | grep -c 'speedup')" = 0 ;;
*)
	check "a kept version is faster beyond the noise" test "$RES" = faster
	check "the demo prints its interval" grep -Eq "faster against the baseline, target cases [0-9.]+x \[" "$T/demo.err"
	check "no case is shown with a speedup below 1" \
	    test -z "$(sed -n '/pipeline completed/,$p' "$T/demo.err" | grep -oE 'speedup 0\.[0-9]+x')" ;;
esac
expect_eq "$(jq_ "$CHECK" "d['result']['status']")" "$RES" "stage5-check recomputed the same result"
expect_eq "$(jq_ "$CHECK" "len(d['result']['per_case'][0]['ci95'])")" 2 \
    "its per-case speedup carries a 95% interval"
AB=$OP/$(jq_ "$CHECK" "d['result']['interleaved']")
expect_eq "$(jq_ "$AB/interleaved.json" "d['pairs'] >= 5")" True "at least five interleaved pairs"
tc pypto select --op-dir "$OP" --candidates "$OP/docs/perf/candidates.json"
expect_rc 0 "the selection recomputes"
printf '%s' "$out" >"$T/sel.json"
expect_eq "$(jq_ "$T/sel.json" "all(c['noise']['status'] == 'faster' for c in d['candidates'] if c['evaluation_order'] > 0 and 'not_rankable_reason' not in c)")" \
    True "only candidates faster beyond the noise are ranked"
tc pypto compare --op-dir "$OP" --case-manifest "$OP/PERFORMANCE_CASES.json" --interleaved --pairs 4
expect_rc 1 "fewer than five pairs are refused"
expect_err "at least 5 pairs" "naming the minimum"
M=$(ls -d "$AB"/final/case_p0_small_*)/measurement.json
cp "$M" "$T/abm.bak"
pyedit() {	# pyedit FILE PYTHON-EXPR-ON-d
	python3 - "$1" "$2" <<'EOF'
import json, sys
path, expr = sys.argv[1], sys.argv[2]
d = json.load(open(path, encoding="utf-8"))
exec(expr)
open(path, "w", encoding="utf-8").write(json.dumps(d, indent=2) + "\n")
EOF
}
pyedit "$M" 'd["duration_samples_us"][0] *= 0.5'
tc pypto check stage5 --op-dir "$OP" --gates P4
expect_rc 1 "an edited interleaved sample fails P4"
expect_err "an interleaved compare does not re-verify" "the pair no longer matches its raw files"
cp "$T/abm.bak" "$M"
cp "$AB/interleaved.json" "$T/ab.bak"
pyedit "$AB/interleaved.json" 'd["aggregate"]["change"] = "faster"; d["aggregate"]["ci95"][0] = 1.5'
tc pypto check stage5 --op-dir "$OP" --gates P4
expect_rc 1 "a forged interleaved verdict fails P4"
expect_err "do not recompute from the archived pairs" "the figures are recomputed"
cp "$T/ab.bak" "$AB/interleaved.json"

# ---- the optimizer's handoff and the ledger -------------------------------------------------
OPTR=$(ls -d "$OP"/.orchestrator/dispatches/s5-*-optimizer-attempt-001 | tail -1)/phase-result.json
python3 -c "import json,sys; json.dump(json.load(open(sys.argv[1]))['handoff'], open(sys.argv[2], 'w'))" "$OPTR" "$T/handoff.json"
tc pypto handoff validate --op-dir "$OP" --handoff "$T/handoff.json"
expect_rc 0 "the optimizer's closed handoff validates"
expect_out '"exit": "closed"' "with the closed exit"
python3 -c "import json,sys; h=json.load(open(sys.argv[1])); h['open_items']=1; h['per_case'][0]['speedup']*=2; json.dump(h, open(sys.argv[2], 'w'))" "$T/handoff.json" "$T/bad-handoff.json"
tc pypto handoff validate --op-dir "$OP" --handoff "$T/bad-handoff.json"
expect_rc 1 "a handoff with open items and a forged speedup is refused"
expect_out "speedup" "naming the speedup that does not recompute"
L=$OP/docs/perf/optimization_ledger.json
expect_eq "$(jq_ "$L" "[len([e['change']]) for e in d['experiments']]")" "[1, 1]" \
    "two experiments, one change each"
expect_eq "$(jq_ "$L" "all(e['restored_sha256'] == e['restore_point']['sha256'] for e in d['experiments'] if e['decision'] == 'rejected')")" \
    True "every rejected experiment was restored to its restore point"
tc pypto experiment start --op-dir "$OP" --item bd-01 --hypothesis h --change a --change b
expect_rc 1 "an experiment with two changes is refused"
expect_err "an experiment carries exactly one change (got 2)" "with the rule"
grep -q '"kind": "unavailable"' "$OP/PERFORMANCE_REPORT.md"
check "the report discloses the unavailable target with its reason" grep -q "Target: \*\*unavailable\*\*" "$OP/PERFORMANCE_REPORT.md"

# ---- quick is never formal ------------------------------------------------------------------
Q=$(ls -d "$OP"/docs/perf/quick/quick_* | head -1)
python3 - "$OP/docs/perf/candidates.json" "$T/cands.json" "${Q#$OP/}" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
row = dict(d["candidates"][-1]); row["candidate_id"] = "quick"; row["round"] = sys.argv[3]
row["evaluation_order"] = len(d["candidates"]); d["candidates"].append(row)
json.dump(d, open(sys.argv[2], "w"))
EOF
tc pypto select --op-dir "$OP" --candidates "$T/cands.json"
expect_rc 1 "a quick screening run can never be a ranked candidate"
expect_err "evidence round must be" "it is not a formal round"
cp "$OP/performance.json" "$T/perf.bak"
cp "$OP/quick_performance.json" "$OP/performance.json"
tc pypto check stage5 --op-dir "$OP" --gates P3
expect_rc 1 "quick results in place of the final compare fail P3"
expect_err "profiling_mode is not compare" "naming the quick mode"
cp "$T/perf.bak" "$OP/performance.json"

# ---- every frozen input, and the updatable-only boundary ----------------------------------------
for f in SPEC.md rmsnorm_golden.py rmsnorm_golden_cpu.py KB_SELECTION.json module_interfaces.yaml; do
	cp "$OP/$f" "$T/frozen.bak"
	printf '\n' >>"$OP/$f"
	tc pypto check stage5 --op-dir "$OP" --gates C2
	if [ "$rc" = 1 ] && [[ "$out" == *'"failure_category": "stage5_contract_blocked"'* ]] &&
	    [[ "$err" == *"frozen input $f changed since the Stage 5 entry"* ]]; then
		ok "a modified $f blocks the Stage 5 contract"
	else
		not_ok "a modified $f blocks the Stage 5 contract" "rc=$rc" "${err:0:400}"
	fi
	cp "$T/frozen.bak" "$OP/$f"
done
tc pypto boundary --op-dir "$OP"
expect_rc 0 "the restored operator directory is within its boundary"
echo "notes" >"$OP/notes.txt"
tc pypto boundary --op-dir "$OP"
expect_rc 1 "a file outside the updatable set breaks the boundary"
expect_out "notes.txt outside the updatable set appeared in Stage 5" "naming the file"
rm "$OP/notes.txt"
cp "$OP/EXPLORE_REPORT.md" "$T/explore.bak"
echo "edited in Stage 5" >>"$OP/EXPLORE_REPORT.md"
tc pypto boundary --op-dir "$OP"
expect_rc 1 "a Stage 1 record edited in Stage 5 breaks the boundary"
cp "$T/explore.bak" "$OP/EXPLORE_REPORT.md"
cp "$OP/DESIGN.md" "$T/design.bak"
echo "as-built: the kernel hoists the row scale" >>"$OP/DESIGN.md"
tc pypto boundary --op-dir "$OP"
expect_rc 0 "an as-built DESIGN.md is updatable"
cp "$T/design.bak" "$OP/DESIGN.md"

# ---- required inputs -----------------------------------------------------------------------------------
mv "$OP/MEMORY.md" "$T/memory.bak"
tc pypto inputs --op-dir "$OP" --handoff-out "$T/blocked.json"
expect_rc 1 "a missing required input is reported"
expect_out '"status": "stage5_contract_blocked"' "as a stage5_contract_blocked exit"
tc pypto handoff validate --op-dir "$OP" --handoff "$T/blocked.json"
expect_rc 0 "the blocked handoff it writes validates"
expect_out '"exit": "stage5_contract_blocked"' "with the blocked exit"
mv "$T/memory.bak" "$OP/MEMORY.md"

# ---- tampered rounds (what the file gates must catch) ----------------------------------------------------
M=$(ls -d "$OP"/docs/perf/round_001/case_p0_large_*)/measurement.json
cp "$M" "$T/m.bak"
pyedit "$M" 'd["duration_samples_us"][0] *= 0.5'
tc pypto check stage5 --op-dir "$OP" --gates P3
expect_rc 1 "an edited baseline sample fails the check"
expect_err "raw timing duration mismatch: p0_large repeat 1" "the sample no longer matches its CSV"
cp "$T/m.bak" "$M"
FR=$(jq_ "$OP/performance.json" "d['deep_profile_round']")
C=$(ls -d "$FR"/case_p0_small_*)
mv "$C/repeat_001/timing.csv" "$T/t1.csv"
mv "$C/repeat_002/timing.csv" "$C/repeat_001/timing.csv"
mv "$T/t1.csv" "$C/repeat_002/timing.csv"
tc pypto check stage5 --op-dir "$OP" --gates P3
expect_rc 1 "a swapped timing CSV fails the check"
expect_err "archived timing row belongs to case p0_small repeat 2" "the CSV names its own repeat"
mv "$C/repeat_001/timing.csv" "$T/t1.csv"
mv "$C/repeat_002/timing.csv" "$C/repeat_001/timing.csv"
mv "$T/t1.csv" "$C/repeat_002/timing.csv"
cp "$OP/performance.json" "$T/p.bak"
pyedit "$OP/performance.json" 'd["per_case"][1]["asc_us"] = d["per_case"][0]["asc_us"]'
tc pypto check stage5 --op-dir "$OP" --gates P3
expect_rc 1 "a copied aggregate fails the check"
expect_err "performance.json PyPTO duration mismatch: p0_large" "performance.json no longer re-verifies"
cp "$T/p.bak" "$OP/performance.json"

# ---- restored: the full check passes again, and the review is needed ------------------------------------
tc pypto check stage5 --op-dir "$OP"
expect_rc 1 "without the verifier's review the check is not complete"
expect_out '"verdict": "NOT_COMPLETE"' "it never passes on missing evidence"
expect_err "review item S4.6 is not answered by the verifier" "and names what is missing"
python3 -c "import json,sys; json.dump(json.load(open(sys.argv[1]))['review'], open(sys.argv[2], 'w'))" \
    "$(ls -d "$OP"/.orchestrator/dispatches/s5-*-verifier-stage5-check-attempt-001 | tail -1)/phase-result.json" "$T/review.json"
tc pypto check stage5 --op-dir "$OP" --review "$T/review.json"
expect_rc 0 "with the verifier's review the restored evidence passes again"
expect_err "Stage 5 verification PASSED." "in the reference's words"
expect_err "All 25 checks passed." "counting every check"

finish
