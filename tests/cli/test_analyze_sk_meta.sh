#!/usr/bin/env bash
# test_analyze_sk_meta.sh - "tunectl analyze sk-meta" and its launcher
# share/tools/analyze_sk_meta.py: the reference's recorded run on its eval
# fixture reproduced byte for byte (stdout and the three files), the exit
# statuses (2 without models, 1 without fusion, 0 with it), the parsing of
# node-count mismatches, unknown reasons, scope breaks, layers and word
# boundaries, hostile inputs (missing root, symlink loops, binary garbage,
# a huge line, an unreadable log) giving one clear error or a sane summary,
# argparse's abbreviations, the replay mode (--verify-root) with its
# failure reasons and usage checks, and "gate analyze" trusting a replay
# report only when its recomputation reproduces it.
. "$(dirname "$0")/lib.sh"

FIX=$TUNECTL_SRC/tests/fixtures/analysis
REC=$FIX/skm-pipeline

# stage DIR: a copy of the fixture inputs beside an empty out/
stage() {
	rm -rf "$1"
	mkdir -p "$1/out"
	cp -r "$FIX/in" "$1/in"
	chmod -R u+w "$1"
}

# j FILE EXPR: a Python expression over the JSON document d of FILE
j() {
	python3 - "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
v = eval(sys.argv[2])
print(v if isinstance(v, str) else json.dumps(v, sort_keys=True))
PY
}

# the recorded argv, without the tool's name
read -r -a ARGV < "$REC/command"
ARGV=("${ARGV[@]:1}")

# ---- the recorded run ------------------------------------------------------
stage "$T/run"
(cd "$T/run" && TUNECTL=$TUNECTL_BIN "$TUNECTL_SRC/share/tools/analyze_sk_meta.py" "${ARGV[@]}" > stdout 2> stderr)
rc=$?
expect_rc "$(cat "$REC/exit_code")" "the launcher exits as the reference did on its eval fixture"
check "stdout equals the reference's byte for byte" cmp -s "$T/run/stdout" "$REC/stdout"
for f in sk-meta-summary.json round-report.json deep-auto-scope-plan.json; do
	check "out/$f equals the reference's byte for byte" cmp -s "$T/run/out/$f" "$REC/out/$f"
done
check "stderr is empty on success" [ ! -s "$T/run/stderr" ]

stage "$T/direct"
(cd "$T/direct" && "$TUNECTL_BIN" analyze sk-meta "${ARGV[@]}" > stdout 2>/dev/null)
rc=$?
expect_rc 0 "tunectl analyze sk-meta runs the same argv"
check "and prints the same summary" cmp -s "$T/direct/stdout" "$REC/stdout"
if command -v python3 >/dev/null; then
	stage "$T/py"
	(cd "$T/py" && TUNECTL=$TUNECTL_BIN python3 "$TUNECTL_SRC/share/tools/analyze_sk_meta.py" "${ARGV[@]}" > stdout 2>/dev/null)
	rc=$?
	expect_rc 0 "python3 analyze_sk_meta.py works as the reference's workers call it"
	check "python3 analyze_sk_meta.py writes the same round report" \
	    cmp -s "$T/py/out/round-report.json" "$REC/out/round-report.json"
fi

tc analyze sk-meta --help
expect_rc 0 "--help exits 0"
for flag in --json-out --round-report-out --deep-auto-scope-plan-out --sample-limit \
    --round-name --scope-kind --effective-min-child-nodes --deep-auto-min-child-nodes \
    --verify-root; do
	case $out in *"$flag"*) ;; *) not_ok "--help names $flag"; continue ;; esac
done
ok "--help names every flag"

# ---- exit statuses -----------------------------------------------------------
mkdir -p "$T/empty"
tc analyze sk-meta "$T/empty" --json-out "$T/empty-out/s.json"
expect_rc 2 "an empty root (model_count 0) exits 2"
expect_eq "$(j "$T/empty-out/s.json" '[d["model_count"], d["fusion_proven"], d["disconnect"]["level"], d["fusion_depth"]["avg_child_nodes_per_group"]]')" \
    '[0, false, "no_fusion", 0]' "and still writes its summary, missing parents created"
tc analyze sk-meta "$T/no/such/root"
expect_rc 2 "a missing root scans nothing and exits 2"
expect_eq "$(printf '%s' "$out" | python3 -c 'import json,sys; print(json.load(sys.stdin)["model_count"])')" 0 \
    "a missing root prints a summary with model_count 0"

mkdir -p "$T/nofuse/model_3"
echo "# nothing fused" > "$T/nofuse/model_3/sk_fused_nodes.log"
tc analyze sk-meta "$T/nofuse"
expect_rc 1 "a model directory without fused nodes exits 1 (fusion not proven)"

# ---- parsing -----------------------------------------------------------------
R=$T/rich
mkdir -p "$R/model_7_0" "$R/model_8"
cat > "$R/model_7_0/sk_fused_nodes.log" <<'EOF'
SK Function: sk_3_model.layers_1.mlp.down_start_aclnnMatmul_x_end_static_kernel_Add_h, scope id: 4, Node Count: 3
[nodeId:1, streamId:0] - KernelInfos{funcName:aclnnMatmul_x, kernelType:AIC_ONLY, isScheModeOn:1, taskRatio:[2,1]}
[nodeId:2, streamId:3] - KernelInfos{funcName:static_kernel_Add_h, kernelType:AIV_ONLY, isScheModeOn:0}
SK Function: sk_4_blocks-2_start_a_end_b, scope id: 5, Node Count: 1
[nodeId:5, streamId:0] - KernelInfos{funcName:dyn_Reshape_k, kernelType:MIX}
SK Function: plain_name , scope id: 9, Node Count: 0
EOF
cat > "$R/model_7_0/sk_fusion_fail_reasons.log" <<'EOF'
Node [nodeId:20, streamId:1] - KernelInfos{funcName:static_kernel_Cast_z, kernelType:AIV_ONLY, isScheModeOn:0}: reason: the op can not refresh task information at runtime
Node [nodeId:21, streamId:1] - KernelInfos{funcName:Foo_bar, kernelType:AIC_ONLY}: reason: something odd happened
Node [nodeId:22, streamId:1] - KernelInfos{funcName:Foo_bar, kernelType:AIC_ONLY}: reason: EXIST_DEADLOCK with valuewait event
EOF
cat > "$R/model_8/sk_scope_split.log" <<'EOF'
BreakInfo: breakReason=orphan, triggerNode=1, triggerStream=1, fusionFailReason=x, detail="y"
Scope 0 (scopeId=11): 6 nodes, 2 streams, foo scopeNames=[decoder.layer.3.attention, layer_3_mlp]
BreakInfo: breakReason=NOT_IN_SCOPE, triggerNode=7, triggerStream=2, fusionFailReason=Insufficient resources here, detail="res, "quoted""
BreakInfo: breakReason=NOT_IN_SCOPE, triggerNode=7, triggerStream=2, fusionFailReason=Insufficient resources here, detail="res, "quoted""
BreakInfo: breakReason=SUCCESS, triggerNode=8, triggerStream=2, fusionFailReason=  , detail=""
EOF
tc analyze sk-meta "$R" --round-name s1_auto --json-out "$T/rich.json" \
    --deep-auto-scope-plan-out "$T/plan.json"
expect_rc 0 "fused nodes prove fusion (exit 0)"
expect_eq "$(j "$T/rich.json" '[d["model_count"], d["fused_group_count"], d["fused_node_records"]]')" \
    '[2, 3, 3]' "two model directories, three groups, three trusted child nodes"
expect_eq "$(j "$T/rich.json" '[(g["node_count"], g["parsed_node_count"], g["node_count_mismatch"], g["count_reliable"], g["trusted_child_count"]) for g in d["sk_inventory"]]')" \
    '[[3, 2, true, false, 2], [1, 1, false, true, 1], [0, 0, false, true, 0]]' \
    "a declared count the node lines do not match is unreliable and the parsed count is trusted"
expect_eq "$(j "$T/rich.json" '[(g["model_id"], g["layer"], g["segments"], g["control_core_mode"], g["boundary"] and g["boundary"]["start_op"]) for g in d["sk_inventory"]]')" \
    '[["7", 1, ["mlp"], "enabled", "Matmul"], ["7", 2, [], "unknown", "a"], ["7", null, [], "unknown", null]]' \
    "model ids, layers, segments, control-core modes and boundary ops"
expect_eq "$(j "$T/rich.json" 'd["sk_inventory"][0]["nodes"][0]["task_ratio"]')" '[2, 1]' "taskRatio is read"
expect_eq "$(j "$T/rich.json" 'd["reason_counts"]')" \
    '{"DYNAMIC_TASK_UNSUPPORT": 1, "EXIST_DEADLOCK": 1, "UNKNOWN": 1}' \
    "failure reasons: a phrase fallback, an explicit token, and UNKNOWN for anything else"
expect_eq "$(j "$T/rich.json" '[(a["reason"], a["category"], a["option_candidates"]) for a in d["break_action_plan"]["ordered_actions"]]')" \
    '[["EXIST_DEADLOCK", "dependency", ["aggressive_opt_strategies.value_breaker_bypass", "aggressive_opt_strategies.event_breaker_bypass"]], ["DYNAMIC_TASK_UNSUPPORT", "deferred_runtime_or_static_kernel", []], ["UNKNOWN", "unresolved", []]]' \
    "the break action plan orders categories and finds dependency options"
expect_eq "$(j "$T/rich.json" '[d["scope_break_summary"][k] for k in ("raw_record_count", "record_count", "duplicate_record_count", "fusion_fail_reason_counts")]')" \
    '[3, 2, 1, {"RESOURCE_INSUFFICIENT": 1, "UNKNOWN": 1}]' \
    "a break before any scope is ignored and a repeated break is counted once"
expect_eq "$(j "$T/rich.json" '[d["layer_summary"]["layer_count"], d["layer_summary"]["layers"]["3"]["segments"], d["layer_summary"]["layers"]["3"]["declared_scope_node_count"]]')" \
    '[3, ["attention", "mlp"], 12]' "layers come from SK scopes and scope names"
expect_eq "$(j "$T/rich.json" '[d["control_core"]["status"], d["disconnect"]["level"], d["raw_reason_token_counts"]]')" \
    '["mixed", "severe", {"EXIST_DEADLOCK": 1, "NOT_IN_SCOPE": 2, "SUCCESS": 1}]' \
    "control core, fragmentation level and raw reason tokens"
expect_eq "$(j "$T/rich.json" '[d["round_report"]["single_child_exclusion"]["scope_kind"], [r["function"] for r in d["round_report"]["per_sk_fusion_table"]]]')" \
    '["automatic_aot", ["sk_3_model.layers_1.mlp.down_start_aclnnMatmul_x_end_static_kernel_Add_h", "sk_4_blocks-2_start_a_end_b", "plain_name "]]' \
    "s1_auto means automatic_aot scope; per-SK rows deepest first"
expect_eq "$(j "$T/plan.json" '[d["selected_group_count"], d["skipped_group_count"], [c["function"] for c in d["manual_scope_candidates"]], d["manual_scope_candidates"][1]["boundary"]]')" \
    '[2, 1, ["sk_4_blocks-2_start_a_end_b", "plain_name "], {}]' \
    "the plan skips the unreliable group and gives an unparsed name an empty boundary"
tc analyze sk-meta "$R" --sample-limit 0 --json-out "$T/rich0.json"
expect_eq "$(j "$T/rich0.json" '[d["fused_group_samples"], d["fused_group_summary"]["top_child_op_types"], d["scope_break_summary"]["examples_by_reason"]]')" \
    '[[], [], {"RESOURCE_INSUFFICIENT": [], "UNKNOWN": []}]' "--sample-limit 0 empties every sample"

# ---- hostile inputs ----------------------------------------------------------
H=$T/hostile
mkdir -p "$H/model_1/sub"
ln -s ../.. "$H/model_1/sub/up"
ln -s loop "$H/model_1/loop.log"
head -c 100000 /dev/urandom > "$H/model_1/sk_fusion_fail_reasons.log"
printf 'Scope 1 (scopeId=1): 2 nodes, 1 streams scopeNames=[\0\377]\nBreakInfo: breakReason=\377, triggerNode=99999999999999999999999, triggerStream=1, fusionFailReason=\0, detail="\376"\n' \
    > "$H/model_1/sk_scope_split.log"
python3 -c '
import sys
sys.stdout.write("SK Function: sk_1_x_start_a_end_b, scope id: 1, Node Count: 1\n[nodeId:1, streamId:2] KernelInfos{funcName:" + "A" * 3000000 + ", kernelType:K}\n" + "scopeNames=[" * 200000 + "\n" + "nodeId:1, streamId:1 " * 2000 + "\n")' \
    > "$H/model_1/sk_fused_nodes.log"
timeout 60 "$TUNECTL_BIN" analyze sk-meta "$H" > "$T/h.json" 2> "$T/h.err"
rc=$?
expect_rc 0 "symlink loops, binary garbage and a huge line still give a summary"
expect_eq "$(j "$T/h.json" '[d["fused_group_count"], len(d["sk_inventory"][0]["nodes"][0]["func_name"]), d["scope_break_summary"]["raw_record_count"], d["scope_break_samples"][0]["trigger_node"]]')" \
    '[1, 3000000, 1, 9223372036854775807]' "the huge line is read whole; an oversized number saturates"
mkdir -p "$T/words/model_1"
printf 'x \377SUCCESS \303\251SUCCESS \342\200\224SUCCESS SUCCESSx\n' > "$T/words/model_1/sk_scope_split.log"
tc analyze sk-meta "$T/words" --json-out "$T/words.json"
expect_eq "$(j "$T/words.json" 'd["raw_reason_token_counts"]')" '{"SUCCESS": 2}' \
    "reason tokens are word-bounded as in Python: after U+FFFD or a dash yes, after a letter or before one no"
mkdir -p "$T/dirlog/model_2/sk_fused_nodes.log"
tc analyze sk-meta "$T/dirlog"
expect_rc 1 "a log that cannot be read exits 1"
expect_eq "$err" "tunectl analyze sk-meta: error: [Errno 21] Is a directory: '$T/dirlog/model_2/sk_fused_nodes.log'" \
    "with one error line naming it"
ln -s self "$T/self"
tc analyze sk-meta "$T/self"
expect_rc 1 "a root that is a symlink loop exits 1"
expect_err "Symlink loop from" "and says so"

# ---- usage -------------------------------------------------------------------
tc analyze sk-meta
expect_rc 2 "root is required"
expect_err "the following arguments are required: root" "in argparse's words"
tc analyze sk-meta "$R" --scope-kind bogus
expect_rc 2 "--scope-kind takes manual or automatic_aot"
expect_err "argument --scope-kind: invalid choice: 'bogus' (choose from 'manual', 'automatic_aot')" "the choices are named"
tc analyze sk-meta --scope-kind bogus
expect_rc 2 "an invalid --scope-kind without the root is a usage error"
expect_err "argument --scope-kind: invalid choice: 'bogus' (choose from 'manual', 'automatic_aot')" "naming the invalid choice first, as argparse checks choices while it reads"
check "and not the missing root" [ "${err/required: root/}" = "$err" ]
tc analyze sk-meta --scope-kind bogus "$R" --no-such-flag
expect_err "argument --scope-kind: invalid choice: 'bogus'" "an invalid choice comes before unrecognized arguments"
tc analyze sk-meta "$R" --scope-kind automatic_aot --json-out "$T/kind.json"
expect_rc 0 "a valid choice is accepted"
tc analyze sk-meta "$R" --json="$T/abbrev.json" --sample 3
expect_rc 0 "a unique prefix stands for its option, as in argparse"
check "--json=FILE wrote --json-out" [ -s "$T/abbrev.json" ]
tc analyze sk-meta "$R" --round S2
expect_rc 2 "an ambiguous prefix is a usage error"
expect_err "ambiguous option: --round could match --round-id, --round-name, --round-report-out" "naming the candidates"

# ---- replay ------------------------------------------------------------------
P=$T/replay
mkdir -p "$P/compat/model_1" "$P/verify/model_1"
for d in compat verify; do
	cat > "$P/$d/model_1/sk_fused_nodes.log" <<'EOF'
SK Function: sk_1_decoder.layer.0.mlp_start_static_kernel_GroupedMatmul_hash_end_static_kernel_VectorPost_hash, scope id: 1, Node Count: 2
[nodeId:10, streamId:1] - KernelInfos{funcName:static_kernel_GroupedMatmul_hash, kernelType:AIC_ONLY}
[nodeId:11, streamId:2] - KernelInfos{funcName:static_kernel_VectorPost_hash, kernelType:AIV_ONLY}
SK Function: sk_2_decoder.layer.1.attn_start_static_kernel_A_h_end_static_kernel_E_h, scope id: 2, Node Count: 5
[nodeId:1, streamId:1] - KernelInfos{funcName:static_kernel_A_h, kernelType:AIC_ONLY}
[nodeId:2, streamId:1] - KernelInfos{funcName:static_kernel_B_h, kernelType:AIC_ONLY}
[nodeId:3, streamId:1] - KernelInfos{funcName:static_kernel_C_h, kernelType:AIC_ONLY}
[nodeId:4, streamId:1] - KernelInfos{funcName:static_kernel_D_h, kernelType:AIC_ONLY}
[nodeId:5, streamId:1] - KernelInfos{funcName:static_kernel_E_h, kernelType:AIC_ONLY}
EOF
done
echo '{"b": 1, "a": [1.5, "x"]}' > "$P/c.json"
echo '{"a":[1.5,"x"],"b":1}' > "$P/v.json"
echo '{"a":[1.5,"x"],"b":2}' > "$P/other.json"
echo '[1]' > "$P/list.json"
# replay [ARGS...]: compat against verify, from $P, with an identity
replay() {
	(cd "$P" && "$TUNECTL_BIN" analyze sk-meta compat --verify-root verify \
	    --candidate-name " S2 " --round-id S2-P1 --source-revision abc "$@" \
	    > stdout 2> stderr)
	rc=$?
	err=$(cat "$P/stderr")
}
in_stdout() { grep -q "$1" "$P/stdout"; }
replay --compat-config-manifest c.json --verify-config-manifest v.json \
    --replay-report-out out/replay.json --json-out out/summary.json
expect_rc 0 "the same fused groups under equal configs reproduce the fusion (exit 0)"
check "the report is printed and written alike" cmp -s "$P/stdout" "$P/out/replay.json"
check "the summary of ROOT is still written" [ -s "$P/out/summary.json" ]
fp=$(python3 -c 'import hashlib,json,sys; print(hashlib.sha256(json.dumps(json.load(open(sys.argv[1])), sort_keys=True, separators=(",", ":")).encode()).hexdigest())' "$P/c.json")
expect_eq "$(j "$P/out/replay.json" '[d["candidate_name"], d["compat_metadata_root"], d["compat_config_manifest_path"], d["matched_fusion_group_count"], d["deep_fusion_reproducible"], d["failure_reason"], d["compat_config_fingerprint"]]')" \
    "[\"S2\", \"../compat\", \"../c.json\", 2, true, null, \"$fp\"]" \
    "paths relative to the report, both groups matched, the config fingerprint is the ASCII canonical SHA-256"
expect_eq "$(j "$P/out/replay.json" '[[g["ordered_child_op_sequence"][0] for g in d["matched_effective_groups"]], d["matched_effective_groups"] == d["matched_fusion_groups"]]')" \
    '[["A", "GroupedMatmul"], true]' "matched groups in signature order, under both names"
replay --compat-config-manifest c.json --verify-config-manifest v.json --replay-min-child-nodes 3
expect_eq "$(j "$P/stdout" '[d["matched_fusion_group_count"], d["replay_min_child_nodes"]]')" \
    '[1, 3]' "--replay-min-child-nodes leaves out the smaller groups"
replay --compat-config-manifest c.json --verify-config-manifest other.json
expect_rc 1 "different configs do not reproduce (exit 1)"
check "failure_reason config_fingerprint_mismatch" in_stdout '"failure_reason": "config_fingerprint_mismatch"'
replay --compat-config-manifest list.json --verify-config-manifest missing.json
check "a manifest that is not an object is config_manifest_not_object" in_stdout '"failure_reason": "config_manifest_not_object"'
check "a missing manifest is config_manifest_invalid" in_stdout '"failure_reason": "config_manifest_invalid"'
(cd "$P" && "$TUNECTL_BIN" analyze sk-meta compat --verify-root ./compat --candidate-name S2 \
    --round-id S2-P1 --source-revision abc --compat-config-manifest c.json \
    --verify-config-manifest v.json > stdout 2>/dev/null)
rc=$?
expect_rc 1 "the same root twice is not a fresh replay"
check "failure_reason verify_metadata_not_fresh" in_stdout '"failure_reason": "verify_metadata_not_fresh"'
# ---- the gate trusts a replay report only after recomputing it -----------------
W=$TUNECTL_SRC/tests/fixtures/workloads/timed_workload.sh
(cd "$P" && "$TUNECTL_BIN" bench run --runs 5 --out base -- "$W" 10.0 10.1 10.2 10.3 10.4 &&
    "$TUNECTL_BIN" bench run --runs 3 --out fast -- "$W" 8) >/dev/null 2>&1
replay --compat-config-manifest c.json --verify-config-manifest v.json --replay-report-out out/replay.json
(cd "$P" && "$TUNECTL_BIN" gate analyze --baseline base --candidate S2=fast \
    --replay-evidence S2=out/replay.json --expected-ranks 1 --json-out out/gate.json > stdout 2> stderr)
rc=$?
expect_rc 0 "gate analyze accepts a replay report its recomputation reproduces"
expect_eq "$(j "$P/out/gate.json" 'd["candidates"]["S2"]["deep_fusion_replay"]["valid"]')" true \
    "the replay verdict is valid, every check passed"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["matched_fusion_group_count"]=3; json.dump(d, open(sys.argv[2], "w"))' \
    "$P/out/replay.json" "$P/out/tampered.json"
(cd "$P" && "$TUNECTL_BIN" gate analyze --baseline base --candidate S2=fast \
    --replay-evidence S2=out/tampered.json --expected-ranks 1 > stdout 2> stderr)
rc=$?
expect_rc 2 "a tampered replay report is refused"
check "as replay_report_stale_or_tampered" grep -q "replay evidence invalid (S2: replay_report_stale_or_tampered)" "$P/stderr"
replay --compat-config-manifest c.json --verify-config-manifest other.json --replay-report-out out/mismatch.json
(cd "$P" && "$TUNECTL_BIN" gate analyze --baseline base --candidate S2=fast \
    --replay-evidence S2=out/mismatch.json --expected-ranks 1 > stdout 2> stderr)
rc=$?
expect_rc 2 "a replay that does not reproduce is refused"
check "with the recomputation's reason" grep -q "replay evidence invalid (S2: config_fingerprint_mismatch)" "$P/stderr"

replay --compat-config-manifest c.json
expect_rc 2 "--verify-root needs both manifests"
expect_err "--verify-root requires --compat-config-manifest and --verify-config-manifest" "in the reference's words"
(cd "$P" && "$TUNECTL_BIN" analyze sk-meta compat --verify-root verify --candidate-name S2 \
    --round-id S3-P1 --source-revision abc --compat-config-manifest c.json \
    --verify-config-manifest v.json > stdout 2> stderr)
rc=$?
expect_rc 2 "a round of another candidate is a usage error"
check "--round-id must belong to --candidate-name family" grep -q "round-id must belong to --candidate-name family" "$P/stderr"
tc analyze sk-meta "$R" --replay-report-out "$T/never.json"
expect_rc 2 "--replay-report-out without --verify-root is a usage error"
expect_err "--replay-report-out requires --verify-root" "in the reference's words"
tc analyze sk-meta "$R" --candidate-name "" --json-out "$T/never.json"
expect_rc 2 "--candidate-name without --verify-root is a usage error, even empty"
expect_err "--candidate-name requires --verify-root" "in the reference's words"
check "a usage error writes nothing" [ ! -e "$T/never.json" ]

# ---- the launcher speaks as the reference's argparse ------------------------
# run by share/tools/analyze_sk_meta.py (TUNECTL_PROG), usage and errors name
# the reference's program; run directly, tunectl's
launch() {
	(cd "$T" && TUNECTL=$TUNECTL_BIN "$TUNECTL_SRC/share/tools/analyze_sk_meta.py" "$@" > l.out 2> l.err)
	rc=$?
}
launch --bogus
expect_rc 2 "the launcher: a missing root is a usage error"
expect_eq "$(head -n 1 "$T/l.err")" "usage: analyze_sk_meta.py [-h] [--json-out JSON_OUT]" \
    "the launcher's usage is argparse's for analyze_sk_meta.py"
expect_eq "$(sed -n 17p "$T/l.err")" "                          root" \
    "the launcher's usage wraps as Python 3.11's argparse does"
expect_eq "$(tail -n 1 "$T/l.err")" \
    "analyze_sk_meta.py: error: the following arguments are required: root" \
    "the missing root is reported before the unrecognized flag, after the reference's name"
launch "$T/nothing" extra --bogus
expect_eq "$rc $(tail -n 1 "$T/l.err")" \
    "2 analyze_sk_meta.py: error: unrecognized arguments: extra --bogus" \
    "a second positional and an unknown flag are both unrecognized, in order"
launch --help
expect_eq "$rc $(head -c 25 "$T/l.out")" "0 usage: analyze_sk_meta.py" \
    "the launcher's --help shows the reference's usage"
tc analyze sk-meta --bogus
expect_eq "${err%%$'\n'*} / ${err##*$'\n'}" \
    "usage: tunectl analyze sk-meta [-h] [--json-out JSON_OUT] / tunectl analyze sk-meta: error: the following arguments are required: root" \
    "run directly, usage and error are tunectl's"
TUNECTL_PROG=analyze_fusion_performance.py tc analyze sk-meta --bogus
expect_err "tunectl analyze sk-meta: error: " "TUNECTL_PROG naming another program changes nothing"

finish
