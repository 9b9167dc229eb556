#!/usr/bin/env bash
# tunectl demo --workload gpu: refuses clearly, writing nothing, where the
# GPU workload is not built or no GPU is visible; and runs the full
# seven-phase session with the same workers on GPUs: leases name the GPU
# indices, one rank per GPU, env-check records the GPUs and the CUDA
# versions, Stage A screens CUDA graph capture beside the fused scopes,
# Stage O tunes the GPU knobs, BASE maps the .cu kernels and analyses
# msprof-format captures of the GPU runs (gskw --msprof-out) with tunectl
# analyze fusion, as the CPU demo's BASE does.  Without a GPU
# the session runs on the simulated device (tests/fixtures/gpu-sim), in a
# tree laid out like the build tree (tunectl, examples/gskw, examples/).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/base_lib.sh"

BUILD_DIR=$(dirname "$TUNECTL_BIN")
jq_() { /usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }

# A build tree whose GPU workload is the simulated one.
TREE=$T/tree
mkdir -p "$TREE/build/examples" "$T/bin"
cp "$TUNECTL_BIN" "$TREE/build/tunectl"
ln -s "$TUNECTL_SRC/examples" "$TREE/examples"
ln -s "$TUNECTL_SRC/share" "$TREE/share"
TUNECTL_BIN=$TREE/build/tunectl

# nvidia-smi of the four simulated GPUs, for env-check.
cat > "$T/bin/nvidia-smi" <<'SH'
#!/bin/sh
if [ "$*" = "-q" ]; then
	printf 'Driver Version                            : 580.95.05\nCUDA Version                              : 13.0\n'
	exit 0
fi
case "$*" in *--query-gpu=*) ;; *) exit 9 ;; esac
for i in 0 1 2 3; do
	echo "$i, GPU-000$i, Simulated GPU $i, 580.95.05, 143771, Enabled, Default, 1980, 345, 31, 0, 1"
done
SH
chmod +x "$T/bin/nvidia-smi"

# ---- refusals: nothing is written -------------------------------------------
tc demo --workload gpu --profile quick --artifact-root "$T/d-unbuilt"
expect_rc 1 "without the GPU workload built, demo --workload gpu refuses"
expect_err "the GPU workload is not built (no $TREE/build/examples/gskw): make builds it only where nvcc" \
    "and says it was not built, and why"
check "the refused demo writes nothing" test ! -e "$T/d-unbuilt"

ln -s "$BUILD_DIR/tests/gskw-sim" "$TREE/build/examples/gskw"
GSKW_SIM_GPUS=0 tc demo --workload gpu --profile quick --artifact-root "$T/d-nogpu"
expect_rc 1 "with no GPU visible, demo --workload gpu refuses"
expect_err "demo: --workload gpu needs a GPU, and none is visible: cudaGetDeviceCount: no CUDA-capable device" \
    "and says no GPU is visible, with CUDA's reason"
check "the refused demo writes nothing" test ! -e "$T/d-nogpu"
GSKW_SIM_GPUS=2 CUDA_VISIBLE_DEVICES=GPU-5d1a tc demo --workload gpu --profile quick --artifact-root "$T/d-uuid"
expect_rc 1 "GPUs named by UUID cannot be leased: refused"
expect_err "UUIDs and MIG instances cannot be leased by index" "the refusal says why"

tc demo --workload gpu --pipeline pypto
expect_rc 2 "--workload belongs to the superkernel pipeline"

# ---- the full session on GPUs 1 and 3 of four ------------------------------
export GSKW_SIM_GPUS=4
PATH=$T/bin:$PATH CUDA_VISIBLE_DEVICES=1,3 tc demo --workload gpu --profile quick \
    --optional-mode both --artifact-root "$T/d"
expect_rc 0 "demo --workload gpu runs the seven phases"
expect_err "workload $TREE/build/examples/gskw on GPU 1 (Simulated GPU 1), GPU 3 (Simulated GPU 3); CUDA driver 13.0, runtime 13.0" \
    "the demo says which GPUs it tunes on"
expect_err "final clean E2E: beneficial" "the GPU session ends beneficial"
R=$(readlink -f "$T/d/latest")
S=$R/auto-tune-session.json
expect_eq "$(jq_ "$S" "d['status']")" "completed" "the session is completed"
tc verify --session "$S"
expect_rc 0 "the session verifies"
expect_eq "$(jq_ "$R/demo.json" "d['workload'], d['device_ids']")" "('gpu', '1,3')" \
    "the run directory records the workload and its GPUs"

expect_eq "$(/usr/bin/python3 - "$R" <<'PY'
import glob, json, sys
ids = set()
for m in glob.glob(sys.argv[1] + "/phase-executions/*/*.json"):
    d = json.load(open(m))
    if d.get("schema_version") == "superkernel-shared-device-lease-command-v2":
        ids.add(tuple(d["device_ids"]))
print(sorted(ids))
PY
)" "[(1, 3)]" "every tool ran under a lease of GPUs 1 and 3"
check "rank 0 ran on GPU 1" grep -q "rank 0 on GPU 1 (Simulated GPU 1" "$R/s0/runset/run-1/log_0.log"
check "rank 1 ran on GPU 3" grep -q "rank 1 on GPU 3 (Simulated GPU 3" "$R/s0/runset/run-1/log_1.log"
expect_eq "$(jq_ "$R/intake/environment.json" "d['gpus']['count'], d['gpus']['cuda_version'], d['gpus']['devices'][1]['name'], d['status']")" \
    "(4, '13.0', 'Simulated GPU 1', 'ready')" "env-check records the GPUs, the driver and the CUDA version"
expect_eq "$(jq_ "$R/intake/freeze.json" "d['workload_kind'], d['device_ids'], d['timing_clock'], d['device']")" \
    "('gpu', [1, 3], 'simulated', 'GPU 1 (Simulated GPU 1, sm_90, 139.8 GiB, PCI 00000000:11:00.0); CUDA driver 13.0, runtime 13.0')" "intake freezes the GPUs, the clock and the device the smoke run used"
expect_eq "$(jq_ "$R/stage-a/screening-matrix.json" "[c['strategy_kind'] for c in d['candidates']]")" \
    "['automatic_aot', 'broad_decode', 'per_block', 'semantic_segment', 'cuda_graph_layer']" \
    "Stage A screens CUDA graph capture beside the four fused scopes"
expect_eq "$(jq_ "$R/stage-a/sbest-seed.json" "d['scope']['strategy']")" "broad_decode" \
    "Stage A selects the scope with the fewest launches in the cost model"
expect_eq "$(jq_ "$R/stage-o/option-matrix.json" "[(i['option'], i['status']) for i in d['items']]")" \
    "[('dcci_disable_on_kernel', 'skipped'), ('block_size', 'accepted'), ('unroll', 'rejected'), ('tile_size', 'accepted')]" \
    "Stage O tries the GPU knobs one at a time"
expect_eq "$(jq_ "$R/stage-o/sbest-base.json" "d['model_config']['custom_params']['super_kernel_optimize_options']")" \
    "{'block_size': 256, 'tile_size': 128}" "the accepted knobs make Sbest-BASE"
expect_eq "$(jq_ "$R/base/source-scope-map.json" "sorted((r['kernel'], r['file']) for r in d['source_ranges'])")" \
    "[('bias', 'gskw_kernels.cu'), ('gelu', 'gskw_kernels.cu'), ('layernorm', 'gskw_kernels.cu'), ('matmul', 'gskw_kernels.cu'), ('residual', 'gskw_kernels.cu'), ('softmax', 'gskw_kernels.cu')]" \
    "BASE maps the six CUDA kernels to their source ranges"
check "the HTML report was written" test -s "$R/report.html"

# BASE captured what an NPU profiling run leaves (gskw --msprof-out: the
# launches timed by CUDA events on a GPU, by the cost model here) for SK
# off and on under collection manifests, and the analyst's tunectl analyze
# fusion associated them exactly, with decisive verdicts.
base_checks "$R"
expect_eq "$(jq_ "$A" "len(d['per_sk_decisions'])")" "4" "one SK per layer"
expect_eq "$(jq_ "$R/base/capture/workload.json" "d['model'], d['runtime']['clock']")" \
    "('gskw-decode', 'cudaEventElapsedTime (events around each launch on its stream)')" \
    "the captures' workload names the GPU program and its clock"
check "no SuperKernel child trace: a GPU gives none without timers inside the fused kernels" \
    test ! -e "$R/base/capture/sk-on/sk_prof_device_0.json"
# The derived BASE profiles the multistream incumbent.  The GPU workload's
# two streams run the same kernels on the two halves of the batch (no
# split or concat launch), so each SK-off stream matches either source
# stream: the association says so, and every verdict asks to reprofile.
expect_eq "$(cut -d, -f5 "$R/base-derived/capture/sk-off/kernel_details.csv" | sort -u | tr '\n' ' ')" \
    "0 1 Stream ID " "the derived BASE's SK-off capture runs two streams"
AD=$R/$(jq_ "$R/phases/base-profile-derived/phase-result.json" "[a for a in d['produced_artifacts'] if a.endswith('/profiling-analysis.json')][0]")
expect_eq "$(jq_ "$AD" "sorted({(x['classification'], x['action'], tuple(x['mapping_blockers'])) for x in d['per_sk_decisions']}), len(d['per_sk_decisions'])")" \
    "([('insufficient_evidence', 'reprofile', ('kernel_projection_stream_assignment_ambiguous',))], 8)" \
    "the derived BASE's two identical streams are ambiguous: every SK is reprofile, and says why"

tc demo --resume --workload cpu --artifact-root "$T/d"
expect_rc 1 "a GPU run cannot be resumed as a CPU one"
expect_err "tunes the gpu workload; --workload cpu cannot resume it" "the refusal says why"

finish
