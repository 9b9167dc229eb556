#!/bin/sh
# run-on-gpu.sh - the GPU run, as one short script for a machine with an
# NVIDIA GPU: build what is missing, record the machine, run the GPU
# workload's tests on the GPU, then one complete `tunectl demo --workload
# gpu` session (standard profile), and keep what shows the result:
#
#   OUT/machine.txt           date, kernel, nvidia-smi, nvcc --version
#   OUT/devices.json          the GPUs the workload sees (gskw --list-devices)
#   OUT/build.log             the build, when one was needed
#   OUT/test_gpu_workload.log the workload's tests, run on the GPU
#   OUT/demo.log              the demo's progress and closing lines
#   OUT/summary.txt|json      S0 spread, every stage's result, BASE's
#                             analysis of its msprof captures (gskw
#                             --msprof-out: association, per-SK verdicts),
#                             the final E2E
#   OUT/verify.json           tunectl verify of the finished session
#   OUT/report.html           the session's HTML report
#   OUT/FINAL_E2E_REPORT.md   its final report
#   OUT/session.tar.gz        the whole session directory (verifiable:
#                             tar xzf, then tunectl verify --session
#                             superkernel-*/auto-tune-session.json)
#
# usage: examples/gpu-workload/run-on-gpu.sh [OUT]    (from the source tree;
#        OUT defaults to $OUT, else ./gpu-run)
# Environment: DEMO_ARGS (extra `tunectl demo` arguments, e.g.
# "--optional-mode both"), SKIP_TESTS=1 (demo only), JOBS (make -j).
#
# It takes a few minutes: the build about one (16 cores, when nothing was
# carried over), the tests about one, the demo two or three.  Exit 0 when
# the demo produced a verified session, whatever its verdict; the verdict
# is in summary.txt.
set -eu
cd "$(dirname "$0")/../.."
OUT=${1:-${OUT:-gpu-run}}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
say() { echo "run-on-gpu: $*" >&2; }

{
	date -u
	uname -a
	command -v nvidia-smi >/dev/null && nvidia-smi
	command -v nvcc >/dev/null && nvcc --version || /usr/local/cuda/bin/nvcc --version
} >"$OUT/machine.txt" 2>&1 || true

# 1. Build.  A session may carry build/tunectl, build/examples/gskw and
# build/tests/gskw-sim over; make then finds them up to date, and where
# the build packages are missing the carried binaries still run the demo.
say "building (make all unit-tests) ..."
if ! make -j"${JOBS:-$(nproc)}" all unit-tests >"$OUT/build.log" 2>&1; then
	tail -20 "$OUT/build.log" >&2
	if [ -x build/tunectl ] && [ -x build/examples/gskw ]; then
		say "the build failed (build.log); using the carried build/tunectl and build/examples/gskw"
	else
		say "the build failed and nothing was carried: see $OUT/build.log"
		exit 1
	fi
fi
if [ ! -x build/examples/gskw ]; then
	say "build/examples/gskw was not built: is nvcc installed (PATH or /usr/local/cuda/bin)?"
	exit 1
fi

# 2. The GPUs, as the workload sees them.
if ! build/examples/gskw --list-devices >"$OUT/devices.json"; then
	say "no GPU is visible: $(cat "$OUT/devices.json")"
	exit 1
fi
say "GPUs: $(cat "$OUT/devices.json")"

# 3. The workload's tests on the GPU: every strategy with its launch
# count, equal results, every option, a profile, msprof captures timed by
# CUDA events (--msprof-out), and a quick demo whose BASE analyses them.
if [ "${SKIP_TESTS:-0}" != 1 ] && [ -x build/tests/gskw-sim ]; then
	say "running tests/cli/test_gpu_workload.sh on the GPU ..."
	tests/run.sh -t 400 test_gpu_workload >"$OUT/test_gpu_workload.log" 2>&1 ||
	    say "test_gpu_workload failed: see test_gpu_workload.log"
	tail -1 "$OUT/test_gpu_workload.log" >&2
fi

# 4. One complete standard session.
say "running tunectl demo --workload gpu ${DEMO_ARGS:-} ..."
rm -rf "$OUT/demo"
# shellcheck disable=SC2086
build/tunectl demo --workload gpu --artifact-root "$OUT/demo" ${DEMO_ARGS:-} 2>"$OUT/demo.log" || {
	tail -20 "$OUT/demo.log" >&2
	say "the demo failed: see demo.log"
}
R=$(readlink -f "$OUT/demo/latest" 2>/dev/null || true)
if [ -z "$R" ] || [ ! -f "$R/auto-tune-session.json" ]; then
	say "no session was written"
	exit 1
fi
tail -12 "$OUT/demo.log" >&2

# 5. The numbers a reader wants first.
python3 - "$R" "$OUT" <<'PY'
import glob, json, os, sys
root, out = sys.argv[1], sys.argv[2]


def load(rel):
    path = os.path.join(root, rel)
    return json.load(open(path)) if os.path.exists(path) else None


s = {"session": load("auto-tune-session.json")["status"]}
fz = load("intake/freeze.json") or {}
env = load("intake/environment.json") or {}
s["device"] = fz.get("device")
s["timing_clock"] = fz.get("timing_clock")
s["gpus"] = [(d.get("index"), d.get("name"), d.get("driver_version")) for d in (env.get("gpus") or {}).get("devices") or []]
s["cuda_version"] = (env.get("gpus") or {}).get("cuda_version")
st = (load("s0/stability.json") or {}).get("baseline_stability") or {}
s["s0"] = {"mean_ms": st.get("mean_ms"), "spread_pct": st.get("spread_pct"), "stable": st.get("stable")}
sel = load("stage-a/selection.json")
if sel:
    s["stage_a"] = {"selected": sel["selection"].get("selected_for_deep_analysis"),
                    "candidates": {n: {"ms": c["worst_rank_mean_ms"], "improvement_pct": c["improvement_pct"],
                                       "eligible": c["screening_eligibility"]["eligible"]}
                                   for n, c in sel["candidates"].items()}}
trials = {}
for f in sorted(glob.glob(os.path.join(root, "stage-o", "O*-trial.json"))):
    for n, c in json.load(open(f))["candidates"].items():
        ev = c["option_trial_evaluation"]
        trials[n] = {"mean_improvement_pct": ev["mean_improvement_pct"], "accepted": ev["accepted"]}
s["stage_o"] = trials
# BASE: tunectl analyze fusion on the CUDA-event captures (gskw --msprof-out)
base = load("phases/base-profile-source-mapping/phase-result.json") or {}
an = [a for a in base.get("produced_artifacts", []) if a.endswith("/profiling-analysis.json")]
a = load(an[0]) if an else None
if a:
    s["base"] = {"association": (a.get("association_protocol") or {}).get("status"),
                 "verdicts": {d["name"]: {"classification": d["classification"], "action": d["action"],
                                          "mapping": d.get("mapping_confidence"),
                                          "improvement_pct": d.get("improvement_pct"),
                                          "noise_threshold_pct": d.get("noise_threshold_pct")}
                              for d in a.get("per_sk_decisions", [])}}
fe = (load("ledger.json") or {}).get("final_e2e") or {}
s["final"] = {k: fe.get(k) for k in ("classification", "improvement_pct", "candidate_id", "scope_strategy")}
s["final"]["baseline_median_ms"] = (fe.get("baseline") or {}).get("median_ms")
s["final"]["candidate_median_ms"] = (fe.get("candidate") or {}).get("median_ms")
json.dump(s, open(os.path.join(out, "summary.json"), "w"), indent=2, sort_keys=True)
with open(os.path.join(out, "summary.txt"), "w") as f:
    f.write("session %s; rank 0 on %s\n" % (s["session"], s["device"]))
    f.write("GPUs %s, driver CUDA %s, clock %s\n" % (s["gpus"], s["cuda_version"], s["timing_clock"]))
    f.write("S0: mean %s ms, spread %s %% (stable %s)\n" % (s["s0"]["mean_ms"], s["s0"]["spread_pct"], s["s0"]["stable"]))
    for n, c in sorted((s.get("stage_a") or {}).get("candidates", {}).items()):
        f.write("Stage A %s: %.4f ms, %+.2f %%, eligible %s\n" % (n, c["ms"], c["improvement_pct"], c["eligible"]))
    f.write("Stage A selected: %s\n" % (s.get("stage_a") or {}).get("selected"))
    for n, t in trials.items():
        f.write("Stage O %s: %+.2f %%, accepted %s\n" % (n, t["mean_improvement_pct"], t["accepted"]))
    if s.get("base"):
        f.write("BASE analysis: association %s\n" % s["base"]["association"])
        for n, v in sorted(s["base"]["verdicts"].items()):
            f.write("BASE %s: %s/%s (%s), improvement %s %% vs noise %s %%\n" % (
                n, v["classification"], v["action"], v["mapping"], v["improvement_pct"],
                v["noise_threshold_pct"]))
    f.write("final: %s\n" % json.dumps(s["final"], sort_keys=True))
PY
cat "$OUT/summary.txt" >&2

# 6. Keep the report and the session (packed: it holds every rank log).
if build/tunectl verify --session "$R/auto-tune-session.json" >"$OUT/verify.json" 2>&1; then
	say "the session verifies"
else
	say "the session does NOT verify: see verify.json"
fi
cp "$R/report.html" "$R/FINAL_E2E_REPORT.md" "$OUT/" 2>/dev/null || true
tar czf "$OUT/session.tar.gz" -C "$(dirname "$R")" "$(basename "$R")"
rm -rf "$OUT/demo"
say "done: $OUT (summary.txt, report.html, session.tar.gz)"
