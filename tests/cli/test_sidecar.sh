#!/usr/bin/env bash
# test_sidecar.sh - the sidecar of a reference-policy session
# (docs/security.md, "The sidecar"): where it is, what breaks its chain,
# what a rolled-back session looks like, and what happens without one or
# when it cannot be written.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/controller_fixtures.sh"

ctl_init "$T/a" none
SC=$(sidecar_of "$S")
check "init writes the sidecar under TUNECTL_STATE_DIR, keyed by the session path" test -f "$SC"
check "the sidecar is private (0600)" test "$(stat -c %a "$SC")" = 600
ctl_seal
cp "$S" "$T/after-intake.json"
ctl_seal
ctl_seal
expect_rc 0 "intake, S0 and Stage A seal"
check "one record per command that wrote the session: init and three seals" \
    test "$(jpy "$SC" '" ".join(r["kind"] for r in d["records"])')" = "init seal seal seal"
check "each record chains to the one before" test "$(python3 -c 'import hashlib, json, sys
rs = json.load(open(sys.argv[1]))["records"]
dig = lambda r: hashlib.sha256(json.dumps(r, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
print(all(rs[i]["prev_sha256"] == dig(rs[i - 1]) for i in range(1, len(rs))) and rs[0]["prev_sha256"] is None)' "$SC")" = True
check "the last record is bound to the session file it was written with" \
    test "$(jpy "$SC" 'd["records"][-1]["session_sha256"]')" = "$(sha_file "$S")"
cp "$SC" "$T/sidecar.good"
cp "$S" "$T/session.good"

# a session rolled back past a seal the sidecar records
cp "$T/after-intake.json" "$S"
tc verify --session "$S"
expect_rc 1 "a session rolled back two seals is refused"
expect_out "sidecar binds a seal of s0-baseline that the session does not show" \
    "verify names the step the session lost"
cp "$T/session.good" "$S"

# an edited middle record breaks the chain, for every command that reads it
python3 - "$SC" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["records"][1]["recorded_at"] = "2000-01-01T00:00:00+00:00"
open(sys.argv[1], "w").write(json.dumps(d))
PY
tc verify --session "$S"
expect_rc 1 "an edited record is refused by verify"
expect_out "sidecar chain broken: record 2 does not chain to the record before it" "verify says where"
tc dispatch --session "$S" --output "$T/task.json"
expect_rc 1 "and by dispatch"
ctl_seal
expect_rc 1 "a seal does not extend a broken chain"
check "nor replace it" test "$(jpy "$SC" 'd["records"][1]["recorded_at"]')" = "2000-01-01T00:00:00+00:00"
cp "$T/sidecar.good" "$SC"
tc verify --session "$S"
expect_rc 0 "the restored sidecar verifies"

# the newest sealed result rewritten, its digest in the session fixed up:
# the reference cannot tell, the sidecar's record can
python3 - "$S" "$R/phases/stage-a-scope-selection/phase-result.json" <<'PY'
import hashlib, json, sys
s = json.load(open(sys.argv[1]))
r = json.load(open(sys.argv[2]))
r["summary_zh"] = "改写"
open(sys.argv[2], "w").write(json.dumps(r, ensure_ascii=False, indent=2, sort_keys=True) + "\n")
s["steps"][2]["result_sha256"] = hashlib.sha256(json.dumps(r, ensure_ascii=False, sort_keys=True,
    separators=(",", ":")).encode()).hexdigest()
open(sys.argv[1], "w").write(json.dumps(s, ensure_ascii=False, indent=2, sort_keys=True) + "\n")
PY
tc verify --session "$S"
expect_rc 1 "a rewritten result whose digest was fixed in the session is refused"
expect_out "artifact manifest does not belong to the sealed result: stage-a-scope-selection" \
    "verify names the step"
cp "$T/session.good" "$S"

# a sidecar left at the same path by another session is not this one's
CTL_ID=session-b ctl_init "$T/b" none
CTL_ID=session-b ctl_seal
cp "$S" "$T/b-session.json"
ctl_init "$T/c" none
mv "$T/b-session.json" "$S"
tc verify --session "$S"
expect_rc 0 "a session whose sidecar belongs to another session verifies as the reference would"
expect_err "artifacts unbound: intake-preparation (no sidecar at" "and verify says its artifacts are unbound"

# no state directory at all: nothing bound, nothing refused
R2=$T/nohome/artifacts
env -u TUNECTL_STATE_DIR -u XDG_STATE_HOME HOME=relative "$TUNECTL_BIN" init --session "$R2/s.json" \
    --artifact-root "$R2" --session-id "$CTL_ID" --optional-mode none >/dev/null
S=$R2/s.json ctl_result "$T/r.json"
env -u TUNECTL_STATE_DIR -u XDG_STATE_HOME HOME=relative "$TUNECTL_BIN" seal --session "$R2/s.json" \
    --result "$T/r.json" >/dev/null
check "without a state directory the seal still seals" test "$(jpy "$R2/s.json" 'd["steps"][0]["state"]')" = sealed
err=$(env -u TUNECTL_STATE_DIR -u XDG_STATE_HOME HOME=relative "$TUNECTL_BIN" verify --session "$R2/s.json" 2>&1 >/dev/null)
check "and verify says there is no state directory for a sidecar" \
    bash -c '[[ $1 == *"no state directory for a sidecar"* ]]' _ "$err"

# a state directory that cannot be written: the seal is refused before it writes
ctl_init "$T/d" none
before=$(sha_file "$S")
ctl_result "$T/r.json"
TUNECTL_STATE_DIR=/dev/null/state tc seal --session "$S" --result "$T/r.json"
expect_rc 1 "a seal whose sidecar cannot be written is refused"
expect_out "set TUNECTL_STATE_DIR to a writable directory" "naming the fix"
check "the session is unchanged" test "$(sha_file "$S")" = "$before"
check "no scene was written" test ! -e "$R/phases/intake-preparation/phase-result.json"

finish
