# analyze_ref_lib.sh - helpers of the analyzer tests built on the reference's
# CLI fixture (tests/fixtures/analysis-ref/cli): sourced after lib.sh by
# test_analyze_ref.sh and test_analyze_bad_input.sh.
FIX=$TUNECTL_SRC/tests/fixtures/analysis-ref/cli

# fx DIR: a fresh copy of the reference's CLI fixture
fx() {
	rm -rf "$1"
	mkdir -p "$1"
	cp -r "$FIX/." "$1/"
	chmod -R u+w "$1"
	R=$1
}
# args JSON_OUT [MARKDOWN_OUT]: the reference's CLI argv for the fixture in $R
args() {
	A=()
	local o
	for o in baseline-profile:baseline.csv candidate-profile:candidate.csv sk-meta:sk_meta \
	    baseline-config:baseline-config.json candidate-config:candidate-config.json \
	    baseline-workload:baseline-workload.json candidate-workload:candidate-workload.json \
	    declared-change-set:declared-change.json sk-prof:sk_prof_device_0.json \
	    environment-evidence:environment.json source-scope-map:source-scope-map.json; do
		A+=("--${o%%:*}" "$R/${o#*:}")
	done
	A+=(--candidate-name S1 --experiment-id exp-1 --round-id S1-BASE
	    --analysis-agent-id analysis-agent-1 --source-revision 660e08e
	    --min-relative-change-pct 3 --min-absolute-change-us 1 --min-occurrences 3
	    --json-out "$1")
	[ $# -lt 2 ] || A+=(--markdown-out "$2")
}
# set_arg FLAG VALUE: replace FLAG's value in A
set_arg() {
	local i
	for ((i = 0; i < ${#A[@]}; i++)); do
		[ "${A[$i]}" = "$1" ] && A[$((i + 1))]=$2
	done
}
# afp: run the analysis with A
afp() {
	"$TUNECTL_BIN" analyze fusion "${A[@]}" > "$R.stdout" 2> "$R.stderr"
	rc=$?
	err=$(cat "$R.stderr")
}
# q FILE EXPR: EXPR over the JSON document d of FILE (text as is, else JSON)
q() {
	python3 - "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
*pre, last = sys.argv[2].split("\n")
for line in pre:
    exec(line)
v = eval(last)
print(v if isinstance(v, str) else json.dumps(v, sort_keys=True, ensure_ascii=False))
PY
}
# csv FILE: rewrite a profile from "task,stream,name,type,core,start,duration"
# lines on stdin as the reference's _write_csv writes it (Step Id = the
# occurrence index of the task, model 48, device 0; DEV= and MODEL= override)
CSV_PY=$(cat <<'PY'
import csv, os, sys
F = ["Step Id", "Occurrence Id", "Iteration Id", "Request Id", "Batch Id", "Device_id",
     "Model ID", "Task ID", "Stream ID", "Name", "Type", "OP State", "Accelerator Core",
     "Start Time(us)", "Duration(us)", "Wait Time(us)", "Block Num", "Mix Block Num",
     "aic_scalar_time(us)", "aic_scalar_ratio", "aiv_scalar_time(us)", "aiv_scalar_ratio"]
dev, model = os.environ.get("DEV", "0"), os.environ.get("MODEL", "48")
with open(sys.argv[1], "w", newline="") as fp:
    w = csv.writer(fp)
    w.writerow(F)
    seen = {}
    for line in sys.stdin.read().splitlines():
        if not line.strip():
            continue
        task, stream, name, typ, core, start, dur = line.split(",")
        step = seen.get(task, 0)
        seen[task] = step + 1
        w.writerow([step, "", "", "", "", dev, model, task, stream, name, typ, "static",
                    core, start, dur, 0, 1, 0, 0, 0, 0, 0])
PY
)
csv() { python3 -c "$CSV_PY" "$1"; }
SK=sk_1_decoder.layer.0_start_static_kernel_A_hash_end_static_kernel_A_hash
sha() { sha256sum "$1" | cut -c1-64; }
