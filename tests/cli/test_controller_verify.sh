#!/usr/bin/env bash
# test_controller_verify.sh - verify re-checks every sealed handoff and
# reports each docs/spec/controller.md "Verify" problem with the reference's
# message; --all lists every broken step.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/controller_fixtures.sh"

edit_json() {	# edit_json FILE PY  (d is the document; rewritten compact)
	python3 - "$1" "$2" <<'PY'
import json, sys
p, code = sys.argv[1:3]
d = json.load(open(p, encoding="utf-8"))
exec(code)
open(p, "w", encoding="utf-8").write(json.dumps(d, ensure_ascii=False))
PY
}

ctl_init "$T/a" none
ctl_seal
ctl_seal
tc verify --session "$S"
expect_rc 0 "verify of an intact session exits 0"
check "verify prints session_id, status and valid" python3 -c '
import json, sys
d = json.loads(sys.argv[1])
sys.exit(d != {"session_id": "session-20260905-a", "status": "active", "valid": True})' "$out"

intake="$R/phases/intake-preparation/phase-result.json"
cp "$intake" "$T/intake.orig"
cp "$S" "$T/session.orig"
restore() { cp "$T/intake.orig" "$intake"; cp "$T/session.orig" "$S"; }

# formatting is not content: the digest is semantic
edit_json "$intake" 'pass'
tc verify --session "$S"
expect_rc 0 "a reformatted sealed result still verifies"
restore

edit_json "$intake" 'd["summary_zh"] = "改写。"'
tc verify --session "$S"
expect_rc 1 "a rewritten sealed result exits 1"
expect_out "sealed phase result digest mismatch: intake-preparation" "a rewritten result is a digest mismatch"
check "verify refusals list exactly one error" python3 -c '
import json, sys; d = json.loads(sys.argv[1]); sys.exit(d["valid"] is not False or len(d["errors"]) != 1)' "$out"
restore

# a result that no longer validates, with its digest re-bound in the session
edit_json "$intake" 'd["agent_id"] = "sk-s0-baseline"'
edit_json "$S" "d['steps'][0]['result_sha256'] = '$(py_digest "$intake")'"
tc verify --session "$S"
expect_out "phase result agent_id does not match the current step" "verify re-validates each sealed result"
restore

edit_json "$S" 'd["steps"][0]["outcome_status"] = "failed"'
tc verify --session "$S"
expect_out "sealed phase result outcome mismatch: intake-preparation" "an outcome that differs from the result is refused"
restore

cp "$R/phases/s0-baseline/PHASE_REPORT.md" "$T/s0-report.md"
rm "$R/phases/s0-baseline/PHASE_REPORT.md"
tc verify --session "$S"
expect_out "missing phase report: s0-baseline" "a missing PHASE_REPORT.md is reported"
# Another step's report in its place is a report that differs from the
# sealed result (tunectl re-renders reports; the reference only checks
# that one exists).
cp "$R/phases/intake-preparation/PHASE_REPORT.md" "$R/phases/s0-baseline/PHASE_REPORT.md"
tc verify --session "$S"
expect_out "phase report differs from its sealed result: s0-baseline" "a report of another step is refused"
# verify reads each report once: what is not a readable regular file is
# missing, a symlink to the right report is the report (as stat sees it).
rm "$R/phases/s0-baseline/PHASE_REPORT.md"
mkdir "$R/phases/s0-baseline/PHASE_REPORT.md"
tc verify --session "$S"
expect_out "missing phase report: s0-baseline" "a directory in the report's place is a missing report"
rmdir "$R/phases/s0-baseline/PHASE_REPORT.md"
ln -s "$T/s0-report.md" "$R/phases/s0-baseline/PHASE_REPORT.md"
tc verify --session "$S"
expect_out '"valid": true' "a symlink to the sealed report verifies"
rm "$R/phases/s0-baseline/PHASE_REPORT.md"
cp "$T/s0-report.md" "$R/phases/s0-baseline/PHASE_REPORT.md"

rm "$intake"
tc verify --session "$S"
expect_out "[Errno 2] No such file or directory: '$intake'" "a missing sealed result reports the OS error"
restore

# dispatch receipts are bound by file digest
mkdir -p "$R/dispatches/intake-preparation-attempt-001"
echo '{"runner_status": "passed"}' > "$R/dispatches/intake-preparation-attempt-001/dispatch-receipt.json"
edit_json "$S" 'd["steps"][0]["dispatch_receipt_path"] = "dispatches/intake-preparation-attempt-001/dispatch-receipt.json"; d["steps"][0]["dispatch_receipt_sha256"] = "'"$(sha_file "$R/dispatches/intake-preparation-attempt-001/dispatch-receipt.json")"'"'
tc verify --session "$S"
expect_rc 0 "a bound receipt with its digest verifies"
echo '{"runner_status": "failed"}' > "$R/dispatches/intake-preparation-attempt-001/dispatch-receipt.json"
tc verify --session "$S"
expect_out "dispatch receipt digest mismatch: intake-preparation" "a rewritten receipt is a digest mismatch"
rm "$R/dispatches/intake-preparation-attempt-001/dispatch-receipt.json"
tc verify --session "$S"
expect_out "[Errno 2] No such file or directory: '$R/dispatches/intake-preparation-attempt-001/dispatch-receipt.json'" \
    "a missing receipt reports the OS error"
restore

# a sealed result reached through a symlink that leaves the root is refused
mv "$intake" "$T/outside.json"
ln -s "$T/outside.json" "$intake"
tc verify --session "$S"
expect_rc 1 "a sealed result symlinked out of the root exits 1"
expect_out "result_path escapes the artifact root" "a sealed result symlinked out of the root is refused"
rm "$intake"
restore

# --all lists every broken step; the default stops at the first
edit_json "$intake" 'd["summary_zh"] = "改写。"'
rm "$R/phases/s0-baseline/PHASE_REPORT.md"
tc verify --session "$S"
check "verify reports only the first problem" python3 -c '
import json, sys; d = json.loads(sys.argv[1]); sys.exit(d["errors"] != ["sealed phase result digest mismatch: intake-preparation"])' "$out"
tc verify --all --session "$S"
expect_rc 1 "verify --all of a broken session exits 1"
check "verify --all reports every broken step" python3 -c '
import json, sys; d = json.loads(sys.argv[1]); sys.exit(d["errors"] != ["sealed phase result digest mismatch: intake-preparation", "missing phase report: s0-baseline"])' "$out"
restore
cp "$T/s0-report.md" "$R/phases/s0-baseline/PHASE_REPORT.md"

# a completed session needs its FINAL_E2E_REPORT.md
ctl_advance_to_final
ctl_seal not_run
rm "$R/FINAL_E2E_REPORT.md"
tc verify --session "$S"
expect_out "completed session is missing FINAL_E2E_REPORT.md" "a completed session without its report is refused"
tc verify --session "$T/missing.json"
expect_rc 1 "verify of a missing session exits 1"
expect_out "cannot load session: [Errno 2] No such file or directory" "verify reports the load error"

finish
