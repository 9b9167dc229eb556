#!/usr/bin/env bash
# test_report_html_result.sh - the report an engineer reads first (issue
# 35, items 4 and 5): report.html of real `tunectl tune` sessions opens
# with the result table (what was tuned, the baseline's and the winner's
# knobs, the improvement with its 95 % interval, the verdict and the rules
# behind it), names the knobs on the charts, draws the S0 series S0
# accepted (not the attempt it rejected), lists every refusal with its
# numbers and folds the digests away; `report html --gate` draws one gate
# report made outside a session and refuses another file.  Chromium
# renders a winner's page, a gate page, a higher-is-better page (the
# improvement and its interval in the metric's unit, labelled), the gate
# page of that higher-is-better session's Final (labelled, converted),
# each with the runs' interleaved order in its Runs row, and two
# refusal pages (S0 unstable; Stage A: nothing gains), each refusal with
# its check and numbers in the DOM.  Script workloads with simulated
# timings, as in test_tune_decide.sh.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null 2>&1 || { skip "no python3"; finish; }
cd "$T"
mkdir ex
lacks() { ! grep -q "$@"; }	# lacks PATTERN FILE
# section FILE ID: the text of <section id="ID"> (markup kept)
section() {
	python3 -c 'import re, sys
t = open(sys.argv[1], encoding="utf-8").read()
m = re.search(r"<section id=\"%s\">.*?</section>" % sys.argv[2], t, re.S)
print(m.group(0) if m else "")' "$1" "$2"
}

# spec NAME DECIDE RULE NOISE: fast is 40 % faster than slow, n=2 halves
# the time; NOISE "first" makes S0's first series noisy (the workload's
# runs 2..6: run 1 is intake's probe), "all" every S0 series.
spec() {
	cat > "ex/$1.yaml" <<YAML
version: 1
name: $1
run:
  command: >-
    c=\$(cat $T/$1.count 2>/dev/null || echo 0); c=\$((c + 1)); echo \$c > $T/$1.count;
    awk -v v={variant} -v n={n} -v k="\$TUNECTL_RUN_INDEX" -v c=\$c -v noise=$4
    'BEGIN {{ x = (v == "fast" ? 6 : 10) / n + 0.01 * (k % 2);
    if ((noise == "first" && c >= 2 && c <= 6) || (noise == "all" && v == "slow" && n == 1)) x += 4 * (k % 3);
    printf "elapsed %.3f ms\n", x }}'
  timeout: 5
metric: {from: stdout, regex: 'elapsed ([0-9.]+) ms', unit: ms, direction: lower}
variants: [{name: slow, params: {}}, {name: fast, params: {}}]
options: {parameters: {n: [1, 2]}}
baseline: {variant: slow, params: {n: 1}}
gate:
  runs: 5
  warmup_runs: 0
  warmup_samples: 0
  stability: {rule: $3, max_spread_pct: 5.0, series_attempts: 3}
  decide_by: $2
YAML
}

# ---- decide_by ci: the winner, its knobs, the interval the gate used ------------------
spec ci ci relative none
tc tune ex/ci.yaml --session-dir s
expect_rc 0 "decide_by ci: the session completes"
R=$(cd s/latest && pwd -P)
H="$R/report.html"
section "$H" result > result.html
check "the result table comes before every chart" python3 -c 'import sys
t = open(sys.argv[1]).read(); sys.exit(0 if 0 < t.index("id=\"result\"") < t.index("<svg") else 1)' "$H"
check "it names the spec and the metric" grep -q 'ex/ci.yaml</code>; metric read from stdout by <code>elapsed' result.html
check "the baseline's knobs" grep -q '<th>Baseline</th><td><code>slow n=1</code>' result.html
check "the winner's knobs" grep -q '<th>Winner</th><td><code>fast n=2</code> (Sbest)' result.html
# (the Final's runs are interleaved: the interval pairs them by round, and
# the alternating 0.01 ms both sides share in a round leaves it narrow)
check "the improvement with the gate's 95 % interval and a p-value" \
	grep -Eq 'interval \[\+69\.[0-9]+ %, \+(69|70)\.[0-9]+ %\] \(the gate.s, which decided by it; paired by round \(interleaved runs\)\); Mann-Whitney p = ' result.html
check "the verdict" grep -q '<b class="ok">beneficial</b>' result.html
check "the decide-by rule ci and its threshold" \
	grep -q 'decide-by rule <b>ci</b>: bootstrap 95% interval of the improvement excludes 0 and its lower bound is &gt;= min_improvement_pct (min_improvement_pct 2 %)' result.html
check "the stability rule and the baseline's spread against its limit" \
	grep -Eq 'stability rule <b>relative</b> \(waived by the interval: none\); baseline spread 0\.[0-9]+ % &lt;= 5 % \(stable, 5 runs\)' result.html
check "Stage A's chart names each variant's knobs" grep -q 'fast (fast n=1) +39' "$H"
check "Stage O's chart names the option a trial changed" grep -q 'O1 (n=2) +49' "$H"
check "the Final chart names the winner's knobs" grep -q '>Sbest (fast n=2)</text>' "$H"
check "the digests are folded away" python3 -c 'import re, sys
t = open(sys.argv[1]).read()
ev = re.search(r"<section id=\"evidence\"><h2>Evidence</h2><details>.*?</details></section>", t, re.S)
sys.exit(0 if ev and "sha256" in ev.group(0) and "sha256" not in t[:ev.start()] else 1)' "$H"
check "no gate refused anything" grep -q 'No gate refused anything' "$H"

# ---- decide_by mean, S0's first series too noisy: the accepted one is drawn --------------
spec rerun mean spread first
tc tune ex/rerun.yaml --session-dir s
expect_rc 0 "S0 run again: the session completes"
R2=$(cd s/latest && pwd -P)
H2="$R2/report.html"
check "S0 ran a second series" test -s "$R2/s0/stability-2.json"
section "$H2" s0 > s0.html
check "the S0 chart holds the accepted series' runs (10.00 / 10.01 ms)" \
	grep -q '<title>run 1: 10.0[01]00 ms</title>' s0.html
check "and none of the rejected series (14 or 18 ms)" lacks -E 'run [0-9]: 1[48]\.' s0.html
check "the rejected series is a refusal with its numbers" \
	grep -Eq '<li>s0-baseline: stability gate \(s0/stability.json\): spread [0-9.]+ % &gt; 5.0 % \(per-run worst-rank means' "$H2"
section "$H2" result > result2.html
check "the mean rule is named" grep -q "decide-by rule <b>mean</b>: the reference.s: mean improvement &gt;= min_improvement_pct" result2.html
check "the interval is computed from the Final runs, paired by round, and said to be, with the mean's decision" \
	grep -q "(the gate decided by the mean and wrote no interval: a bootstrap of the report.s runs, paired by round (interleaved runs), computed for this page); Mann-Whitney p = " result2.html
# the page's interval is the one --decide-by ci computes from the same
# (interleaved) run sets: paired by round, the gate's seed and resamples
tc gate analyze --baseline "$R2/final/baseline" --candidate "Sbest=$R2/final/candidate" \
	--promotion-mode Sbest=whole_scope --expected-ranks 1 --warmup 0 --decide-by ci --json-out "$T/ci2.json"
expect_rc 0 "gate analyze --decide-by ci over the mean-decided Final's run sets"
CI2=$(python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))["candidates"]["Sbest"]["promotion"]
print("[%+.2f %%, %+.2f %%] %s" % (e["ci95_improvement_pct"][0], e["ci95_improvement_pct"][1], e["ci_resampling"]))' "$T/ci2.json")
expect_eq "${CI2#*%] }" "paired by round (interleaved runs)" "that gate pairs the Final's runs by round"
check "report.html shows that gate's interval (${CI2% paired*})" grep -qF "95 % interval ${CI2% paired*} (the gate decided by the mean" result2.html
tc report html --gate "$R2/final/promotion.json" --out "$T/mean-gate.html"
expect_rc 0 "report html --gate draws the mean-decided promotion report"
check "its page says the same, paired by round (the run sets it names are interleaved)" \
	grep -qF "95 % interval ${CI2% paired*} (the gate decided by the mean and wrote no interval: a bootstrap of the report's runs, paired by round (interleaved runs), computed for this page)" "$T/mean-gate.html"
check "the stability rule reference" grep -q 'stability rule <b>reference</b>' result2.html

# ---- every S0 series too noisy: the refusal and its numbers in report.html ---------------
spec noisy mean spread all
tc tune ex/noisy.yaml --session-dir s
expect_rc 0 "a refused baseline is a finished session"
R3=$(cd s/latest && pwd -P)
H3="$R3/report.html"
section "$H3" result > result3.html
check "the verdict is not_run" grep -q '<b class="bad">not_run</b>' result3.html
check "no winner" grep -q 'none: the baseline is kept' result3.html
check "the step that stopped the chain" grep -q 'Stopped by step <code>s0-baseline</code>' result3.html
check "S0 blocked: the spread and its limit in the table" \
	grep -Eq '<li>stability gate \(s0/stability-3.json\): spread [0-9.]+ % &gt; 5.0 %' result3.html
check "the rules frozen at intake when no Final gate ran" grep -q 'decide-by rule <b>mean</b>' result3.html
check "all three refused series are listed" \
	test "$(section "$H3" refusals | grep -o '<li>s0-baseline: stability gate' | wc -l)" = 3

# ---- no variant gains: Stage A's refusal of each, with its numbers ------------------------
sed -e 's/name: ci$/name: flat/' -e 's/(v == "fast" ? 6 : 10) \/ n/10/' ex/ci.yaml > ex/flat.yaml
tc tune ex/flat.yaml --session-dir s
expect_rc 0 "a session where nothing gains is a finished session"
R5=$(cd s/latest && pwd -P)
H5="$R5/report.html"
check "nothing gained: Stage A stopped the chain" grep -q 'Stopped by step <code>stage-a-scope-selection</code>' "$H5"
check "Stage A's refusal names the failed check and its numbers" \
	grep -Eq '<li>screening gate \(stage-a/selection\.json\) fast: improvement 95% interval \[[-+][0-9.]+ %, [-+][0-9.]+ %\] \(must exclude 0, lower bound &gt;= 2\.0 %\); median run improvement [-+][0-9.]+ % \(must be &gt; 0\)</li>' "$H5"

# ---- a metric better higher: the improvement and its interval in its unit -----------------
{ cat "$TUNECTL_SRC/tests/fixtures/workloads/throughput.yaml"
  echo "gate: {runs: 5, warmup_runs: 0, warmup_samples: 0, decide_by: ci, stability: {rule: relative}}"; } > ex/higher.yaml
tc tune ex/higher.yaml --session-dir s
expect_rc 0 "a higher-is-better session completes"
R4=$(cd s/latest && pwd -P)
H4="$R4/report.html"
check "its improvement is labelled in GB/s with the gate's interval mapped" \
	grep -Eq '<span class="figure">in GB/s, higher is better: \+199\.[0-9]+ % harmonic mean, 95 % interval \[\+(199|200)\.[0-9]+ %, \+(199|200)\.[0-9]+ %\] \(the gate.s, which decided by it; paired by round \(interleaved runs\); each bound' "$H4"
check "and the reciprocal's, labelled" \
	grep -Eq '<span class="reciprocal">of the reciprocal 1/value the gates compare, lower is better: \+66\.[0-9]+ % mean, 95 % interval \[\+66\.' "$H4"

# ---- report html --gate: a gate report made outside a session ------------------------------
tc report html --gate "$R/final/promotion.json" --out "$T/gate.html"
expect_rc 0 "report html --gate draws a promotion report"
G=$T/gate.html
check "its header counts the promoted candidates" grep -q '1 of 1</b> candidates promoted' "$G"
check "the rule" grep -q 'decide-by rule <b>ci</b>' "$G"
check "the candidate with its interval" grep -Eq '<td>Sbest</td><td>3\.0060 ms</td><td>\+69\.[0-9]+ % mean, 95 % interval \[' "$G"
check "the runs" grep -q '<td>baseline</td><td>5</td><td>10.0100, 10.0000' "$G"
check "the page is well-formed XML" python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' "$G"
check "a session's report.html shows the Final's run order" \
	grep -q '<th>Runs</th><td>runs interleaved: A B A B A B A B A B (the Final' "$R/report.html"
check "the runs' order (gate.order interleaved, the default)" \
	grep -q '<th>Runs</th><td>runs interleaved: A B A B A B A B A B' "$G"
# a reciprocal run set's gate report records the direction; the page
# labels and converts its figures as report.html of a session does
expect_eq "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["metric"])' "$R4/final/promotion.json.provenance.json")" \
	"{'direction': 'higher', 'logged': 'reciprocal'}" "a gate report of a higher-is-better metric records it (its provenance record: the report keeps the reference's shape)"
tc report html --gate "$R4/final/promotion.json" --out "$T/higher.html"
expect_rc 0 "report html --gate draws a reciprocal promotion report"
check "its improvement labelled higher-is-better and mapped, the reciprocal's beside it" \
	grep -Eq '<span class="figure">in the program(&#39;|.)s unit, higher is better: \+199\.[0-9]+ % harmonic mean.*<span class="reciprocal">of the reciprocal 1/value the gates compare, lower is better: \+66\.' "$T/higher.html"
check "the means converted back, the logged reciprocal named" \
	grep -Eq 'per unit of the program(&#39;|.)s figure \(higher is better; logged as its reciprocal' "$T/higher.html"
check "a plain report is not relabelled" bash -c '! grep -q "harmonic mean" "$0"' "$G"
tc report html --gate "$R3/s0/stability-3.json"
expect_rc 0 "report html --gate draws a stability report (default: beside it)"
check "the default output is the report's name with .html" test -s "$R3/s0/stability-3.html"
check "an unstable baseline is named with its numbers" \
	grep -Eq 'is <b class="bad">unstable</b>.*<li>gate: spread [0-9.]+ % &gt; 5.0 %' "$R3/s0/stability-3.html"
# a promotion made by `gate promote` from run sets outside any session:
# one candidate refused, one promoted
W="$TUNECTL_SRC/tests/fixtures/workloads/timed_workload.sh"
mk() {	# mk NAME VALUES...: one bench run set, one sample per run
	local name=$1
	shift
	"$TUNECTL_BIN" bench run --runs 5 --out "$name" -- "$W" "$@" >/dev/null 2>&1 ||
		echo "# bench run $name failed" >&2
}
mk rs-base 10.0 10.1 10.2 10.3 10.4
mk rs-same 10.1 10.0 10.3 10.2 10.4
mk rs-win 5.0 6.5 5.5 7.0 6.0
tc gate promote --baseline rs-base --candidate same=rs-same --candidate win=rs-win \
	--promotion-mode same=whole_scope --promotion-mode win=whole_scope \
	--expected-ranks 1 --allow-stddev-regression-pct 1000 --json-out "$T/two.json"
tc report html --gate "$T/two.json" --out "$T/two.html"
expect_rc 0 "report html --gate draws a promotion of two candidates"
check "one of two promoted" grep -q '1 of 2</b> candidates promoted' "$T/two.html"
check "the refused candidate's failed check and its numbers" \
	grep -q '<li>refused same: mean improvement +0.00 % (needs &gt;= 2.0 %)' "$T/two.html"
check "the promoted one passed every check" grep -q 'promoted</b></td><td>every check passed' "$T/two.html"
check "its interval, computed and said to be, each run set resampled on its own (bench run, not interleaved)" \
	grep -q 'the gate decided by the mean and wrote no interval: a bootstrap of the report.s runs, each run set resampled on its own, computed for this page' "$T/two.html"
check "no interval of that page is said to be paired" lacks 'paired by round' "$T/two.html"
check "one Final chart per candidate" test "$(grep -o 'data-chart="final"' "$T/two.html" | wc -l)" = 2
tc report html --gate "$R/intake/freeze.json" --out "$T/bad.html"
expect_rc 1 "a document that is no gate report is refused"
expect_out "is not a gate report that report html draws: it has no selection.stage" "naming what it lacks"
check "and nothing is written" test ! -e "$T/bad.html"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["baseline_stability"]["run_worst_rank_means_ms"]="x"; json.dump(d, open(sys.argv[2],"w"))' \
	"$R/final/promotion.json" "$T/shape.json"
tc report html --gate "$T/shape.json" --out "$T/shape.html"
expect_rc 1 "a gate report of the wrong shape is refused"
expect_out "baseline_stability lacks its runs" "naming the field"
# a gate that decided by its interval but could compute none (null
# bounds): "not computed", never one made up for the page as if the gate
# had decided by the mean
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["candidates"]["Sbest"]["promotion"]["ci95_improvement_pct"]=[None, None]; json.dump(d, open(sys.argv[2],"w"))' \
	"$R/final/promotion.json" "$T/noci.json"
tc report html --gate "$T/noci.json" --out "$T/noci.html"
expect_rc 0 "report html --gate draws a ci-decided report whose interval is null"
check "its interval is not computed" grep -q '% mean, 95 % interval not computed; Mann-Whitney' "$T/noci.html"
check "and not said to be the mean's" lacks 'decided by the mean' "$T/noci.html"
tc report html --gate "$T/nope.json" --out "$T/nope.html"
expect_rc 1 "a missing file is refused"
tc report html --gate "$T/two.json" --session "$R/auto-tune-session.json"
expect_rc 2 "--gate and --session together are a usage error"

# ---- rendered in Chromium: the result table is in the DOM -------------------------------------
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
	skip "chromium is not installed (scripts/deps.sh browser): the page was not rendered"
else
	# render NAME FILE: the DOM Chromium builds of FILE, in dom-NAME.html
	render() {
		timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-background-networking \
		    --disable-component-update --disable-sync --no-first-run --disable-quic \
		    --user-data-dir="$T/profile" --dump-dom "file://$2" >"$T/dom-$1.html" 2>"$T/chromium.log"
		check "chromium rendered the $1 page (timeout 120 s)" test "$?" = 0 -a -s "$T/dom-$1.html"
	}
	for name in ci gate; do
		[ $name = ci ] && render ci "$H" || render gate "$G"
		check "in chromium the result table is in the DOM" \
		    grep -q '<section id="result"><h2>Result</h2><table class="result">' "$T/dom-$name.html"
		check "in chromium the rule is in it" grep -q 'decide-by rule <b>ci</b>' "$T/dom-$name.html"
	done
	check "in chromium the winner's knobs are in the session's table" \
	    grep -q '<th>Winner</th><td><code>fast n=2</code>' "$T/dom-ci.html"
	check "in chromium the evidence is folded in a details element" \
	    grep -q '<details><summary>Every artifact' "$T/dom-ci.html"
	check "in chromium no script element" lacks -i '<script' "$T/dom-ci.html"
	# the runs' order (issue 35): the interleaved A B row in the DOM of a
	# session page and of a `report html --gate` page
	check "in chromium the session page's Runs row gives the Final's interleaved order" \
	    grep -q '<th>Runs</th><td>runs interleaved: A B A B A B A B A B (the Final' "$T/dom-ci.html"
	check "in chromium the gate page's Runs row gives the interleaved order" \
	    grep -q '<th>Runs</th><td>runs interleaved: A B A B A B A B A B' "$T/dom-gate.html"
	# a higher-is-better session: both figures labelled, in the DOM
	render higher "$H4"
	check "in chromium a higher-is-better improvement is in GB/s, labelled" \
	    grep -Eq '<span class="figure">in GB/s, higher is better: \+199\.[0-9]+ % harmonic mean, 95 % interval \[' "$T/dom-higher.html"
	check "in chromium the reciprocal's figures are labelled apart" \
	    grep -q '<span class="reciprocal">of the reciprocal 1/value the gates compare, lower is better: ' "$T/dom-higher.html"
	check "in chromium the higher-is-better session page's Runs row is interleaved" \
	    grep -q '<th>Runs</th><td>runs interleaved: A B A B A B A B A B (the Final' "$T/dom-higher.html"
	# `report html --gate` over the reciprocal run sets: the runs' order
	# beside its labelled, converted figures
	render higher-gate "$T/higher.html"
	check "in chromium the reciprocal gate page's Runs row gives the interleaved order" \
	    grep -q '<th>Runs</th><td>runs interleaved: A B A B A B A B A B' "$T/dom-higher-gate.html"
	check "in chromium its improvement is labelled higher-is-better, the reciprocal's apart" \
	    grep -Eq "<span class=\"figure\">in the program('|&#39;)s unit, higher is better: \\+199\\.[0-9]+ % harmonic mean.*<span class=\"reciprocal\">of the reciprocal 1/value the gates compare, lower is better: \\+66\\." "$T/dom-higher-gate.html"
	check "in chromium its means are converted back, the logged reciprocal named" \
	    grep -Eq "per unit of the program('|&#39;)s figure \\(higher is better; logged as its reciprocal" "$T/dom-higher-gate.html"
	# refusals: every refused check with its numbers, in the DOM
	render noisy "$H3"
	check "in chromium a refused S0 is the verdict" grep -q '<b class="bad">not_run</b>' "$T/dom-noisy.html"
	check "in chromium every refused S0 series names the check and its numbers" \
	    test "$(section "$T/dom-noisy.html" refusals | grep -Eo '<li>s0-baseline: stability gate \(s0/stability(-[23])?\.json\): spread [0-9.]+ % &gt; 5\.0 % \(per-run worst-rank means [0-9., ]+ ms\)' | wc -l)" = 3
	render flat "$H5"
	check "in chromium Stage A's refusal names the check and its numbers" \
	    grep -Eq '<li>screening gate \(stage-a/selection\.json\) fast: improvement 95% interval \[[-+][0-9.]+ %, [-+][0-9.]+ %\] \(must exclude 0, lower bound &gt;= 2\.0 %\); median run improvement [-+][0-9.]+ % \(must be &gt; 0\)</li>' "$T/dom-flat.html"
fi

finish
