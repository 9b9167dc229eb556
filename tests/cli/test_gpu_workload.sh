#!/usr/bin/env bash
# The GPU workload (examples/gpu-workload): its .cu files compile with nvcc
# and warnings as errors (skipped where nvcc is absent); the built gskw
# says clearly when no GPU is visible; gskw's host side (rank processes,
# one GPU each from the device lease, rank logs the gates read, Stage A's
# archived config, the profile, msprof's files) runs end to end on the
# simulated device (build/tests/gskw-sim); and where a GPU is visible,
# every strategy runs on it with the launch counts it promises and the
# same results, and --msprof-out leaves a capture timed by CUDA events
# (skipped, with the reason, where none is).
. "$(dirname "$0")/lib.sh"

BUILD_DIR=$(dirname "$TUNECTL_BIN")
SIM=$BUILD_DIR/tests/gskw-sim
GSKW=$BUILD_DIR/examples/gskw
NVCC=$(command -v nvcc || { [ -x /usr/local/cuda/bin/nvcc ] && echo /usr/local/cuda/bin/nvcc; })
jq_() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }

# config FILE SCOPE [EXTRA_JSON]: a small GPU workload config
config() {
	python3 - "$@" <<'PY'
import json, sys
path, scope = sys.argv[1], sys.argv[2]
cfg = {"workload": {"layers": 4, "hidden": 128, "batch": 4, "steps": 20, "ranks": 1, "seed": 42},
       "scope": {"strategy": scope},
       "model_config": {"custom_params": {"super_kernel_optimize_options": {},
                                          "super_kernel_debug_options": {}}},
       "experiments": {}}
for k, v in json.loads(sys.argv[3] if len(sys.argv) > 3 else "{}").items():
    cfg[k].update(v)
json.dump(cfg, open(path, "w"))
PY
}

# capture DIR: what a --msprof-out capture holds, in one line: the rows per
# Step Id (every step the same count), the streams, the SuperKernel rows
# per step, whether every duration is positive and every stream's launches
# run in order without overlapping (as a stream runs them), whether the
# compiler's files are there exactly when it holds SuperKernels, and
# whether there is a child trace.
capture() {
	python3 - "$1" <<'PY'
import csv, os, sys
d = sys.argv[1]
rows = list(csv.DictReader(open(os.path.join(d, "kernel_details.csv"))))
steps = {}
for r in rows:
    steps[r["Step Id"]] = steps.get(r["Step Id"], 0) + 1
per_step = sorted(set(steps.values()))
sk = sum(r["Type"] == "SuperKernel" for r in rows) // max(1, len(steps))
ordered = True
for s in {r["Stream ID"] for r in rows}:
    end = -1.0
    for r in (r for r in rows if r["Stream ID"] == s):
        start, dur = float(r["Start Time(us)"]), float(r["Duration(us)"])
        ordered &= start >= end - 0.01 and dur > 0
        end = start + dur
meta = all(os.path.isfile(os.path.join(d, "device_0", "model_1", f)) for f in (
    "sk_graph_origin.json", "sk_graph_updated.json", "sk_fused_nodes.log", "sk_scope_split.log",
    "super_kernel.log"))
print(len(steps), per_step, sorted({r["Stream ID"] for r in rows}), sk, ordered, meta == (sk > 0),
      os.path.exists(os.path.join(d, "sk_prof_device_0.json")),
      all(os.path.isfile(os.path.join(d, f)) for f in ("task_time.csv", "trace_view.json")))
PY
}

# ---- nvcc: the .cu files compile, warnings as errors ----------------------
if [ -z "$NVCC" ]; then
	skip "nvcc not found: the .cu files were not compiled"
else
	# The build's own rule and flags, into a scratch build directory.
	objs=""
	for cu in "$TUNECTL_SRC"/examples/gpu-workload/*.cu; do
		objs="$objs $T/b/obj/examples/gpu-workload/$(basename "${cu%.cu}").o"
	done
	# shellcheck disable=SC2086
	make -s -C "$TUNECTL_SRC" BUILD="$T/b" NVCC="$NVCC" $objs >"$T/nvcc.log" 2>&1
	rc=$?
	check "the .cu files compile with nvcc, warnings as errors" test "$rc" = 0
	[ "$rc" = 0 ] || sed 's/^/#   /' "$T/nvcc.log" | tail -20
fi

# ---- the built workload without a GPU ---------------------------------------
if [ ! -x "$GSKW" ]; then
	skip "build/examples/gskw was not built (no nvcc)"
	gpu_visible=0
	why="build/examples/gskw was not built (no nvcc)"
else
	"$GSKW" --list-devices >"$T/devices.json" 2>"$T/devices.err"
	rc=$?
	if [ "$rc" = 0 ]; then
		gpu_visible=1
		ok "gskw --list-devices finds $(jq_ "$T/devices.json" 'len(d["devices"])') GPU(s)"
	else
		gpu_visible=0
		why=$(jq_ "$T/devices.json" 'd["error"]')
		expect_eq "$rc:$(jq_ "$T/devices.json" 'd["devices"], bool(d["error"]), d["clock"]')" \
		    "1:([], True, 'cudaEventElapsedTime')" "without a GPU gskw --list-devices exits 1 and says why"
	fi
fi

# ---- gskw's host side on the simulated device -----------------------------
export GSKW_SIM_GPUS=4
config "$T/c.json" automatic_aot '{"workload": {"ranks": 2, "steps": 12}}'
"$SIM" --list-devices >"$T/sim-devices.json"
expect_eq "$(jq_ "$T/sim-devices.json" '[x["index"] for x in d["devices"]], d["cuda_driver_version"]')" \
    "([0, 1, 2, 3], '13.0')" "the device list names every GPU and the CUDA versions"
CUDA_VISIBLE_DEVICES=3,1 "$SIM" --list-devices >"$T/sim-devices2.json"
expect_eq "$(jq_ "$T/sim-devices2.json" '[(x["index"], x["cuda_ordinal"]) for x in d["devices"]]')" \
    "[(3, 0), (1, 1)]" "under CUDA_VISIBLE_DEVICES GPUs keep their physical index"
CUDA_VISIBLE_DEVICES=GPU-5d1a "$SIM" --list-devices >"$T/sim-devices3.json" 2>/dev/null
rc=$?
expect_eq "$rc:$(jq_ "$T/sim-devices3.json" '"UUIDs" in d["error"]')" "1:True" \
    "CUDA_VISIBLE_DEVICES naming a UUID is refused: leases name GPUs by index"

# Under a device lease, rank r runs on the r-th leased GPU, alone.
tc lease run --lease-root "$T/leases" --device-id 3 --device-id 1 --timeout-seconds 60 \
    --cwd "$T" --manifest-out "$T/lease.json" -- "$SIM" --config "$T/c.json" --log-dir "$T/run1"
expect_rc 0 "gskw runs its ranks under a lease of two GPUs"
check "rank 0 runs on the first leased GPU, alone" grep -q "rank 0 on GPU 1 (Simulated GPU 1, sm_90" "$T/run1/log_0.log"
check "rank 1 runs on the second leased GPU, alone" grep -q "rank 1 on GPU 3 (Simulated GPU 3, sm_90" "$T/run1/log_1.log"
expect_eq "$(head -1 "$T/run1/log_0.log")" "Timing clock: simulated" "the rank log names its clock first"
expect_eq "$(grep -c '^step .* Inference time (decode): [0-9.]* ms wall [0-9.]* ms launches 16$' "$T/run1/log_1.log")" \
    "12" "every step is logged with its figure, wall time and launches (4 layers x 4)"

tc lease run --lease-root "$T/leases" --device-id 0 --timeout-seconds 60 \
    --cwd "$T" --manifest-out "$T/lease2.json" -- "$SIM" --config "$T/c.json" --log-dir "$T/run2"
expect_rc 1 "two ranks under a lease of one GPU fail"
check "and say why" grep -q "2 ranks need 2 GPUs, one each, but the device lease holds 1 (0)" "$T/lease2.stderr.log"

# What the gates read: a run set of the workload, on the clock it names.
config "$T/s.json" cuda_graph_layer '{"workload": {"ranks": 2}}'
tc bench run --runs 2 --ranks 2 --warmup-samples 4 --out "$T/rs" -- "$SIM" --config "$T/s.json" --archive-config
expect_rc 0 "bench run measures the GPU workload"
expect_eq "$(jq_ "$T/rs/runset.json" 'd["metric"]["clock"], d["all_runs_succeeded"], len(d["runs"])')" \
    "('simulated', True, 2)" "the run set records the clock and both runs"
check "Stage A's config is archived as config.yaml" cmp -s "$T/s.json" "$T/rs/run-1/config.yaml"
tc gate stability --baseline "$T/rs" --warmup 4 --expected-ranks 2
expect_rc 0 "the gates read the GPU workload's rank logs"

config "$T/p.json" per_block
"$SIM" --config "$T/p.json" --log-dir "$T/run3" --profile-out "$T/profile.json"
expect_eq "$(jq_ "$T/profile.json" '[g["kernels"] for g in d["groups"]], d["clock"]')" \
    "([['matmul'], ['bias', 'layernorm', 'gelu', 'softmax', 'residual']], 'simulated')" \
    "the profile times each launch group of the strategy"
# --msprof-out: rank 0 leaves what an NPU profiling run leaves, every
# launch timed (here by the cost model; on a GPU by CUDA events).
"$SIM" --config "$T/p.json" --log-dir "$T/run3m" --msprof-out "$T/m-block"
expect_eq "$?:$(capture "$T/m-block")" "0:20 [8] ['0'] 4 True True False True" \
    "per_block with --msprof-out: two launches per layer, the fused one a SuperKernel, with the compiler's files"
expect_eq "$(sed -n 2,3p "$T/m-block/kernel_details.csv" | cut -d, -f1-7)" \
    "1,0,1,1,0,matmul_0,matmul
1,0,1,2,0,sk_1_decoder.layer.0_start_bias_0_end_residual_0,SuperKernel" \
    "a lone kernel is <kernel>_<layer>, a fused group the CPU workload's SuperKernel name"
config "$T/m2.json" automatic_aot '{"experiments": {"multistream": true}}'
"$SIM" --config "$T/m2.json" --log-dir "$T/run3n" --msprof-out "$T/m-aot2"
expect_eq "$?:$(capture "$T/m-aot2")" "0:20 [32] ['0', '1'] 16 True True False True" \
    "two streams: every launch on each, four per layer, two of them SuperKernels"
config "$T/m3.json" none
"$SIM" --config "$T/m3.json" --log-dir "$T/run3o" --msprof-out "$T/m-none"
expect_eq "$?:$(capture "$T/m-none")" "0:20 [24] ['0'] 0 True True False True" \
    "scope none: six kernels per layer, no SuperKernel and no compiler files"
config "$T/m4.json" cuda_graph_layer
"$SIM" --config "$T/m4.json" --log-dir "$T/run3p" --msprof-out "$T/m-graph"
expect_eq "$?:$(capture "$T/m-graph") $(grep -c 'Node Count: 6$' "$T/m-graph/device_0/model_1/sk_fused_nodes.log")" \
    "0:20 [4] ['0'] 4 True True False True 4" "a layer's CUDA graph is one launch of its six kernels, written as its SuperKernel"
config "$T/m5.json" cuda_graph_layer '{"experiments": {"multistream": true}}'
"$SIM" --config "$T/m5.json" --log-dir "$T/run3q" --msprof-out "$T/m-graph2" 2>"$T/e3q"
expect_eq "$?:$(test -e "$T/run3q/log_0.log" -o -e "$T/m-graph2"; echo $?)" "2:1" \
    "a CUDA graph over two streams with --msprof-out is refused before any rank runs"
check "the refusal says why" grep -q "one launch of both streams' kernels, which msprof's per-stream rows cannot show" "$T/e3q"
"$SIM" --config "$T/nope.json" --log-dir "$T/run4" 2>"$T/e4"
rc=$?
check "a missing config is a usage error naming it" test "$rc" = 2 -a -n "$(grep nope.json "$T/e4")"
config "$T/bad.json" none '{"model_config": {"custom_params": {"super_kernel_optimize_options": {"loop_order": "ikj"}}}}'
"$SIM" --config "$T/bad.json" --log-dir "$T/run5" 2>"$T/e5"
check "an option the GPU workload does not have is refused" grep -q "loop_order is not an option of the GPU workload" "$T/e5"
unset GSKW_SIM_GPUS

# ---- on a real GPU -----------------------------------------------------------
if [ "$gpu_visible" != 1 ]; then
	skip "no GPU visible ($why): the strategies were not run on a GPU"
	skip "no GPU visible: the GPU demo was not run"
	finish
	exit $?
fi
declare -A launches=([none]=24 [cuda_graph_layer]=4 [automatic_aot]=16 [semantic_segment]=12 [per_block]=8 [broad_decode]=4)
sums=""
for scope in none cuda_graph_layer automatic_aot semantic_segment per_block broad_decode; do
	config "$T/g-$scope.json" "$scope"
	"$GSKW" --config "$T/g-$scope.json" --log-dir "$T/g-$scope" 2>"$T/g-$scope.err"
	expect_eq "$?:$(head -1 "$T/g-$scope/log_0.log")" "0:Timing clock: cudaEventElapsedTime" "$scope runs on the GPU, timed by CUDA events"
	expect_eq "$(grep -c "launches ${launches[$scope]}\$" "$T/g-$scope/log_0.log")" 20 \
	    "$scope issues ${launches[$scope]} launches per step"
	sums="$sums $(awk '/^checksum/ {print $2}' "$T/g-$scope/log_0.log")"
done
check "every strategy computes the same activations (checksums within 1e-3)" python3 -c '
import sys; v = [float(x) for x in sys.argv[1:]]
sys.exit(0 if len(v) == 6 and max(abs(x - v[0]) for x in v) <= 1e-3 * max(1.0, abs(v[0])) else 1)' $sums
config "$T/g-opt.json" cuda_graph_layer \
    '{"model_config": {"custom_params": {"super_kernel_optimize_options": {"block_size": 256, "tile_size": 64, "unroll": 4}}}, "experiments": {"multistream": true, "source_range": {"fast_softmax": true}}}'
"$GSKW" --config "$T/g-opt.json" --log-dir "$T/g-opt" --profile-out "$T/g-opt/profile.json"
expect_eq "$?:$(jq_ "$T/g-opt/profile.json" 'd["clock"], len(d["groups"])')" "0:('cudaEventElapsedTime', 1)" \
    "every option, two streams captured in graphs, and a profile run on the GPU"
# --msprof-out on the GPU: every launch between two CUDA events on its
# stream, the streams' launches in order and apart.
config "$T/gm-aot.json" automatic_aot '{"experiments": {"multistream": true}}'
"$GSKW" --config "$T/gm-aot.json" --log-dir "$T/gm-aot" --msprof-out "$T/gm-aot/msprof"
expect_eq "$?:$(capture "$T/gm-aot/msprof")" "0:20 [32] ['0', '1'] 16 True True False True" \
    "--msprof-out on the GPU: two streams, every launch timed by its events, SuperKernels with the compiler's files"
config "$T/gm-graph.json" cuda_graph_layer
"$GSKW" --config "$T/gm-graph.json" --log-dir "$T/gm-graph" --msprof-out "$T/gm-graph/msprof"
expect_eq "$?:$(capture "$T/gm-graph/msprof")" "0:20 [4] ['0'] 4 True True False True" \
    "--msprof-out on the GPU: each layer's graph launch timed as its SuperKernel"
tc demo --workload gpu --profile quick --artifact-root "$T/demo"
expect_rc 0 "tunectl demo --workload gpu runs all seven phases on the GPU"
R=$(readlink -f "$T/demo/latest")
tc verify --session "$R/auto-tune-session.json"
expect_rc 0 "the GPU demo's session verifies"
expect_eq "$(jq_ "$R/s0/runset/runset.json" 'd["metric"]["clock"]')" "cudaEventElapsedTime" "the GPU demo's gates read CUDA event time"
A=$(ls "$R"/support/sk-fusion-performance-analyst-attempt-*/output/profiling-analysis.json | head -1)
expect_eq "$(jq_ "$A" "d['association_protocol']['status'], sorted({(x['mapping_method'], x['mapping_confidence']) for x in d['per_sk_decisions']}), len(d['per_sk_decisions']) > 0 and all(x['classification'] != 'insufficient_evidence' for x in d['per_sk_decisions'])")" \
    "('associated', [('kernel_projection_structural', 'exact_projected_trace')], True)" \
    "the GPU demo's BASE analyses CUDA-event captures with an exact association and decisive verdicts"
finish
