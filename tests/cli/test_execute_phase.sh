#!/usr/bin/env bash
# tunectl execute-phase (docs/spec/controller.md "Phase entrypoints"): the
# shipped phase manifests, the tool plan of every phase, tasks refused when
# stale or misrouted, one allowlisted tool run under a device lease, every
# manifest message.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/controller_fixtures.sh"

unset SUPERKERNEL_DEVICE_LEASE_HELD SUPERKERNEL_DEVICE_IDS SUPERKERNEL_DEVICE_LEASE_ROOT
SHARE=$TUNECTL_SRC/share

# ---- a plan for every step of a "both" session (acceptance #31) ----------------

ctl_init "$T/both" both
phases_seen=""
for i in $(seq 12); do
	next=$(jpy "$S" 'next((s for s in d["steps"] if s["state"] == "pending"), None)')
	[ "$next" = null ] && break
	step_id=$(jpy "$S" 'next(s["step_id"] for s in d["steps"] if s["state"] == "pending")')
	phase=$(jpy "$S" 'next(s["phase"] for s in d["steps"] if s["state"] == "pending")')
	tc dispatch --session "$S" --output "$T/task-$i.json"
	tc execute-phase --task "$T/task-$i.json" --phase "$phase"
	expect_rc 0 "$step_id: the plan exits 0"
	printf '%s\n' "$out" > "$T/plan.json"
	expect_eq "$(jpy "$T/plan.json" '[d["phase"], d["agent_id"], d["handoff"]["step_id"], d["handoff"]["seal_after_agent_result"]]')" \
	    "$(jpy "$S" '[[s["phase"], s["agent_id"], s["step_id"], True] for s in d["steps"] if s["state"] == "pending"][0]')" \
	    "$step_id: the plan names the step's phase and agent"
	expect_eq "$(jpy "$T/plan.json" '[len(d["commands"]) > 0, all(c["argv"][-1] == "--help" and c["argv"][0].startswith("/") for c in d["commands"])]')" \
	    '[true, true]' "$step_id: the plan lists each tool's --help command"
	expect_eq "$(jpy "$T/plan.json" 'd["task_fingerprint"]')" "$(jpy "$T/task-$i.json" 'd["session_fingerprint"]')" "$step_id: task_fingerprint is the session fingerprint"
	expect_eq "$(jpy "$T/plan.json" 'd["handoff"]["session_path"] == d["handoff"]["session_path"].strip() and d["handoff"]["schema_version"]')" \
	    "superkernel-auto-tune-phase-result-v1" "$step_id: the handoff names the result schema"
	phases_seen="$phases_seen $phase"
	if [ "$step_id" = optional-multistream ]; then ctl_seal accepted; else ctl_seal; fi
	[ "$rc" = 0 ] || { echo "# seal of $step_id failed: $out"; break; }
done
expect_eq "$(printf '%s\n' $phases_seen | sort -u | wc -l | tr -d ' ')" "7" "all seven phases were visited"

# The plan names the manifest and the tools it resolved.
expect_eq "$(jpy "$T/plan.json" 'd["phase_manifest"]')" "$(cd "$SHARE/phases/final_e2e_report" && pwd -P)/phase.json" "phase_manifest is the absolute manifest path"
expect_eq "$(jpy "$T/plan.json" '[c["argv"][0].rsplit("/", 1)[1] for c in d["commands"]]')" '["run_benchmark.py", "analyze_performance.py", "experiment_ledger.py"]' "the Final plan lists the manifest's tools in order"

# ---- stale and misrouted tasks --------------------------------------------------------

ctl_init "$T/one" none
tc dispatch --session "$S" --output "$T/task.json"
tc execute-phase --task "$T/task.json" --phase s0_baseline
expect_rc 1 "a task for another phase is refused"
expect_out "dispatch task is assigned to a different phase agent" "misrouted task: the reference's message"
check "a refusal is the reference's JSON shape" bash -c "printf '%s' '$out' | python3 -c 'import json,sys; d=json.load(sys.stdin); sys.exit(0 if d[\"valid\"] is False else 1)'"

python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["step"]["agent_id"]="sk-s0-baseline"; json.dump(d, open(sys.argv[2],"w"))' "$T/task.json" "$T/forged.json"
tc execute-phase --task "$T/forged.json" --phase s0_baseline
expect_rc 1 "a task whose step was edited is refused"
expect_out "stale dispatch task does not match the current session" "edited task: stale"

python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["schema_version"]="x"; json.dump(d, open(sys.argv[2],"w"))' "$T/task.json" "$T/badschema.json"
tc execute-phase --task "$T/badschema.json" --phase intake_preparation
expect_rc 1 "a task with another schema is refused"
expect_out "dispatch task schema_version is invalid" "task schema: the reference's message"

tc execute-phase --task "$T/no-such-task.json" --phase intake_preparation
expect_rc 1 "a missing task file is refused"
expect_out "No such file or directory" "missing task: Python's OSError text"

cp "$T/task.json" "$T/old-task.json"
ctl_seal
tc execute-phase --task "$T/old-task.json" --phase intake_preparation
expect_rc 1 "a task made stale by sealing is refused"
expect_out "stale dispatch task does not match the current session" "sealed step: stale task"
tc execute-phase --task "$T/old-task.json" --phase intake_preparation --tool check_environment.py --lease-root "$T/leases" --device-id 0
expect_rc 1 "a stale task runs no tool"
check "a stale task creates no lease" test ! -e "$T/leases"

tc dispatch --session "$S" --output "$T/s0-task.json"
tc execute-phase --task "$T/s0-task.json" --phase s0_baseline
expect_rc 0 "the current S0 task is accepted"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["consumed_handoffs"][0]["outcome_status"]="failed"; json.dump(d, open(sys.argv[2],"w"))' "$T/s0-task.json" "$T/s0-forged.json"
tc execute-phase --task "$T/s0-forged.json" --phase s0_baseline
expect_rc 1 "a task with edited handoffs is refused"
expect_out "stale dispatch task handoffs do not match the current session" "edited handoffs: the reference's message"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); del d["session_path"]; json.dump(d, open(sys.argv[2],"w"))' "$T/s0-task.json" "$T/s0-nopath.json"
tc execute-phase --task "$T/s0-nopath.json" --phase s0_baseline
expect_rc 1 "a task without session_path is refused"
expect_out "dispatch task session_path is invalid" "no session_path: tunectl's message"

# ---- running a tool (acceptance #32) -------------------------------------------------

ctl_init "$T/run" none
tc dispatch --session "$S" --output "$T/task.json"
tc execute-phase --task "$T/task.json" --phase intake_preparation --tool check_environment.py \
    --lease-root "$T/leases" --device-id 0 -- --help
expect_rc 0 "an owned tool runs under a lease and passes"
expect_out '"status": "passed"' "the lease manifest is printed"
lm=$R/phase-executions/intake-preparation/check_environment.json
check "the lease manifest lands in phase-executions/<step>/<tool stem>.json" test -f "$lm"
expect_eq "$(jpy "$lm" 'd["command_id"]')" "intake-preparation:check_environment.py" "command_id is <step_id>:<tool>"
expect_eq "$(jpy "$lm" 'd["cwd"]')" "$(cd "$R" && pwd -P)" "the tool runs in the artifact root"
expect_eq "$(jpy "$lm" 'd["lease_timeout_seconds"]')" "600" "the default timeout is the reference's 600"
expect_eq "$(jpy "$lm" 'd["environment_mode"]')" "inherited_parent_environment" "the tool inherits the environment"
check "the tool's output is in its log" grep -q "usage: tunectl env-check" "$R/phase-executions/intake-preparation/check_environment.stdout.log"

tc execute-phase --task "$T/task.json" --phase intake_preparation --tool check_environment.py \
    --lease-root "$T/leases" --device-id 0 -- --help
expect_rc 1 "re-running a tool for the same step refuses to overwrite its manifest"
expect_out "lease command manifest already exists: $lm" "re-run: the reference's message"

tc execute-phase --task "$T/task.json" --phase intake_preparation --tool check_environment.py \
    --lease-root "$T/leases" --device-id 0 --timeout-seconds 30 --manifest-out "$T/x/env.json" -- --no-such-flag
expect_rc 1 "a tool that fails makes execute-phase exit 1"
expect_eq "$(jpy "$T/x/env.json" '[d["status"], d["reason"], d["lease_timeout_seconds"]]')" '["failed", "command_nonzero", 30.0]' "--manifest-out and --timeout-seconds are honoured"

tc execute-phase --task "$T/task.json" --phase intake_preparation --tool shared_npu_lease_inventory.py \
    --lease-root "$T/leases" --device-id 0 -- --lease-root "$T/leases"
expect_rc 0 "shared_npu_lease_inventory.py runs tunectl lease status"
inv=$R/phase-executions/intake-preparation/shared_npu_lease_inventory.stdout.log
expect_eq "$(jpy "$inv" '[(x["device_id"], x["state"]) for x in d["devices"]]')" '[[0, "held"]]' \
    "the inventory shows the device held by the tool's own lease"

# A reference tool tunectl does not implement is in no shipped manifest; a
# manifest that names one gets a tool that fails instead of pretending.
python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); m["runtime_tools"]=["check_environment.py","derived_family_lifecycle.py"]; json.dump(m, open(sys.argv[2],"w"))' \
    "$SHARE/phases/intake_preparation/phase.json" "$T/unimpl.json"
tc execute-phase --task "$T/task.json" --manifest "$T/unimpl.json" --tool derived_family_lifecycle.py \
    --lease-root "$T/leases" --device-id 0
expect_rc 1 "a tool tunectl does not implement fails instead of pretending"
check "the unimplemented tool says so" grep -q "not implemented by tunectl" "$R/phase-executions/intake-preparation/derived_family_lifecycle.stderr.log"

tc execute-phase --task "$T/task.json" --phase intake_preparation --tool analyze_performance.py \
    --lease-root "$T/leases" --device-id 0
expect_rc 2 "a tool outside the phase's allowlist is refused (argparse choice)"
expect_err "argument --tool: invalid choice: 'analyze_performance.py' (choose from 'check_environment.py', 'shared_npu_lease_inventory.py', 'device_lease_runner.py')" "the allowlist is named"
tc execute-phase --phase intake_preparation --tool analyze_performance.py --no-such-flag
expect_rc 2 "an invalid --tool without --task is a usage error"
expect_err "argument --tool: invalid choice: 'analyze_performance.py' (choose from 'check_environment.py', 'shared_npu_lease_inventory.py', 'device_lease_runner.py')" "named first, as argparse checks choices while it reads"
check "before the missing --task and the unrecognized argument" \
    [ "${err/required: --task/}" = "$err" ] && [ "${err/unrecognized/}" = "$err" ]
tc execute-phase --phase no_such_phase --tool analyze_performance.py
expect_err "the following arguments are required: --task" \
    "with no manifest to read the choices from, the missing --task comes first"

tc execute-phase --task "$T/task.json" --phase intake_preparation --tool check_environment.py
expect_rc 1 "--tool without a lease is refused"
expect_out "--tool requires --lease-root and at least one --device-id" "--tool without lease: the reference's message"
tc execute-phase --task "$T/task.json" --phase intake_preparation --tool check_environment.py --lease-root "$T/leases"
expect_rc 1 "--tool without a device id is refused"
expect_out "--tool requires --lease-root and at least one --device-id" "--tool without device: the reference's message"

# ---- manifest loading messages (docs/spec/controller.md
# "Phase manifest loading")

manifest() {	# manifest NAME PYTHON-EDIT: a copy of the intake manifest, edited
	python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); exec(sys.argv[3]); open(sys.argv[2],"w").write(m if isinstance(m,str) else json.dumps(m))' \
	    "$SHARE/phases/intake_preparation/phase.json" "$T/$1.json" "$2"
}
refused_manifest() {	# refused_manifest NAME EDIT MESSAGE
	manifest "$1" "$2"
	tc execute-phase --task "$T/task.json" --manifest "$T/$1.json"
	expect_rc 1 "$1: refused"
	expect_out "$3" "$1: message"
}
refused_manifest schema 'm["schema_version"]="superkernel-phase-manifest-v2"' "phase manifest schema_version is invalid"
refused_manifest notobject 'm=[m]' "phase manifest schema_version is invalid"
refused_manifest noskill 'del m["skill"]' "phase manifest is missing required fields"
refused_manifest notools 'del m["runtime_tools"]' "phase manifest is missing required fields"
refused_manifest emptytools 'm["runtime_tools"]=[]' "phase manifest runtime_tools is invalid"
refused_manifest strtools 'm["runtime_tools"]="check_environment.py"' "phase manifest runtime_tools is invalid"
refused_manifest dirtool 'm["runtime_tools"]=["../tools/check_environment.py"]' "phase manifest runtime_tools is invalid"
refused_manifest numtool 'm["runtime_tools"]=[1]' "phase manifest runtime_tools is invalid"
refused_manifest missing 'm["runtime_tools"]=["check_environment.py","nope.py","gone.py"]' "phase manifest references missing runtime tools: nope.py, gone.py"
refused_manifest badjson 'm="{"' "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"
tc execute-phase --task "$T/task.json" --manifest "$T/none.json"
expect_rc 1 "a missing manifest is refused"
expect_out "[Errno 2] No such file or directory" "missing manifest: Python's OSError text"

manifest renamed 'm["skill"]="superkernel-other"'
tc execute-phase --task "$T/task.json" --manifest "$T/renamed.json"
expect_rc 1 "a manifest for another skill refuses the task"
expect_out "dispatch task is assigned to a different phase agent" "skill mismatch: misrouted"

TUNECTL_TOOLS_DIR=$T/emptytools tc execute-phase --task "$T/task.json" --phase intake_preparation
expect_rc 1 "an empty tools directory fails the manifest"
expect_out "phase manifest references missing runtime tools: check_environment.py, shared_npu_lease_inventory.py, device_lease_runner.py" "TUNECTL_TOOLS_DIR overrides the search"

tc execute-phase --task "$T/task.json"
expect_rc 2 "--manifest or --phase is required"
tc execute-phase --task "$T/task.json" --phase ../x
expect_rc 1 "a phase name with a path is refused"

# ---- the tools directory: reference names mapped onto tunectl ------------------------

for pair in "check_environment.py:usage: tunectl env-check" \
    "device_lease_runner.py:usage: tunectl lease run" \
    "shared_npu_lease_inventory.py:usage: tunectl lease run" \
    "analyze_performance.py:usage: tunectl gate analyze" \
    "validate_stage_a_options.py:usage: tunectl gate stage-a-options" \
    "validate_option_matrix.py:usage: tunectl gate option-matrix" \
    "run_benchmark.py:usage: tunectl bench run" \
    "experiment_ledger.py:usage: tunectl ledger validate" \
    "render_round_report.py:usage: tunectl render-round-report"; do
	tool=${pair%%:*} want=${pair#*:}
	TUNECTL=$TUNECTL_BIN "$SHARE/tools/$tool" --help > "$T/tool.out" 2>&1
	rc=$?
	expect_rc 0 "$tool --help runs tunectl's implementation"
	check "$tool maps to '${want#usage: }'" grep -q "^$want" "$T/tool.out"
done
printf '#!/bin/sh\n[ "$1" = help ] && exit 2\necho ran\n' > "$T/oldtunectl"
chmod +x "$T/oldtunectl"
TUNECTL=$T/oldtunectl "$SHARE/tools/analyze_performance.py" --help > "$T/tool.out" 2>&1
rc=$?
expect_rc 69 "a tool whose command has not landed fails"
check "it says the command is missing" grep -q "has no 'gate' command yet" "$T/tool.out"
check "it never runs the command" bash -c "! grep -q ran '$T/tool.out'"

# An installed layout: PREFIX/bin/tunectl with PREFIX/share/tunectl/{phases,tools}.
P=$T/prefix
mkdir -p "$P/bin" "$P/share/tunectl"
cp "$TUNECTL_BIN" "$P/bin/tunectl"
cp -R "$SHARE/." "$P/share/tunectl/"
ctl_init "$T/inst" none
tc dispatch --session "$S" --output "$T/itask.json"
"$P/bin/tunectl" execute-phase --task "$T/itask.json" --phase intake_preparation > "$T/iplan.json" 2>&1
rc=$?
expect_rc 0 "an installed tunectl finds its phases"
expect_eq "$(jpy "$T/iplan.json" 'd["commands"][0]["argv"][0]')" "$(cd "$P" && pwd -P)/share/tunectl/tools/check_environment.py" "an installed tunectl finds its tools under PREFIX/share/tunectl/tools"
env -u TUNECTL "$P/share/tunectl/tools/check_environment.py" --help > "$T/tool.out" 2>&1
rc=$?
expect_rc 0 "an installed tool finds PREFIX/bin/tunectl by itself"

# ---- the shipped manifests --------------------------------------------------------------

# Every tool a shipped manifest lists is implemented: none is a stand-in
# that exits 69, so a worker can use every tool its phase names.
for f in "$SHARE"/phases/*/phase.json; do
	for tool in $(jpy "$f" '" ".join(d["runtime_tools"])'); do
		TUNECTL=$TUNECTL_BIN "$SHARE/tools/$tool" --help > "$T/tool.out" 2>&1
		rc=$?
		expect_rc 0 "$(basename "$(dirname "$f")") lists $tool, which tunectl implements"
	done
done

for f in "$SHARE"/phases/*/phase.json; do
	p=$(basename "$(dirname "$f")")
	expect_eq "$(python3 - "$f" "$p" "$SHARE/tools" <<'PY'
import json, os, re, sys
m = json.load(open(sys.argv[1]))
ok = (set(m) == {"schema_version", "phase", "agent_id", "skill", "runtime_tools"}
      and m["schema_version"] == "superkernel-phase-manifest-v1"
      and m["phase"] == sys.argv[2]
      and m["skill"] == "superkernel-" + sys.argv[2].replace("_", "-")
      and m["agent_id"] == "sk-" + sys.argv[2].replace("_", "-")
      and len(m["runtime_tools"]) >= 1
      and len(set(m["runtime_tools"])) == len(m["runtime_tools"])
      and all(re.fullmatch(r"[A-Za-z0-9_]+\.py", t) for t in m["runtime_tools"])
      and all(os.access(os.path.join(sys.argv[3], t), os.X_OK) for t in m["runtime_tools"]))
print("ok" if ok else "bad")
PY
)" "ok" "shipped manifest $p follows the schema and names executable tools"
done

finish
