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
# 150,000 rows 25 minutes).  Prints numbers; asserts nothing, but exits 1
# when a reference run fails or its outputs differ from tunectl's.
#
#   BUILD=build bench/analysis.sh [SIZES...]      default: 10000 100000 1000000
#   SKS=64 bench/analysis.sh                     SKs per step (default 64)
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

echo "# $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg); every baseline row is an SK child (all are kept)"
[ ${#REF[@]} -eq 0 ] || echo "# reference: ${REF[*]} (up to $REF_MAX_ROWS rows a file)"
if [ ${#REF[@]} -eq 0 ]; then
	printf '%10s %10s %10s %12s %14s\n' rows_each steps wall_s peak_rss_mb rows_per_s
else
	printf '%10s %10s %10s %12s %14s %10s %12s %8s %8s\n' rows_each steps wall_s peak_rss_mb rows_per_s \
	    ref_wall_s ref_rss_mb x_time x_rss
fi
status=0
for n in "${SIZES[@]}"; do
	d=$W/n$n
	# Both analyzers write at the same depth: the document records its
	# inputs' paths relative to its own directory.
	mkdir -p "$d/tc/out"
	(cd "$d" && gen "$n")
	steps=$(( n / (3 * SKS) ))
	rows=$(( $(wc -l < "$d/baseline.csv") + $(wc -l < "$d/candidate.csv") - 2 ))
	args=(--baseline-profile "$d/baseline.csv" --candidate-profile "$d/candidate.csv"
	    --sk-meta "$W/in/sk_meta" --baseline-config "$W/in/base.json"
	    --candidate-config "$W/in/cand.json" --baseline-workload "$W/in/wl.json"
	    --candidate-workload "$W/in/wl.json" --declared-change-set "$W/in/dcs.json"
	    --candidate-name B --experiment-id bench --round-id B-BASE
	    --analysis-agent-id bench --source-revision r1)
	timed "$d/tc" "$TC" analyze fusion "${args[@]}" \
	    --json-out "$d/tc/out/analysis.json" --markdown-out "$d/tc/out/report.md"
	if [ "$(cat "$d/tc/rc")" != 0 ]; then
		echo "analysis.sh: tunectl exited $(cat "$d/tc/rc") at $n rows:" >&2
		cat "$d/tc/stderr" >&2
		exit 1
	fi
	line=$(awk -v r="$rows" -v s="$steps" -v us="$(cat "$d/tc/us")" -v kb="$(cat "$d/tc/kb")" 'BEGIN {
		printf "%10d %10d %10.3f %12.1f %14.0f", r / 2, s, us / 1e6, kb / 1024, r / (us / 1e6)
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
			rm -rf "$d"
			continue
		fi
		verdict=$(same "$d/tc/out/analysis.json" "$d/ref/out/analysis.json")
		if cmp -s "$d/tc/out/report.md" "$d/ref/out/report.md"; then md=equal; else md=differ; status=1; fi
		[ "$verdict" = equal ] || status=1
		echo "  outputs: $verdict; markdown: $md"
	else
		echo "$line"
	fi
	rm -rf "$d"
done
exit "$status"
