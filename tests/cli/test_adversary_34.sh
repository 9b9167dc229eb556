#!/usr/bin/env bash
# test_adversary_34.sh - the second worker-as-adversary review (issue 34):
# each section replays one attack and asserts the defence
# (docs/security.md, "The worker as adversary, again").
#   1  strictness lost on derivation
#   6  a provenance record asking for 2 * 10^8 bootstrap resamples
#   7  an envelope with thousands of signatures; the envelope's default
#      place inside the worker-writable root
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

# ---- 6. recomputation is bounded: at most 10^7 bootstrap resamples ---------------------
R="$T/r6/artifacts" S="$T/r6/artifacts/auto-tune-session.json"
tc init --session "$S" --artifact-root "$R" --session-id r6 --optional-mode none --evidence-policy strict
st_seal succeeded ""
st_s0
python3 - "$R/s0/stability.json.provenance.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p["bootstrap_resamples"] = 200000000
json.dump(p, open(sys.argv[1], "w"))
PY
t0=$(date +%s)
st_seal succeeded 'produced = ["s0/runset", "s0/stability.json"]'
t1=$(date +%s)
expect_rc 1 "a provenance record asking for 2*10^8 resamples is refused"
expect_out "gate provenance asks for 200000000 bootstrap resamples; at most 10000000 can be recomputed" \
    "the refusal names the count and the limit"
check "the refusal is prompt (under 5 s)" test $((t1 - t0)) -lt 5

# ---- 7. attestations: at most 16 signatures, the envelope outside the root -------------
R="$T/r7/artifacts" S="$T/r7/artifacts/auto-tune-session.json"
tc init --session "$S" --artifact-root "$R" --session-id r7 --optional-mode none
ctl_seal
tc keygen --out "$T/keys/k"
tc attest --session "$S" --key "$T/keys/k"
expect_rc 0 "attest signs"
expect_out "\"attestation\": \"$R.attestation.dsse.json\"" "the envelope goes beside the root by default"
check "no envelope inside the worker-writable root" test -z "$(find "$R" -name '*.dsse.json')"
A=$R.attestation.dsse.json
many_sigs() {	# many_sigs N OUT: N copies of the one signature, the real one last
	python3 - "$A" "$1" "$2" <<'PY'
import json, sys
env = json.load(open(sys.argv[1]))
good = env["signatures"][0]
bogus = {"keyid": good["keyid"], "sig": "A" * 86 + "=="}
env["signatures"] = [bogus] * (int(sys.argv[2]) - 1) + [good]
json.dump(env, open(sys.argv[3], "w"))
PY
}
many_sigs 16 "$T/a16.json"
tc verify --session "$S" --attestation "$T/a16.json" --pubkey "$T/keys/k.pub"
expect_rc 0 "an envelope with 16 signatures, the good one last, verifies"
many_sigs 32000 "$T/a32k.json"
t0=$(date +%s)
tc verify --session "$S" --attestation "$T/a32k.json" --pubkey "$T/keys/k.pub"
t1=$(date +%s)
expect_rc 1 "an envelope with 32,000 signatures is refused"
expect_out "attestation has 32000 signatures; at most 16 are checked" "the refusal names the count"
check "the refusal is prompt (under 5 s)" test $((t1 - t0)) -lt 5
finish
