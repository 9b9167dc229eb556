#!/usr/bin/env bash
# test_adversary_34.sh - the second worker-as-adversary review (issue 34):
# each section replays one attack and asserts the defence
# (docs/security.md, "The worker as adversary, again").
#   1  strictness lost on derivation; (1b) a strict session that is not
#      derived, its policy deleted from its file before the first seal
#   2  sealed S0 evidence rewritten between dispatch and seal; (2b)
#      evidence of an interrupted seal rewritten before resume
#   3  one symlink opting a run set out of its binding and the attestation
#   5  a derived child's attestation that did not cover the parent
#      evidence it imported
#   6  a provenance record asking for 2 * 10^8 bootstrap resamples
#   7  an envelope with thousands of signatures; the envelope's default
#      place inside the worker-writable root
#   8  a lock replaced by a directory or a FIFO; TUNECTL_ATTEMPT widening
#      what a support run's check skips; a support executor rewriting
#      sealed S0 evidence outside phases/
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/controller_fixtures.sh"
. "$(dirname "$0")/strict_fixtures.sh"

FIX="$TUNECTL_SRC/tests/fixtures/derive/derive_fixture.py"

# st_through_stage_o: seal intake, S0, Stage A and Stage O of the strict
# session $S with genuine evidence.
st_through_stage_o() {
	st_seal succeeded ""
	st_s0
	st_seal succeeded 'produced = ["s0/runset", "s0/stability.json"]'
	st_stage_a
	st_seal accepted 'consumed = ["s0/runset"]; produced = ["stage-a/matrix.json", "stage-a/S1", "stage-a/S2", "stage-a/S3", "stage-a/S4", "stage-a/selection.json"]; result["selected_candidate"] = "S2"'
	st_stage_o
	st_seal accepted 'produced = ["stage-o/O0", "stage-o/O1", "stage-o/O1-trial.json", "stage-o/matrix.json"]'
}

# strict_parent DIR: a completed strict session (mode none) whose BASE
# produced the derivation evidence; sets R and S.
strict_parent() {
	R="$1/artifacts"
	S="$R/auto-tune-session.json"
	tc init --session "$S" --artifact-root "$R" --session-id strict-parent \
	    --optional-mode none --evidence-policy strict
	st_through_stage_o
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
expect_eq "$(python3 -c 'import hashlib, json, os, sys
p = os.path.realpath(sys.argv[1]).encode()
r = json.load(open(os.path.join(os.environ["TUNECTL_STATE_DIR"], "policies", hashlib.sha256(p).hexdigest() + ".json")))
print(r["evidence_policy"], r["recorded_by"])' "$CS")" "strict derive-session" \
    "derive-session records the strict child's policy outside its root"
# before the child's first seal no manifest repeats its policy: the worker
# drops it from the child's own file, and every load refuses the child
cp "$CS" "$T/c1-session.bak"
python3 - "$CS" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d.pop("evidence_policy")
json.dump(d, open(sys.argv[1], "w"), indent=2)
PY
tc verify --session "$CS"
expect_rc 1 "a derived child whose strict policy was dropped from its file does not verify"
expect_out "derived session's evidence_policy reference is looser than its parent's strict evidence policy" \
    "the refusal names the loosening"
S=$CS R=$C st_seal no_gain ""
expect_rc 1 "and nothing of it seals"
check "its optional step stays pending" test "$(jpy "$CS" '[s["state"] for s in d["steps"]][0]')" = pending
cp "$T/c1-session.bak" "$CS"
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

# ---- 1b. a strict session that is not derived keeps its policy too -------------------
# Its policy is recorded outside the artifact root at init; a worker that
# deletes "evidence_policy" from the session file before the first seal
# (when no manifest repeats it) made it a reference session on 93f640d:
# S0 sealed "succeeded" with no evidence and verify said valid.
policy_record_of() {	# the policy record of a session path
	python3 -c 'import hashlib, os, sys
p = os.path.realpath(sys.argv[1]).encode("utf-8", "surrogateescape")
print(os.path.join(os.environ["TUNECTL_STATE_DIR"], "policies", hashlib.sha256(p).hexdigest() + ".json"))' "$1"
}
drop_policy() {
	python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d.pop("evidence_policy", None)
json.dump(d, open(sys.argv[1], "w"), indent=2)
PY
}
R="$T/r1b/artifacts" S="$T/r1b/artifacts/auto-tune-session.json"
tc init --session "$S" --artifact-root "$R" --session-id r1b --optional-mode none --evidence-policy strict
expect_rc 0 "a strict session is initialised"
PREC=$(policy_record_of "$S")
check "init records the strict policy outside the artifact root" test -f "$PREC"
expect_eq "$(jpy "$PREC" '" ".join((d["evidence_policy"], d["session_id"], d["recorded_by"], d["session_path"]))')" \
    "strict r1b init $(realpath "$S")" "the record names the policy, the session and its path"
check "nothing new is written inside the root" test "$(cd "$R" && find . -type f ! -name '*.lock' | sort | tr '\n' ' ')" = "./auto-tune-session.json "
tc status --session "$S"
expect_rc 0 "status of the strict session"
expect_out "  evidence policy record $PREC says strict (written by init)" "status names the record and that it says strict"
tc verify --session "$S"
expect_rc 0 "the strict session verifies"
expect_eq "$(grep -c "policy record" <<<"$err")" 0 "verify says nothing of a record that is there"
cp "$S" "$T/r1b-session.bak"
drop_policy "$S"
tc verify --session "$S"
expect_rc 1 "a strict session whose policy was dropped from its file does not verify"
expect_out "evidence policy of session $S recorded at init is strict; the session file says reference" \
    "the refusal names the recorded policy and the session file"
expect_out "put \\\"evidence_policy\\\": \\\"strict\\\" back in $S" "and the fix"
# the attack: the first seal runs under the reference's checks, and its
# manifest then says "reference" for good
st_seal succeeded ""
expect_rc 1 "no seal runs under the reference's weaker checks"
expect_out "recorded at init is strict" "the seal gives the same reason"
check "intake stays pending" test "$(jpy "$S" '[s["state"] for s in d["steps"]][0]')" = pending
for cmd in dispatch status resume; do
	case $cmd in
	dispatch) tc dispatch --session "$S" --output "$T/r1b-task.json" ;;
	*) tc "$cmd" --session "$S" ;;
	esac
	expect_rc 1 "$cmd refuses the downgraded session"
	out="$out $err" expect_out "recorded at init is strict" "$cmd names the recorded policy"
done
check "dispatch wrote no task" test ! -e "$T/r1b-task.json"
python3 - "$S" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d["evidence_policy"] = "reference"
json.dump(d, open(sys.argv[1], "w"), indent=2)
PY
tc verify --session "$S"
expect_rc 1 "an explicit \"reference\" is refused the same way"
cp "$T/r1b-session.bak" "$S"
st_seal succeeded ""
expect_rc 0 "with the policy put back intake seals, under the strict policy"
st_seal succeeded ""
expect_rc 1 "and S0 claiming success with no evidence is refused"
expect_out "strict evidence policy" "by the strict policy's checks"
cp "$S" "$T/r1b-session.bak"
# an unreadable record fails closed for a file that says reference
cp "$PREC" "$T/r1b-record.bak"
echo "not json" >"$PREC"
drop_policy "$S"
tc verify --session "$S"
expect_rc 1 "an unreadable record does not let a reference file through"
expect_out "evidence policy record $PREC of session $S cannot be read" "it names the record"
cp "$T/r1b-session.bak" "$S"
tc verify --session "$S"
expect_rc 0 "a strict file loads whatever its record holds"
cp "$T/r1b-record.bak" "$PREC"
# a new reference session at the path of a removed strict one
rm -rf "$R"
tc init --session "$S" --artifact-root "$R" --session-id r1b-new --optional-mode none
expect_rc 0 "a reference session is initialised where a strict one was"
check "its init removed the strict session's record" test ! -e "$PREC"
tc verify --session "$S"
expect_rc 0 "and the new reference session verifies"
# the documented limit: a session moved to another path has no record
R="$T/r1c/artifacts" S="$T/r1c/artifacts/auto-tune-session.json"
tc init --session "$S" --artifact-root "$R" --session-id r1c --optional-mode none --evidence-policy strict
mkdir -p "$T/r1c-moved"
cp "$S" "$T/r1c-moved/auto-tune-session.json"
drop_policy "$T/r1c-moved/auto-tune-session.json"
tc verify --session "$T/r1c-moved/auto-tune-session.json"
expect_rc 0 "a copy at another path has no record and is checked as before (docs/security.md)"
# a strict session with no record says so: one line, not a failure
mkdir -p "$T/r1c-kept"
cp "$S" "$T/r1c-kept/auto-tune-session.json"
MREC=$(policy_record_of "$T/r1c-kept/auto-tune-session.json")
tc verify --session "$T/r1c-kept/auto-tune-session.json"
expect_rc 0 "a strict copy at another path verifies"
expect_err "tunectl verify: no evidence policy record at $MREC (session made by an older tunectl or the reference, or moved from another path)" \
    "verify says the strict session has no policy record"
expect_eq "$(grep -c 'policy record' <<<"$err")" 1 "in one line"
tc status --session "$T/r1c-kept/auto-tune-session.json"
expect_rc 0 "status of a strict session without a record"
expect_out "  no evidence policy record at $MREC" "status says it has none"
TUNECTL_STATE_DIR= XDG_STATE_HOME= HOME= tc verify --session "$S"
expect_rc 0 "a strict session verifies with no state directory"
expect_err "tunectl verify: no evidence policy record (no state directory to keep one in)" "and says there is no record"
# a strict session whose policy cannot be recorded is not made
TUNECTL_STATE_DIR=/dev/null/state tc init --session "$T/r1e/s.json" --artifact-root "$T/r1e/artifacts" \
    --session-id r1e --optional-mode none --evidence-policy strict
expect_rc 1 "strict init refuses when its policy cannot be recorded outside the root"
expect_out "cannot record the evidence policy outside the artifact root (set TUNECTL_STATE_DIR to a writable directory)" \
    "naming the fix"
check "and writes no session" test ! -e "$T/r1e/s.json"
# a reference session gets no record
R="$T/r1d/artifacts" S="$T/r1d/artifacts/auto-tune-session.json"
tc init --session "$S" --artifact-root "$R" --session-id r1d --optional-mode none
check "a reference-policy session gets no policy record" test ! -e "$(policy_record_of "$S")"
tc status --session "$S"
expect_eq "$(grep -c "policy record" <<<"$out")" 0 "status of a reference session says nothing of a policy record"
tc verify --session "$S"
expect_eq "$(grep -c "policy record" <<<"$err")" 0 "nor does its verify"

# ---- 5. a derived session's attestation covers the parent evidence it imported ----------
make_ref_parent "$T/p5"
derive_child "$T/c5"
expect_rc 0 "a child is derived for the attestation"
tc keygen --out "$T/keys5/k"
tc attest --session "$CS" --key "$T/keys5/k"
expect_rc 0 "attest signs the derived child"
A5=$C.attestation.dsse.json
M5=$C/imports/evidence-import.json
# every parent file the import binds is a subject, with the digest the
# import recorded (not only the import manifest itself)
check "the child's attestation names the imported parent evidence with its import digests" python3 - "$A5" "$M5" <<'PY'
import base64, json, os, sys
env = json.load(open(sys.argv[1])); m = json.load(open(sys.argv[2]))
subj = {s["name"]: s["digest"]["sha256"] for s in json.loads(base64.b64decode(env["payload"]))["subject"]}
root = m["parent"]["artifact_root"]
want = {os.path.join(root, m["parent"]["session_path"]): m["parent"]["session_sha256"],
        os.path.join(root, m["base_handoff"]["result_path"]): m["base_handoff"]["file_sha256"]}
for d in m["artifacts"].values():
    want[os.path.join(root, d["path"])] = d["sha256"]
missing = {k: v for k, v in want.items() if subj.get(k) != v}
print("missing or different:", missing, file=sys.stderr)
sys.exit(1 if missing or len(want) < 4 else 0)
PY
tc verify --session "$CS" --attestation "$A5" --pubkey "$T/keys5/k.pub"
expect_rc 0 "the untouched child verifies against its attestation"
# the parent's imported ledger is rewritten after the child was attested:
# the attestation itself names it (on 318dd57 only the re-validation of
# the import noticed, as a session error)
LEDGER5=$PR/evidence/experiment-ledger.json
printf ' ' >>"$LEDGER5"
tc verify --session "$CS" --attestation "$A5" --pubkey "$T/keys5/k.pub"
expect_rc 1 "a rewritten imported parent artifact fails verify --attestation"
expect_out "attestation subject changed: $LEDGER5" "the attestation names the parent's file as its own subject"
# the attack as the review ran it: the parent's sealed S0 result and its
# Final ledger are rewritten after the child was derived and attested (the
# parent session's bytes, which the child digest-binds, unchanged); on
# 318dd57 the child's verify and verify --attestation both passed
make_ref_parent "$T/p5b"
derive_child "$T/c5b"
expect_rc 0 "a second child is derived"
tc attest --session "$CS" --key "$T/keys5/k"
expect_rc 0 "and attested"
A5B=$C.attestation.dsse.json
tc verify --session "$CS" --attestation "$A5B" --pubkey "$T/keys5/k.pub"
expect_rc 0 "the second child verifies against its attestation before the parent is touched"
parent_before=$(sha256sum "$PS" | cut -d" " -f1)
S0R5=$PR/$(jpy "$PS" '[s["result_path"] for s in d["steps"] if s["step_id"] == "s0-baseline"][0]')
FINR5=$PR/$(jpy "$PS" '[s["result_path"] for s in d["steps"] if s["step_id"] == "final-e2e-report"][0]')
FLEDGER5=$PR/$(jpy "$FINR5" 'd["ledger_path"]')
check "the parent's Final names a ledger" test -f "$FLEDGER5"
python3 - "$S0R5" "$FLEDGER5" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["summary"] = "S0 rewritten after the child was derived"
json.dump(r, open(sys.argv[1], "w"), indent=2, sort_keys=True)
l = json.load(open(sys.argv[2]))
if isinstance(l.get("final_e2e"), dict):
    l["final_e2e"]["improvement_pct"] = 99.0
else:
    l["rewritten"] = True
json.dump(l, open(sys.argv[2], "w"), indent=2, sort_keys=True)
PY
expect_eq "$(sha256sum "$PS" | cut -d" " -f1)" "$parent_before" "the parent session's bytes are unchanged"
tc verify --session "$CS"
expect_rc 1 "the child's plain verify (no --deep) fails"
expect_out "parent session is invalid" "it says the parent is invalid"
tc verify --session "$CS" --attestation "$A5B" --pubkey "$T/keys5/k.pub"
expect_rc 1 "the child's verify --attestation (no --deep) fails too"
expect_out "parent session is invalid" "with the parent's verdict"

# ---- 6. recomputation is bounded: at most 10^7 bootstrap resamples ---------------------
ask_2e8() {	# ask_2e8 PROVENANCE STATUS PY WHAT: the record asks for 2*10^8; the seal refuses at once
	local t0 t1
	python3 - "$1" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p["bootstrap_resamples"] = 200000000
json.dump(p, open(sys.argv[1], "w"))
PY
	t0=$(date +%s)
	st_seal "$2" "$3"
	t1=$(date +%s)
	expect_rc 1 "$4 asking for 2*10^8 resamples is refused"
	expect_out "gate provenance asks for 200000000 bootstrap resamples; at most 10000000 can be recomputed" \
	    "$4: the refusal names the count and the limit"
	check "$4: the refusal is prompt (under 5 s)" test $((t1 - t0)) -lt 5
}
R="$T/r6/artifacts" S="$T/r6/artifacts/auto-tune-session.json"
tc init --session "$S" --artifact-root "$R" --session-id r6 --optional-mode none --evidence-policy strict
st_seal succeeded ""
st_s0
ask_2e8 "$R/s0/stability.json.provenance.json" succeeded 'produced = ["s0/runset", "s0/stability.json"]' \
    "S0's stability provenance"
# a gate that does bootstrap (Stage A's screening): on 318dd57 recomputing
# this 1 KB record at 2*10^8 took 269 s and 3.1 GB before it was refused
R="$T/r6b/artifacts" S="$T/r6b/artifacts/auto-tune-session.json"
tc init --session "$S" --artifact-root "$R" --session-id r6b --optional-mode none --evidence-policy strict
st_seal succeeded ""
st_s0
st_seal succeeded 'produced = ["s0/runset", "s0/stability.json"]'
st_stage_a
ask_2e8 "$R/stage-a/selection.json.provenance.json" accepted \
    'consumed = ["s0/runset"]; produced = ["stage-a/matrix.json", "stage-a/S1", "stage-a/S2", "stage-a/S3", "stage-a/S4", "stage-a/selection.json"]; result["selected_candidate"] = "S2"' \
    "Stage A's screening provenance"

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
refused_32k() {	# refused_32k ENVELOPE WHAT: verify refuses 32,000 signatures at once
	local t0 t1
	t0=$(date +%s)
	tc verify --session "$S" --attestation "$1" --pubkey "$T/keys/k.pub"
	t1=$(date +%s)
	expect_rc 1 "$2 is refused"
	expect_out "attestation has 32000 signatures; at most 16 are checked" "$2: the refusal names the count"
	check "$2: the refusal is prompt (under 5 s)" test $((t1 - t0)) -lt 5
}
many_sigs 32000 "$T/a32k.json"
refused_32k "$T/a32k.json" "an envelope with 32,000 signatures"
# the review's numbers: 32,000 bogus signatures on an 8 MB payload
python3 - "$A" "$T/a8m.json" <<'PY'
import base64, json, os, sys
env = json.load(open(sys.argv[1]))
env["payload"] = base64.b64encode(os.urandom(8 << 20)).decode()
env["signatures"] = [{"keyid": env["signatures"][0]["keyid"], "sig": "A" * 86 + "=="}] * 32000
json.dump(env, open(sys.argv[2], "w"))
PY
refused_32k "$T/a8m.json" "32,000 signatures on an 8 MB payload"
# the sidecar the attestation covered cannot be deleted unnoticed
SC7=$(python3 -c '
import base64, json, sys
st = json.loads(base64.b64decode(json.load(open(sys.argv[1]))["payload"]))
print(*[s["name"] for s in st["subject"] if "/sidecars/" in s["name"]])' "$A")
check "the reference session's sidecar is a subject of its attestation" test -f "$SC7"
mv "$SC7" "$T/sidecar7.bak"
tc verify --session "$S" --attestation "$A" --pubkey "$T/keys/k.pub"
expect_rc 1 "a deleted sidecar fails verify --attestation"
expect_out "attestation subject is missing: $SC7" "naming the sidecar"
tc attest --session "$S" --key "$T/keys/k" --output "$T/a7-nosidecar.json"
expect_err "tunectl attest: artifacts unbound:" "attest says what its signature no longer binds"
mv "$T/sidecar7.bak" "$SC7"
# ---- 8. locks, and support runs held to sealed evidence ---------------------------------
R="$T/r8/artifacts" S="$T/r8/artifacts/auto-tune-session.json"
tc init --session "$S" --artifact-root "$R" --session-id r8 --optional-mode multistream
ctl_result "$T/r8-intake.json"
rm -rf "$S.lock"
mkdir "$S.lock"
tc seal --session "$S" --result "$T/r8-intake.json"
expect_rc 1 "a lock replaced by a directory: seal refuses"
expect_out "lock file '$S.lock' is a directory, not a regular file; tunectl creates it as one: remove it (rm -r '$S.lock')" \
    "one message names the lock, what it is, and the fix"
check "not the bare errno text" bash -c '! grep -q "Errno 21" <<<"$1"' _ "$out"
rmdir "$S.lock"
mkfifo "$S.lock"
t0=$(date +%s)
tc seal --session "$S" --result "$T/r8-intake.json"
t1=$(date +%s)
expect_out "lock file '$S.lock' is a FIFO, not a regular file" "a FIFO as the lock: named, promptly"
check "the FIFO lock does not block (under 5 s)" test $((t1 - t0)) -lt 5
rm "$S.lock"
tc seal --session "$S" --result "$T/r8-intake.json"
expect_rc 0 "once the planted lock is removed the seal succeeds"

# S0 produces a run set outside phases/; then Stage A, O and BASE
mkdir -p "$R/s0"
echo "10.0 10.1 10.2" >"$R/s0/runset.txt"
ctl_seal "" 'result["produced_artifacts"] = ["s0/runset.txt"]'
expect_rc 0 "S0 seals with its run set in s0/"
for _ in 1 2 3; do ctl_seal; done
expect_eq "$(jpy "$S" '[s["step_id"] for s in d["steps"] if s["state"] == "pending"][0]')" optional-experiments \
    "the multistream optional step (an executor may serve it) is next"
FAKE=$TUNECTL_SRC/tests/fixtures/hosts/fake_support.py
support_host() {	# support_host NAME BODY: the fake support worker, then BODY
	printf '#!/bin/sh\n/usr/bin/python3 "%s" ok "$@" || exit 9\n%s\n' "$FAKE" "$2" >"$T/$1"
	chmod +x "$T/$1"
	printf '["%s"]\n' "$T/$1" >"$T/$1.json"
}
support_host rewrite-s0.sh "echo '20.0 20.2 20.4' >'$R/s0/runset.txt'"
cp "$R/s0/runset.txt" "$T/runset.bak"
tc support run --session "$S" --role sk-multistream-tuning-executor --runner-command-json "$T/rewrite-s0.sh.json"
expect_rc 1 "an executor that rewrites sealed S0 evidence outside phases/ is refused"
expect_err "changed protected evidence: s0/runset.txt" "the refusal names the sealed file"
cp "$T/runset.bak" "$R/s0/runset.txt"
support_host notes.sh "echo notes >'$R/notes.txt'"
tc support run --session "$S" --role sk-multistream-tuning-executor --runner-command-json "$T/notes.sh.json"
expect_rc 0 "an executor may still change what no sealed step binds"
# a read-only analyst that writes where TUNECTL_ATTEMPT points
mkdir -p "$R/cover"
support_host cover.sh "echo changed >'$R/cover/runner.stdout.log'"
TUNECTL_ATTEMPT=$R/cover tc support run --session "$S" --role sk-failure-isolation-analyst \
    --runner-command-json "$T/cover.sh.json"
expect_rc 1 "TUNECTL_ATTEMPT set by the caller does not widen what the read-only check skips"
expect_err "cover/runner.stdout.log" "the write is named"
# the review's exact case: a source-range executor rewrites S0's sealed run
# set outside phases/ (on 318dd57 its support run passed)
R="$T/r8s/artifacts" S="$T/r8s/artifacts/auto-tune-session.json"
tc init --session "$S" --artifact-root "$R" --session-id r8s --optional-mode source-range
ctl_seal
mkdir -p "$R/s0"
echo "10.0 10.1 10.2" >"$R/s0/runset.txt"
ctl_seal "" 'result["produced_artifacts"] = ["s0/runset.txt"]'
next_pending() { jpy "$S" '[s["step_id"] for s in d["steps"] if s["state"] == "pending"][0]'; }
for _ in 1 2 3 4 5; do
	[ "$(next_pending)" = optional-experiments ] && break
	ctl_seal
done
expect_eq "$(next_pending)" optional-experiments "the optional step of the source-range mode is next"
support_host rewrite-s0b.sh "echo '20.0 20.2 20.4' >'$R/s0/runset.txt'"
tc support run --session "$S" --role sk-source-range-experiment-executor --runner-command-json "$T/rewrite-s0b.sh.json"
expect_rc 1 "a source-range executor that rewrites sealed S0 evidence outside phases/ is refused"
expect_err "changed protected evidence: s0/runset.txt" "the refusal names the sealed file"
# ---- 2. every seal re-checks earlier sealed evidence ---------------------------------
# strict: the Final's worker doubles S0's times, re-runs gate stability so
# S0's report matches, computes final_e2e against the rewritten S0 and
# seals through its task's handoff (on 318dd57: sealed "accepted").
R="$T/r2/artifacts" S="$T/r2/artifacts/auto-tune-session.json"
tc init --session "$S" --artifact-root "$R" --session-id r2 --optional-mode none --evidence-policy strict
st_through_stage_o
st_seal succeeded 'consumed = ["stage-o/matrix.json"]'
st_seal not_requested ""
tc dispatch --session "$S" --output "$T/final-task.json"
expect_rc 0 "the Final is dispatched"
rm -rf "$R/s0/runset"
st_runset s0/runset 5 20.0 20.2 20.4 20.2 20.0
st_gate stability s0/stability.json --baseline "$R/s0/runset"
st_final
st_result "$T/final-result.json" accepted 'consumed = ["s0/runset"]; produced = ["final/candidate", "final/option-config.json"]'
# the worker seals through its task's own handoff.seal_command
mapfile -t SEALCMD < <(python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))
for a in t["handoff"]["seal_command"]:
    print(sys.argv[2] if a == "<phase-result.json>" else a)' "$T/final-task.json" "$T/final-result.json")
expect_eq "${SEALCMD[*]:1}" "seal --session $S --result $T/final-result.json" "the task's seal command seals this session"
check "the task's seal command runs this tunectl" test "${SEALCMD[0]}" -ef "$TUNECTL_BIN"
out=$("${SEALCMD[@]}" 2>&1 </dev/null); rc=$?
expect_rc 1 "the task's seal command refuses a Final over an S0 run set rewritten since S0 was sealed"
expect_out "bound artifact changed since s0-baseline was sealed: s0/runset" "the refusal names the rewritten file"
check "the Final stays pending" test "$(jpy "$S" 'd["steps"][-1]["state"]')" = pending
check "no FINAL_E2E_REPORT.md is written" test ! -e "$R/FINAL_E2E_REPORT.md"

# reference policy, through run-next: a host that rewrites S0's sealed
# evidence before it writes an honest result
R="$T/r2b/artifacts" S="$T/r2b/artifacts/auto-tune-session.json"
tc init --session "$S" --artifact-root "$R" --session-id r2b --optional-mode none
ctl_seal
mkdir -p "$R/s0"
echo "10.0 10.1" >"$R/s0/runset.txt"
ctl_seal "" 'result["produced_artifacts"] = ["s0/runset.txt"]'
cat >"$T/rewrite-host.sh" <<SH
#!/bin/sh
echo "20.0 20.2" >"$R/s0/runset.txt"
exec /usr/bin/python3 "$TUNECTL_SRC/tests/fixtures/hosts/fake_host.py" ok "\$@"
SH
chmod +x "$T/rewrite-host.sh"
printf '["%s"]\n' "$T/rewrite-host.sh" >"$T/rewrite-host.json"
tc run-next --session "$S" --runner-command-json "$T/rewrite-host.json"
expect_rc 1 "run-next refuses to seal after its host rewrote sealed S0 evidence"
expect_out "bound artifact changed since s0-baseline was sealed: s0/runset.txt" "the refusal names the file"
check "Stage A stays pending" test "$(jpy "$S" '[s["state"] for s in d["steps"]][2]')" = pending
tc verify --session "$S"
expect_rc 1 "verify also names the rewritten evidence"
# each artifact is hashed once per seal: S0's run set, bound by S0 and
# consumed by Stage A, is opened once by the seal of Stage A
echo "10.0 10.1" >"$R/s0/runset.txt"
ctl_result "$T/stage-a.json" "" 'result["consumed_artifacts"] = ["s0/runset.txt"]'
if command -v strace >/dev/null 2>&1; then
	strace -f -e trace=open,openat -o "$T/seal.trace" "$TUNECTL_BIN" seal --session "$S" \
	    --result "$T/stage-a.json" >/dev/null 2>&1
	expect_eq "$(grep -c 's0/runset.txt"' "$T/seal.trace")" 1 \
	    "the seal hashes S0's run set once though two steps bind it"
	expect_eq "$(jpy "$S" '[s["state"] for s in d["steps"]][2]')" sealed "and Stage A is sealed"
else
	skip "strace is not installed"
fi
# ---- 3. nothing produced is unbound: links are bound by what they are -------------
R="$T/r3/artifacts" S="$T/r3/artifacts/auto-tune-session.json"
tc init --session "$S" --artifact-root "$R" --session-id r3 --optional-mode none
ctl_seal
mkdir -p "$R/s0/runset"
echo "10.0 10.1" >"$R/s0/runset/rank0.log"
ln -s nowhere "$R/s0/runset/dangling"
ln -s ../missing-target "$R/s0/latest"
ctl_seal "" 'result["produced_artifacts"] = ["s0/runset", "s0/latest", "s0/never-written.json"]'
expect_rc 0 "S0 seals under the reference policy"
sidecar_manifest "$S" s0-baseline >"$T/r3-manifest.json"
expect_eq "$(jpy "$T/r3-manifest.json" '[(a["path"], a["kind"]) for a in d["artifacts"]]')" \
    '[["s0/latest", "symlink"], ["s0/never-written.json", "missing"], ["s0/runset", "tree"]]' \
    "a run set holding a dangling link is bound as a tree; a dangling link by its text"
tc keygen --out "$T/keys3/k"
tc attest --session "$S" --key "$T/keys3/k" --output "$T/a3.json"
expect_rc 0 "attest signs the session"
expect_err "tunectl: attest: not bound: s0-baseline: s0/never-written.json was missing when it was sealed" \
    "and names on stderr what its signature cannot cover"
expect_eq "$(python3 -c '
import base64, json, sys
env = json.load(open(sys.argv[1]))
st = json.loads(base64.b64decode(env["payload"]))
print(sorted(s["name"] for s in st["subject"] if s["name"].startswith("s0/")))' "$T/a3.json")" \
    "['s0/latest', 's0/runset']" "the attestation signs the tree and the link"
tc verify --session "$S"
expect_rc 0 "the session verifies"
expect_err "not bound: s0-baseline: s0/never-written.json was missing when it was sealed" \
    "verify names the entry that was missing when sealed"
tc status --session "$S"
expect_out "s0/never-written.json was missing when it was sealed" "status names it too"
echo "20.0 20.2" >"$R/s0/runset/rank0.log"
tc verify --session "$S"
expect_rc 1 "rewriting a file of the run set that holds a link is noticed"
expect_out "bound artifact changed since s0-baseline was sealed: s0/runset" "verify names the run set"
tc verify --session "$S" --attestation "$T/a3.json" --pubkey "$T/keys3/k.pub"
expect_rc 1 "and the attestation no longer verifies"
echo "10.0 10.1" >"$R/s0/runset/rank0.log"
rm "$R/s0/latest"
ln -s ../elsewhere "$R/s0/latest"
tc verify --session "$S" --attestation "$T/a3.json" --pubkey "$T/keys3/k.pub"
expect_rc 1 "a dangling link pointed elsewhere is noticed"
expect_out "s0/latest" "the link is named"
# strict sessions refuse a link in evidence, naming it
R="$T/r3s/artifacts" S="$T/r3s/artifacts/auto-tune-session.json"
tc init --session "$S" --artifact-root "$R" --session-id r3s --optional-mode none --evidence-policy strict
st_seal succeeded ""
st_s0
ln -s nowhere "$R/s0/runset/dangling"
st_seal succeeded 'produced = ["s0/runset", "s0/stability.json"]'
expect_rc 1 "a strict seal refuses a run set holding a link"
expect_out "strict evidence policy: s0-baseline names s0/runset, which is or holds a symbolic link or special file (s0/runset/dangling)" \
    "the refusal names the run set and the link"
# ---- 2b. resume names the evidence an interrupted seal can no longer bind -------------
# A seal of S0 is interrupted after its intent record and scene were
# written (the session is put back as it was); the worker then rewrites
# the run set that seal bound.  Resume must not complete the seal over
# the new bytes, and must say why (on 93f640d it exited 0 and said
# nothing, leaving S0 pending).
R="$T/r2c/artifacts" S="$T/r2c/artifacts/auto-tune-session.json"
tc init --session "$S" --artifact-root "$R" --session-id r2c --optional-mode none
ctl_seal
mkdir -p "$R/s0"
echo "10.0 10.1" >"$R/s0/runset.txt"
ctl_result "$T/r2c-s0.json" "" 'result["produced_artifacts"] = ["s0/runset.txt"]'
cp "$S" "$T/r2c-pre.json"
tc seal --session "$S" --result "$T/r2c-s0.json"
expect_rc 0 "S0 seals (reference policy)"
cp "$T/r2c-pre.json" "$S"
echo "5.0 5.1" >"$R/s0/runset.txt"
tc resume --session "$S"
expect_rc 1 "resume refuses to complete an interrupted seal over rewritten evidence"
expect_out "session cannot be resumed: cannot complete the interrupted seal of s0-baseline: s0/runset.txt changed since that seal began (an interrupted seal is completed only over the evidence it bound)" \
    "the refusal names the step, the changed file and the rule"
expect_out "put s0/runset.txt back as it was, or move phases/s0-baseline/ out of the artifact root" \
    "and the way out"
check "S0 stays pending" test "$(jpy "$S" '[s["state"] for s in d["steps"]][1]')" = pending
# the way out works: the bytes put back, resume completes the seal
echo "10.0 10.1" >"$R/s0/runset.txt"
tc resume --session "$S"
expect_rc 0 "with the run set put back resume completes the seal"
expect_err "resume completed an interrupted seal" "and says so"
check "S0 is sealed" test "$(jpy "$S" '[s["state"] for s in d["steps"]][1]')" = sealed
# the other way out: the scene moved aside, the step is sealed again
cp "$T/r2c-pre.json" "$S"
echo "5.0 5.1" >"$R/s0/runset.txt"
mv "$R/phases/s0-baseline" "$T/r2c-moved-scene"
ctl_seal "" 'result["produced_artifacts"] = ["s0/runset.txt"]'
expect_rc 0 "with the scene moved aside the step seals again over the new run set"
tc verify --session "$S"
expect_rc 0 "and the session verifies"
# strict: the intent record is the scene's artifact-manifest.json
R="$T/r2d/artifacts" S="$T/r2d/artifacts/auto-tune-session.json"
tc init --session "$S" --artifact-root "$R" --session-id r2d --optional-mode none --evidence-policy strict
st_seal succeeded ""
st_s0
echo "S0 on an idle machine" >"$R/s0/notes.txt"
st_result "$T/r2d-s0.json" succeeded 'produced = ["s0/runset", "s0/stability.json", "s0/notes.txt"]'
cp "$S" "$T/r2d-pre.json"
tc seal --session "$S" --result "$T/r2d-s0.json"
expect_rc 0 "S0 seals (strict policy)"
cp "$T/r2d-pre.json" "$S"
echo "S0 on a busy machine" >"$R/s0/notes.txt"
tc resume --session "$S"
expect_rc 1 "a strict resume refuses too"
expect_out "cannot complete the interrupted seal of s0-baseline: s0/notes.txt changed since that seal began" \
    "naming the rewritten file"
tc seal --session "$S" --result "$R/phases/s0-baseline/phase-result.json"
expect_rc 1 "sealing the scene's own result is refused the same way"
expect_out "s0/notes.txt changed since that seal began" "with the same message"
check "the strict S0 stays pending" test "$(jpy "$S" '[s["state"] for s in d["steps"]][1]')" = pending
finish
