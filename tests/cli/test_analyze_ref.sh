#!/usr/bin/env bash
# test_analyze_ref.sh - the reference's CLI tests of its profile analyzer
# (test_fusion_performance.py, ProfilerAnalysisTest), ported case by case
# onto "tunectl analyze fusion": the same inputs (tests/fixtures/analysis-ref/cli,
# the reference's own CLI fixture), the same argv, the same expectations.
# tests/fixtures/analysis-ref/README.md maps each reference test to its case.
. "$(dirname "$0")/lib.sh"

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
csv() {
	python3 - "$1" <<'PY'
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
}
SK=sk_1_decoder.layer.0_start_static_kernel_A_hash_end_static_kernel_A_hash
sha() { sha256sum "$1" | cut -c1-64; }

# ---- test_complete_analysis_cli_writes_json_and_markdown --------------------
fx "$T/full"
args "$R/analysis/profiling-analysis-result.json" "$R/analysis/PROFILING_ANALYSIS.md"
afp
J=$R/analysis/profiling-analysis-result.json
expect_rc 0 "complete CLI: exit 0"
expect_eq "$(q "$J" 'd["schema_version"]')" "1.2" "complete CLI: schema 1.2"
expect_eq "$(q "$J" 'sorted({"association_protocol","candidate_binding_evidence","canonical_graph_fingerprints","stream_role_mapping","graph_alignment_proof","mapping_coverage"} - set(d))')" \
    "[]" "complete CLI: every structural field is present"
check "complete CLI: the Markdown is written" [ -f "$R/analysis/PROFILING_ANALYSIS.md" ]
expect_eq "$(q "$J" '[d[k] for k in ("experiment_id","round_id","analysis_agent_id","source_revision")]')" \
    '["exp-1", "S1-BASE", "analysis-agent-1", "660e08e"]' "complete CLI: the identity is the argv's"
expect_eq "$(q "$J" '[d["baseline_profile_fingerprint"], d["candidate_profile_fingerprint"]]')" \
    "[\"$(sha "$R/baseline.csv")\", \"$(sha "$R/candidate.csv")\"]" \
    "complete CLI: profile fingerprints are the SHA-256 of the CSV bytes"
expect_eq "$(q "$J" 'd["thresholds"]["min_occurrences"]')" 3 "complete CLI: min_occurrences 3"
expect_eq "$(q "$J" 'd["per_sk_decisions"][0]["classification"]')" insufficient_evidence \
    "complete CLI: the legacy-only decision is insufficient_evidence"
expect_eq "$(q "$J" 'a = d["scope_actions"][0]
[a[k] for k in ("action", "source_scope", "ordered_child_op_sequence", "interval_unproven")] + [a["boundary"]["start_op"], a["boundary"]["end_op"], "source_file" in a["boundary"]]')" \
    '["reprofile", "decoder.layer.0", ["A"], true, "A", "A", false]' \
    "complete CLI: the scope action is reprofile over decoder.layer.0 A..A, interval unproven, no source_file"
check "complete CLI: analysis_content_fingerprint is the canonical SHA-256 of the rest" python3 -c '
import hashlib, json, sys
d = json.load(open(sys.argv[1]))
fp = d.pop("analysis_content_fingerprint")
c = json.dumps(d, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
sys.exit(hashlib.sha256(c.encode()).hexdigest() != fp)' "$J"
for h in "## 逐 SK 性能对比" "## 结构关联覆盖率" "## Child Count 分布" "## 逐 SK 结构与性能证据" \
    "## 关联阻塞项" "## Automatic AOT 与源码动作边界"; do
	grep -qxF "$h" "$R/analysis/PROFILING_ANALYSIS.md" || not_ok "complete CLI: the Markdown has $h"
done
ok "complete CLI: the Markdown has every structural section"

# ---- test_automatic_analysis_cli_writes_schema_1_2_markdown,
#      test_analysis_cli_accepts_auto_round_via_shared_contract --------------
fx "$T/auto"
args "$R/analysis/automatic.json" "$R/analysis/automatic.md"
set_arg --round-id S1-AUTO
afp
expect_rc 0 "an AUTO round of the candidate is accepted"
check "the AUTO round's Markdown is schema 1.2's" grep -qxF "## 结构关联覆盖率" "$R/analysis/automatic.md"

# ---- test_complete_analysis_cli_returns_zero_for_regression ----------------
fx "$T/regr"
sed -i 's/,6,0,1,0,0,0,0,0/,10,0,1,0,0,0,0,0/' "$R/candidate.csv"
args "$R/analysis/result.json"
afp
expect_rc 0 "a slower candidate still exits 0"
expect_eq "$(q "$R/analysis/result.json" '[d["per_sk_decisions"][0]["classification"], d["scope_actions"][0]["action"]]')" \
    '["insufficient_evidence", "reprofile"]' "the legacy-only regression is insufficient_evidence/reprofile"

# ---- test_complete_analysis_cli_stores_only_relative_artifact_paths --------
fx "$T/rel"
args "$R/nested/analysis/result.json" "$R/nested/analysis/report.md"
afp
check "no absolute path of the inputs is stored" sh -c '! grep -qF "$1" "$2"' sh "$R" "$R/nested/analysis/result.json"
expect_eq "$(q "$R/nested/analysis/result.json" 'sorted(v for v in d["inputs"].values() if v is not None and v.startswith("/"))')" \
    "[]" "every input path is relative"
expect_eq "$(q "$R/nested/analysis/result.json" 'd["inputs"]["baseline_profile"]')" \
    "../../baseline.csv" "relative to the JSON output's directory"

finish
