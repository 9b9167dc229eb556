#!/usr/bin/env bash
# test_planted_files.sh - a worker that writes a later phase's result
# before that phase is dispatched never leaves the operator stuck.  Under
# the reference policy the reference's refusal stands ("current step is
# already sealed: <step>"), status names the planted file and says what to
# do, and `tunectl quarantine` moves it into quarantine/ (kept, recorded in
# the sidecar) so the honest worker's next run-next seals.  Under the
# strict policy run-next moves it itself and names it in the receipt; no
# message of tunectl's own calls the unsealed step sealed.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/controller_fixtures.sh"

HOST="$TUNECTL_SRC/tests/fixtures/hosts/fake_host.py"
printf '["%s", "ok"]\n' "$HOST" >"$T/ok.json"
# The intake worker does its job, then plants S0's result.
cat >"$T/plant.sh" <<SH
#!/bin/sh
python3 "$HOST" ok "\$@" || exit
root=\$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["artifact_root"])' "\$2")
mkdir -p "\$root/phases/s0-baseline"
printf '{"forged": true}\n' >"\$root/phases/s0-baseline/phase-result.json"
SH
chmod +x "$T/plant.sh"
printf '["%s"]\n' "$T/plant.sh" >"$T/plant.json"
PLANTED_SHA=$(printf '{"forged": true}\n' | sha256sum | cut -d' ' -f1)

start() {	# start DIR POLICY: init, then the planting intake worker
	R="$1/artifacts"
	S="$R/auto-tune-session.json"
	tc init --session "$S" --artifact-root "$R" --session-id "$CTL_ID" \
	    --optional-mode none --evidence-policy "$2"
	tc run-next --session "$S" --runner-command-json "$T/plant.json"
	expect_rc 0 "$2: the planting intake worker's own step seals"
	check "$2: it left a file in S0's scene" test -f "$R/phases/s0-baseline/phase-result.json"
}
honest_s0() {
	FAKE_STATUS_s0_baseline=blocked tc run-next --session "$S" \
	    --runner-command-json "$T/ok.json"
}

# ---- reference policy ---------------------------------------------------------
start "$T/ref" reference
honest_s0
expect_rc 1 "reference: the honest S0 worker's seal is refused"
check "reference: with the reference's answer, byte for byte" test "$out" = \
    '{"valid": false, "errors": ["current step is already sealed: s0-baseline"]}'
check "reference: S0 stays pending" test "$(jpy "$S" 'd["steps"][1]["state"]')" = pending
tc status --session "$S"
expect_rc 0 "reference: status answers"
expect_out "Planted files" "reference: status has a section on planted files"
expect_out "phases/s0-baseline/phase-result.json (step s0-baseline is pending)" \
    "reference: status names the planted file and its pending step"
expect_out "quarantine --session $S" "reference: status names the way out"
check "reference: status calls S0 pending, not sealed" \
    bash -c '! grep -E "s0-baseline +s0_baseline +sealed" <<<"$1"' _ "$out"
tc resume --session "$S"
expect_err "tunectl quarantine --session $S" "reference: resume names the way out too"

tc quarantine --session "$S"
expect_rc 0 "reference: quarantine moves the planted file"
check "reference: it names the file and where it went" test \
    "$(printf '%s' "$out" | python3 -c 'import json, sys; q = json.load(sys.stdin)["quarantined"]
print(" ".join(e["path"] + ">" + e["moved_to"] + ":" + e["was"]["sha256"] for e in q))')" = \
    "phases/s0-baseline/phase-result.json>quarantine/s0-baseline-001/phase-result.json:$PLANTED_SHA"
check "reference: the scene is free" test ! -e "$R/phases/s0-baseline/phase-result.json"
check "reference: the planted bytes are kept as evidence" \
    test "$(sha_file "$R/quarantine/s0-baseline-001/phase-result.json")" = "$PLANTED_SHA"
check "reference: the sidecar records the quarantine" test \
    "$(jpy "$(sidecar_of "$S")" '[r["files"][0]["moved_to"] for r in d["records"] if r["kind"] == "quarantine"]')" = \
    '["quarantine/s0-baseline-001/phase-result.json"]'
tc quarantine --session "$S"
check "reference: a second quarantine finds nothing" test \
    "$(printf '%s' "$out" | python3 -c 'import json, sys; print(len(json.load(sys.stdin)["quarantined"]))')" = 0
tc status --session "$S"
check "reference: status no longer reports planted files" bash -c '! grep -q "Planted files" <<<"$1"' _ "$out"
honest_s0
expect_rc 0 "reference: the honest worker's next run-next seals S0"
check "reference: S0 is sealed with the honest result" \
    test "$(jpy "$S" 'd["steps"][1]["outcome_status"]')" = blocked
tc verify --session "$S"
expect_rc 0 "reference: the session verifies"
check "reference: with every step bound" test -z "$err"

# ---- an interrupted seal of tunectl's own is not "planted" ---------------------
ctl_init "$T/crash" none
ctl_seal
ctl_result "$T/s0c.json" succeeded
cp "$S" "$T/pre.json"
tc seal --session "$S" --result "$T/s0c.json"
cp "$T/pre.json" "$S"
tc status --session "$S"
check "a seal interrupted before the session was written is not reported as planted" \
    bash -c '! grep -q "Planted files" <<<"$1"' _ "$out"
tc quarantine --session "$S"
check "and quarantine leaves it for resume" test -f "$R/phases/s0-baseline/phase-result.json"
tc resume --session "$S"
expect_err "resume completed an interrupted seal" "resume completes it"

# ---- strict policy ------------------------------------------------------------
start "$T/strict" strict
honest_s0
expect_rc 0 "strict: the honest worker's run-next seals S0 over the planted file"
expect_err "phases/s0-baseline/phase-result.json -> quarantine/s0-baseline-001/phase-result.json" \
    "strict: run-next says what it moved"
check "strict: S0 is sealed with the honest result" \
    test "$(jpy "$S" 'd["steps"][1]["outcome_status"]')" = blocked
receipt=$R/$(jpy "$S" 'd["steps"][1]["dispatch_receipt_path"]')
check "strict: the receipt names the quarantined file" test \
    "$(jpy "$receipt" 'd["quarantined"][0]["path"] + ":" + d["quarantined"][0]["was"]["sha256"]')" = \
    "phases/s0-baseline/phase-result.json:$PLANTED_SHA"
check "strict: the planted bytes are kept as evidence" \
    test "$(sha_file "$R/quarantine/s0-baseline-001/phase-result.json")" = "$PLANTED_SHA"
tc verify --session "$S"
expect_rc 0 "strict: the session verifies"

# strict seal by hand over a planted scene: refused, truthfully
tc init --session "$T/strict2/a/s.json" --artifact-root "$T/strict2/a" \
    --session-id "$CTL_ID" --optional-mode none --evidence-policy strict
S=$T/strict2/a/s.json R=$T/strict2/a
tc run-next --session "$S" --runner-command-json "$T/plant.json"
ctl_result "$T/s0s.json" blocked
tc seal --session "$S" --result "$T/s0s.json"
expect_rc 1 "strict: seal by hand over a planted scene is refused"
expect_out "step s0-baseline is not sealed, but its scene holds files tunectl did not write" \
    "strict: the refusal says the step is not sealed"
check "strict: and never calls it sealed" bash -c '! grep -q "already sealed" <<<"$1"' _ "$out"
expect_out "tunectl quarantine --session $S" "strict: it names the way out"

finish
