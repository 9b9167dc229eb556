#!/usr/bin/env bash
# test_forged_scenes.sh - a worker that writes where the controller writes
# cannot decide a later phase (issue 17, item 3) nor quietly move the
# artifact root (issue 17, item 11):
#
#   * resume completes an interrupted seal only when tunectl wrote the
#     scene: the step's artifact manifest (written first, before the
#     session) names the session state it was sealed over and the result;
#     a bare phase-result.json planted for a later step is not adopted;
#   * the artifact_root a session names must be the one its sealed steps
#     were sealed under; an edited root is refused by every command that
#     reads the session's evidence or writes more of it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/controller_fixtures.sh"

# pretty RESULT OUT: the file a seal writes for RESULT
pretty() {
	python3 -c 'import json,sys; open(sys.argv[2],"w").write(json.dumps(json.load(open(sys.argv[1])), ensure_ascii=False, indent=2, sort_keys=True) + "\n")' "$1" "$2"
}

# ---- a result planted for the next step is not adopted by resume
ctl_init "$T/plant" none
ctl_seal
expect_rc 0 "intake is sealed"
ctl_result "$T/forged-s0.json" succeeded
mkdir -p "$R/phases/s0-baseline"
pretty "$T/forged-s0.json" "$R/phases/s0-baseline/phase-result.json"
before=$(sha_file "$S")
tc resume --session "$S"
expect_rc 0 "resume over a planted scene still answers"
check "resume leaves the planted step pending" \
    test "$(jpy "$S" 'd["steps"][1]["state"]')" = pending
check "resume does not rewrite the session over a planted scene" \
    test "$(sha_file "$S")" = "$before"
expect_out '"step_id": "s0-baseline"' "resume names the planted step as the next one"
expect_err "not written by tunectl" "resume says the scene is not tunectl's"
expect_err "phases/s0-baseline/phase-result.json" "resume names the planted file"
tc verify --session "$S"
expect_rc 0 "the session without the planted step verifies"
ctl_result "$T/honest-s0.json" blocked
tc seal --session "$S" --result "$T/honest-s0.json"
expect_rc 1 "sealing another result over a planted scene is refused"
expect_out "current step is already sealed: s0-baseline" "with the reference's message"
tc seal --session "$S" --result "$R/phases/s0-baseline/phase-result.json"
expect_rc 0 "the operator can still adopt the scene on purpose"

# A planted scene with a manifest that names another session state is no
# better: the intent must be for the session as it is on disk.
ctl_init "$T/plant2" none
ctl_seal
ctl_seal
expect_rc 0 "intake and S0 seal"
ctl_result "$T/a.json" accepted
mkdir -p "$R/phases/stage-a-scope-selection"
pretty "$T/a.json" "$R/phases/stage-a-scope-selection/phase-result.json"
python3 - "$R/phases/s0-baseline/artifact-manifest.json" \
    "$R/phases/stage-a-scope-selection/artifact-manifest.json" "$T/a.json" <<'PY'
import hashlib, json, sys
m = json.load(open(sys.argv[1]))
r = json.load(open(sys.argv[3]))
m["step_id"] = "stage-a-scope-selection"
m["result_sha256"] = hashlib.sha256(json.dumps(r, ensure_ascii=False, sort_keys=True,
    separators=(",", ":")).encode()).hexdigest()
open(sys.argv[2], "w").write(json.dumps(m, indent=2, sort_keys=True) + "\n")
PY
tc resume --session "$S"
expect_rc 0 "resume over a scene sealed over another session state answers"
check "a scene sealed over another session state is not adopted" \
    test "$(jpy "$S" 'd["steps"][2]["state"]')" = pending
expect_err "not written by tunectl" "resume says why it did not adopt it"

# ---- the interrupted seal tunectl wrote itself is still completed
ctl_init "$T/crash" none
ctl_seal
ctl_result "$T/s0c.json" succeeded
cp "$S" "$T/pre.json"
tc seal --session "$S" --result "$T/s0c.json"
cp "$T/pre.json" "$S"
tc resume --session "$S"
expect_rc 0 "resume completes tunectl's own interrupted seal"
expect_err "resume completed an interrupted seal" "and says so"
check "the interrupted step is sealed" test "$(jpy "$S" 'd["steps"][1]["state"]')" = sealed
sidecar_manifest "$S" s0-baseline >"$T/s0.manifest"
check "the step binds its artifact manifest in the sidecar" \
    test "$(jpy "$T/s0.manifest" 'd["step_id"]')" = s0-baseline
check "and the session document stays the reference's" \
    test "$(jpy "$S" '"artifact_manifest_path" in d["steps"][1]')" = false

# ---- the artifact root is the one the sealed steps were sealed under
ctl_init "$T/moved" none
ctl_seal
ctl_seal
mkdir -p "$T/elsewhere"
python3 - "$S" "$T/elsewhere" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["artifact_root"] = sys.argv[2]
open(sys.argv[1], "w").write(json.dumps(d, ensure_ascii=False, indent=2, sort_keys=True) + "\n")
PY
cp -a "$R/phases" "$T/elsewhere/"
tc verify --session "$S"
expect_rc 1 "verify refuses an edited artifact_root"
expect_out "artifact_root differs from the root intake-preparation was sealed under" \
    "verify names the edit and the step"
ctl_result "$T/moved-a.json"
tc seal --session "$S" --result "$T/moved-a.json"
expect_rc 1 "seal refuses to write into an edited artifact_root"
expect_out "artifact_root differs" "seal names the edited root"
check "nothing was written into the other root" test ! -e "$T/elsewhere/phases/stage-a-scope-selection"
tc dispatch --session "$S" --output "$T/moved-task.json"
expect_rc 1 "dispatch refuses an edited artifact_root"

finish
