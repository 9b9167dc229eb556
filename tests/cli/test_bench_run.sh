#!/usr/bin/env bash
# test_bench_run.sh - "tunectl bench run" and "bench ab" on the shipped
# tiny workload: the run-set layout, runset.json, wall-time fallback,
# --metric-regex, failures, timeouts and interleaving.
. "$(dirname "$0")/lib.sh"
W="$TUNECTL_SRC/tests/fixtures/workloads/timed_workload.sh"
cd "$T"


tc bench run --runs 5 --out base -- "$W" 10.0 10.1 10.2 10.3 10.4
expect_rc 0 "bench run of the workload succeeds"
check "five run directories in the reference layout" \
	test -d base/run-1 -a -d base/run-5 -a ! -e base/run-6
check "rank 0 log is the workload's stdout (hard link)" \
	test base/run-3/log_0.log -ef base/run-3/stdout.log
check "stderr is kept per run" test -f base/run-1/stderr.log
expect_out '"schema_version": "tunectl-runset-v1"' "stdout is the runset.json document"
expect_out '"all_runs_succeeded": true' "all runs recorded as succeeded"
expect_out '"source": "reference_log_regex"' "metric is the reference regex"
expect_err "base/run-5: exit 0" "progress lines on stderr"
check "runset.json written" test -f base/runset.json
expect_eq "$(grep -c '"exit_code": 0' base/runset.json)" 5 "exit code of every run recorded"
check "environment fingerprint recorded" grep -q '"cpu_model"' base/runset.json
check "per-run worst-rank mean recorded" grep -q '"worst_rank_mean_exact_ms": "10.3"' base/runset.json
check "summary carries the S0 verdict" grep -q '"spread_pct": 3.9215686274509802' base/runset.json

tc bench run --runs 2 --warmup-runs 2 --out warm -- "$W" 7.0
expect_rc 0 "bench run with discarded warm-up processes"
check "warm-up runs go to warmup-K, which no gate reads" \
	test -f warm/warmup-1/stdout.log -a -f warm/warmup-2/stdout.log -a ! -e warm/run-3
expect_eq "$(python3 -c 'import json; d=json.load(open("warm/runset.json")); print([w["path"] for w in d["warmup_runs"]], d["summary"]["run_count"])')" \
	"['warmup-1', 'warmup-2'] 2" "runset.json lists the warm-up runs apart from the measured ones"
expect_err "warm/warmup-1: discarded warm-up" "progress names the warm-up runs"
expect_eq "$(python3 -c 'import json; print(json.load(open("base/runset.json"))["metric"]["clock"])')" "None" \
	"a workload that names no clock has metric.clock null"
tc bench run --runs 1 --warmup-runs -1 --out neg -- "$W" 1
expect_rc 2 "a negative --warmup-runs is a usage error"

tc bench run --runs 2 --out base -- "$W" 1
expect_rc 2 "an existing run set is never overwritten"
expect_err "already holds a run set" "and says why"

tc bench run --runs 10 --out ten -- "$W" 5
expect_rc 0 "ten runs"
check "run names are zero-padded so path order is run order" \
	test -d ten/run-01 -a -d ten/run-10

tc bench run --runs 2 --ranks 3 --out ranks -- "$W" 5.0
expect_rc 0 "multi-rank workload"
check "the workload's rank logs are kept" \
	test -f ranks/run-2/log_0.log -a -f ranks/run-2/log_2.log
check "three ranks summarised" grep -q '"2": 1' ranks/runset.json

tc bench run --runs 3 --out wall -- "$W" --quiet
expect_rc 0 "a workload that logs nothing"
expect_out '"source": "wall_time"' "is measured by its wall time"
expect_out '"warmup_samples": 0' "with no warmup"
check "wall time written as a reference timing line" \
	grep -q '^Inference time (decode): [0-9]*\.[0-9]\{6\} ms$' wall/run-2/log_0.log

tc bench run --runs 2 --out rx --warmup-samples 0 --metric-regex 'took ([0-9.]+)ms' \
	-- sh -c 'echo "took 12.5ms"; echo "step took 13ms"; echo noise'
expect_rc 0 "custom metric regex"
check "samples rewritten in the reference format" \
	grep -qx 'Inference time (decode): 13 ms' rx/run-1/log_0.log
check "raw output kept" grep -q 'step took 13ms' rx/run-1/stdout.log
check "mean over the regex samples" grep -q '"worst_rank_mean_exact_ms": "12.75"' rx/runset.json

# The metric read from stderr: stdout's look-alike is ignored.
tc bench run --runs 2 --out rxerr --warmup-samples 0 --metric-stream stderr \
	--metric-regex 'took ([0-9.]+)ms' -- sh -c 'echo "took 99ms"; echo "took 7.5ms" >&2'
expect_rc 0 "--metric-stream stderr"
check "the stderr sample, not stdout's" grep -qx 'Inference time (decode): 7.5 ms' rxerr/run-1/log_0.log
check "stdout left alone" grep -q 'took 99ms' rxerr/run-1/stdout.log
check "runset.json names the stream" grep -q '"stream": "stderr"' rxerr/runset.json
tc bench run --runs 1 --out rxnone --metric-stream stderr --metric-regex 'took ([0-9.]+)ms' \
	-- sh -c 'echo "took 5ms"'
expect_rc 1 "a stderr regex that matches nothing fails the run"
expect_err "rxnone/run-1: --metric-regex matched nothing in stderr.log" "naming the run directory"
check "it is not timed by its wall clock" sh -c '! grep -q wall_time rxnone/runset.json'
tc bench run --runs 1 --out rxnore --metric-stream stderr -- true
expect_rc 2 "--metric-stream stderr without a regex"
tc bench run --runs 1 --out rxbadstream --metric-stream both --metric-regex x -- true
expect_rc 2 "an unknown stream"

# The metric read from a JSON file the run writes, by JSON pointer.
tc bench run --runs 2 --out jf --warmup-samples 0 --metric-file out/res.json \
	--metric-pointer /timing/ms -- sh -c 'mkdir -p "$TUNECTL_RUN_DIR/out" &&
	echo "{\"timing\": {\"ms\": [4.5, 5.5]}}" > "$TUNECTL_RUN_DIR/out/res.json"'
expect_rc 0 "--metric-file with an array of numbers"
check "each number a sample" grep -qx 'Inference time (decode): 5.5 ms' jf/run-2/log_0.log
check "mean over the file's samples" grep -q '"worst_rank_mean_exact_ms": "5.0"' jf/runset.json
check "runset.json names the file and pointer" grep -q '"pointer": "/timing/ms"' jf/runset.json
tc bench run --runs 1 --out jf1 --warmup-samples 0 --metric-file r.json --metric-pointer /t \
	-- sh -c 'echo "{\"t\": 3}" > "$TUNECTL_RUN_DIR/r.json"'
expect_rc 0 "--metric-file with one number"
check "one sample" grep -qx 'Inference time (decode): 3 ms' jf1/run-1/log_0.log
tc bench run --runs 1 --out jfmiss --metric-file r.json --metric-pointer /t -- true
expect_rc 1 "a run that writes no metric file fails"
expect_err "jfmiss/run-1: --metric-file r.json --metric-pointer /t: the run did not write r.json" \
	"naming the run directory and the file"
tc bench run --runs 1 --out jfptr --metric-file r.json --metric-pointer /nope \
	-- sh -c 'echo "{\"t\": 3}" > "$TUNECTL_RUN_DIR/r.json"'
expect_rc 1 "a pointer that does not resolve fails the run"
tc bench run --runs 1 --out jfstr --metric-file r.json --metric-pointer /t \
	-- sh -c 'echo "{\"t\": \"3\"}" > "$TUNECTL_RUN_DIR/r.json"'
expect_rc 1 "a string at the pointer fails the run"
expect_err "is not a number or a non-empty array of numbers" "in words"
tc bench run --runs 1 --out jfabs --metric-file /etc/passwd --metric-pointer /t -- true
expect_rc 2 "an absolute metric file is a usage error"
tc bench run --runs 1 --out jfnoptr --metric-file r.json -- true
expect_rc 2 "--metric-file needs --metric-pointer"
tc bench run --runs 1 --out jfre --metric-file r.json --metric-pointer /t --metric-regex x -- true
expect_rc 2 "--metric-file and --metric-regex exclude each other"

tc bench run --runs 1 --out rxbad --metric-regex 'took (x)' -- sh -c 'echo took x'
expect_rc 1 "a regex group that is not a number"
expect_err "is not a decimal number of milliseconds" "is refused"

tc bench run --runs 1 --out badre --metric-regex 'a(' -- true
expect_rc 2 "an invalid regex is a usage error"
expect_err "invalid --metric-regex" "with regcomp's reason"

tc bench run --runs 2 --out fail -- "$W" --fail
expect_rc 1 "a failing workload fails the bench run"
check "runset.json still records it" grep -q '"all_runs_succeeded": false' fail/runset.json
expect_eq "$(grep -c '"exit_code": 3' fail/runset.json)" 2 "with the exit codes"

tc bench run --runs 1 --out slow --timeout-seconds 0.3 -- sh -c 'sleep 5'
expect_rc 1 "a run past its timeout fails"
check "the timeout is recorded" grep -q '"timed_out": true' slow/runset.json

tc bench run --runs 1 --out missing -- /nonexistent/workload
expect_rc 1 "a workload that cannot start"
expect_err "No such file or directory" "reports the exec error"

tc bench run --runs 0 --out zero -- true
expect_rc 2 "--runs 0 is a usage error"
tc bench run --runs 2 --out nocmd
expect_rc 2 "the workload is required after --"

rm -f order.txt
tc bench ab --runs 3 --out-a A --out-b B -- sh -c 'echo A >> order.txt' --- sh -c 'echo B >> order.txt'
expect_rc 0 "interleaved A/B"
expect_eq "$(tr '\n' ' ' < order.txt)" "A B A B A B " "runs alternate A B A B"
check "two ordinary run sets" test -f A/runset.json -a -f B/runset.json -a -d B/run-3
check "each names its partner" grep -q '"partner": "A"' B/runset.json
tc bench ab --runs 2 --out-a A2 --out-b B2 -- true
expect_rc 2 "ab needs both commands"
expect_eq "$(python3 -c "import json; d=json.load(open('B/runset.json'))['interleaved']; print(d['role'], d['sides'], d['order'])")" \
    "B ['A', 'B'] A B A B A B" "each records its role, every side and the order the runs were taken in"

# More sides take their turn in every round; warm-ups alternate too.
tc bench ab --runs 2 --warmup-runs 1 --out-a X --out-b Y --out-b Z -- sh -c 'echo X >> o3.txt' \
    --- sh -c 'echo Y >> o3.txt' --- sh -c 'echo Z >> o3.txt'
expect_rc 0 "three interleaved sides"
expect_eq "$(tr '\n' ' ' < o3.txt)" "X Y Z X Y Z X Y Z " "one warm-up of each side, then A B C A B C"
check "the warm-ups are kept apart" test -d Z/warmup-1 -a -d Z/run-2 -a ! -e Z/run-3
expect_eq "$(python3 -c "import json; d=json.load(open('Z/runset.json'))['interleaved']; print(d['role'], d['partner'], d['order'])")" \
    "C X A B C A B C" "the third side is C, its partner A"
tc bench ab --runs 2 --out-a X3 --out-b Y3 -- true --- true --- true
expect_rc 2 "one --out-b per workload after ---"
expect_err "give one --out-b per workload after ---: 1 --out-b for 2" "naming the counts"
check "nothing was run" test ! -e X3
tc bench ab --runs 2 --out-a S --out-b S -- true --- true
expect_rc 2 "two sides into one run set are refused"
expect_err "the run sets of A and B must differ (S)" "naming the run set"
tc bench ab --runs 2 --out-a X4 --out-b Y4 -- true --- true ---
expect_rc 2 "an empty workload after --- is refused"

finish
