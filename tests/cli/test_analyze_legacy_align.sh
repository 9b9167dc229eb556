#!/usr/bin/env bash
# test_analyze_legacy_align.sh - "tunectl analyze fusion" on the legacy
# rung (sk_meta node ids): the SK-off child rows of each node aligned by
# occurrence key (step, else iteration/occurrence/request/batch id) in
# the order of their canonical JSON text, and each way the alignment
# fails named as the reference names it; the diagnostic hints' counts.
# Twelve steps, so "10" < "2" as text.
. "$(dirname "$0")/lib.sh"

cat > "$T/gen.py" <<'PY'
import csv, sys, os
case, d = sys.argv[1], sys.argv[2]
os.makedirs(d + "/sk_meta/0/model_7_1", exist_ok=True)
with open(d + "/sk_meta/0/model_7_1/sk_fused_nodes.log", "w") as f:
    f.write("SK Function: sk_1_layers.0.mlp_start_static_kernel_Mul_h_end_static_kernel_Add_h, scope id: 1, Node Count: 3\n")
    for k, op in enumerate(["Mul", "Cast", "Add"]):
        f.write("[nodeId:%d, streamId:1] - KernelInfos{funcName:static_kernel_%s_h, kernelType:AIV_ONLY}\n" % (k, op))
H = ["Step Id", "Iteration Id", "Device_id", "Model ID", "Task ID", "Stream ID", "Name", "Type",
     "OP State", "Accelerator Core", "Start Time(us)", "Duration(us)", "aic_scalar_time(us)", "aiv_scalar_time(us)"]
rows = []
t = 1000.0
for st in range(1, 13):
    for k, op in enumerate(["Mul", "Cast", "Add"]):
        rows.append({"Step Id": str(st), "Iteration Id": "", "Device_id": "0", "Model ID": "7", "Task ID": str(k),
                     "Stream ID": "1", "Name": "static_kernel_%s_h" % op, "Type": op, "OP State": "static",
                     "Accelerator Core": "AI_VECTOR_CORE", "Start Time(us)": "%.2f" % t,
                     "Duration(us)": str(4 + (st + k) % 3), "aic_scalar_time(us)": "0", "aiv_scalar_time(us)": "0.5"})
        t += 5
    t += 100
def at(st, k):
    return next(r for r in rows if r["Step Id"] == str(st) and r["Task ID"] == str(k))
if case == "dup": at(3, 1)["Step Id"] = "4"
elif case == "mismatch": at(3, 1)["Step Id"] = "99"
elif case == "missing": at(3, 1)["Step Id"] = ""
elif case == "iteration":
    for r in rows: r["Iteration Id"], r["Step Id"] = r["Step Id"], ""
elif case == "domain": at(3, 1)["Device_id"] = "1"
elif case == "count": rows.remove(at(3, 1))
elif case == "operator": at(3, 1)["Type"] = "Sub"
elif case == "quoted":
    for k in range(3): at(3, k)["Step Id"] = '3"x\u00e9'
elif case == "overflow":
    r = at(3, 1); r["Start Time(us)"] = "1e308"; r["Duration(us)"] = "1e308"
with open(d + "/baseline.csv", "w", newline="", encoding="utf-8") as f:
    w = csv.DictWriter(f, H, lineterminator="\n"); w.writeheader(); w.writerows(rows)
with open(d + "/candidate.csv", "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n"); w.writerow(H)
    for st in range(1, 13):
        w.writerow([st, "", 0, 7, 1 if case == "same_task" else 100, 1, "sk_1_layers.0.mlp_start_static_kernel_Mul_h_end_static_kernel_Add_h",
                    "SuperKernel", "static", "MIX_AIV", 1000 + st * 115, 11 + st % 2, 0, 0])
open(d + "/base.json", "w").write('{"runtime": {"sk_enabled": false}}\n')
open(d + "/cand.json", "w").write('{"runtime": {"sk_enabled": true}}\n')
open(d + "/dcs.json", "w").write('{"allowed_json_pointers": ["/runtime/sk_enabled"]}\n')
open(d + "/wl.json", "w").write('{"model": "m", "input": [1, 128], "batch": 1, "rank": 1, "mode": "decode", "warmup": 1, "iterations": 5, "runtime": {"graph": 1}}\n')
PY

# run CASE: the inputs of CASE analysed; prints the first decision's
# evidence errors and hints as "errors | method=count ..."
run() {
	local d=$T/$1
	python3 "$T/gen.py" "$1" "$d" || return 1
	(cd "$d" && "$TUNECTL_BIN" analyze fusion --baseline-profile baseline.csv \
	    --candidate-profile candidate.csv --sk-meta sk_meta \
	    --baseline-config base.json --candidate-config cand.json \
	    --baseline-workload wl.json --candidate-workload wl.json \
	    --declared-change-set dcs.json --candidate-name B --experiment-id e \
	    --round-id B-BASE --analysis-agent-id a --source-revision r \
	    --json-out out.json > /dev/null 2> err.txt) || { cat "$d/err.txt"; return 1; }
	python3 - "$d/out.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))["per_sk_decisions"][0]
common = {"structural_collection_manifests_missing", "cross_compile_runtime_id_not_identity",
          "baseline_mapping_missing", "baseline_statistics_missing"}
errs = [e for e in d["evidence_errors"] if e not in common]
hints = ["%s=%s" % (h["method"], h.get("baseline_row_count", h.get("baseline_occurrence_count")))
         for h in d["mapping_hints"]]
print(",".join(errs) + " | " + " ".join(hints))
PY
}

ANY="task_id_any_model=36 name_boundary=24"
expect_eq "$(run ok)" " | $ANY sk_meta_node_ids=12" \
    "aligned children: twelve occurrences, no alignment error"
expect_eq "$(run iteration)" " | $ANY sk_meta_node_ids=12" \
    "without a step the iteration id aligns the occurrences"
expect_eq "$(run quoted)" " | $ANY sk_meta_node_ids=12" \
    "a step holding a quote and non-ASCII text aligns as any other"
expect_eq "$(run dup)" "baseline_child_occurrence_key_duplicate | $ANY" \
    "a step twice in one node's rows is a duplicate key"
expect_eq "$(run mismatch)" "baseline_child_occurrence_key_mismatch | $ANY" \
    "nodes with different steps do not align"
expect_eq "$(run missing)" "baseline_child_occurrence_discriminator_missing | $ANY" \
    "a row with no step and no other id has no occurrence key"
expect_eq "$(run domain)" "baseline_child_occurrence_domain_mismatch | $ANY" \
    "a child row of another device is another domain"
expect_eq "$(run count)" "baseline_child_occurrence_count_mismatch | task_id_any_model=35 name_boundary=24" \
    "a node with a row fewer is a count mismatch"
expect_eq "$(run operator)" \
    "baseline_child_operator_mismatch,baseline_child_occurrence_count_mismatch | $ANY" \
    "a child row of another type stops the mapping at that node"
expect_eq "$(run overflow)" "non_finite_derived_statistics | $ANY sk_meta_node_ids=12" \
    "an end that overflows makes the derived statistics non-finite"
expect_eq "$(run same_task)" " | task_id_any_model=36 same_task_id=12 name_boundary=24 sk_meta_node_ids=12" \
    "the SK's own task id in the baseline is a hint"

finish
