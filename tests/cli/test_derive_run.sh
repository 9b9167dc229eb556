#!/usr/bin/env bash
# test_derive_run.sh - derived sessions run to completion with the same
# commands as full ones (tunectl run with a fake agent host, in each of
# the three derived modes), and the audit views beyond the reference:
# verify --deep (re-verifies every ancestor) and lineage (the chain of
# sessions with what each imported).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/controller_fixtures.sh"

FIX="$TUNECTL_SRC/tests/fixtures/derive/derive_fixture.py"
echo '["python3", "'"$TUNECTL_SRC"'/tests/fixtures/hosts/fake_host.py"]' >"$T/runner.json"

make_parent() {
	mkdir -p "$1"
	python3 "$FIX" parent "$TUNECTL_BIN" "$1" >/dev/null ||
		{ echo "# parent fixture failed in $1" >&2; return 1; }
	P="$1/parent-artifacts"
	PS="$P/auto-tune-session.json"
}

# derive_from PARENT_SESSION EVIDENCE_DIR CHILD_DIR MODE
derive_from() {
	C=$3
	CS="$C/auto-tune-session.json"
	local args=(--parent-session "$1" --session "$CS" --artifact-root "$C"
	    --session-id "derived-$4" --profiling-analysis "$2/profiling-analysis.json"
	    --ledger "$2/experiment-ledger.json" --approve-imported-evidence)
	[ "$4" != multistream ] && args+=(--source-scope-map "$2/source-scope-map.json")
	if [ "$4" = source-range ]; then
		tc source-range-from-smap "${args[@]}"
	else
		tc derive-session "${args[@]}" --optional-mode "$4"
	fi
}

steps_of() { jpy "$1" '[[s["step_id"], s["state"], s.get("outcome_status"), "dispatch_receipt_path" in s] for s in d["steps"]]'; }
field() { python3 -c 'import json,sys; v=json.loads(sys.argv[1]); exec("r=" + sys.argv[2]); print(r if isinstance(r, str) else json.dumps(r))' "$out" "$1"; }

make_parent "$T/p" || exit 1
P1=$P PS1=$PS
snap() { (cd "$P1" && find . -type f -print0 | sort -z | xargs -0 sha256sum); }
before=$(snap)

# ---- the three derived modes, run to completion ----------------------------

derive_from "$PS1" "$P1/evidence" "$T/sr" source-range
expect_rc 0 "derive a source-range session"
tc run --session "$CS" --runner-command-json "$T/runner.json" --quiet
expect_rc 0 "tunectl run completes a source-range-from-smap session"
check "source-range run seals both steps through dispatch receipts" test "$(steps_of "$CS")" = \
    '[["optional-source-range", "sealed", "no_gain", true], ["final-e2e-report", "sealed", "accepted", true]]'
tc verify --session "$CS"
expect_rc 0 "the completed source-range session verifies"
check "its report names the imported parent" \
    grep -qF 'Imported parent: `parent-session`' "$C/FINAL_E2E_REPORT.md"
SR=$CS

derive_from "$PS1" "$P1/evidence" "$T/ms" multistream
expect_rc 0 "derive a multistream session"
tc run --session "$CS" --runner-command-json "$T/runner.json" --quiet
expect_rc 0 "tunectl run completes an optional-from-base multistream session"
check "multistream run seals both steps" test "$(steps_of "$CS")" = \
    '[["optional-multistream", "sealed", "no_gain", true], ["final-e2e-report", "sealed", "accepted", true]]'
check "its report names the entrypoint" grep -qF 'Entrypoint: `optional-from-base`' "$C/FINAL_E2E_REPORT.md"

derive_from "$PS1" "$P1/evidence" "$T/both" both
expect_rc 0 "derive a both session"
FAKE_STATUS_optional_multistream=accepted tc run --session "$CS" --runner-command-json "$T/runner.json" --quiet
expect_rc 0 "tunectl run completes a derived both session with accepted multistream"
check "both run inserts and runs base-profile-derived after the accepted multistream" test "$(steps_of "$CS")" = \
    '[["optional-multistream", "sealed", "accepted", true], ["base-profile-derived", "sealed", "succeeded", true], ["optional-source-range", "sealed", "no_gain", true], ["final-e2e-report", "sealed", "accepted", true]]'
tc verify --session "$CS"
expect_rc 0 "the completed both session verifies"
check "running three children left the parent byte-identical" test "$(snap)" = "$before"

# ---- verify --deep -----------------------------------------------------------

tc verify --session "$SR"
check "plain verify has no parent object" test "$(field '"parent" in v')" = false
tc verify --session "$SR" --deep
expect_rc 0 "deep verify of a valid child is valid"
check "deep verify says which parent it checked" test "$(field 'v["parent"]["session_path"]')" = "$PS1"
check "deep verify reports the parent's own verdict" \
    test "$(field '[v["parent"]["valid"], v["parent"]["session_id"], v["parent"]["parent"]]')" = '[true, "parent-session", null]'
tc verify --session "$PS1" --deep
check "deep verify of a full session has a null parent" test "$(field 'v["parent"]')" = null

# The reference only digest-binds the parent; tunectl's verify also
# verifies every ancestor (issue 34): a parent that no longer verifies
# (its report was deleted; the session bytes are unchanged) makes the
# child invalid for plain verify too, in plain verify's shape.
make_parent "$T/p-lost" || exit 1
derive_from "$PS" "$P/evidence" "$T/lost" multistream
tc verify --session "$CS"
expect_rc 0 "the child of an intact parent verifies"
rm "$P/FINAL_E2E_REPORT.md"
tc verify --session "$CS"
expect_rc 1 "plain verify refuses a child whose parent no longer verifies"
check "plain verify names the parent's problem, without a parent object" \
    test "$(field '[v["errors"], "parent" in v]')" = \
    '[["parent session is invalid: completed session is missing FINAL_E2E_REPORT.md"], false]'
tc verify --session "$CS" --deep
expect_rc 1 "deep verify refuses a child whose parent no longer verifies"
check "deep verify names the parent's problem" test "$(field 'v["errors"]')" = \
    '["parent session is invalid: completed session is missing FINAL_E2E_REPORT.md"]'
check "deep verify keeps the parent's verdict" test "$(field 'v["parent"]["valid"]')" = false

# The attack of issue 34: after the import, the parent's sealed S0 result
# is rewritten (the parent session, which the child digest-binds, is not).
make_parent "$T/p-s0" || exit 1
derive_from "$PS" "$P/evidence" "$T/s0" multistream
S0R=$P/$(jpy "$PS" '[s["result_path"] for s in d["steps"] if s["step_id"] == "s0-baseline"][0]')
python3 - "$S0R" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["summary"] = "rewritten after the child imported its parent"
json.dump(d, open(sys.argv[1], "w"), indent=2, sort_keys=True)
PY
tc verify --session "$CS"
expect_rc 1 "plain verify refuses a child whose parent's sealed S0 result was rewritten"
expect_out "parent session is invalid" "the refusal says it is the parent's evidence"

# ---- lineage ---------------------------------------------------------------

tc lineage --session "$SR"
expect_rc 0 "lineage of a valid child"
check "lineage lists child then parent" \
    test "$(field '[v["depth"], [e["session_id"] for e in v["chain"]], [e["status"] for e in v["chain"]]]')" = \
    '[2, ["derived-source-range", "parent-session"], ["completed", "completed"]]'
check "lineage records what the child imported" \
    test "$(field '[v["chain"][0]["imported"]["parent_session_id"], sorted(v["chain"][0]["imported"]["artifacts"]), v["chain"][0]["imported"]["base_handoff"]["step_id"]]')" = \
    '["parent-session", ["ledger", "profiling_analysis", "source_scope_map"], "base-profile-source-mapping"]'
check "lineage resolves imported artifacts in the parent root" \
    test "$(field 'v["chain"][0]["imported"]["artifacts"]["ledger"]["resolved_path"]')" = "$P1/evidence/experiment-ledger.json"
check "the parent's fingerprint is the one the child imported" \
    test "$(field 'v["chain"][1]["fingerprint"] == v["chain"][0]["imported"]["parent_session_fingerprint"]')" = true
check "lineage fingerprints are the sessions' digests" \
    test "$(field 'v["chain"][0]["fingerprint"]')" = "$(py_digest "$SR")"
check "the chain ends at a full session with nothing imported" \
    test "$(field '[v["chain"][1]["entrypoint"], v["chain"][1]["imported"], v["valid"]]')" = '["full", null, true]'

# A grandchild: the both child, completed with a derived BASE that
# produced its own evidence, is itself a parent.
derive_from "$PS1" "$P1/evidence" "$T/gp" both
GP=$CS GPR=$C
S=$GP
ctl_seal accepted
mkdir -p "$GPR/evidence2"
cp "$P1/evidence/"*.json "$GPR/evidence2/"
ctl_seal succeeded 'result["produced_artifacts"] = ["evidence2/profiling-analysis.json", "evidence2/experiment-ledger.json", "evidence2/source-scope-map.json"]'
ctl_seal no_gain
ctl_seal accepted
check "the intermediate derived session completes" test "$(jpy "$GP" 'd["status"]')" = completed
derive_from "$GP" "$GPR/evidence2" "$T/gc" source-range
expect_rc 0 "a completed derived session with a derived BASE can be a parent"
check "the grandchild imports the derived BASE" \
    test "$(jpy "$C/imports/evidence-import.json" 'd["base_handoff"]["step_id"]')" = base-profile-derived
GC=$CS
tc lineage --session "$GC"
expect_rc 0 "lineage of a grandchild"
check "lineage walks grandchild -> child -> parent" \
    test "$(field '[v["depth"], [e["session_id"] for e in v["chain"]], [e["entrypoint"] for e in v["chain"]]]')" = \
    '[3, ["derived-source-range", "derived-both", "parent-session"], ["source-range-from-smap", "optional-from-base", "full"]]'
tc verify --session "$GC" --deep
expect_rc 0 "deep verify of a grandchild"
check "deep verify recurses to the grandparent" \
    test "$(field '[v["parent"]["session_id"], v["parent"]["parent"]["session_id"], v["parent"]["parent"]["parent"]]')" = \
    '["derived-both", "parent-session", null]'

# A tampered link is reported where it is, and the walk goes on.
cp "$P1/evidence/experiment-ledger.json" "$T/ledger.keep"
echo '{"schema_version": 2, "experiments": {}}' >"$P1/evidence/experiment-ledger.json"
tc lineage --session "$GC"
expect_rc 1 "lineage fails when a link of the chain is broken"
check "the broken link is the middle session, with its error" \
    test "$(field '[[e["valid"] for e in v["chain"]], v["chain"][1]["errors"], v["valid"]]')" = \
    '[[true, false, true], ["imported artifact ledger digest mismatch"], false]'
tc verify --session "$GC"
expect_rc 1 "plain verify of the grandchild looks past its parent's bytes to every ancestor"
check "plain verify names the broken ancestor as deep verify does" test "$(field 'v["errors"]')" = \
    '["parent session is invalid: imported artifact ledger digest mismatch"]'
tc verify --session "$GC" --deep
expect_rc 1 "deep verify of the grandchild finds the broken link"
check "deep verify names the broken parent" test "$(field 'v["errors"]')" = \
    '["parent session is invalid: imported artifact ledger digest mismatch"]'
cp "$T/ledger.keep" "$P1/evidence/experiment-ledger.json"
tc verify --session "$GC" --deep
expect_rc 0 "restoring the bytes repairs the chain"

tc lineage --session "$T/none.json"
expect_rc 1 "lineage of a missing session fails"
check "lineage of a missing session names the error" \
    test "$(field 'v["chain"][0]["errors"]')" = "[\"cannot load session: [Errno 2] No such file or directory: '$T/none.json'\"]"

finish
