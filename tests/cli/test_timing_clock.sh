#!/usr/bin/env bash
# The clock the demo's gates read is the clock its logs, its run sets and
# its reports name: the demo workload logs the CPU time of the rank process
# per step (CLOCK_PROCESS_CPUTIME_ID, which leaves out time the rank was
# not running) as the decode figure, wall time beside it; `bench run`
# records the clock the logs name in runset.json; the gates compare run
# sets only on one clock; the final report and the HTML report name it.
. "$(dirname "$0")/lib.sh"

SKW=$(dirname "$TUNECTL_BIN")/examples/skw
unset SKW_SIMULATED_TIMING SKW_STEP_PAUSE_US
jq_() { /usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }

config() {	# config FILE STEPS: a small one-rank decode loop
	cat > "$1" <<EOF
{"workload": {"layers": 2, "hidden": 32, "batch": 4, "steps": $2, "ranks": 1, "seed": 7},
 "scope": {"strategy": "per_block"},
 "model_config": {"custom_params": {"super_kernel_optimize_options": {}, "super_kernel_debug_options": {}}}}
EOF
}

# samples LOG COLUMN: the per-step figures of a rank log (1 = decode, 2 = wall)
samples() {
	/usr/bin/python3 - "$1" "$2" <<'PY'
import re, sys
col = int(sys.argv[2])
pat = re.compile(r"Inference time \(decode\): ([0-9.]+) ms wall ([0-9.]+) ms")
print(" ".join(m.group(col) for m in pat.finditer(open(sys.argv[1]).read())))
PY
}

# ---- the workload names its clock, bench run records it ---------------------

config "$T/c.json" 12
tc bench run --runs 2 --out "$T/rs" -- "$SKW" --config "$T/c.json"
expect_rc 0 "bench run measures the demo workload"
check "every rank log names the gate clock in its first line" \
    bash -c 'for f in "$1"/run-*/log_0.log; do [ "$(head -n 1 "$f")" = "Timing clock: CLOCK_PROCESS_CPUTIME_ID" ] || exit 1; done' _ "$T/rs"
expect_eq "$(jq_ "$T/rs/runset.json" "d['metric']['clock']")" "CLOCK_PROCESS_CPUTIME_ID" \
    "runset.json records the clock the rank logs name"

# ---- the gates read that clock's figures -------------------------------------

tc gate stability --baseline "$T/rs" --warmup 0 --expected-ranks 1 --json-out "$T/g.json"
expect_rc 0 "the S0 gate reads the run set"
gate=$(/usr/bin/python3 -c "
import json, sys
d = json.load(open('$T/g.json'))
print(' '.join(repr(v) for v in d['baseline']['runs'][0]['ranks']['0']['samples_ms']))")
logged=$(/usr/bin/python3 -c "print(' '.join(repr(float(v)) for v in '$(samples "$T/rs/run-1/log_0.log" 1)'.split()))")
wall=$(/usr/bin/python3 -c "print(' '.join(repr(float(v)) for v in '$(samples "$T/rs/run-1/log_0.log" 2)'.split()))")
expect_eq "$gate" "$logged" "the gate's samples are the logged decode figures (the named clock)"
check "the gate's samples are not the wall figures" test "$gate" != "$wall"

# A rank that is not running costs wall time, not gate-clock time: with a
# 5 ms sleep inside every step, wall exceeds the decode figure by at least
# the sleep (nanosleep never returns early), while the CPU time of the rank
# cannot grow while it sleeps.
config "$T/p.json" 6
SKW_STEP_PAUSE_US=5000 "$SKW" --config "$T/p.json" --log-dir "$T/pause" 2>"$T/pause.err"
rc=$?
expect_rc 0 "the workload runs with a pause in every step"
check "every step's wall figure exceeds its decode figure by the pause (the clock leaves out time not running)" \
    /usr/bin/python3 - "$T/pause/log_0.log" <<'PY'
import re, sys
pairs = re.findall(r"decode\): ([0-9.]+) ms wall ([0-9.]+) ms", open(sys.argv[1]).read())
sys.exit(0 if len(pairs) == 6 and all(float(w) - float(c) >= 4.5 for c, w in pairs) else 1)
PY

# ---- run sets on different clocks are never compared silently ---------------

SKW_SIMULATED_TIMING=1 "$TUNECTL_BIN" bench run --runs 3 --out "$T/sim" -- "$SKW" --config "$T/c.json" >/dev/null 2>&1
expect_eq "$(jq_ "$T/sim/runset.json" "d['metric']['clock']")" "simulated" \
    "a simulated run set names its clock \"simulated\""
tc gate option-trial --baseline "$T/rs" --candidate X="$T/sim" --warmup 0 --expected-ranks 1 --json-out "$T/x.json"
expect_err "warning: timing clocks differ between baseline and X: CLOCK_PROCESS_CPUTIME_ID vs simulated" \
    "the gate warns when baseline and candidate were timed on different clocks"
expect_eq "$(jq_ "$T/x.json" "d['tunectl']['timing_clock']")" \
    "{'baseline': 'CLOCK_PROCESS_CPUTIME_ID', 'candidates': {'X': 'simulated'}}" \
    "the gate report records each run set's clock"
tc gate option-trial --baseline "$T/rs" --candidate X="$T/sim" --warmup 0 --expected-ranks 1 --strict-environment
expect_rc 2 "--strict-environment refuses run sets on different clocks"

# A run whose rank logs name another clock than the first run's fails.
mkdir -p "$T/fake"
cat > "$T/fake/w.sh" <<'EOF'
#!/bin/sh
echo "Timing clock: CLOCK_$TUNECTL_RUN_INDEX" > "$TUNECTL_RUN_DIR/log_0.log"
echo "Inference time (decode): 1.0 ms" >> "$TUNECTL_RUN_DIR/log_0.log"
EOF
chmod +x "$T/fake/w.sh"
tc bench run --runs 2 --warmup-samples 0 --out "$T/mixed" -- "$T/fake/w.sh"
expect_rc 1 "a run set whose runs name different clocks fails"
expect_err "name the timing clock CLOCK_2, earlier runs CLOCK_1" "the refusal names both clocks"

# ---- a real-clock demo: logs, run sets, gate reports and reports agree -------

# Bounded: a demo that does not finish in 600 s fails this test.
timeout 600 "$TUNECTL_BIN" demo --artifact-root "$T/demo" --profile quick > "$T/demo.out" 2>&1
rc=$?
check "the real-clock demo finished (exit 0) within 600 s" test "$rc" = 0
R=$(readlink -f "$T/demo/latest")
expect_eq "$(jq_ "$R/intake/freeze.json" "d['timing_clock']")" "CLOCK_PROCESS_CPUTIME_ID" \
    "intake freezes the clock the workload names"
expect_eq "$(jq_ "$R/s0/runset/runset.json" "d['metric']['clock']")" "CLOCK_PROCESS_CPUTIME_ID" \
    "the S0 run set records the clock"
check "the S0 gate read the rank logs' decode figures" /usr/bin/python3 - "$R" <<'PY'
import json, os, re, sys
root = sys.argv[1]
rep = json.load(open(os.path.join(root, "s0/stability.json")))
for run in rep["baseline"]["runs"]:
    for rank, st in run["ranks"].items():
        text = open(os.path.join(run["path"], "log_%s.log" % rank)).read()
        logged = [float(v) for v in re.findall(r"Inference time \(decode\): ([0-9.]+) ms", text)]
        if st["samples_ms"] != logged[rep["baseline"]["runs"][0]["warmup"]:]:
            sys.exit(1)
PY
check "FINAL_E2E_REPORT.md names the clock the gates read" grep -q "CLOCK_PROCESS_CPUTIME_ID" "$R/FINAL_E2E_REPORT.md"
check "the HTML report names the clock the gates read" grep -q "Metric: [^<]*CLOCK_PROCESS_CPUTIME_ID" "$R/report.html"
check "no report names another clock" bash -c '! grep -q "simulated\|CLOCK_MONOTONIC\|CLOCK_THREAD" "$1/FINAL_E2E_REPORT.md"' _ "$R"

finish
