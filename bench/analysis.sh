#!/usr/bin/env bash
# analysis.sh - what "tunectl analyze fusion" costs as profiles grow:
# generated SuperKernel-off / SuperKernel-on kernel_details.csv pairs of
# 10,000 to 1,000,000 rows each (S SKs of 3 children; per step the
# baseline has the 3*S children, the candidate the S SKs and 2*S unfused
# kernels), with sk_meta naming the children.  For each size: wall time,
# peak RSS and rows per second (both files' rows over the wall time).
#
# The aim (docs/analysis.md): 1,000,000 rows in under 2 s, time linear in
# rows, memory bounded by the SKs and steps kept, not by the rows.  The
# reference grows with the square of the steps (12,000 rows 6.7 s,
# 150,000 rows 25 minutes).  Prints numbers; asserts nothing.
#
#   BUILD=build bench/analysis.sh [SIZES...]      default: 10000 100000 1000000
#   SKS=64 bench/analysis.sh                     SKs per step (default 64)
set -euo pipefail
cd "$(dirname "$0")/.."
TC=${TUNECTL:-$PWD/${BUILD:-build}/tunectl}
SKS=${SKS:-64}
SIZES=("$@")
[ ${#SIZES[@]} -gt 0 ] || SIZES=(10000 100000 1000000)
W=$(mktemp -d "${TMPDIR:-/tmp}/tunectl-bench-analysis.XXXXXX")
trap 'rm -rf "$W"' EXIT

# The fixed inputs: configs, workload, declared changes, sk_meta.
mkdir -p "$W/in/sk_meta/0/model_7_1"
printf '{"runtime": {"sk_enabled": false}}\n' > "$W/in/base.json"
printf '{"runtime": {"sk_enabled": true}}\n' > "$W/in/cand.json"
printf '{"allowed_json_pointers": ["/runtime/sk_enabled"]}\n' > "$W/in/dcs.json"
printf '{"model": "m", "input": [1, 128], "batch": 1, "rank": 1, "mode": "decode", "warmup": 1, "iterations": 5, "runtime": {"graph": 1}}\n' > "$W/in/wl.json"
awk -v S="$SKS" 'BEGIN {
	for (s = 0; s < S; s++) {
		printf "SK Function: sk_%d_layers.%d.mlp_start_static_kernel_Mul_h_end_static_kernel_Add_h, scope id: %d, Node Count: 3\n", s + 1, s, s + 1
		printf "[nodeId:%d, streamId:1] - KernelInfos{funcName:static_kernel_Mul_h, kernelType:AIV_ONLY}\n", 3 * s
		printf "[nodeId:%d, streamId:1] - KernelInfos{funcName:static_kernel_Cast_h, kernelType:AIV_ONLY}\n", 3 * s + 1
		printf "[nodeId:%d, streamId:1] - KernelInfos{funcName:static_kernel_Add_h, kernelType:AIV_ONLY}\n", 3 * s + 2
	}
}' > "$W/in/sk_meta/0/model_7_1/sk_fused_nodes.log"

H='Step Id,Device_id,Model ID,Task ID,Stream ID,Name,Type,OP State,Accelerator Core,Start Time(us),Duration(us),aic_scalar_time(us),aiv_scalar_time(us)'
gen() {	# gen ROWS: baseline.csv and candidate.csv of about ROWS rows each
	local steps=$(( $1 / (3 * SKS) ))
	awk -v S="$SKS" -v N="$steps" -v H="$H" 'BEGIN {
		print H > "baseline.csv"; print H > "candidate.csv"
		split("Mul Cast Add", op, " ")
		for (st = 1; st <= N; st++) {
			t = st * 100000
			for (s = 0; s < S; s++) {
				for (k = 0; k < 3; k++) {
					printf "%d,0,7,%d,1,static_kernel_%s_h,%s,static,AI_VECTOR_CORE,%.2f,%.2f,0,0.5\n", st, 3 * s + k, op[k + 1], op[k + 1], t, 4 + (st + k) % 3 >> "baseline.csv"
					t += 5
				}
				printf "%d,0,7,%d,1,sk_%d_layers.%d.mlp_start_static_kernel_Mul_h_end_static_kernel_Add_h,SuperKernel,static,MIX_AIV,%.2f,%.2f,0,0\n", st, 100000 + s, s + 1, s, t, 11 + st % 2 >> "candidate.csv"
				printf "%d,0,7,%d,2,static_kernel_Other_h,Other,static,AI_CORE,%.2f,3,0,0\n", st, 200000 + 2 * s, t >> "candidate.csv"
				printf "%d,0,7,%d,2,static_kernel_More_h,More,static,AI_CORE,%.2f,2,0,0\n", st, 200001 + 2 * s, t + 3 >> "candidate.csv"
				t += 15
			}
		}
	}'
}

echo "# $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg); every baseline row is an SK child (all are kept)"
printf '%10s %10s %10s %12s %14s\n' rows_each steps wall_s peak_rss_mb rows_per_s
for n in "${SIZES[@]}"; do
	d=$W/n$n
	mkdir -p "$d/out"
	(cd "$d" && gen "$n")
	steps=$(( n / (3 * SKS) ))
	rows=$(( $(wc -l < "$d/baseline.csv") + $(wc -l < "$d/candidate.csv") - 2 ))
	a=${EPOCHREALTIME/./}
	/usr/bin/time -f '%M' -o "$d/rss" "$TC" analyze fusion \
	    --baseline-profile "$d/baseline.csv" --candidate-profile "$d/candidate.csv" \
	    --sk-meta "$W/in/sk_meta" --baseline-config "$W/in/base.json" \
	    --candidate-config "$W/in/cand.json" --baseline-workload "$W/in/wl.json" \
	    --candidate-workload "$W/in/wl.json" --declared-change-set "$W/in/dcs.json" \
	    --candidate-name B --experiment-id bench --round-id B-BASE \
	    --analysis-agent-id bench --source-revision r1 \
	    --json-out "$d/out/analysis.json" --markdown-out "$d/out/report.md" > /dev/null
	b=${EPOCHREALTIME/./}
	us=$((b - a))
	awk -v r="$rows" -v s="$steps" -v us="$us" -v kb="$(cat "$d/rss")" 'BEGIN {
		printf "%10d %10d %10.3f %12.1f %14.0f\n", r / 2, s, us / 1e6, kb / 1024, r / (us / 1e6)
	}'
	rm -rf "$d"
done
