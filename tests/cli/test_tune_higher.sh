#!/usr/bin/env bash
# metric.direction higher end to end: bench run --metric-higher logs the
# reciprocal of a figure that is better higher (a throughput), the gates
# compare those (lower is better), a gate refuses to mix a reciprocal run
# set with a plain one, and tunectl tune on a spec whose program prints a
# throughput picks the variant of the higher throughput, reporting it in
# its own unit (docs/workload-spec.md "metric").
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null 2>&1 || { skip "no python3"; finish; }
cd "$T"
jf() { /usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }

# ---- bench run --metric-higher ----------------------------------------------
tc bench run --runs 2 --out rs --metric-regex 'rate: ([0-9.]+)' --metric-higher -- \
	sh -c 'echo "rate: 250"; echo "rate: 400"'
expect_rc 0 "bench run --metric-higher"
expect_eq "$(cat rs/run-1/log_0.log)" "Inference time (decode): 0.0040000000000000001 ms
Inference time (decode): 0.0025000000000000001 ms" "each sample is logged as its reciprocal"
check "the program's own output is kept" grep -q "rate: 250" rs/run-1/stdout.log
expect_eq "$(jf rs/runset.json "d['metric']['direction'], d['metric']['logged']")" \
	"('higher', 'reciprocal')" "runset.json records the direction"
tc bench run --runs 1 --out rs0 --metric-regex 'rate: ([0-9.]+)' --metric-higher -- sh -c 'echo "rate: 0"'
expect_rc 1 "a figure of 0 has no reciprocal"
expect_err "--metric-higher needs a positive figure" "in words"
tc bench run --runs 1 --out rs1 --metric-regex 'rate: ([0-9.]+)' --metric-higher -- sh -c 'echo nothing'
expect_rc 1 "a run without the figure fails, never timed by its wall clock"
expect_err "--metric-regex matched nothing in stdout.log" "in words"
tc bench run --runs 1 --out rs2 --metric-higher -- true
expect_rc 2 "--metric-higher needs a reader of the figure (a usage error)"
expect_err "--metric-higher needs --metric-regex or --metric-file" "in words"
tc bench run --runs 2 --out rsf --metric-file r.json --metric-pointer /rate --metric-higher -- \
	sh -c 'echo "{\"rate\": [500, 1000]}" > "$TUNECTL_RUN_DIR/r.json"'
expect_rc 0 "--metric-file with --metric-higher"
expect_eq "$(head -1 rsf/run-1/log_0.log)" "Inference time (decode): 0.0020000000000000000 ms" \
	"the file's figure is logged as its reciprocal too"
tc bench run --runs 2 --out plain --metric-regex 'rate: ([0-9.]+)' -- sh -c 'echo "rate: 300"'
tc gate analyze --baseline plain --candidate R=rs --promotion-mode R=whole_scope --warmup 0 --expected-ranks 1 --json-out g.json
expect_rc 2 "a gate refuses to compare a reciprocal run set with a plain one"
expect_err "the baseline and R log different figures: the figure vs the reciprocal" "in words"

# ---- a spec whose program prints a throughput ----------------------------
mkdir ex
{ cat "$TUNECTL_SRC/tests/fixtures/workloads/throughput.yaml"
  echo "gate: {runs: 5, warmup_runs: 0, warmup_samples: 0}"; } > ex/tune.yaml
tc tune --dry-run ex/tune.yaml
expect_rc 0 "the plan of a higher-is-better spec"
tc tune ex/tune.yaml --session-dir s
expect_rc 0 "the session completes"
expect_err "final clean E2E: beneficial, +199.80% (GB/s, higher is better; its reciprocal, which the gates compare, improved +66.64%)" \
	"the winner triples the throughput, said in the metric's unit and direction"
expect_err "for fast n=2" "the higher throughput wins: the fast variant at n=2"
R=$(cd s/latest && pwd -P)
expect_eq "$(jf "$R/stage-a/selection.json" "d['selection']['selected_for_deep_analysis']")" fast \
	"Stage A selects the variant of the higher throughput"
check "the S0 run set logs reciprocals" grep -q '"logged": "reciprocal"' "$R/s0/runset/runset.json"
check "the summary names the metric's direction" \
	grep -q "GB/s, higher is better" "$R/ledger.json"
check "S0's detail is in GB/s" grep -q "100.06 GB/s" "$R/phases/s0-baseline/phase-result.json"
check "report.html shows the winner in GB/s" grep -q "300.1 GB/s (the reciprocal" "$R/report.html"
check "and the improvement of the figure" grep -q "+199.80 % of the median figure" "$R/report.html"
# The interval beside the improvement: in GB/s, labelled, each bound of
# the reciprocal's mapped by 1/(1 - d) - 1 (the figure tripled: about
# +200 %, its reciprocal about +66.7 %), and the reciprocal's labelled too.
row=$(/usr/bin/python3 - "$R/report.html" <<'PY'
import re, sys
page = open(sys.argv[1], encoding="utf-8").read()
row = re.search(r'<tr id="result-improvement">(.*?)</tr>', page, re.S).group(1)
num = r"([+-][0-9.]+) %"
fig = re.search(r'<span class="figure">in GB/s, higher is better: ' + num +
                r" harmonic mean, 95 % interval \[" + num + ", " + num + r"\]", row)
rec = re.search(r'<span class="reciprocal">of the reciprocal 1/value the gates '
                r"compare, lower is better: " + num + r" mean, 95 % interval \[" +
                num + ", " + num + r"\]", row)
if not fig or not rec:
    print("unlabelled: " + row)
    sys.exit(0)
f = [float(x) for x in fig.groups()]
r = [float(x) for x in rec.groups()]
g = lambda d: d / (100 - d) * 100
# the page rounds to 0.01 %; the map stretches d's rounding about 9 times
ok = all(g(d - 0.005) - 0.005 <= v <= g(d + 0.005) + 0.005 for d, v in zip(r, f))
print("mapped" if ok and f[1] <= f[0] <= f[2] and 190 < f[1] and f[2] < 210
      and 60 < r[1] and r[2] < 70 else "wrong: %s vs %s" % (f, r))
PY
)
expect_eq "$row" mapped "report.html's interval is the figure's, labelled, mapped bound by bound"
tc verify --session "$R/auto-tune-session.json"
expect_rc 0 "tunectl verify"
check "the session verifies (every gate recomputed)" grep -q '"valid": true' <<< "$out"

# ---- rank logs are times ----------------------------------------------------
cat > ex/ranklog.yaml <<'YAML'
version: 1
name: ranklog
run: {command: "true", timeout: 5}
metric: {from: rank-log, unit: ms, direction: higher}
variants: [{name: a, params: {}}, {name: b, params: {}}]
YAML
tc tune --dry-run ex/ranklog.yaml
expect_rc 1 "direction higher with from rank-log is refused"
expect_err "ranklog.yaml:4: metric from rank-log is a time in ms" "naming the line"
finish
