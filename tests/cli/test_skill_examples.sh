#!/usr/bin/env bash
# The example results the skills show are ones tunectl accepts: each phase
# skill's example phase-result.json is extracted and sealed into a session
# at that phase (the seven examples form one chain, intake to Final, with
# the Final skill's example ledger), and each support skill's example
# support-result.json passes a real support run.  So the examples can never
# drift from what seal and support run accept.
. "$(dirname "$0")/lib.sh"

SKILLS=$TUNECTL_SRC/share/skills
FAKE_HOST=$TUNECTL_SRC/tests/fixtures/hosts/fake_host.py
jq_() { /usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }

# example SKILL HEADING OUT: the first ```json block after "## HEADING"
example() {
	/usr/bin/python3 - "$SKILLS/$1/SKILL.md" "$2" "$3" <<'PY'
import json, re, sys
text = open(sys.argv[1], encoding="utf-8").read()
m = re.search(r"^## " + re.escape(sys.argv[2]) + r"\n.*?^```json\n(.*?)^```", text, re.S | re.M)
if not m:
    sys.exit("no json block under '## %s' in %s" % (sys.argv[2], sys.argv[1]))
json.loads(m.group(1))
open(sys.argv[3], "w", encoding="utf-8").write(m.group(1))
PY
}

A=$T/chain
S=$A/auto-tune-session.json
tc init --session "$S" --artifact-root "$A" --session-id sk-demo-20260905 --optional-mode multistream
expect_rc 0 "a session with the examples' id (mode multistream)"

skill=superkernel-final-e2e-report
check "$skill: its example ledger.json is one JSON block" example "$skill" "Example ledger.json" "$A/ledger.json"
# the evidence the example report_summary binds must exist in the root
# before the first seal: each sealed step binds what its result names
/usr/bin/python3 - "$A" <<'PY'
import json, os, sys
root = sys.argv[1]
led = json.load(open(os.path.join(root, "ledger.json")))
rs = led["report_summary"]
paths = set(rs["baseline"]["evidence_artifacts"])
for row in rs["stages"]:
    paths.update(row["evidence_artifacts"])
for role in ("winner", "fallback"):
    paths.update((rs.get(role) or {}).get("evidence_artifacts", []))
for p in paths:
    os.makedirs(os.path.dirname(os.path.join(root, p)), exist_ok=True)
    open(os.path.join(root, p), "w").write("{}\n")
PY
for skill in superkernel-intake-preparation superkernel-s0-baseline superkernel-stage-a-scope-selection \
    superkernel-stage-o-option-tuning superkernel-base-profile-source-mapping \
    superkernel-optional-experiments superkernel-final-e2e-report; do
	check "$skill: its example phase-result.json is one JSON block" example "$skill" "Example phase-result.json" "$T/$skill.json"
	next=$(jq_ "$S" "[s['step_id'] for s in d['steps'] if s['state']=='pending'][0]")
	expect_eq "$(jq_ "$T/$skill.json" "d['step_id']")" "$next" "$skill: the example is for the step now pending"
	tc seal --session "$S" --result "$T/$skill.json"
	expect_rc 0 "$skill: tunectl seal accepts the example"
done
expect_eq "$(jq_ "$S" "d['status']")" "completed" "the seven examples complete the session"
tc verify --session "$S"
expect_rc 0 "the session sealed from the examples verifies"
check "sealing the Final example rendered FINAL_E2E_REPORT.md" grep -q "最终 E2E 结论: 有收益" "$A/FINAL_E2E_REPORT.md"

# ---- support examples ------------------------------------------------------------
# A stand-in support worker that hands back the skill's example, its
# produced artifacts moved into this attempt's output directory.
cat >"$T/example_support.py" <<'PY'
#!/usr/bin/python3
import json, os, sys
opts = dict(zip(sys.argv[1::2], sys.argv[2::2]))
task = json.load(open(opts["--task"]))
root, out = task["artifact_root"], task["attempt"]["output_dir"]
text = open(os.environ["EXAMPLE"]).read()
role = task["role"]["agent_id"]
text = text.replace("support/%s-attempt-001/output" % role, out)
result = json.loads(text)
result["session_id"] = task["session_id"]
for p in result["produced_artifacts"]:
    open(os.path.join(root, p), "w").write("{}\n")
json.dump(result, open(opts["--result"], "w"), ensure_ascii=False, indent=2)
PY
chmod +x "$T/example_support.py"
echo "[\"$T/example_support.py\"]" >"$T/support-runner.json"
echo "[\"$FAKE_HOST\"]" >"$T/phase-runner.json"

support_example() {	# support_example SESSION ROLE SKILL
	example "$3" "Example support-result.json" "$T/$3.example.json" || { not_ok "$3: no example support result"; return; }
	EXAMPLE=$T/$3.example.json tc support run --session "$1" --role "$2" --runner-command-json "$T/support-runner.json"
	expect_rc 0 "$3: its example support-result.json passes a support run of $2"
}
for mode in multistream source-range; do
	B=$T/$mode
	tc init --session "$B/s.json" --artifact-root "$B" --session-id "sup-$mode" --optional-mode "$mode"
	for _ in 1 2 3 4; do tc run-next --session "$B/s.json" --runner-command-json "$T/phase-runner.json"; done
	if [ "$mode" = multistream ]; then
		support_example "$B/s.json" sk-fusion-performance-analyst superkernel-fusion-performance-analysis
		support_example "$B/s.json" sk-failure-isolation-analyst superkernel-sk-failure-isolation
		support_example "$B/s.json" sk-prof-timeline-analyst superkernel-sk-prof-timeline
	fi
	tc run-next --session "$B/s.json" --runner-command-json "$T/phase-runner.json"
	if [ "$mode" = multistream ]; then
		support_example "$B/s.json" sk-multistream-tuning-executor superkernel-multistream-performance-tuning
	else
		support_example "$B/s.json" sk-source-range-experiment-executor superkernel-source-range-experiment
	fi
done

finish
