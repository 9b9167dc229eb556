#!/usr/bin/env bash
# test_adversary_34.sh - the second worker-as-adversary review (issue 34):
# each section replays one attack and asserts the defence
# (docs/security.md, "The worker as adversary, again").
#   1  strictness lost on derivation
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/controller_fixtures.sh"
. "$(dirname "$0")/strict_fixtures.sh"

FIX="$TUNECTL_SRC/tests/fixtures/derive/derive_fixture.py"

# strict_parent DIR: a completed strict session (mode none) whose BASE
# produced the derivation evidence; sets R and S.
strict_parent() {
	R="$1/artifacts"
	S="$R/auto-tune-session.json"
	tc init --session "$S" --artifact-root "$R" --session-id strict-parent \
	    --optional-mode none --evidence-policy strict
	st_seal succeeded ""
	st_s0
	st_seal succeeded 'produced = ["s0/runset", "s0/stability.json"]'
	st_stage_a
	st_seal accepted 'consumed = ["s0/runset"]; produced = ["stage-a/matrix.json", "stage-a/S1", "stage-a/S2", "stage-a/S3", "stage-a/S4", "stage-a/selection.json"]; result["selected_candidate"] = "S2"'
	st_stage_o
	st_seal accepted 'produced = ["stage-o/O0", "stage-o/O1", "stage-o/O1-trial.json", "stage-o/matrix.json"]'
	FIX_ROOT="$R" python3 -c '
import importlib.util, os, pathlib
spec = importlib.util.spec_from_file_location("fx", os.environ["FIX"])
fx = importlib.util.module_from_spec(spec); spec.loader.exec_module(fx)
fx.evidence(pathlib.Path(os.environ["FIX_ROOT"]))'
	st_seal succeeded 'consumed = ["stage-o/matrix.json"]; produced = ["evidence/profiling-analysis.json", "evidence/experiment-ledger.json", "evidence/source-scope-map.json"]'
	st_seal not_requested ""
	st_final
	st_seal accepted 'consumed = ["s0/runset"]; produced = ["final/candidate", "final/option-config.json"]'
}
export FIX

# ---- 1. strictness survives derivation ---------------------------------------------
strict_parent "$T/p1"
PR=$R PS=$S
tc verify --session "$PS"
expect_rc 0 "the strict parent is complete and verifies"
derive_child() {	# derive_child DIR [ARGS...]: sets C, CS
	C=$1
	CS=$C/auto-tune-session.json
	shift
	tc derive-session --parent-session "$PS" --session "$CS" --artifact-root "$C" \
	    --session-id child-1 --profiling-analysis "$PR/evidence/profiling-analysis.json" \
	    --ledger "$PR/evidence/experiment-ledger.json" --approve-imported-evidence \
	    --optional-mode multistream "$@"
}
derive_child "$T/c1" --evidence-policy reference
expect_rc 1 "derive-session --evidence-policy reference of a strict parent is refused"
expect_out "derived evidence_policy reference would loosen the parent's strict evidence policy" \
    "the refusal says the policy would be loosened"
check "the loosening refusal writes nothing" test ! -e "$T/c1"
derive_child "$T/c1" --evidence-policy lax
expect_rc 2 "an unknown --evidence-policy is a usage error"
derive_child "$T/c1"
expect_rc 0 "a strict parent derives a child"
expect_eq "$(jpy "$CS" 'd.get("evidence_policy")')" strict "the child inherits the strict policy"
# the attack: the child's optional and Final results seal from a
# hand-written final_e2e (sealed beneficial, verify valid, on 318dd57)
S=$CS R=$C
st_seal no_gain ""
expect_rc 0 "the strict child's optional step seals no_gain"
python3 - "$C/ledger.json" <<'PY'
import json, sys
json.dump({"schema_version": 2, "experiments": {}, "final_e2e": {
    "classification": "beneficial", "candidate_id": "Sbest", "scope_strategy": "explicit_candidates",
    "option_config": {"auto_op_parallel": True}, "evidence_artifacts": [],
    "reason_zh": "手写。", "baseline": {"median_ms": 10.0, "sample_count": 5},
    "candidate": {"median_ms": 5.0, "sample_count": 5}, "improvement_pct": 50.0}}, open(sys.argv[1], "w"))
PY
st_seal accepted ""
expect_rc 1 "the strict child refuses a Final sealed from a hand-written final_e2e"
expect_out "strict evidence policy" "the refusal is the strict policy's"
check "the child's Final stays pending" test "$(jpy "$CS" 'd["steps"][-1]["state"]')" = pending
# a reference parent: the child stays reference unless tightened
make_ref_parent() {
	mkdir -p "$1"
	python3 "$FIX" parent "$TUNECTL_BIN" "$1" >/dev/null || echo "# parent fixture failed" >&2
	PR="$1/parent-artifacts" PS="$1/parent-artifacts/auto-tune-session.json"
}
make_ref_parent "$T/p2"
derive_child "$T/c2"
expect_rc 0 "a reference parent derives a child"
check "the child of a reference parent writes no policy key (the reference's document)" \
    test "$(jpy "$CS" '"evidence_policy" in d')" = false
derive_child "$T/c3" --evidence-policy strict
expect_rc 0 "derive-session --evidence-policy strict tightens a reference parent's policy"
expect_eq "$(jpy "$CS" 'd.get("evidence_policy")')" strict "the tightened child is strict"
finish
