#!/usr/bin/env bash
# tunectl tune SPEC: the seven-phase session on the DGEMM example
# (examples/dgemm) with the generic workers of share/workers.  The
# program, its builds (one per variant, cached), its correctness check, the
# leases, the gates, the seals and verify are real; the timings are
# simulated (a tiny product, then a deterministic figure per
# configuration) so that the gates decide the same on a loaded machine.
. "$(dirname "$0")/lib.sh"
command -v cc >/dev/null 2>&1 || { skip "no C compiler"; finish; }
command -v python3 >/dev/null 2>&1 || { skip "no python3"; finish; }
cd "$T"
mkdir ex
cp "$TUNECTL_SRC/examples/dgemm/dgemm.c" ex/
# The spec: examples/dgemm/tune.yaml made small.  The simulated time of a
# configuration: 10 ms x variant x block_i x block_k factors; "broken" is
# the fastest of all but fails the check, so it must never be timed.
# $T/fail makes every run of variant O3 exit 3, $T/hang every run of O3
# hang (run.timeout ends it).  Every run is 0.1 us slower than the one
# before ($T/count): a slow drift, so that a baseline measured again never
# repeats S0's figures exactly.
cat > ex/tune.yaml <<YAML
version: 1
name: dgemm-test
build:
  command: cc {cflags} -o {build_dir}/dgemm {spec_dir}/dgemm.c -lm
  inputs: [dgemm.c]
  timeout: 120
run:
  command: >-
    if [ {variant} = O3 ] && [ -e $T/fail ]; then echo broken >&2; exit 3; fi;
    if [ {variant} = O3 ] && [ -e $T/hang ]; then sleep 60; fi;
    {build_dir}/dgemm -n 24 -bi {block_i} -bk {block_k} -r 1 > /dev/null &&
    c=\$(cat $T/count 2>/dev/null || echo 0) && echo \$((c + 1)) > $T/count &&
    awk -v v={variant} -v bi={block_i} -v bk={block_k} -v k="\$TUNECTL_RUN_INDEX" -v c="\$c"
    'BEGIN {{ f = v == "O2" ? 1.0 : v == "O3" ? 0.8 : v == "native" ? 0.7 : 0.5;
    g = bi == 16 ? 1.1 : bi == 64 ? 0.9 : 1.0;
    h = bk == 32 ? 1.1 : bk == 128 ? 0.9 : bk == 256 ? 1.05 : 1.0;
    for (i = 0; i < 3; i++) printf "time_ms: %.4f\n", 10 * f * g * h + 0.01 * (k % 3) + 0.002 * i + 0.0001 * c }}'
  timeout: 2
check:
  command: "test {variant} != broken && {build_dir}/dgemm -n 20 -bi {block_i} -bk {block_k} --verify"
  timeout: 30
metric: {from: stdout, regex: 'time_ms: ([0-9.]+)', unit: ms, direction: lower}
variants:
  - {name: O2, params: {cflags: "-O2"}}
  - {name: O3, params: {cflags: "-O3"}}
  - {name: native, params: {cflags: "-O3 -march=native"}}
  - {name: broken, params: {cflags: "-O1"}}
options:
  parameters:
    block_i: [16, 32, 64]
    block_k: [32, 64, 128, 256]
  constraints: [block_i * block_k <= 8192]
  search: one-at-a-time
baseline: {variant: O2, params: {block_i: 32, block_k: 64}}
gate:
  runs: 5
  warmup_runs: 0
  warmup_samples: 1
  stability: {rule: spread, max_spread_pct: 5.0, series_attempts: 3}
  min_improvement_pct: 2.0
  allow_p90_regression_pct: 0.0
  allow_stddev_regression_pct: 50.0
YAML

# A failed run stops the session at its phase, names the run directory,
# seals nothing of it, and the session resumes once the cause is gone.
touch fail
tc tune ex/tune.yaml --session-dir s
expect_rc 1 "a run that fails stops tune"
expect_err "stage-a/O3/run-1 exited 3" "naming the run directory and the exit status"
expect_err "continue with: tunectl tune ex/tune.yaml --resume --session-dir" "and how to resume"
R=$(cd s/latest && pwd -P)
expect_eq "$("$TUNECTL_BIN" json get "$R/auto-tune-session.json" /steps/1/state)" sealed \
	"S0 was sealed"
expect_eq "$("$TUNECTL_BIN" json get "$R/auto-tune-session.json" /steps/2/state)" pending \
	"Stage A stays pending: nothing of the failed run was sealed"
check "and no result of it was" test ! -e "$R/phases/stage-a-scope-selection/phase-result.json"
rm fail

# A hanging run is ended by run.timeout, named the same way.
touch hang
tc tune ex/tune.yaml --session-dir s --resume
expect_rc 1 "a run that hangs stops tune"
expect_err "timed out" "after run.timeout"
rm hang

# A changed spec is a new session, not a resumed one.
cp ex/tune.yaml ex/tune.yaml.orig
echo "description: changed" >> ex/tune.yaml
tc tune ex/tune.yaml --session-dir s --resume
expect_rc 1 "resume refuses a changed spec"
expect_err "a changed spec is a new session" "in words"
mv ex/tune.yaml.orig ex/tune.yaml

tc tune ex/tune.yaml --session-dir s --resume
expect_rc 0 "the session resumes and completes"
expect_err "final clean E2E: beneficial" "the winner is beneficial"
S="$R/auto-tune-session.json"
tc verify --session "$S"
expect_rc 0 "tunectl verify"
check "the session verifies" grep -q '"valid": true' <<< "$out"
L="$R/ledger.json"
expect_eq "$("$TUNECTL_BIN" json get "$L" /final_e2e/classification)" beneficial "final_e2e is beneficial"
expect_eq "$("$TUNECTL_BIN" json get "$L" /final_e2e/scope_strategy)" "native block_i=64 block_k=128" \
	"the winner: the best variant with the best tiles"
check "Stage A never timed the variant that fails its check" test ! -d "$R/stage-a/broken"
check "it is blocked in the screening matrix with its evidence" \
	grep -q '"code": "correctness_check_failed"' "$R/stage-a/screening-matrix.json"
check "each variant was built once (the cache)" \
	test "$(ls "$R/tune/builds" | wc -l)" -ge 4
check "the constraint skipped 64 x 256" grep -q '不可试：约束 block_i \* block_k <= 8192' "$R/stage-o/option-matrix.json"
check "freeze.json holds the spec's gate policy" grep -q '"allow_stddev_regression_pct": 50.0' "$R/intake/freeze.json"
check "BASE recorded that no profile was asked" grep -q 'the spec has no profile command' "$R/base/profile.json"
check "FINAL_E2E_REPORT.md" test -s "$R/FINAL_E2E_REPORT.md"
check "report.html" test -s "$R/report.html"
check "the spec and its plan are kept" test -s "$R/tune/spec.yaml" -a -s "$R/tune/plan.json"
# gate.order interleaved (the default): every comparison measured its
# baseline again, one run of each side in turn, each side in its own run set.
jorder() { python3 -c 'import json,sys; i=json.load(open(sys.argv[1]))["interleaved"]; print(i["role"], i["order"])' "$1"; }
expect_eq "$(jorder "$R/stage-a/baseline/runset.json")" "A A B C A B C A B C A B C A B C" \
	"Stage A: the baseline and both timed variants in turn"
expect_eq "$(jorder "$R/final/candidate/runset.json")" "B A B A B A B A B A B" "Final: the winner beside the baseline"
check "the Final gate judged the winner against the baseline measured beside it" \
	grep -q "final/baseline" "$R/final/promotion.json.provenance.json"
check "a Stage O trial was judged against the incumbent measured beside it" \
	test -f "$R/stage-o/O1-baseline/runset.json"
check "the reports show the order" grep -q "runs interleaved: A B A B A B A B A B" "$R/FINAL_E2E_REPORT.md"
check "and Stage A's line its three sides" grep -q "runs interleaved: A B C A B C A B C A B C A B C" \
	"$R/FINAL_E2E_REPORT.md"

# A program that is not built, whose figure is read from a JSON file it
# writes into its run directory (metric.from: file), or from its stderr;
# its check is a text its stdout must hold.
for from in file stderr; do
	if [ $from = file ]; then
		emit='printf "{{\"timing\": {{\"ms\": [%s, %s]}}}}\n" $t $t > {run_dir}/result.json'
		metric='{from: file, file: result.json, pointer: /timing/ms, unit: ms, direction: lower}'
	else
		emit='echo "elapsed $t ms" >&2'
		metric="{from: stderr, regex: 'elapsed ([0-9.]+) ms', unit: ms, direction: lower}"
	fi
	# the small script spec of the tune tests (lib.sh), with a profile command
	{ script_spec script-$from "$emit" "$metric"
	  echo 'profile: {command: "echo profiled {variant} n={n}", timeout: 5}'; } > ex/$from.yaml
	tc tune ex/$from.yaml --session-dir s
	expect_rc 0 "metric.from $from: the session completes"
	expect_err "final clean E2E: beneficial, +69." "about 70 % faster, read from $from"
	expect_err "% for fast n=2" "the winner: the fast variant at n=2"
	F=$(cd s/latest && pwd -P)
	check "metric.from $from: the run sets record the reader" \
		grep -q "\"source\": \"metric_$([ $from = file ] && echo file || echo regex)\"" "$F/s0/runset/runset.json"
	check "metric.from $from: BASE ran the profile command on the winner" \
		grep -qx "profiled fast n=2" "$F/$("$TUNECTL_BIN" json get "$F/base/profile.json" /stdout)"
	tc verify --session "$F/auto-tune-session.json"
	expect_rc 0 "metric.from $from: the session verifies"
done

# A baseline too noisy to trust: S0 refuses it (three series), the session
# completes not_run, and tune says which gate refused with its numbers.
sed -e 's/+ 0.01 \* (k % 3)/+ 4 * (k % 3)/' -e 's/^name: dgemm-test/name: noisy/' ex/tune.yaml > ex/noisy.yaml
tc tune ex/noisy.yaml --session-dir s
expect_rc 0 "a refused baseline is a finished session"
expect_err "final clean E2E: not_run" "that ends not_run"
expect_err "a gate refused the evidence:" "naming the refusal"
expect_err "stability gate (s0/stability-3.json): spread" "with the gate and its numbers"
N=$(cd s/latest && pwd -P)
tc verify --session "$N/auto-tune-session.json"
expect_rc 0 "and it verifies"

finish
