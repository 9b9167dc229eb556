#!/usr/bin/env bash
# test_analyze_ref.sh - the reference's CLI tests of its profile analyzer
# (test_fusion_performance.py, ProfilerAnalysisTest), ported case by case
# onto "tunectl analyze fusion": the same inputs (tests/fixtures/analysis-ref/cli,
# the reference's own CLI fixture), the same argv, the same expectations.
# tests/fixtures/analysis-ref/README.md maps each reference test to its case.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/analyze_ref_lib.sh"

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

# ---- test_complete_analysis_cli_invalid_input_exits_two ---------------------
fx "$T/nojson"
args "$R/result.json"
A=("${A[@]:0:${#A[@]}-2}")
afp
expect_rc 2 "without --json-out: exit 2"
expect_err "--json-out" "without --json-out: the flag is named"

# ---- test_complete_analysis_cli_rejects_malformed_round_family --------------
fx "$T/weird"
args "$R/malformed-round.json"
set_arg --round-id S1-WEIRD
afp
expect_rc 2 "a round outside AUTO/BASE/Pn/FINAL: exit 2"
expect_err "--round-id" "the malformed round names --round-id"
check "the malformed round writes nothing" [ ! -e "$R/malformed-round.json" ]

# ---- test_removed_cli_options_are_rejected ---------------------------------
fx "$T/removed"
args "$R/mixed.json"
A+=(--profile "$R/baseline.csv")
afp
expect_rc 2 "the retired --profile: exit 2"
check "the retired flag writes nothing" [ ! -e "$R/mixed.json" ]

# ---- test_complete_analysis_cli_rejects_non_finite_thresholds --------------
fx "$T/thr"
for o in --min-relative-change-pct --min-absolute-change-us; do
	for v in nan inf -inf; do
		args "$R/${o#--}-$v.json"
		set_arg "$o" "$v"
		afp
		[ "$rc" = 2 ] && [ ! -e "$R/${o#--}-$v.json" ] ||
		    not_ok "$o $v: exit 2, nothing written (rc $rc)"
	done
done
ok "non-finite thresholds (nan, inf, -inf) exit 2 and write nothing"
# argparse's type=float takes "nan" as a float; the analyzer's own check
# refuses it, as it refuses inf, in the same words
args "$R/x.json"
set_arg --min-absolute-change-us nan
afp
expect_err "--min-absolute-change-us must be finite and non-negative" "nan is refused by the threshold check, not the parser"
set_arg --min-absolute-change-us 0x10
afp
expect_err "argument --min-absolute-change-us: invalid float value: '0x10'" "what float() refuses is an invalid float value"

# ---- test_complete_analysis_cli_rejects_directory_output_transactionally ----
for pre in no yes; do
	fx "$T/dirout-$pre"
	mkdir -p "$R/markdown-target"
	if [ $pre = yes ]; then mkdir -p "$R/analysis"; echo existing-user-result > "$R/analysis/result.json"; fi
	args "$R/analysis/result.json" "$R/markdown-target"
	afp
	expect_rc 2 "a directory as Markdown output (JSON existing: $pre): exit 2"
	if [ $pre = yes ]; then
		expect_eq "$(cat "$R/analysis/result.json")" existing-user-result "an existing JSON output is left as it was"
	else
		check "no JSON output is created" [ ! -e "$R/analysis/result.json" ]
	fi
done

# ---- test_complete_analysis_cli_rejects_output_path_conflicts --------------
for c in same-output input-file input-directory inside-input-directory symlink-input; do
	fx "$T/conflict-$c"
	j=$R/result.json m=$R/result.md
	case $c in
	same-output) m=$j ;;
	input-file) j=$R/baseline.csv ;;
	input-directory) j=$R/sk_meta ;;
	inside-input-directory) j=$R/sk_meta/model_48/sk_fused_nodes.log ;;
	symlink-input) j=$R/result-link.json; ln -s "$R/baseline.csv" "$j" ;;
	esac
	args "$j" "$m"
	afp
	expect_rc 2 "output path conflict ($c): exit 2"
	check "output path conflict ($c): the baseline profile is untouched" cmp -s "$R/baseline.csv" "$FIX/baseline.csv"
	check "output path conflict ($c): nothing is written" [ ! -e "$R/result.md" ] 
done

# ---- test_complete_analysis_cli_rejects_cyclic_symlink_paths ---------------
for c in input output; do
	fx "$T/cyclic-$c"
	if [ $c = input ]; then
		rm "$R/baseline.csv"; ln -s baseline.csv "$R/baseline.csv"
	else
		ln -s result.json "$R/result.json"
	fi
	args "$R/result.json"
	afp
	expect_rc 2 "a cyclic symlink as $c: exit 2"
	expect_err "cannot resolve path" "a cyclic symlink as $c: cannot resolve path"
	check "a cyclic symlink as $c stays a symlink" [ -L "$R/$([ $c = input ] && echo baseline.csv || echo result.json)" ]
done

# ---- test_complete_analysis_cli_rejects_invalid_array_index_pointers,
#      test_complete_analysis_cli_accepts_valid_array_index_pointers --------
fx "$T/ptr"
python3 - "$R" <<'PY'
import json, sys
r = sys.argv[1]
for name, change in (("baseline-config.json", None), ("candidate-config.json", 1)):
    c = json.load(open(f"{r}/{name}"))
    c["items"] = list(range(11))
    if change is not None:
        c["items"][1] = "undeclared-change"
    json.dump(c, open(f"{r}/{name}", "w"))
PY
for p in /items/01 $'/items/\u0661' /items/-; do
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["allowed_json_pointers"].append(sys.argv[2]); json.dump(d, open(sys.argv[1], "w"))' \
	    "$R/declared-change.json" "$p"
	args "$R/invalid.json"
	afp
	[ "$rc" = 2 ] && [ ! -e "$R/invalid.json" ] || not_ok "pointer $p: exit 2, nothing written (rc $rc)"
	cp "$FIX/declared-change.json" "$R/declared-change.json"
done
ok "non-canonical array indices (01, Arabic-Indic one, -) exit 2 and write nothing"
fx "$T/ptr-ok"
python3 - "$R" <<'PY'
import json, sys
r = sys.argv[1]
for name, change in (("baseline-config.json", False), ("candidate-config.json", True)):
    c = json.load(open(f"{r}/{name}"))
    c["items"] = list(range(11))
    if change:
        c["items"][0], c["items"][10] = "allowed-zero", "allowed-ten"
    json.dump(c, open(f"{r}/{name}", "w"))
d = json.load(open(f"{r}/declared-change.json"))
d["allowed_json_pointers"] += ["/items/0", "/items/10"]
json.dump(d, open(f"{r}/declared-change.json", "w"))
PY
args "$R/valid.json"
afp
expect_rc 0 "declared changes at /items/0 and /items/10 are accepted"
expect_eq "$(q "$R/valid.json" '[d["blockers"], d["per_sk_decisions"][0]["classification"]]')" \
    '[[], "insufficient_evidence"]' "declared array changes leave no blocker"

# ---- test_analysis_mode_accepts_equals_in_artifact_paths -------------------
for c in sk_meta:sk=meta sk_prof_device_0.json:sk=prof.json; do
	fx "$T/eq-${c%%:*}"
	mv "$R/${c%%:*}" "$R/${c#*:}"
	args "$R/out.json"
	if [ "${c%%:*}" = sk_meta ]; then set_arg --sk-meta "$R/${c#*:}"; else set_arg --sk-prof "$R/${c#*:}"; fi
	afp
	expect_rc 0 "an input path holding '=' (${c#*:}) is read"
	check "and the analysis is written (${c#*:})" [ -f "$R/out.json" ]
done

# ---- test_analysis_cli_still_rejects_malformed_candidate_runtime -----------
fx "$T/runtime"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["runtime"]=[]; json.dump(d, open(sys.argv[1], "w"))' "$R/candidate-config.json"
args "$R/result.json"
afp
expect_rc 2 "a candidate config whose runtime is a list: exit 2"
expect_err "candidate_config.runtime" "the malformed field is named"
check "the malformed runtime writes nothing" [ ! -e "$R/result.json" ]

# ---- test_non_positive_candidate_occurrences_leave_no_usable_sk ------------
fx "$T/neg"
printf '99,1,%s,SuperKernel,AI_VECTOR_CORE,0,-1\n99,1,%s,SuperKernel,AI_VECTOR_CORE,20,-1\n99,1,%s,SuperKernel,AI_VECTOR_CORE,40,-1\n' "$SK" "$SK" "$SK" | csv "$R/candidate.csv"
args "$R/negative-candidate.json"
afp
expect_rc 2 "a candidate of non-positive durations only: exit 2"
check "non-positive durations write nothing" [ ! -e "$R/negative-candidate.json" ]

# dec FILE: the first decision's classification/action
dec() { q "$1" '[d["per_sk_decisions"][0]["classification"], d["per_sk_decisions"][0]["action"]]'; }
IR='["insufficient_evidence", "reprofile"]'

# ---- test_incomplete_or_invalid_workload_blocks_all_sk_decisions -----------
for c in empty missing-iterations invalid-count; do
	fx "$T/wl-$c"
	python3 - "$R" "$c" <<'PY'
import json, sys
r, c = sys.argv[1:]
w = json.load(open(f"{r}/baseline-workload.json"))
if c == "empty":
    w = {}
elif c == "missing-iterations":
    del w["iterations"]
else:
    w.update(batch=0, warmup=-1, iterations=0)
for side in ("baseline", "candidate"):
    json.dump(w, open(f"{r}/{side}-workload.json", "w"))
PY
	args "$R/workload.json"
	afp
	expect_rc 0 "workload $c: exit 0"
	expect_eq "$(q "$R/workload.json" '[d["baseline_workload_fingerprint"] is not None, d["candidate_workload_fingerprint"] is not None, "workload_manifest_incomplete" in d["blockers"], any(b.startswith("workload_manifest_") and b != "workload_manifest_incomplete" for b in d["blockers"])]')" \
	    '[true, true, true, true]' "workload $c: fingerprinted, blocked as incomplete with the concept's code"
	expect_eq "$(dec "$R/workload.json")" "$IR" "workload $c: every decision is insufficient_evidence/reprofile"
done

# ---- test_complete_analysis_cli_blocks_undeclared_config_difference --------
fx "$T/undeclared"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["runtime"]["rank_size"]=4; json.dump(d, open(sys.argv[1], "w"))' "$R/candidate-config.json"
args "$R/analysis/result.json"
afp
expect_rc 0 "an undeclared config difference: exit 0"
expect_eq "$(q "$R/analysis/result.json" 'x = d["per_sk_decisions"][0]
["undeclared_config_differences" in d["blockers"], x["mapping_confidence"], x["original"], x["classification"], x["action"]]')" \
    '[true, "diagnostic_only", null, "insufficient_evidence", "reprofile"]' \
    "an undeclared config difference blocks the decision"

# ---- test_cli_low_min_occurrences_remains_diagnostic_only ------------------
for n in 1 2; do
	fx "$T/lowmin-$n"
	for f in baseline candidate; do head -n $((n + 1)) "$R/$f.csv" > "$R/$f.tmp" && mv "$R/$f.tmp" "$R/$f.csv"; done
	args "$R/result.json"
	set_arg --min-occurrences $n
	afp
	expect_eq "$(q "$R/result.json" 'd["thresholds"]["min_occurrences"]') $(dec "$R/result.json")" \
	    "3 $IR" "--min-occurrences $n with $n occurrences: the floor stays 3, insufficient_evidence"
done

# ---- test_sk_meta_node_mapping_rejects_operator_mismatch_or_instability,
#      test_sk_meta_node_mapping_rejects_conflicting_operator_sources -------
for c in mismatch:B:B:B:B unstable:A:A:B:- conflict:A:A:A:B; do
	IFS=: read -r name o1 o2 o3 typ <<< "$c"
	fx "$T/op-$name"
	{
		i=0
		for o in $o1 $o2 $o3; do
			t=$typ; [ "$t" = - ] && t=$o
			echo "10,1,static_kernel_${o}_changed_hash,$t,AI_VECTOR_CORE,$((i * 20)),8"
			i=$((i + 1))
		done
	} | csv "$R/baseline.csv"
	args "$R/op.json"
	afp
	expect_eq "$rc $(q "$R/op.json" 'x = d["per_sk_decisions"][0]
["baseline_child_operator_mismatch" in x["evidence_errors"], x["classification"], x["action"]]')" \
	    '0 [true, "insufficient_evidence", "reprofile"]' \
	    "a baseline child whose operator does not match ($name): baseline_child_operator_mismatch"
done

# ---- test_sk_meta_node_mapping_accepts_function_hash_only_changes ----------
fx "$T/hash"
echo '{"task_ranges": []}' > "$R/source-scope-map.json"
printf '10,1,static_kernel_A_completely_different_hash,A,AI_VECTOR_CORE,%s,8\n' 0 20 40 | csv "$R/baseline.csv"
args "$R/hash.json"
afp
expect_eq "$rc $(q "$R/hash.json" 'x = d["per_sk_decisions"][0]
[x["mapping_method"], x["mapping_confidence"], "cross_compile_runtime_id_not_identity" in x["mapping_blockers"], x["classification"], x["action"], x["original"], d["coverage"]["mapped_count"]]')" \
    '0 ["sk_meta_node_ids", "diagnostic_only", true, "insufficient_evidence", "reprofile", null, 0]' \
    "a function-hash-only change maps by node id, diagnostic only, and maps nothing"

# ---- test_incomplete_candidate_identity_blocks_automatic_action ------------
for c in model-id scope-boundary ordered-sequence; do
	fx "$T/ident-$c"
	case $c in
	model-id) printf '99,1,%s,SuperKernel,AI_VECTOR_CORE,%s,6\n' "$SK" 0 "$SK" 20 "$SK" 40 | MODEL= csv "$R/candidate.csv" ;;
	scope-boundary) printf '99,1,SuperKernelWithoutBoundary,SuperKernel,AI_VECTOR_CORE,%s,6\n' 0 20 40 | csv "$R/candidate.csv" ;;
	ordered-sequence) echo "SK Function: $SK, scope id: 1, Node Count: 0" > "$R/sk_meta/model_48/sk_fused_nodes.log" ;;
	esac
	args "$R/incomplete.json"
	afp
	expect_eq "$rc $(q "$R/incomplete.json" 'x = d["per_sk_decisions"][0]
[x["mapping_confidence"], x["classification"], x["action"], "candidate_identity_incomplete" in x["evidence_errors"]]')" \
	    '0 ["diagnostic_only", "insufficient_evidence", "reprofile", true]' \
	    "an incomplete candidate identity ($c) blocks any automatic action"
done

# ---- test_ambiguous_metadata_identity_blocks_each_distinct_sequence --------
fx "$T/ambig"
printf '%s\n' "SK Function: $SK, scope id: 2, Node Count: 1" \
    "[nodeId:11, streamId:1] - KernelInfos{funcName:static_kernel_B_hash, kernelType:AIV_ONLY, numBlocks:1, cubeNum:0, vecNum:1, isScheModeOn:0}" \
    >> "$R/sk_meta/model_48/sk_fused_nodes.log"
args "$R/ambiguous-distinct.json"
afp
expect_eq "$rc $(q "$R/ambiguous-distinct.json" 'x = d["per_sk_decisions"]
[sorted(tuple(y["identity"]["ordered_child_op_sequence"]) for y in x), all("candidate_metadata_identity_ambiguous" in y["evidence_errors"] and y["mapping_confidence"] == "diagnostic_only" and y["classification"] == "insufficient_evidence" and y["action"] not in ("keep", "prune") for y in x)]')" \
    '0 [[["A"], ["B"]], true]' \
    "two metadata groups for one SK: a decision per distinct sequence, each ambiguous"

# ---- test_duplicate_metadata_identity_is_reported_without_replay_gate ------
fx "$T/dupmeta"
sed -e 's/scope id: 1/scope id: 2/' -e 's/nodeId:10/nodeId:11/' "$R/sk_meta/model_48/sk_fused_nodes.log" >> "$R/sk_meta/model_48/sk_fused_nodes.log"
args "$R/ambiguous-duplicate.json"
afp
expect_eq "$rc $(q "$R/ambiguous-duplicate.json" 'len(d["per_sk_decisions"]) > 0 and all(y["classification"] == "insufficient_evidence" for y in d["per_sk_decisions"])')" \
    "0 true" "a duplicated metadata group leaves every decision insufficient_evidence"

# ---- test_complete_analysis_cli_handles_finite_occurrence_overflow ---------
fx "$T/ovf"
printf '10,1,static_kernel_A_hash,A,AI_VECTOR_CORE,0,1e-308\n%.0s' 1 2 3 | csv "$R/baseline.csv"
printf "99,1,$SK,SuperKernel,AI_VECTOR_CORE,0,1e308\n%.0s" 1 2 3 | csv "$R/candidate.csv"
args "$R/finite-overflow.json"
afp
expect_eq "$rc $(q "$R/finite-overflow.json" 'x = d["per_sk_decisions"][0]
[x["classification"], x["action"], "non_finite_derived_statistics" in x["evidence_errors"], "sk_vs_original_interval_pct" in x, x["fusion_benefit"]["interval_improvement_pct"]]')" \
    '0 ["insufficient_evidence", "reprofile", true, false, null]' \
    "finite occurrences whose derivations overflow: non_finite_derived_statistics"
check "the overflowing analysis is strict JSON (no NaN or Infinity)" python3 -c '
import json, sys
json.loads(open(sys.argv[1]).read(), parse_constant=lambda c: sys.exit("constant " + c))' "$R/finite-overflow.json"

# ---- test_complete_analysis_cli_handles_profile_arithmetic_overflow --------
for c in baseline-duration-sum:0.0:1e308:0.0:1e-308 row-end:1e308:1e308:1e308:1e308; do
	IFS=: read -r name bs bd cs cd <<< "$c"
	fx "$T/ovf-$name"
	printf "10,1,static_kernel_A_hash,A,AI_VECTOR_CORE,$bs,$bd\n%.0s" 1 2 3 | csv "$R/baseline.csv"
	printf "99,1,$SK,SuperKernel,AI_VECTOR_CORE,$cs,$cd\n%.0s" 1 2 3 | csv "$R/candidate.csv"
	args "$R/$name.json"
	afp
	expect_eq "$rc $(q "$R/$name.json" 'x = d["per_sk_decisions"][0]
[x["classification"], x["action"], "non_finite_derived_statistics" in x["evidence_errors"]]')" \
	    '0 ["insufficient_evidence", "reprofile", true]' \
	    "profile arithmetic that overflows ($name): non_finite_derived_statistics"
done

# ---- test_candidate_rejected_occurrence_blocks_otherwise_valid_identity,
#      test_rejected_baseline_child_occurrence_blocks_exact_mapping ---------
fx "$T/rej-cand"
printf '99,1,%s,SuperKernel,AI_VECTOR_CORE,%s,%s\n' "$SK" 0 6 "$SK" 20 6 "$SK" 40 6 "$SK" 60 nan | csv "$R/candidate.csv"
args "$R/candidate-rejected.json"
afp
expect_eq "$rc $(q "$R/candidate-rejected.json" 'x = d["per_sk_decisions"][0]
["baseline_mapping_missing" in x["evidence_errors"], x["classification"], x["action"]]')" \
    '0 [true, "insufficient_evidence", "reprofile"]' "a rejected candidate occurrence blocks the SK"
fx "$T/rej-base"
printf '10,1,%s,A,AI_VECTOR_CORE,%s,%s\n' static_kernel_A_hash 0 8 static_kernel_A_hash 20 8 static_kernel_A_hash 40 8 static_kernel_A_other_hash 60 nan | csv "$R/baseline.csv"
args "$R/baseline-rejected.json"
afp
expect_eq "$rc $(q "$R/baseline-rejected.json" 'x = d["per_sk_decisions"][0]
["baseline_mapping_missing" in x["evidence_errors"], x["classification"], x["action"]]')" \
    '0 [true, "insufficient_evidence", "reprofile"]' "a rejected baseline child occurrence blocks the mapping"

# ---- test_analysis_cli_ignores_post_base_option_evidence_shapes ------------
for e in '{"options": []}' '{"options": {"optimize_options": []}}' \
    '{"options": {"optimize_options": {"auto_op_parallel": {"accepted_values": {}}}}}'; do
	fx "$T/env"
	echo "$e" > "$R/environment.json"
	args "$R/result.json"
	afp
	[ "$rc" = 0 ] && [ "$(q "$R/result.json" 'd["recommended_experiments"]')" = "[]" ] ||
	    not_ok "environment evidence $e is ignored (rc $rc)"
done
ok "malformed post-BASE option evidence is ignored: exit 0, no experiments"

# ---- test_candidate_row_order_does_not_change_stable_ids -------------------
fx "$T/order"
args "$R/a.json"
afp
printf "99,1,$SK,SuperKernel,AI_VECTOR_CORE,%s,6\n" 40 0 20 | csv "$R/candidate.csv"
args "$R/b.json"
afp
expect_eq "$(q "$R/b.json" '[d["per_sk_decisions"][0]["sk_id"], d["per_sk_decisions"][0]["range_id"]]')" \
    "$(q "$R/a.json" '[d["per_sk_decisions"][0]["sk_id"], d["per_sk_decisions"][0]["range_id"]]')" \
    "the order of candidate rows does not change sk_id or range_id"

# ---- test_collection_manifest_inputs_are_relative_and_affect_analysis_fingerprint
fx "$T/manif"
echo '{"task_ranges": []}' > "$R/source-scope-map.json"
mkdir -p "$R/collections"
echo '{"invalid_fixture": 0}' > "$R/collections/baseline_collection_manifest.json"
echo '{"invalid_fixture": 1}' > "$R/collections/profile_collection_manifest.json"
args "$R/analysis/structural-inputs.json"
A+=(--baseline-collection-manifest "$R/collections/baseline_collection_manifest.json"
    --profile-collection-manifest "$R/collections/profile_collection_manifest.json")
afp
cp "$R/analysis/structural-inputs.json" "$R/first.json"
echo '{"invalid_fixture": "changed"}' > "$R/collections/profile_collection_manifest.json"
afp
expect_eq "$rc $(q "$R/first.json" 'x = d["per_sk_decisions"][0]
[d["schema_version"], d["inputs"]["baseline_collection_manifest"], d["inputs"]["profile_collection_manifest"], "structural_collection_manifest_set_invalid" in d["association_protocol"]["blockers"], (x["mapping_method"], x["mapping_confidence"]) in (("source_scope_map", "exact"), ("kernel_projection_structural", "exact_projected_trace"))]')" \
    '0 ["1.2", "../collections/baseline_collection_manifest.json", "../collections/profile_collection_manifest.json", true, false]' \
    "invalid collection manifests: relative inputs, set_invalid, no exact mapping"
check "a changed manifest changes the content and manifest fingerprints" python3 -c '
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
sys.exit(a["analysis_content_fingerprint"] == b["analysis_content_fingerprint"] or
    a["association_protocol"]["manifest_content_fingerprints"] == b["association_protocol"]["manifest_content_fingerprints"])' \
    "$R/first.json" "$R/analysis/structural-inputs.json"

# ---- test_partial_collection_manifest_set_blocks_structural_mapping --------
fx "$T/partial"
echo '{"task_ranges": []}' > "$R/source-scope-map.json"
echo '{"invalid_fixture": true}' > "$R/baseline-collection-manifest.json"
args "$R/partial.json"
A+=(--baseline-collection-manifest "$R/baseline-collection-manifest.json")
afp
expect_eq "$rc $(q "$R/partial.json" 'x = d["per_sk_decisions"][0]
["structural_collection_manifest_set_incomplete" in d["association_protocol"]["blockers"], "structural_collection_manifest_set_incomplete" in x["mapping_blockers"], x["mapping_confidence"] != "exact_projected_trace"]')" \
    '0 [true, true, true]' "one collection manifest alone blocks the structural mapping as incomplete"

# ---- test_stable_identity_ids_ignore_object_key_order,
#      test_stable_identity_ids_change_with_each_identity_field -----------
# sk_id and range_id are "sk-"/"range-" + the SHA-256 of the identity's ASCII
# canonical JSON: the key order cannot matter, each field changes them.
fx "$T/ids"
args "$R/ids.json"
afp
check "sk_id and range_id are the canonical SHA-256 of the identity" python3 -c '
import hashlib, json, sys
x = json.load(open(sys.argv[1]))["per_sk_decisions"][0]
h = hashlib.sha256(json.dumps(x["identity"], sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()).hexdigest()
sys.exit(x["sk_id"] != "sk-" + h or x["range_id"] != "range-" + h or sorted(x["identity"]) != ["boundary", "model_id", "ordered_child_op_sequence", "source_scope"])' "$R/ids.json"
for v in model:49 scope:decoder.layer.1 end:B; do
	fx "$T/ids-${v%%:*}"
	case $v in
	model*) printf "99,1,$SK,SuperKernel,AI_VECTOR_CORE,%s,6\n" 0 20 40 | MODEL=49 csv "$R/candidate.csv"
		mv "$R/sk_meta/model_48" "$R/sk_meta/model_49" ;;
	scope*) sed -i 's/decoder\.layer\.0/decoder.layer.1/g' "$R/candidate.csv" "$R/sk_meta/model_48/sk_fused_nodes.log" ;;
	end*) sed -i 's/end_static_kernel_A_hash/end_static_kernel_B_hash/' "$R/candidate.csv" "$R/sk_meta/model_48/sk_fused_nodes.log" ;;
	esac
	args "$R/v.json"
	afp
	[ "$(q "$R/v.json" 'd["per_sk_decisions"][0]["sk_id"]')" != "$(q "$T/ids/ids.json" 'd["per_sk_decisions"][0]["sk_id"]')" ] ||
	    not_ok "changing the identity's ${v%%:*} changes sk_id"
done
ok "changing the model, the scope or the boundary changes sk_id"

# ---- test_single_child_with_repeated_benefit_is_kept ------------------------
# (now a legacy-only mapping: one child, insufficient_evidence/reprofile)
fx "$T/single"
S1=sk_1_scope_start_static_kernel_A_hash_end_static_kernel_A_hash
printf "99,1,$S1,SuperKernel,AI_VECTOR_CORE,%s,6\n" 0 20 40 | csv "$R/candidate.csv"
sed -i "s/$SK/$S1/" "$R/sk_meta/model_48/sk_fused_nodes.log"
args "$R/single.json"
afp
expect_eq "$rc $(q "$R/single.json" 'x = d["per_sk_decisions"]
[len(x), x[0]["child_count"], x[0]["classification"], x[0]["action"], "cross_compile_runtime_id_not_identity" in x[0]["mapping_blockers"]]')" \
    '0 [1, 1, "insufficient_evidence", "reprofile", true]' "a single child with a repeated benefit is still only diagnostic"

# ---- test_incomplete_metadata_model_identity_is_rejected -------------------
fx "$T/nomodel"
mv "$R/sk_meta/model_48/sk_fused_nodes.log" "$R/sk_meta/sk_fused_nodes.log"
rmdir "$R/sk_meta/model_48"
args "$R/nomodel.json"
afp
expect_eq "$rc $(dec "$R/nomodel.json")" "0 $IR" "a metadata log outside any model_<id> directory identifies nothing"

# ---- test_six_child_regression_is_pruned -------------------------------------
# (now insufficient_evidence/reprofile: the node-id mapping is diagnostic)
fx "$T/six"
S6=sk_1_scope_start_static_kernel_A_hash_end_static_kernel_F_hash
{
	for o in 0 20 40; do
		i=0
		for op in A B C D E F; do
			echo "$((10 + i)),1,static_kernel_${op}_hash,$op,AI_VECTOR_CORE,$((o + i)),1"
			i=$((i + 1))
		done
	done
} | csv "$R/baseline.csv"
printf "99,1,$S6,SuperKernel,AI_VECTOR_CORE,%s,9\n" 0 20 40 | csv "$R/candidate.csv"
{
	echo "SK Function: $S6, scope id: 1, Node Count: 6"
	i=0
	for op in A B C D E F; do
		echo "[nodeId:$((10 + i)), streamId:1] - KernelInfos{funcName:static_kernel_${op}_hash, kernelType:AIV_ONLY, numBlocks:1, cubeNum:0, vecNum:1, isScheModeOn:0}"
		i=$((i + 1))
	done
} > "$R/sk_meta/model_48/sk_fused_nodes.log"
args "$R/six.json"
afp
expect_eq "$rc $(q "$R/six.json" 'x = d["per_sk_decisions"][0]
[x["child_count"], x["classification"], x["action"]]')" \
    '0 [6, "insufficient_evidence", "reprofile"]' "a six-child SK maps its six children and stays diagnostic"

# ---- test_scalar_only_regression_does_not_propose_dcci_options -------------
fx "$T/scalar"
SG=sk_1_decoder.layer.0.mlp_start_static_kernel_GroupedMatmul_hash_end_static_kernel_Add_hash
{
	for o in 0 30 60; do
		echo "10,1,static_kernel_GroupedMatmul_hash,GroupedMatmul,AI_CORE,$o,10"
		echo "11,1,static_kernel_Add_hash,Add,AI_VECTOR_CORE,$((o + 10)),2"
	done
} | csv "$R/baseline.csv"
printf "99,1,$SG,SuperKernel,MIX_AIC,%s,15\n" 0 30 60 | csv "$R/candidate.csv"
printf '%s\n' "SK Function: $SG, scope id: 1, Node Count: 2" \
    "[nodeId:10, streamId:1] - KernelInfos{funcName:static_kernel_GroupedMatmul_hash, kernelType:AIC_ONLY, numBlocks:1, cubeNum:1, vecNum:0, isScheModeOn:0}" \
    "[nodeId:11, streamId:1] - KernelInfos{funcName:static_kernel_Add_hash, kernelType:AIV_ONLY, numBlocks:1, cubeNum:0, vecNum:1, isScheModeOn:0}" \
    > "$R/sk_meta/model_48/sk_fused_nodes.log"
args "$R/scalar.json"
afp
expect_eq "$rc $(q "$R/scalar.json" 'x = d["per_sk_decisions"][0]; b = x["fusion_benefit"]
[x["classification"], b["child_count"], b["launch_count_without_sk"], b["launch_count_with_sk"], b["estimated_launch_reduction"], b["interval_improvement_us"], d["recommended_experiments"]]')" \
    '0 ["insufficient_evidence", 2, 2, 1, 1, null, []]' \
    "a scalar-only regression: two launches become one, no interval verdict, no DCCI experiment"

# ---- test_diagnostic_fallback_never_produces_keep_or_prune -----------------
fx "$T/fallback"
SF=sk_1_scope_start_A_end_B
printf "10,1,$SF,SuperKernel,AI_VECTOR_CORE,%s,6\n" 0 20 40 | csv "$R/candidate.csv"
printf '10,1,A,A,AI_VECTOR_CORE,%s,8\n' 0 20 40 | csv "$R/baseline.csv"
rm -r "$R/sk_meta/model_48"
args "$R/fallback.json"
afp
expect_eq "$rc $(q "$R/fallback.json" 'x = d["per_sk_decisions"][0]
[x["mapping_confidence"], len(x["mapping_hints"]) > 0 and all(h["confidence"] == "diagnostic_only" for h in x["mapping_hints"]), x["classification"], x["action"] in ("reprofile", "block")]')" \
    '0 ["diagnostic_only", true, "insufficient_evidence", true]' \
    "without metadata, name and task hints stay diagnostic: never keep or prune"

# ---- test_structural_manifest_reader_rejects_symlink_input -----------------
fx "$T/mlink"
echo '{"capture_role": "candidate_compat"}' > "$R/manifest-target.json"
ln -s manifest-target.json "$R/manifest-link.json"
cp "$R/manifest-target.json" "$R/other.json"
args "$R/mlink.json"
A+=(--baseline-collection-manifest "$R/manifest-link.json" --profile-collection-manifest "$R/other.json")
afp
expect_eq "$rc $(q "$R/mlink.json" '"structural_collection_manifest_set_invalid" in d["association_protocol"]["blockers"]')" \
    "0 true" "a symlinked collection manifest is never read as a valid set"
"$TUNECTL_BIN" analyze collection validate-set --manifest "baseline_profile=$R/manifest-link.json" \
    --manifest "candidate_profile=$R/other.json" > /dev/null 2> "$R/vs.err"
rc=$?
expect_eq "$rc $(tail -n 1 "$R/vs.err")" \
    "2 tunectl analyze collection validate-set: error: baseline_profile manifest path contains a symlink" \
    "the manifest reader refuses the symlink before reading it"

finish
