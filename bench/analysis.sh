#!/usr/bin/env bash
# analysis.sh - what "tunectl analyze fusion" costs as profiles grow:
# generated SuperKernel-off / SuperKernel-on kernel_details.csv pairs of
# 10,000 to 1,000,000 SK-off rows (S SKs of 3 children), with sk_meta
# naming the children, analysed in one or both of two modes:
#   legacy  no collection manifests: per step the baseline has the 3*S
#           children, the candidate the S SKs and 2*S unfused kernels;
#           every SK is insufficient_evidence/reprofile (the fallback rung)
#   exact   a structural capture as an NPU run leaves it: each profile in
#           a collection root opened by "tunectl analyze collection begin"
#           and closed by "finalize" (kernel_details.csv, task_time.csv,
#           trace_view.json, and for SK-on device_0/model_7/ the origin and
#           updated graphs, sk_fused_nodes.log, sk_scope_split.log,
#           super_kernel.log); one graph stream of the 3*S children, the
#           candidate the S SKs per step; association exact, and SK s is
#           beneficial (s mod 3 = 0: faster than its children's interval),
#           neutral (1: as long) or regressed (2: slower)
# For each mode and size: wall time, peak RSS and rows per second (both
# files' rows over the wall time); only "tunectl analyze fusion" is timed.
#
# The aim (docs/analysis.md): 1,000,000 rows in under 2 s, time linear in
# rows, memory bounded by the SKs and steps kept, not by the rows.  The
# reference grows with the square of the steps (12,000 rows 6.7 s,
# 150,000 rows 25 minutes).  Prints numbers; asserts nothing, but exits 1
# when a reference run fails or its outputs differ from tunectl's.
#
#   BUILD=build bench/analysis.sh [SIZES...]      default: 10000 100000 1000000
#   SKS=64 bench/analysis.sh                     SKs per step (default 64)
#   MODE=exact bench/analysis.sh                 legacy, exact or both (default)
#   KEEP=1 bench/analysis.sh                     keep the inputs and outputs
#                                                (the folder is named on stderr)
#
# Beside a reference analyzer (the held-out check of issue 32):
#   REFERENCE=/path/to/analyze_fusion_performance.py bench/analysis.sh [SIZES...]
# runs REFERENCE (a *.py under ${PYTHON:-python3}, anything else as is) with
# the same argv on the same inputs, for every size up to REF_MAX_ROWS rows
# a file (default 20000; it is quadratic in steps), and adds its wall time,
# peak RSS, the ratio reference/tunectl of both, and whether the two
# analysis documents are equal after canonical JSON (sorted keys) and the
# Markdown reports byte for byte, else the first JSON pointer that differs.
set -euo pipefail
cd "$(dirname "$0")/.."
TC=${TUNECTL:-$PWD/${BUILD:-build}/tunectl}
SKS=${SKS:-64}
SIZES=("$@")
[ ${#SIZES[@]} -gt 0 ] || SIZES=(10000 100000 1000000)
case ${MODE:-both} in
legacy | exact) MODES=("$MODE") ;;
both) MODES=(legacy exact) ;;
*) echo "analysis.sh: MODE $MODE: not legacy, exact or both" >&2; exit 2 ;;
esac
W=$(mktemp -d "${TMPDIR:-/tmp}/tunectl-bench-analysis.XXXXXX")
if [ -n "${KEEP:-}" ]; then
	echo "analysis.sh: keeping $W" >&2
else
	trap 'rm -rf "$W"' EXIT
fi

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

# The exact mode's fixed inputs: the association config and control the
# collection manifests record.
printf '{"profiler": {"level": "l1", "aic_metrics": "PipeUtilization"}, "capture": "kernel_details+sk_graph"}\n' > "$W/in/acfg.json"
printf '{"profiler": {"level": "l1"}}\n' > "$W/in/actl.json"
mkdir -p "$W/in/sk_meta_x/0/model_7_1" "$W/in/graph"
HX='Step Id,Device_id,Model ID,Task ID,Stream ID,Name,Type,OP State,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),Block Num,Mix Block Num,aic_scalar_time(us),aic_scalar_ratio,aiv_scalar_time(us),aiv_scalar_ratio'
gen_graph() {	# gen_graph DIR: model 7's origin and updated graphs and logs
	awk -v S="$SKS" -v D="$1" 'BEGIN {
		split("Mul Cast Add", op, " ")
		n = 3 * S
		for (u = 0; u < 2; u++) {
			f = D "/" (u ? "sk_graph_updated.json" : "sk_graph_origin.json")
			printf "{\"version\": \"%s\", \"modelId\": \"7\", \"deviceId\": 0, \"totalStreams\": 1, \"totalNodes\": %d, \"streams\": [{\"streamIdxInGraph\": 0, \"nodeCount\": %d, \"nodes\": [", u ? "1.0-updated" : "1.0", n, n > f
			for (i = 0; i < n; i++)
				printf "%s\n{\"nodeId\": %d, \"streamIdxInGraph\": 0, \"nodeIdxInStream\": %d, \"nodeType\": \"KERNEL\", \"preNodeId\": %s, \"nextNodeId\": %s, \"taskInfo\": [{\"taskType\": \"KERNEL\", \"streamId\": 20, \"taskId\": %d, \"kernelParams\": {\"funcName\": \"%s_%d\", \"kernelType\": \"AIV_ONLY\", \"numBlocks\": 4}}]}", i ? "," : "", 1000 + i, i, i ? 999 + i : "\"none\"", i + 1 < n ? 1001 + i : "\"none\"", 50 + i, op[i % 3 + 1], i + 1 > f
			print "]}]}" > f
		}
		f = D "/sk_fused_nodes.log"
		for (s = 0; s < S; s++) {
			printf "SK Function: sk_%d_layers.%d.mlp_start_Mul_%d_end_Add_%d, scope id: %d, Node Count: 3\n", s + 1, s, 3 * s + 1, 3 * s + 3, s + 1 > f
			for (k = 0; k < 3; k++)
				printf "[%d] [nodeId:%d, streamId:0] - KernelInfos{funcName:%s_%d, kernelType:AIV_ONLY, taskRatio:[0,1], numBlocks:4, cubeNum:0, vecNum:4, isScheModeOn:0, needMixKernelSplit:0, resolvedNum:4}\n", k, 1000 + 3 * s + k, op[k + 1], 3 * s + k + 1 > f
		}
		printf "InitialScopeSplitPass: %d scopes, 0 breaks\n", S > (D "/sk_scope_split.log")
		printf "super kernel build: %d SuperKernels for model 7\n", S > (D "/super_kernel.log")
	}'
}
gen_exact() {	# gen_exact ROWS WHICH: WHICH (baseline or candidate) as kernel_details.csv
	local steps=$(( $1 / (3 * SKS) ))
	awk -v S="$SKS" -v N="$steps" -v H="$HX" -v C="$2" 'BEGIN {
		f = "kernel_details.csv"
		print H > f
		split("Mul Cast Add", op, " ")
		for (st = 1; st <= N; st++) {
			t = st * 100000
			for (s = 0; s < S; s++) {
				if (C == "baseline")	# the children at t, t+5, t+10: 14-16 us
					for (k = 0; k < 3; k++)
						printf "%d,0,7,%d,20,aclnn%s_%s_0,%s,static,AI_VECTOR_CORE,%d,%d,0,4,0,0,0,0.5,0.05\n", st, 50 + 3 * s + k, op[k + 1], op[k + 1], op[k + 1], t + 5 * k, 4 + (st + k) % 3 > f
				else {			# beneficial, neutral, regressed
					c = s % 3
					printf "%d,0,7,%d,20,sk_%d_layers.%d.mlp_start_Mul_%d_end_Add_%d,SuperKernel,static,MIX_AIV,%d,%d,0,4,4,0,0,0,0\n", st, 5000 + s, s + 1, s, 3 * s + 1, 3 * s + 3, t, (c == 0 ? 8 : c == 1 ? 15 : 22) + st % 2 > f
				}
				t += 20
			}
		}
	}'
}
gen_graph "$W/in/graph"
cp "$W/in/graph/sk_fused_nodes.log" "$W/in/sk_meta_x/0/model_7_1/"
# capture ROLE ROOT ROWS: a collection root as a structural NPU capture
# leaves it: begin, the profiler's files, finalize.
capture() {
	local role=$1 root=$2 files a b
	"$TC" analyze collection begin --role "$role" --root "$root" \
	    --session-out "$root.session" > /dev/null
	a=$(date +%s%N)
	printf 'Device_id,kernel_name,kernel_type,stream_id,task_id,task_time(us),task_start(us),task_stop(us)\n' > "$root/task_time.csv"
	printf '[]\n' > "$root/trace_view.json"
	files=(--file kernel_details=kernel_details.csv --file task_time=task_time.csv
	    --file trace_view=trace_view.json)
	if [ "$role" = candidate_profile ]; then
		mkdir -p "$root/device_0/model_7"
		cp "$W"/in/graph/* "$root/device_0/model_7/"
		for f in sk_graph_origin.json sk_graph_updated.json sk_fused_nodes.log \
		    sk_scope_split.log super_kernel.log; do
			files+=(--file "${f%.*}=device_0/model_7/$f")
		done
		(cd "$root" && gen_exact "$3" candidate)
	else
		(cd "$root" && gen_exact "$3" baseline)
	fi
	b=$(date +%s%N)
	"$TC" analyze collection finalize --session "$root.session" \
	    --source-revision r1 --native-pid $$ --started-ns "$a" --ended-ns "$b" \
	    --command-fingerprint "$(printf '%s %s' "$role" $$ | sha256sum | cut -d' ' -f1)" \
	    --workload "$W/in/wl.json" --config "$W/in/acfg.json" \
	    --control "$W/in/actl.json" "${files[@]}" \
	    --out "$root/collection-manifest.json" > /dev/null
}

REF=()
if [ -n "${REFERENCE:-}" ]; then
	[ -e "$REFERENCE" ] || { echo "analysis.sh: REFERENCE $REFERENCE: no such file" >&2; exit 2; }
	case $REFERENCE in
	*.py) REF=("${PYTHON:-python3}" "$REFERENCE") ;;
	*) REF=("$REFERENCE") ;;
	esac
fi
REF_MAX_ROWS=${REF_MAX_ROWS:-20000}

# timed DIR CMD...: run CMD (stdout to DIR/stdout, stderr to DIR/stderr);
# DIR/rc, DIR/us (wall time in microseconds) and DIR/kb (peak RSS).
timed() {
	local dir=$1 a b rc=0
	shift
	a=${EPOCHREALTIME/./}
	/usr/bin/time -f '%M' -o "$dir/kb" "$@" > "$dir/stdout" 2> "$dir/stderr" || rc=$?
	b=${EPOCHREALTIME/./}
	echo "$rc" > "$dir/rc"
	echo $((b - a)) > "$dir/us"
	# GNU time adds "Command exited with non-zero status N" before %M.
	tail -n 1 "$dir/kb" > "$dir/kb.1" && mv "$dir/kb.1" "$dir/kb"
}

# same A B: "equal", or the first JSON pointer (sorted-key order) at which
# the documents A and B differ, after canonical JSON.
same() {
	python3 - "$1" "$2" <<'PY'
import json, sys
def canon(v):
    return json.dumps(v, sort_keys=True, ensure_ascii=False, allow_nan=True)
def first(a, b, at):
    if canon(a) == canon(b):
        return None
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            p = at + "/" + k.replace("~", "~0").replace("/", "~1")
            if k not in a or k not in b:
                return p + (" (only in tunectl)" if k in a else " (only in reference)")
            d = first(a[k], b[k], p)
            if d:
                return d
    if isinstance(a, list) and isinstance(b, list):
        for i, (x, y) in enumerate(zip(a, b)):
            d = first(x, y, at + "/" + str(i))
            if d:
                return d
        return at + " (length %d vs %d)" % (len(a), len(b))
    return (at or "/") + ": %s vs %s" % (canon(a)[:80], canon(b)[:80])
docs = []
for p in sys.argv[1:]:
    try:
        docs.append(json.load(open(p, encoding="utf-8")))
    except (OSError, ValueError) as e:
        print("differ: %s: %s" % (p, e)); sys.exit(0)
d = first(docs[0], docs[1], "")
print("equal" if d is None else "differ at " + d)
PY
}

echo "# $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg); every baseline row is an SK child (all are kept); rows_each: the SK-off file's rows"
[ ${#REF[@]} -eq 0 ] || echo "# reference: ${REF[*]} (up to $REF_MAX_ROWS rows a file)"
if [ ${#REF[@]} -eq 0 ]; then
	printf '%6s %10s %10s %10s %12s %14s\n' mode rows_each steps wall_s peak_rss_mb rows_per_s
else
	printf '%6s %10s %10s %10s %12s %14s %10s %12s %8s %8s\n' mode rows_each steps wall_s peak_rss_mb rows_per_s \
	    ref_wall_s ref_rss_mb x_time x_rss
fi
status=0
for n in "${SIZES[@]}"; do
for mode in "${MODES[@]}"; do
	d=$W/n$n
	# Both analyzers write at the same depth: the document records its
	# inputs' paths relative to its own directory.
	mkdir -p "$d/tc/out"
	args=(--baseline-config "$W/in/base.json"
	    --candidate-config "$W/in/cand.json" --baseline-workload "$W/in/wl.json"
	    --candidate-workload "$W/in/wl.json" --declared-change-set "$W/in/dcs.json"
	    --candidate-name B --experiment-id bench --round-id B-BASE
	    --analysis-agent-id bench --source-revision r1)
	if [ "$mode" = exact ]; then
		capture baseline_profile "$d/cap_b" "$n"
		capture candidate_profile "$d/cap_c" "$n"
		args=(--baseline-profile "$d/cap_b/kernel_details.csv"
		    --candidate-profile "$d/cap_c/kernel_details.csv" "${args[@]}"
		    --sk-meta "$W/in/sk_meta_x"
		    --baseline-collection-manifest "$d/cap_b/collection-manifest.json"
		    --profile-collection-manifest "$d/cap_c/collection-manifest.json")
		b=$d/cap_b/kernel_details.csv c=$d/cap_c/kernel_details.csv
	else
		(cd "$d" && gen "$n")
		b=$d/baseline.csv c=$d/candidate.csv
		args=(--baseline-profile "$b" --candidate-profile "$c" "${args[@]}"
		    --sk-meta "$W/in/sk_meta")
	fi
	steps=$(( n / (3 * SKS) ))
	rows=$(( $(wc -l < "$b") + $(wc -l < "$c") - 2 ))
	timed "$d/tc" "$TC" analyze fusion "${args[@]}" \
	    --json-out "$d/tc/out/analysis.json" --markdown-out "$d/tc/out/report.md"
	if [ "$(cat "$d/tc/rc")" != 0 ]; then
		echo "analysis.sh: tunectl exited $(cat "$d/tc/rc") at $n rows ($mode):" >&2
		cat "$d/tc/stderr" >&2
		exit 1
	fi
	line=$(awk -v m="$mode" -v r="$(( $(wc -l < "$b") - 1 ))" -v a="$rows" -v s="$steps" \
	    -v us="$(cat "$d/tc/us")" -v kb="$(cat "$d/tc/kb")" 'BEGIN {
		printf "%6s %10d %10d %10.3f %12.1f %14.0f", m, r, s, us / 1e6, kb / 1024, a / (us / 1e6)
	}')
	if [ ${#REF[@]} -gt 0 ] && [ "$n" -le "$REF_MAX_ROWS" ]; then
		mkdir -p "$d/ref/out"
		timed "$d/ref" "${REF[@]}" "${args[@]}" \
		    --json-out "$d/ref/out/analysis.json" --markdown-out "$d/ref/out/report.md"
		line+=$(awk -v us="$(cat "$d/ref/us")" -v kb="$(cat "$d/ref/kb")" \
		    -v tus="$(cat "$d/tc/us")" -v tkb="$(cat "$d/tc/kb")" 'BEGIN {
			printf " %10.3f %12.1f %8.1f %8.1f", us / 1e6, kb / 1024, us / tus, kb / tkb
		}')
		echo "$line"
		rrc=$(cat "$d/ref/rc")
		if [ "$rrc" != 0 ]; then
			echo "  reference exited $rrc (tunectl 0): $(head -c 400 "$d/ref/stderr")"
			status=1
			[ -n "${KEEP:-}" ] || rm -rf "$d"
			continue
		fi
		verdict=$(same "$d/tc/out/analysis.json" "$d/ref/out/analysis.json")
		if cmp -s "$d/tc/out/report.md" "$d/ref/out/report.md"; then md=equal; else md=differ; status=1; fi
		[ "$verdict" = equal ] || status=1
		echo "  outputs: $verdict; markdown: $md"
	else
		echo "$line"
	fi
	[ -n "${KEEP:-}" ] || rm -rf "$d"
done
done
exit "$status"
