# strict_fixtures.sh - genuine gate evidence for strict-policy tests
# (source it after lib.sh and controller_fixtures.sh).  Run sets are
# measured by `tunectl bench run` of the tiny timed workload, reports are
# written by `tunectl gate ... --json-out` (with their provenance), the
# final_e2e by `tunectl ledger final-e2e`: exactly what a worker does.
#
#   st_runset REL RUNS MEAN...     bench run into $R/REL (one rank)
#   st_gate MODE REL ARGS...       tunectl gate MODE ... --json-out $R/REL
#   st_s0 [MEAN...]                S0 run set + stability report
#   st_stage_a                     four screening run sets, the matrix and
#                                  the screening report (S2 fastest, S3 next)
#   st_stage_o                     O0 incumbent, one accepted trial O1, the
#                                  settled option matrix
#   st_final                       the final candidate run set and the
#                                  ledger's final_e2e (beneficial)
#   st_result OUT STATUS PY        ctl_result with the lists PY sets
#   st_seal STATUS PY              st_result + tunectl seal (sets $out, $rc)
ST_W="$TUNECTL_SRC/tests/fixtures/workloads/timed_workload.sh"
ST_R=(--warmup 0 --expected-ranks 1)

st_runset() {
	local rel=$1 runs=$2
	shift 2
	mkdir -p "$(dirname "$R/$rel")"
	"$TUNECTL_BIN" bench run --runs "$runs" --warmup-samples 0 --out "$R/$rel" -- \
	    "$ST_W" "$@" >/dev/null 2>&1 || echo "# bench run $rel failed" >&2
}

st_gate() {
	local mode=$1 rel=$2
	shift 2
	"$TUNECTL_BIN" gate "$mode" "${ST_R[@]}" "$@" --json-out "$R/$rel" >/dev/null 2>&1 ||
	    echo "# gate $mode $rel failed" >&2
}

st_s0() {
	[ $# -gt 0 ] || set -- 10.0 10.1 10.2 10.1 10.0
	st_runset s0/runset 5 "$@"
	st_gate stability s0/stability.json --baseline "$R/s0/runset"
}

st_stage_a() {
	local s
	printf 'model_config:\n  custom_params:\n    super_kernel_optimize_options: {}\n    super_kernel_debug_options: {}\n' \
	    >"$T/stage-a-config.yaml"
	for s in "S1 9.4" "S2 8.0" "S3 8.5" "S4 9.0"; do
		set -- $s
		mkdir -p "$R/stage-a"
		TC_WORKLOAD_CONFIG="$T/stage-a-config.yaml" "$TUNECTL_BIN" bench run --runs 3 \
		    --warmup-samples 0 --out "$R/stage-a/$1" -- "$ST_W" "$2" >/dev/null 2>&1
	done
	cat >"$R/stage-a/matrix.json" <<'EOF'
{"schema_version": "superkernel-screening-matrix-v2",
 "candidate_set_frozen_before_execution": true,
 "candidates": [
  {"id": "S1", "strategy_kind": "automatic_aot", "only_change": "a", "status": "executed"},
  {"id": "S2", "strategy_kind": "broad_decode", "only_change": "b", "status": "executed"},
  {"id": "S3", "strategy_kind": "per_block", "only_change": "c", "status": "executed"},
  {"id": "S4", "strategy_kind": "semantic_segment", "only_change": "d", "status": "executed"}]}
EOF
	st_gate screen stage-a/selection.json --baseline "$R/s0/runset" \
	    --screening-matrix "$R/stage-a/matrix.json" --candidate "S1=$R/stage-a/S1" \
	    --candidate "S2=$R/stage-a/S2" --candidate "S3=$R/stage-a/S3" --candidate "S4=$R/stage-a/S4"
}

st_stage_o() {
	local p=/model_config/custom_params/super_kernel_optimize_options
	st_runset stage-o/O0 5 8.0 8.02 8.01 8.0 8.03
	st_runset stage-o/O1 3 7.5
	st_gate option-trial stage-o/O1-trial.json --baseline "$R/stage-o/O0" \
	    --candidate "O1=$R/stage-o/O1"
	cat >"$R/stage-o/matrix.json" <<EOF
{"schema_version": "superkernel-winner-option-matrix-v1", "frozen_before_first_trial": true,
 "seed_candidate": "S2", "items": [
 {"id": "O0", "category": "dcci", "option": "dcci_disable_on_kernel", "value": [".*"],
  "pointer": "$p/dcci_disable_on_kernel", "original_value": null, "probe_evidence": "probe.json",
  "risk": "low", "status": "rejected"},
 {"id": "O1", "category": "auto_op_parallel", "option": "auto_op_parallel", "value": 1,
  "pointer": "$p/auto_op_parallel", "original_value": null, "probe_evidence": "probe.json",
  "risk": "low", "status": "accepted"},
 {"id": "O2", "category": "aggressive", "option": "aggressive_opt_strategies", "value": ["t1"],
  "pointer": "$p/aggressive_opt_strategies", "original_value": null, "probe_evidence": "probe.json",
  "risk": "medium", "status": "failed"},
 {"id": "O3", "category": "other_experimental", "option": "early_start", "value": true,
  "pointer": "$p/early_start", "original_value": null, "probe_evidence": "probe.json",
  "risk": "high", "status": "rejected"}]}
EOF
}

st_final() {
	st_runset final/candidate 3 7.4
	printf '{"auto_op_parallel": 1}\n' >"$R/final/option-config.json"
	printf '{"schema_version": 2, "experiments": {}}\n' >"$R/ledger.json"
	"$TUNECTL_BIN" ledger final-e2e --ledger "$R/ledger.json" --replace --candidate-id Sbest \
	    --scope-strategy broad_decode --reason-zh "依据最终 clean E2E 结算。" \
	    --option-config "$R/final/option-config.json" --baseline "$R/s0/runset" \
	    --candidate "$R/final/candidate" "${ST_R[@]}" >/dev/null 2>&1 ||
	    echo "# ledger final-e2e failed" >&2
}

# st_result OUT STATUS PY: a result for the next step; PY (Python) may set
# consumed / produced (lists) and edit `result`.  A Final result keeps the
# ledger already in $R (ctl_result would write its own).
st_result() {
	python3 - "$S" "$1" "$2" "${3:-}" <<'PY'
import json, sys
from pathlib import Path
session_path, out, status, edit = sys.argv[1:5]
session = json.loads(Path(session_path).read_text(encoding="utf-8"))
step = next(s for s in session["steps"] if s["state"] == "pending")
consumed, produced = [], []
result = {
    "schema_version": "superkernel-auto-tune-phase-result-v1",
    "session_id": session["session_id"], "step_id": step["step_id"],
    "phase": step["phase"], "agent_id": step["agent_id"], "status": status,
    "summary_zh": f"{step['phase']} 阶段已结算。",
    "input_fingerprints": {"control": "a" * 64},
    "decisions": [], "blockers": [],
    "next_step_guidance_zh": "交由控制 Agent 校验并调度下一阶段。", "details_zh": {},
}
if step["phase"] == "final_e2e_report":
    result["details_zh"] = {k: "已结算。" for k in (
        "environment", "s0", "stage_a", "stage_o", "base_profile_source_mapping",
        "optional_experiments", "final_e2e")}
    result["ledger_path"] = "ledger.json"
if edit:
    exec(edit)
result["consumed_artifacts"] = consumed
result["produced_artifacts"] = produced
Path(out).write_text(json.dumps(result, ensure_ascii=False), encoding="utf-8")
PY
}

st_seal() {
	st_result "$T/st-result.json" "$1" "${2:-}" || return 1
	tc seal --session "$S" --result "$T/st-result.json"
}

# The whole chain up to Final, every claim with its evidence.
st_advance_to_final() {
	st_seal succeeded "" || return 1
	st_s0
	st_seal succeeded 'produced = ["s0/runset", "s0/stability.json"]' || return 1
	[ "$rc" = 0 ] || { echo "# strict S0 seal failed: $out" >&2; return 1; }
	st_stage_a
	st_seal accepted 'consumed = ["s0/runset"]; produced = ["stage-a/matrix.json", "stage-a/S1", "stage-a/S2", "stage-a/S3", "stage-a/S4", "stage-a/selection.json"]; result["selected_candidate"] = "S2"' || return 1
	[ "$rc" = 0 ] || { echo "# strict Stage A seal failed: $out" >&2; return 1; }
	st_stage_o
	st_seal accepted 'produced = ["stage-o/O0", "stage-o/O1", "stage-o/O1-trial.json", "stage-o/matrix.json"]' || return 1
	[ "$rc" = 0 ] || { echo "# strict Stage O seal failed: $out" >&2; return 1; }
	st_seal succeeded 'consumed = ["stage-o/matrix.json"]' || return 1
	[ "$rc" = 0 ] || { echo "# strict BASE seal failed: $out" >&2; return 1; }
	st_seal not_requested "" || return 1
	[ "$rc" = 0 ] || { echo "# strict optional seal failed: $out" >&2; return 1; }
}
