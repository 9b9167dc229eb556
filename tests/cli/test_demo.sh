#!/usr/bin/env bash
# The main job end to end: `tunectl demo` tunes the demo workload through
# all seven phases with the plain-script workers.  The workload runs for
# real, but logs modelled times (SKW_SIMULATED_TIMING=1) so that a noisy
# test machine cannot fail the gates; `make demo` uses the real clock.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/base_lib.sh"

export SKW_SIMULATED_TIMING=1
jq_() { /usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }

# check_html FILE CHART...: well-formed XML and every chart has data points
check_html() {
	local file=$1
	shift
	/usr/bin/python3 - "$file" "$@" <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
charts = {s.get("data-chart"): int(s.get("data-points") or 0)
          for s in root.iter("{http://www.w3.org/2000/svg}svg")}
missing = [c for c in sys.argv[2:] if charts.get(c, 0) <= 0]
marks = sum(1 for s in root.iter("{http://www.w3.org/2000/svg}svg")
            for e in s.iter() if e.tag.endswith("circle") or e.tag.endswith("rect"))
if missing or marks == 0:
    sys.exit("charts without data: %s (charts: %s)" % (missing, charts))
PY
}

run_demo() {	# run_demo DIR MODE -> $R = the run directory
	tc demo --artifact-root "$1" --profile quick --optional-mode "$2"
	R=$(readlink -f "$1/latest")
}

for mode in none multistream source-range both; do
	run_demo "$T/d-$mode" "$mode"
	expect_rc 0 "demo ($mode) exits 0"
	expect_err "final clean E2E: beneficial" "demo ($mode) prints the outcome"
	expect_err "HTML report" "demo ($mode) prints where the HTML report is"
	check "demo ($mode) names no refusal" bash -c '! printf "%s" "$1" | grep -q "what you can do"' _ "$err"
	S="$R/auto-tune-session.json"
	expect_eq "$(jq_ "$S" "d['status']")" "completed" "demo ($mode) completes the session"
	check "demo ($mode) writes the English final report beside the reference's" \
	    test -s "$R/FINAL_E2E_REPORT.en.md" -a -s "$R/report.html"
	tc verify --session "$S"
	expect_rc 0 "demo ($mode) leaves a session that verifies (report.html and FINAL_E2E_REPORT.en.md included)"
	expect_eq "$(jq_ "$S" "all('dispatch_receipt_path' in s for s in d['steps'])")" "True" \
	    "demo ($mode): every phase was sealed from a worker's attempt"
	expect_eq "$(/usr/bin/python3 -c "
import json,sys,os
d=json.load(open('$S'))
print(any(json.load(open(os.path.join('$R', s['result_path']))).get('system_generated_by') for s in d['steps']))")" \
	    "False" "demo ($mode): no phase was short-circuited"
	expect_eq "$(jq_ "$R/ledger.json" "d['final_e2e']['classification']")" "beneficial" \
	    "demo ($mode): the final clean E2E is beneficial"
done
check "the both-mode schedule includes base-profile-derived" \
    grep -q '"step_id": "base-profile-derived"' "$T/d-both/latest/auto-tune-session.json"

# The demo's loaded-machine policy: frozen at intake, passed to every gate
# (and recorded in its provenance, which verify recomputes), and still
# refusing a real regression: O3 (tile_size 64) is slower in the model.
R=$(readlink -f "$T/d-none/latest")
expect_eq "$(jq_ "$R/intake/freeze.json" "[d['gate_policy'][k] for k in ('decide_by', 'stability_rule', 'max_spread_pct')]")" \
    "['ci', 'relative', 50.0]" "intake freezes decide-by ci, the relative stability rule and a 50 % spread limit"
expect_eq "$(jq_ "$R/final/promotion.json" "(lambda e: (e['decide_by'], e['stability_rule'], e['promoted']))(d['candidates']['Sbest']['promotion'])")" \
    "('ci', 'relative', True)" "the final gate decided by the interval under the relative rule"
expect_eq "$(jq_ "$R/final/promotion.json.provenance.json" "d['decide_by'], d['stability_rule'], d['max_spread_pct']")" \
    "('ci', 'relative', 50.0)" "the final gate's provenance records the rules"
expect_eq "$(jq_ "$R/s0/stability.json" "d['baseline_stability']['max_spread_pct']")" "50.0" \
    "S0 is judged against the frozen limit"
expect_eq "$(jq_ "$R/stage-o/O3-trial.json" "(lambda e: (e['accepted'], e['mean_improvement_pct'] < 0, e['ci95_improvement_pct'][1] < 0, e['waived_by_interval']))(d['candidates']['O3']['option_trial_evaluation'])")" \
    "(False, True, True, [])" "a slower option is refused under the demo's policy, nothing waived"

# Interleaved comparisons (gate_policy.order): Stage A, every option trial
# and the Final measure their baseline again beside the candidates, one run
# of each side in turn (bench ab), each side in its own run set; the
# baseline of Stage A and the Final runs S0's very command, which the strict
# policy accepts for the frozen S0 (verify passed above).
jorder() { jq_ "$1/runset.json" "(lambda i: (i['role'], i['order'], len(i['sides'])))(d['interleaved'])"; }
expect_eq "$(jq_ "$R/intake/freeze.json" "d['gate_policy']['order'], d['gate_policy']['screen_remeasure_spread_pct']")" \
    "('interleaved', 35.0)" "intake freezes the interleaved order and Stage A's re-measurement limit"
expect_eq "$(jorder "$R/stage-a/baseline")" "('A', 'A B C D E A B C D E A B C D E A B C D E A B C D E', 5)" \
    "Stage A: the baseline and the four scopes, one run of each in turn"
expect_eq "$(jorder "$R/stage-a/S2")" "('C', 'A B C D E A B C D E A B C D E A B C D E A B C D E', 5)" \
    "each scope in its own run set, which records the order"
expect_eq "$(jq_ "$R/stage-a/baseline/runset.json" "d['command']")" \
    "$(jq_ "$R/s0/runset/runset.json" "d['command']")" "Stage A's baseline runs S0's very command"
expect_eq "$(jq_ "$R/stage-a/selection.json" "d['baseline']['path'].endswith('/stage-a/baseline'), sorted(c['run_count'] for c in d['candidates'].values())")" \
    "(True, [5, 5, 5, 5])" "the screening gate judged the scopes against the baseline measured beside them"
for o in O1 O2 O3; do
	expect_eq "$(jorder "$R/stage-o/$o-baseline")" "('A', 'A B A B A B A B A B', 2)" \
	    "option trial $o: the incumbent measured again beside the trial"
	expect_eq "$(jq_ "$R/stage-o/$o-trial.json" "d['baseline']['path'].endswith('/stage-o/$o-baseline')")" "True" \
	    "option trial $o was judged against the incumbent measured beside it"
done
expect_eq "$(jorder "$R/final/candidate")" "('B', 'A B A B A B A B A B', 2)" "Final: the winner beside the baseline"
expect_eq "$(jq_ "$R/final/baseline/runset.json" "d['command']")" \
    "$(jq_ "$R/s0/runset/runset.json" "d['command']")" "the Final's baseline runs S0's very command"
check "ledger final-e2e compared the winner with the baseline measured beside it" \
    grep -q '/final/baseline"' "$R/ledger.json.provenance.json"
expect_eq "$(jq_ "$R/ledger.json" "[r.get('baseline_ms') for r in d['report_summary']['stages'] if r['stage'] == 'stage_a']")" \
    "[None, None, None, None]" "Stage A's summary rows give no baseline_ms other than the frozen S0's"
check "FINAL_E2E_REPORT.md shows the Final's and the trials' order" \
    grep -q "runs interleaved: A B A B A B A B A B" "$R/FINAL_E2E_REPORT.md"
check "and Stage A's five sides" \
    grep -q "runs interleaved: A B C D E A B C D E A B C D E A B C D E A B C D E" "$R/FINAL_E2E_REPORT.md"
expect_eq "$(jq_ "$R/phases/final-e2e-report/phase-result.json" "[x['runsets'] for x in d['decisions'] if x['decision'] == 'runs_interleaved']")" \
    "[['final/baseline', 'final/candidate']]" "the Final's result records the interleaved run sets"

# BASE produced what an NPU run produces, and analysed it as an NPU user
# would: msprof-format kernel_details.csv for SK off and on under
# collection manifests, the SK-on graph files, and tunectl analyze fusion's
# schema 1.2 analysis with an exact association and decisive verdicts.
R=$(readlink -f "$T/d-none/latest")
base_checks "$R"
# The SK-on capture's SuperKernel child trace: recorded by its manifest
# (the optional sk_prof role) and read by the analysis as context.
check "the SK-off capture has no child trace" test ! -e "$R/base/capture/sk-off/sk_prof_device_0.json"
expect_eq "$(jq_ "$R/base/capture/sk-on/collection-manifest.json" "[f['path'] for f in d['files']['sk_prof']]")" \
    "['sk_prof_device_0.json']" "the SK-on manifest records the child trace as its sk_prof file"
# sk_child_ctx ANALYSIS: the child trace's input path, and whether the
# analysis summarised every event of it, and on how many streams
sk_child_ctx() {
	/usr/bin/python3 - "$1" <<'EOF'
import json, os, sys
d = json.load(open(sys.argv[1]))
path = os.path.join(os.path.dirname(sys.argv[1]), d["inputs"]["sk_prof"])
p = d["sk_child_profile"]
events = json.load(open(path))
print(d["inputs"]["sk_prof"].split("/")[-4:], p["diagnostic_only"],
      p["event_count"] == len(events) > 0, p["stream_count"])
EOF
}
expect_eq "$(sk_child_ctx "$A")" "['base', 'capture', 'sk-on', 'sk_prof_device_0.json'] True True 1" \
    "the analysis reads the child trace as context: every event, one stream"
check "the session report links the analysis's HTML view" grep -q 'profiling-analysis.html">HTML view</a>' "$R/report.html"
# The derived BASE of mode both profiles the multistream incumbent: the
# main stream splits the batch and joins it (split, concat), so the two
# streams differ, the stream assignment is unique, every SK (one per layer
# and stream) is mapped exactly and its verdict is decisive.
RB=$(readlink -f "$T/d-both/latest")
expect_eq "$(/usr/bin/python3 -c "
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print(sorted({(r['Stream ID'], r['Name']) for r in rows if r['Name'] in ('split', 'concat')}), sorted({r['Stream ID'] for r in rows}))" \
    "$RB/base-derived/capture/sk-off/kernel_details.csv")" \
    "[('0', 'concat'), ('0', 'split')] ['0', '1']" "the derived BASE's SK-off capture runs two streams, the main one splitting and joining the batch"
AD=$RB/$(jq_ "$RB/phases/base-profile-derived/phase-result.json" "[a for a in d['produced_artifacts'] if a.endswith('/profiling-analysis.json')][0]")
expect_eq "$(jq_ "$AD" "d['association_protocol']['status'], sorted({(x['mapping_method'], x['mapping_confidence'], tuple(x['mapping_blockers'])) for x in d['per_sk_decisions']})")" \
    "('associated', [('kernel_projection_structural', 'exact_projected_trace', ())])" \
    "the derived BASE maps every SK exactly, no stream assignment ambiguous"
expect_eq "$(jq_ "$AD" "len(d['per_sk_decisions']), sorted({s for p in d['graph_alignment_proof'].values() for s in p['alternative_solution_count_by_step'].values()})")" \
    "(8, [0])" "the derived BASE projects one SK per layer and stream, each step with one assignment"
expect_eq "$(jq_ "$AD" "all(x['action'] in ('keep', 'prune', 'block') and x['classification'] != 'insufficient_evidence' for x in d['per_sk_decisions']), len({x['sk_id'] for x in d['per_sk_decisions']}), {x['identity_disambiguation']['kind'] for x in d['per_sk_decisions']}")" \
    "(True, 8, {'graph_occurrence'})" "the derived BASE's verdicts are decisive, a layer's two SKs told apart by graph occurrence"
expect_eq "$(sk_child_ctx "$AD")" "['base-derived', 'capture', 'sk-on', 'sk_prof_device_0.json'] True True 2" \
    "the derived BASE's child trace holds both streams' SKs"

cp "$A" "$T/analysis.bak"
/usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1])); d['per_sk_decisions'][0]['action']='prune'; json.dump(d, open(sys.argv[1], 'w'), indent=2)" "$A"
tc verify --session "$R/auto-tune-session.json"
expect_rc 1 "verify refuses an analysis edited after it was sealed"
expect_out "profiling analysis content fingerprint mismatch: base-profile-source-mapping: ${A#"$R"/}" \
    "verify recomputes the analysis's content fingerprint and names it"
cp "$T/analysis.bak" "$A"
tc verify --session "$R/auto-tune-session.json"
expect_rc 0 "the session verifies again with the analysis as sealed"

# The HTML report: well-formed, every chart present with data.
R=$(readlink -f "$T/d-none/latest")
check "the HTML report is well-formed with data in every chart" check_html "$R/report.html" s0 stage_a stage_o final
check "the HTML report links every phase's evidence" grep -q 'href="./phases/final-e2e-report/phase-result.json"' "$R/report.html"
tc report html --session "$R/auto-tune-session.json" --output "$T/again.html"
expect_rc 0 "report html renders a finished session again"
check "report html output is well-formed" check_html "$T/again.html" s0 stage_a stage_o final
tc report html --session "$T/nope.json"
expect_rc 1 "report html of a missing session fails"

# A noisy machine: the S0 gate refuses, the session short-circuits, and the
# closing lines name the gate, its numbers and what to do.
SKW_SIMULATED_TIMING=noisy run_demo "$T/d-noisy" none
expect_rc 0 "a short-circuited demo still completes and exits 0"
expect_err "final clean E2E: not_run" "the short-circuited demo prints its outcome"
expect_err "demo:   s0-baseline ended blocked" "the closing lines name the step that stopped the chain"
expect_err "demo:   stability gate (s0/stability.json): spread " "the closing lines name the gate and its report"
check "the closing lines give the spread against the demo's 50 % threshold" \
    bash -c 'printf "%s" "$1" | grep -Eq "spread [0-9]+\.[0-9]{2} % > 50\.0 % \(per-run worst-rank means [0-9.]+(, [0-9.]+){4} ms\)"' _ "$err"
expect_err "machine load average" "the closing lines say how busy the machine was"
expect_err "demo: what you can do:
demo:   the timings were too noisy to trust" "the closing lines say what the user can do"
expect_eq "$(jq_ "$R/ledger.json" "d['final_e2e']['classification']")" "not_run" \
    "the noisy demo's final E2E is not_run"
# A disturbed series is measured again, at most three times, and every
# attempt stays in the evidence under its own name.
expect_eq "$(ls -d "$R"/s0/runset "$R"/s0/runset-2 "$R"/s0/runset-3 "$R"/s0/stability.json \
    "$R"/s0/stability-2.json "$R"/s0/stability-3.json 2>/dev/null | wc -l)" 6 \
    "the unstable S0 series was measured three times, each kept under its own name"
check "no fourth S0 series" test ! -e "$R/s0/runset-4"
expect_eq "$(jq_ "$R/s0/series.json" "d['runset'], d['stability'], d['stable']")" \
    "('s0/runset-3', 's0/stability-3.json', False)" "s0/series.json names the last series the gates judged"
expect_eq "$(jq_ "$R/phases/s0-baseline/phase-result.json" \
    "[(x['series'], len(x['attempts']), [a['stable'] for a in x['attempts']]) for x in d['decisions'] if x['decision'] == 'series_remeasured']")" \
    "[('s0/runset', 3, [False, False, False])]" "the S0 result records every attempt"
expect_err "demo:   stability gate (s0/stability-3.json): spread " "the closing lines name every attempt's gate"

# `make demo` passes a relative artifact root; the workers run in the run
# directory, so every path the demo hands them must still lead there.
mkdir -p "$T/cwd"
(cd "$T/cwd" && tc demo --artifact-root rel-demo --profile quick --optional-mode none
 echo "$rc" >"$T/cwd/rc"; printf '%s' "$err" >"$T/cwd/err")
expect_eq "$(cat "$T/cwd/rc")" 0 "a demo under a relative artifact root exits 0"
check "a demo under a relative artifact root ends beneficial" grep -q "final clean E2E: beneficial" "$T/cwd/err"
check "its lease root is the one under the relative root" test -d "$T/cwd/rel-demo/leases"

# A second demo starts a fresh session.
run_demo "$T/d-none" none
n=$(ls -d "$T"/d-none/superkernel-* | wc -l)
expect_eq "$n" 2 "a second demo starts a fresh session"

# Kill the demo in the middle of a phase, then resume it to completion.
"$TUNECTL_BIN" demo --artifact-root "$T/d-kill" --profile quick --optional-mode none >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1 100); do
	ls "$T"/d-kill/latest/dispatches/stage-a-scope-selection-attempt-001 >/dev/null 2>&1 && break
	sleep 0.1
done
{ kill -9 "$pid"; wait "$pid"; } 2>/dev/null
check "the demo was killed during Stage A" test ! -e "$T/d-kill/latest/phases/stage-a-scope-selection/phase-result.json"
tc demo --artifact-root "$T/d-kill" --profile quick --resume
expect_rc 0 "demo --resume finishes the interrupted session"
S="$T/d-kill/latest/auto-tune-session.json"
expect_eq "$(jq_ "$S" "d['status']")" "completed" "the resumed session is completed"
tc verify --session "$S"
expect_rc 0 "the resumed session verifies"
tc demo --artifact-root "$T/empty-dir" --resume
expect_rc 1 "demo --resume with nothing to resume fails"
expect_err "nothing to resume" "demo --resume says there is nothing to resume"

tc demo --artifact-root "$T/bad" --optional-mode frobnicate --profile quick
expect_rc 2 "demo refuses an unknown optional mode"
expect_err "argument --optional-mode: invalid choice: 'frobnicate'" "the refusal names --optional-mode"
check "a refused demo creates no run directory" test ! -e "$T/bad"
tc demo --profile huge
expect_rc 2 "demo refuses an unknown profile"

finish
