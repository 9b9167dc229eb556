#!/usr/bin/env bash
# tunectl ledger: the experiment_ledger.py command line (validate, merge and
# their exit codes and output shapes,
# docs/spec/ledger.md "Ledger CLI behaviour") plus tunectl's migrate and
# final-e2e subcommands.
. "$(dirname "$0")/lib.sh"

# The reference fixture _result(): experiment S3 with BASE / P1 / FINAL.
S3_JSON='{"baseline_config_fingerprint":"baseline-config-fp","baseline_revision":"baseline-sha","blockers":[],"child_agent_id":"agent-7","control_fingerprint":"control-fp","experiment_id":"S3","inherited_exclusions_for_next_agents":[],"lifecycle":{},"next_agent_guidance_zh":"后续实验沿用已验证的性能范围结论。","parent_experiment_id":"S3","performance_scope_decisions":[{"action":"keep","baseline_config_fingerprint":"baseline-config-fp","baseline_profile":"profiles/frozen-baseline.json","baseline_profile_fingerprint":"baseline-profile-fp","boundary":{"end_offset":200,"end_op":"range-beneficial-end","source_file":"model.py","start_offset":100,"start_op":"range-beneficial-start"},"candidate_config_fingerprint":"candidate-base-fp","candidate_profile":"S3-BASE/profiles/candidate.json","candidate_profile_fingerprint":"S3-BASE-candidate-profile-fp","classification":"beneficial","control_fingerprint":"control-fp","declared_change_set":{"allowed_json_pointers":["/superkernel/enabled","/superkernel/scope"],"only_change_zh":"只启用 SuperKernel 并应用本轮范围。"},"mapping_confidence":"exact","mapping_method":"source_scope_map","range_id":"range-beneficial","round_id":"S3-BASE","sk_id":"sk-range-beneficial","source_profiling_analysis_result":"S3-BASE/profiling-analysis/profiling-analysis-result.json","source_revision":"source-sha","source_scope":"model.range-beneficial","status":"applied","workload_fingerprint":"workload-fp"},{"action":"prune","baseline_config_fingerprint":"baseline-config-fp","baseline_profile":"profiles/frozen-baseline.json","baseline_profile_fingerprint":"baseline-profile-fp","boundary":{"end_offset":200,"end_op":"range-neutral-end","source_file":"model.py","start_offset":100,"start_op":"range-neutral-start"},"candidate_config_fingerprint":"candidate-base-fp","candidate_profile":"S3-BASE/profiles/candidate.json","candidate_profile_fingerprint":"S3-BASE-candidate-profile-fp","classification":"neutral","control_fingerprint":"control-fp","declared_change_set":{"allowed_json_pointers":["/superkernel/enabled","/superkernel/scope"],"only_change_zh":"只启用 SuperKernel 并应用本轮范围。"},"mapping_confidence":"exact","mapping_method":"source_scope_map","profiling_analysis_result":"S3-P1/profiling-analysis/profiling-analysis-result.json","range_id":"range-neutral","round_id":"S3-BASE","sk_id":"sk-range-neutral","source_profiling_analysis_result":"S3-BASE/profiling-analysis/profiling-analysis-result.json","source_revision":"source-sha","source_scope":"model.range-neutral","status":"verified","verified_in_round_id":"S3-P1","workload_fingerprint":"workload-fp"},{"action":"keep","baseline_config_fingerprint":"baseline-config-fp","baseline_profile":"profiles/frozen-baseline.json","baseline_profile_fingerprint":"baseline-profile-fp","boundary":{"end_offset":200,"end_op":"range-beneficial-end","source_file":"model.py","start_offset":100,"start_op":"range-beneficial-start"},"candidate_config_fingerprint":"candidate-final-fp","candidate_profile":"S3-FINAL/profiles/candidate.json","candidate_profile_fingerprint":"S3-FINAL-candidate-profile-fp","classification":"beneficial","control_fingerprint":"control-fp","declared_change_set":{"allowed_json_pointers":["/superkernel/enabled","/superkernel/scope"],"only_change_zh":"只启用 SuperKernel 并应用本轮范围。"},"mapping_confidence":"exact","mapping_method":"source_scope_map","range_id":"range-beneficial","round_id":"S3-FINAL","sk_id":"sk-range-beneficial","source_profiling_analysis_result":"S3-FINAL/profiling-analysis/profiling-analysis-result.json","source_revision":"source-sha","source_scope":"model.range-beneficial","status":"applied","workload_fingerprint":"workload-fp"}],"profiling_analysis_agent_ids":{"S3-BASE":"prof-agent-1","S3-FINAL":"prof-agent-3","S3-P1":"prof-agent-2"},"profiling_analysis_result":{"S3-BASE":"S3-BASE/profiling-analysis/profiling-analysis-result.json","S3-FINAL":"S3-FINAL/profiling-analysis/profiling-analysis-result.json","S3-P1":"S3-P1/profiling-analysis/profiling-analysis-result.json"},"rounds":[{"artifacts":{"round_evidence":"S3-BASE/round-evidence.json","round_report":"S3-BASE/round-report.json"},"baseline_config_fingerprint":"baseline-config-fp","baseline_profile":"profiles/frozen-baseline.json","baseline_profile_fingerprint":"baseline-profile-fp","candidate_config_fingerprint":"candidate-base-fp","candidate_profile":"S3-BASE/profiles/candidate.json","candidate_profile_fingerprint":"S3-BASE-candidate-profile-fp","child_agent_id":"agent-7","control_fingerprint":"control-fp","declared_change_set":{"allowed_json_pointers":["/superkernel/enabled","/superkernel/scope"],"only_change_zh":"只启用 SuperKernel 并应用本轮范围。"},"lifecycle":{"compat":"passed","correctness":"passed","profiling":"passed","replay":"passed"},"performance_decision_range_ids":["range-beneficial","range-neutral","range-unknown"],"round_id":"S3-BASE","round_kind":"base","scope_kind":"manual","source_revision":"source-sha","workload_fingerprint":"workload-fp"},{"artifacts":{"round_evidence":"S3-P1/round-evidence.json","round_report":"S3-P1/round-report.json"},"baseline_config_fingerprint":"baseline-config-fp","baseline_profile":"profiles/frozen-baseline.json","baseline_profile_fingerprint":"baseline-profile-fp","candidate_config_fingerprint":"candidate-pruned-fp","candidate_profile":"S3-P1/profiles/candidate.json","candidate_profile_fingerprint":"S3-P1-candidate-profile-fp","child_agent_id":"agent-7","control_fingerprint":"control-fp","declared_change_set":{"allowed_json_pointers":["/superkernel/enabled","/superkernel/scope"],"only_change_zh":"只启用 SuperKernel 并应用本轮范围。"},"declared_option_changes":[],"lifecycle":{"compat":"passed","correctness":"passed","profiling":"passed","replay":"passed"},"performance_decision_range_ids":["range-neutral"],"round_id":"S3-P1","round_kind":"performance_prune","scope_kind":"manual","source_revision":"source-sha","workload_fingerprint":"workload-fp"},{"artifacts":{"round_evidence":"S3-FINAL/round-evidence.json","round_report":"S3-FINAL/round-report.json"},"baseline_config_fingerprint":"baseline-config-fp","baseline_profile":"profiles/frozen-baseline.json","baseline_profile_fingerprint":"baseline-profile-fp","candidate_config_fingerprint":"candidate-final-fp","candidate_profile":"S3-FINAL/profiles/candidate.json","candidate_profile_fingerprint":"S3-FINAL-candidate-profile-fp","child_agent_id":"agent-7","control_fingerprint":"control-fp","declared_change_set":{"allowed_json_pointers":["/superkernel/enabled","/superkernel/scope"],"only_change_zh":"只启用 SuperKernel 并应用本轮范围。"},"declared_option_changes":[],"lifecycle":{"compat":"passed","correctness":"passed","profiling":"passed","replay":"passed"},"performance_decision_range_ids":["range-beneficial"],"retained_range_ids":["range-beneficial"],"round_id":"S3-FINAL","round_kind":"final","scope_kind":"manual","source_revision":"source-sha","workload_fingerprint":"workload-fp"}],"source_revision":"source-sha","unresolved_performance_ranges":[{"action":"reprofile","baseline_config_fingerprint":"baseline-config-fp","baseline_profile":"profiles/frozen-baseline.json","baseline_profile_fingerprint":"baseline-profile-fp","boundary":{"end_offset":200,"end_op":"range-unknown-end","source_file":"model.py","start_offset":100,"start_op":"range-unknown-start"},"candidate_config_fingerprint":"candidate-base-fp","candidate_profile":"S3-BASE/profiles/candidate.json","candidate_profile_fingerprint":"S3-BASE-candidate-profile-fp","classification":"insufficient_evidence","control_fingerprint":"control-fp","declared_change_set":{"allowed_json_pointers":["/superkernel/enabled","/superkernel/scope"],"only_change_zh":"只启用 SuperKernel 并应用本轮范围。"},"mapping_confidence":"exact","mapping_method":"source_scope_map","range_id":"range-unknown","round_id":"S3-BASE","sk_id":"sk-range-unknown","source_profiling_analysis_result":"S3-BASE/profiling-analysis/profiling-analysis-result.json","source_revision":"source-sha","source_scope":"model.range-unknown","status":"proposed","workload_fingerprint":"workload-fp"}],"workload_fingerprint":"workload-fp"}'

# write_result DIR: the S3 result at DIR/experiment-result.json
write_result() {
	mkdir -p "$1"
	printf '%s\n' "$S3_JSON" >"$1/experiment-result.json"
}

# write_artifacts DIR: every file the S3 result names, bound to it, so the
# specified artifact checks pass.
write_artifacts() {
	local d=$1 rid cfp agent f
	mkdir -p "$d/profiles"
	echo '{}' >"$d/profiles/frozen-baseline.json"
	for rid in S3-BASE S3-P1 S3-FINAL; do
		case $rid in
		S3-BASE) cfp=candidate-base-fp agent=prof-agent-1 ;;
		S3-P1) cfp=candidate-pruned-fp agent=prof-agent-2 ;;
		S3-FINAL) cfp=candidate-final-fp agent=prof-agent-3 ;;
		esac
		mkdir -p "$d/$rid/profiles" "$d/$rid/inputs" "$d/$rid/profiling-analysis"
		echo '{}' >"$d/$rid/profiles/candidate.json"
		for f in sk_meta baseline_config candidate_config baseline_workload \
		    candidate_workload declared_change_set; do
			echo '{}' >"$d/$rid/inputs/$f.json"
		done
		cat >"$d/$rid/profiling-analysis/profiling-analysis-result.json" <<JSON
{"schema_version": "1.2", "candidate_name": "S3", "experiment_id": "S3",
 "round_id": "$rid", "analysis_agent_id": "$agent", "source_revision": "source-sha",
 "baseline_config_fingerprint": "baseline-config-fp", "candidate_config_fingerprint": "$cfp",
 "control_fingerprint": "control-fp", "workload_fingerprint": "workload-fp",
 "baseline_profile_fingerprint": "baseline-profile-fp",
 "candidate_profile_fingerprint": "$rid-candidate-profile-fp",
 "declared_change_set": {"allowed_json_pointers": ["/superkernel/enabled", "/superkernel/scope"],
   "only_change_zh": "只启用 SuperKernel 并应用本轮范围。"},
 "baseline_workload_fingerprint": "workload-fp", "candidate_workload_fingerprint": "workload-fp",
 "baseline_control_fingerprint": "control-fp", "candidate_control_fingerprint": "control-fp",
 "inputs": {"baseline_profile": "../../profiles/frozen-baseline.json",
   "candidate_profile": "../profiles/candidate.json", "sk_meta": "../inputs/sk_meta.json",
   "baseline_config": "../inputs/baseline_config.json", "candidate_config": "../inputs/candidate_config.json",
   "baseline_workload": "../inputs/baseline_workload.json",
   "candidate_workload": "../inputs/candidate_workload.json",
   "declared_change_set": "../inputs/declared_change_set.json", "sk_prof": null}}
JSON
	done
}

MISSING='experiment result contains invalid JSON value types: ValueError: profiling_analysis_result.S3-BASE artifact is missing: S3-BASE/profiling-analysis/profiling-analysis-result.json'

# ---- validate --------------------------------------------------------------

write_result "$T/bare"
tc ledger validate "$T/bare/experiment-result.json"
expect_rc 1 "validate without analysis artifacts exits 1"
expect_eq "$out" "{
  \"artifact_evidence_validated\": false,
  \"conditional_evidence_eligible\": false,
  \"errors\": [
    \"$MISSING\"
  ],
  \"valid\": false
}" "validate prints the reference's four keys and the missing-artifact error"
expect_eq "$err" "" "validate writes nothing to stderr"

write_result "$T/full"
write_artifacts "$T/full"
tc ledger validate "$T/full/experiment-result.json"
expect_rc 0 "validate of a result with its artifacts exits 0"
expect_out '"valid": true' "the result with artifacts is valid"
expect_out '"artifact_evidence_validated": false' "without the analyser nothing is artifact-validated"
expect_err "artifact evidence not validated" "validate says why evidence is not validated"

(cd "$T/full" && "$TUNECTL_BIN" ledger validate experiment-result.json >"$T/rel.out" 2>/dev/null)
check "a relative RESULT path uses its own directory as artifact root" grep -q '"valid": true' "$T/rel.out"

sed 's/"round_id":"S3-P1","round_kind"/"round_id":["S3-P1"],"round_kind"/' \
    "$T/full/experiment-result.json" >"$T/full/list-round.json"
tc ledger validate "$T/full/list-round.json"
expect_rc 1 "a list round_id exits 1"
expect_out '"errors": [' "a list round_id gives structured errors"
expect_out "rounds[1].round_id must be a non-empty string" "the list round_id is named"
expect_eq "$err" "" "no traceback for a list round_id"

printf '{"experiment_id": ' >"$T/broken.json"
tc ledger validate "$T/broken.json"
expect_rc 1 "broken JSON exits 1"
expect_eq "$out" '{
  "errors": [
    "invalid JSON input: JSONDecodeError: Expecting value: line 1 column 19 (char 18)"
  ],
  "valid": false
}' "broken JSON is an invalid JSON input refusal"

for c in NaN Infinity -Infinity; do
	printf '{"experiment_id": "S3", "x": %s}' "$c" >"$T/const.json"
	tc ledger validate "$T/const.json"
	expect_rc 1 "literal $c exits 1"
	expect_out "invalid JSON input: ValueError: non-standard JSON constant $c" "literal $c is refused by name"
done

tc ledger validate "$T/none.json"
expect_rc 1 "a missing result file exits 1"
expect_out "invalid JSON input: FileNotFoundError: [Errno 2] No such file or directory: '$T/none.json'" "a missing file is a FileNotFoundError"

# ---- merge -----------------------------------------------------------------

tc ledger merge --ledger "$T/bare/ledger.json" --result "$T/bare/experiment-result.json" --output "$T/bare/out.json"
expect_rc 1 "merge without analysis artifacts exits 1"
expect_out "merge failed: ValueError: $MISSING" "merge failure carries the validation error"
check "a failed merge writes no output" test ! -e "$T/bare/out.json"

tc ledger merge --ledger "$T/full/ledger.json" --result "$T/full/experiment-result.json" --output "$T/full/sub//dir/ledger.json"
expect_rc 0 "merge into a missing ledger exits 0"
expect_eq "$out" "已合并实验交接: $T/full/sub/dir/ledger.json" "merge prints the normalised output path"
check "merge creates the output's parent directories" test -f "$T/full/sub/dir/ledger.json"
check "the merged ledger is indent-2 JSON with sorted keys" grep -q '^  "artifact_validated_experiment_ids": \[\],$' "$T/full/sub/dir/ledger.json"
check "the merged ledger ends with a newline" test "$(tail -c 1 "$T/full/sub/dir/ledger.json" | od -An -c | tr -d ' ')" = '\n'
check "non-ASCII text is written raw" grep -q '后续实验沿用已验证的性能范围结论。' "$T/full/sub/dir/ledger.json"
check "the merged ledger is schema 2" grep -q '^  "schema_version": 2$' "$T/full/sub/dir/ledger.json"

cp "$T/full/sub/dir/ledger.json" "$T/full/ledger.json"
tc ledger merge --ledger "$T/full/ledger.json" --result "$T/full/experiment-result.json" --output "$T/full/again.json"
expect_rc 0 "re-merging the same result exits 0"
check "re-merging the same result leaves the ledger identical" cmp -s "$T/full/ledger.json" "$T/full/again.json"

sed 's/后续实验沿用已验证的性能范围结论。/改动后的说明。/' "$T/full/experiment-result.json" >"$T/full/changed.json"
cp "$T/full/changed.json" "$T/full/changed-result.json"
tc ledger merge --ledger "$T/full/ledger.json" --result "$T/full/changed-result.json" --output "$T/full/changed-out.json"
expect_rc 1 "a changed result for a stored id exits 1"
expect_out "merge failed: ValueError: experiment S3 is immutable and cannot be overwritten" "stored experiments are immutable"
check "the refused merge writes nothing" test ! -e "$T/full/changed-out.json"

sed 's/"conditional_performance_evidence": {}/"conditional_performance_evidence": {"x": {}}/' "$T/full/ledger.json" >"$T/full/tampered.json"
tc ledger merge --ledger "$T/full/tampered.json" --result "$T/full/experiment-result.json" --output "$T/full/t-out.json"
expect_rc 1 "a tampered conditional index exits 1"
expect_out "merge failed: ValueError: ledger conditional_performance_evidence does not match its derived index" "the tampered index is named"
check "the tampered merge writes nothing" test ! -e "$T/full/t-out.json"

printf '{"schema_version": 2,' >"$T/full/broken-ledger.json"
tc ledger merge --ledger "$T/full/broken-ledger.json" --result "$T/full/experiment-result.json" --output "$T/full/b-out.json"
expect_rc 1 "a malformed ledger exits 1"
expect_out "merge failed: JSONDecodeError: Expecting property name enclosed in double quotes" "a malformed ledger is a JSON error"
check "a malformed ledger writes nothing" test ! -e "$T/full/b-out.json"

tc ledger merge --ledger "$T/full/none.json" --result "$T/broken.json" --output "$T/full/b-out.json"
expect_rc 1 "a malformed result exits 1"
expect_out "merge failed: JSONDecodeError: Expecting value" "a malformed result is a JSON error"
check "a malformed result writes nothing" test ! -e "$T/full/b-out.json"

echo '{"experiment_id": "incomplete"}' >"$T/full/incomplete.json"
tc ledger merge --ledger "$T/full/none.json" --result "$T/full/incomplete.json" --output "$T/full/b-out.json"
expect_rc 1 "an invalid result exits 1"
expect_out "merge failed: ValueError: missing fields: baseline_config_fingerprint, baseline_revision" "an invalid result lists its errors"
check "an invalid result writes nothing" test ! -e "$T/full/b-out.json"

echo '[]' >"$T/full/list.json"
tc ledger merge --ledger "$T/full/list.json" --result "$T/full/experiment-result.json" --output "$T/full/b-out.json"
expect_rc 1 "a list ledger exits 1"
expect_out "merge failed: ValueError: ledger must be an object" "a list ledger is not an object"
tc ledger merge --ledger "$T/full/none.json" --result "$T/full/list.json" --output "$T/full/b-out.json"
expect_rc 1 "a list result exits 1"
expect_out "merge failed: ValueError: experiment result must be an object" "a list result is not an object"
check "non-object inputs write nothing" test ! -e "$T/full/b-out.json"

mkdir -p "$T/full/outdir"
tc ledger merge --ledger "$T/full/none.json" --result "$T/full/experiment-result.json" --output "$T/full/outdir"
expect_rc 1 "an output path that is a directory exits 1"
expect_out "merge failed: IsADirectoryError: [Errno 21] Is a directory: '$T/full/outdir'" "the directory output is an IsADirectoryError"

tc ledger merge --ledger "$T/full/outdir" --result "$T/full/experiment-result.json" --output "$T/full/b-out.json"
expect_rc 1 "a ledger path that is a directory exits 1"
expect_out "merge failed: IsADirectoryError: [Errno 21] Is a directory: '$T/full/outdir'" "a directory ledger cannot be read"

# ---- schema 1 migration -----------------------------------------------------

cat >"$T/v1.json" <<'JSON'
{"schema_version": 1, "experiments": {"S2": {"experiment_id": "S2",
  "artifacts": {"metadata": "S2/sk-meta.json"}}},
 "verified_exclusions": [{"experiment_id": "S2", "source_evidence": "S2/source-map.json"}],
 "conditional_performance_evidence": {"stale": {}}}
JSON
tc ledger merge --ledger "$T/v1.json" --result "$T/full/experiment-result.json" --output "$T/full/from-v1.json"
expect_rc 0 "merging into a schema 1 ledger exits 0"
check "the migrated ledger records its origin" grep -q '"migrated_from_schema_version": 1' "$T/full/from-v1.json"
check "the schema 1 experiment becomes legacy" grep -q '"legacy_experiments": {' "$T/full/from-v1.json"
check "verified exclusions move to legacy_verified_exclusions" grep -q '"legacy_verified_exclusions": \[' "$T/full/from-v1.json"
check "the stale index is dropped" bash -c "! grep -q stale '$T/full/from-v1.json'"

tc ledger migrate --ledger "$T/v1.json" --output "$T/migrated.json"
expect_rc 0 "migrate exits 0"
expect_eq "$out" "已迁移实验账本: $T/migrated.json" "migrate prints the output path"
check "migrate writes a schema 2 ledger" grep -q '^  "schema_version": 2$' "$T/migrated.json"
echo '{"schema_version": 3}' >"$T/v3.json"
tc ledger migrate --ledger "$T/v3.json" --output "$T/m3.json"
expect_rc 1 "migrate refuses an unknown schema"
expect_out "migrate failed: ValueError: unsupported ledger schema version" "the unknown schema is named"
check "a refused migration writes nothing" test ! -e "$T/m3.json"

# ---- final-e2e ----------------------------------------------------------------

mkrun() {	# mkrun DIR K MS
	mkdir -p "$1/run-$2"
	printf 'Inference time (decode): %s ms\n' "$3" >"$1/run-$2/log_0.log"
}
k=0
for ms in 10.0 10.1 10.0 10.1 10.0; do k=$((k + 1)); mkrun "$T/fe/s0" $k $ms; done
k=0
for ms in 9.0 9.1 9.0; do k=$((k + 1)); mkrun "$T/fe/cand" $k $ms; done
echo '{"super_kernel_optimize_options": {}}' >"$T/fe/config.json"
echo '{"schema_version": 2, "experiments": {}}' >"$T/fe/ledger.json"
FE_ARGS=(--ledger "$T/fe/ledger.json" --candidate-id Sbest-BASE --scope-strategy whole-scope
    --reason-zh '依据最终 clean E2E 结算。' --option-config "$T/fe/config.json"
    --evidence final/clean-e2e.json --warmup 0 --expected-ranks 1)

tc ledger final-e2e "${FE_ARGS[@]}" --baseline "$T/fe/s0" --candidate "$T/fe/cand"
expect_rc 0 "final-e2e from two run sets exits 0"
expect_out '"classification": "beneficial"' "a 10% faster candidate is beneficial"
expect_out '"improvement_pct": 10.0' "the improvement is computed from the medians"
check "final-e2e writes final_e2e into the ledger" grep -q '"final_e2e": {' "$T/fe/ledger.json"

tc ledger final-e2e "${FE_ARGS[@]}" --classification not_run
expect_rc 1 "final-e2e refuses to replace an existing record"
expect_out "already has final_e2e" "the refusal names the existing record"

tc ledger final-e2e "${FE_ARGS[@]}" --classification not_run --replace --output "$T/fe/out.json"
expect_rc 0 "an unmeasured outcome with --replace exits 0"
check "the unmeasured record is written to --output" grep -q '"classification": "not_run"' "$T/fe/out.json"

tc ledger final-e2e "${FE_ARGS[@]}" --classification not_run --baseline "$T/fe/s0"
expect_rc 2 "mixing run sets and --classification is a usage error"

# Without --expected-ranks: the ranks the baseline's runset.json records, else 8.
FE_NORANKS=("${FE_ARGS[@]:0:${#FE_ARGS[@]}-2}" --replace --output "$T/fe/out2.json")
tc ledger final-e2e "${FE_NORANKS[@]}" --baseline "$T/fe/s0" --candidate "$T/fe/cand"
expect_rc 1 "without --expected-ranks or runset.json, 8 rank logs are expected"
expect_out "expected 8 rank logs, found 1" "the reference's default"
printf '{"schema_version": "tunectl-runset-v1", "ranks": 1}\n' >"$T/fe/s0/runset.json"
tc ledger final-e2e "${FE_NORANKS[@]}" --baseline "$T/fe/s0" --candidate "$T/fe/cand"
expect_rc 0 "the baseline's runset.json gives the rank count"
expect_out '"classification": "beneficial"' "and the record is measured"
rm "$T/fe/s0/runset.json"

# ---- --analysis-validator: an external program as the analyser -----------

cat >"$T/analyser.sh" <<'SH'
#!/usr/bin/env bash
# A stand-in analyser: ANALYSIS_PATH ROUND_ID RESULT_PATH.
[ -f "$1" ] && [ -f "$3" ] || { echo "bad arguments" >&2; exit 2; }
[ -n "${ANALYSER_FAIL:-}" ] && { echo "noise"; echo "$ANALYSER_FAIL" >&2; exit 3; }
[ -n "${ANALYSER_SILENT:-}" ] && exit 4
[ -n "${ANALYSER_GARBAGE:-}" ] && { echo '{"per_sk_decisions": {}}'; exit 0; }
rec() {	# rec RANGE CLASS ACTION -> one producer decision
	printf '{"range_id": "%s", "sk_id": "sk-%s", "classification": "%s", "action": "%s", "mapping_method": "source_scope_map", "mapping_confidence": "exact", "source_scope": "model.%s", "boundary": {"start_op": "%s-start", "end_op": "%s-end", "source_file": "model.py", "start_offset": 100, "end_offset": 200}}' "$1" "$1" "$2" "$3" "$1" "$1" "$1"
}
case $2 in
S3-BASE)
	a=$(rec range-beneficial beneficial keep)
	b=$(rec range-neutral neutral prune)
	c=$(rec range-unknown insufficient_evidence reprofile)
	[ -n "${ANALYSER_DROP:-}" ] && c=$b && b=$a
	echo "{\"per_sk_decisions\": [$a, $b, $c], \"scope_actions\": [$a, $b, $c]}" ;;
S3-FINAL)
	a=$(rec range-beneficial beneficial keep)
	echo "{\"per_sk_decisions\": [$a], \"scope_actions\": [$a]}" ;;
*)	echo '{"per_sk_decisions": [], "scope_actions": []}' ;;
esac
SH
chmod +x "$T/analyser.sh"

tc ledger validate "$T/full/experiment-result.json" --analysis-validator "$T/analyser.sh"
expect_rc 0 "validate with an analysis validator exits 0"
expect_out '"artifact_evidence_validated": true' "the validator makes the evidence artifact-validated"
expect_out '"conditional_evidence_eligible": true' "validated evidence is eligible for promotion"
check "no note when an analyser validated the evidence" test "${err#*artifact evidence not validated}" = "$err"

tc ledger merge --ledger "$T/full/none.json" --result "$T/full/experiment-result.json" --output "$T/full/promoted.json" --analysis-validator "$T/analyser.sh"
expect_rc 0 "merge with an analysis validator exits 0"
check "the merged experiment is artifact-validated" grep -q -A1 '"artifact_validated_experiment_ids": \[' "$T/full/promoted.json"
check "the verified prune is promoted into the index" grep -q '"\[\\"source-sha\\",\\"baseline-config-fp\\",\\"candidate-base-fp\\",\\"control-fp\\",\\"workload-fp\\",\\"range-neutral\\"\]": {' "$T/full/promoted.json"
check "the promoted entry is a prune of S3" grep -q '"evidence_kind": "prune"' "$T/full/promoted.json"

ANALYSER_FAIL='分析结果指纹不一致' tc ledger validate "$T/full/experiment-result.json" --analysis-validator "$T/analyser.sh"
expect_rc 1 "a failing analysis validator makes the result invalid"
expect_out "experiment result contains invalid JSON value types: ValueError: 分析结果指纹不一致" "the validator's last stderr line is the error"

ANALYSER_DROP=1 tc ledger validate "$T/full/experiment-result.json" --analysis-validator "$T/analyser.sh"
expect_rc 1 "an analyser that repeats a range refuses the result"
expect_out "ValueError: profiling_analysis_result.S3-BASE duplicates range_id=range-beneficial" "the analyser's duplicate range is reported"

ANALYSER_SILENT=1 tc ledger validate "$T/full/experiment-result.json" --analysis-validator "$T/analyser.sh"
expect_rc 1 "a silently failing validator refuses the result"
expect_out "ValueError: analysis validator exited with status 4" "a silent failure names the exit status"
ANALYSER_GARBAGE=1 tc ledger validate "$T/full/experiment-result.json" --analysis-validator "$T/analyser.sh"
expect_rc 1 "malformed validator output refuses the result"
expect_out "ValueError: analysis validator output must be a JSON object with per_sk_decisions and scope_actions lists of objects" "malformed validator output is named"

tc ledger validate "$T/full/experiment-result.json" --analysis-validator "$T/none-such-analyser"
expect_rc 1 "a validator that cannot run refuses the result"
expect_out "analysis validator cannot run" "the refusal says the validator cannot run"

# ---- usage ------------------------------------------------------------------

tc ledger
expect_rc 2 "a missing subcommand is a usage error"
tc ledger frob
expect_rc 2 "an unknown subcommand is a usage error"
expect_err "invalid choice: 'frob'" "the unknown subcommand is named"
tc ledger merge --ledger a --result b
expect_rc 2 "merge without --output is a usage error"
expect_err "the following arguments are required: --output" "the missing option is named"
tc ledger validate
expect_rc 2 "validate without RESULT is a usage error"
for sub in validate merge migrate final-e2e; do
	tc ledger $sub --help
	expect_rc 0 "ledger $sub --help exits 0"
done
tc ledger validate --help
expect_out "Not reproduced" "validate --help says what is not reproduced"

finish
