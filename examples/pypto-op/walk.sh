#!/usr/bin/env bash
# walk.sh - walk the rmsnorm example operator through tunectl's PyPTO-Pro
# pipeline: state actions through Stage 5, a frozen manifest and contract,
# a formal baseline compare, the optimisation-item ledger, two candidate
# compares, best-version selection, the independent final compare, the
# report and stage5-check.
#
#   examples/pypto-op/walk.sh TUNECTL_BINARY WORKDIR
#
# Everything runs on the CPU (pure Python operator, runner-reported kernel
# timing).  WORKDIR must be empty or absent; the project is created in
# WORKDIR/project and the operator in WORKDIR/project/custom/rmsnorm.
# Exits 0 when every step succeeded.
set -euo pipefail

if [ $# -ne 2 ]; then
	echo "usage: $0 TUNECTL_BINARY WORKDIR" >&2
	exit 2
fi
TC=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
WORK=$2
HERE=$(cd "$(dirname "$0")" && pwd)
PYTHON=${PYTHON:-python3}

if [ -e "$WORK" ] && [ -n "$(ls -A "$WORK" 2>/dev/null)" ]; then
	echo "walk.sh: $WORK is not empty" >&2
	exit 2
fi
mkdir -p "$WORK/project/custom"
PROJECT=$(cd "$WORK/project" && pwd)
OP=$PROJECT/custom/rmsnorm
cd "$PROJECT"

step() { printf '\n== %s\n' "$*"; }
state() { "$TC" pypto state --op-dir custom/rmsnorm "$@"; }
install_version() { cp "$HERE/versions/test_rmsnorm.$1.py" "$OP/test_rmsnorm.py"; }
correctness() { (cd "$OP" && "$PYTHON" test_rmsnorm.py >/dev/null); }

step "Stage 1: init, planner delivers SPEC.md, complete_stage(1) freezes it"
state init >/dev/null
cp "$HERE/op/SPEC.md" "$HERE/op/PERFORMANCE_CASES.json" "$HERE/op/tile_dag.md" "$OP/"
state complete_stage --stage 1 >/dev/null
state show | "$PYTHON" -c 'import json,sys; d=json.load(sys.stdin); print("SPEC freeze:", d["spec_freeze"]["status"])'

step "Stage 2: golden (CPU FP64)"
cp "$HERE/op/rmsnorm_golden_cpu.py" "$OP/"
state complete_stage --stage 2 >/dev/null

step "Stage 3: design (single row loop, L0)"
state complete_stage --stage 3 >/dev/null
state plan_stage4 --module-count 1 --is-fusion false >/dev/null

step "Stage 4: coder delivers the baseline runner; complete_stage(4) enters Stage 5"
install_version baseline
correctness
state complete_stage --stage 4 >/dev/null
state show | "$PYTHON" -c 'import json,sys; d=json.load(sys.stdin); s=d["state"]; print("current_stage", s["current_stage"], s["stage_status"]["5"])'
if state rollback_to_stage --target-stage 3 --reason "demo: not allowed in Stage 5" 2>/dev/null; then
	echo "walk.sh: rollback after Stage 5 entry was not refused" >&2
	exit 1
fi
echo "rollback_to_stage refused after Stage 5 entry (policy)"

step "Stage 5: freeze manifest, target cases and the formal protocol"
"$TC" pypto cases validate --manifest "$OP/PERFORMANCE_CASES.json" --op-dir "$OP" --stage5 >/dev/null
"$TC" pypto cases freeze --op-dir "$OP" --manifest "$OP/PERFORMANCE_CASES.json" \
	--dispatch "$HERE/op/dispatch.json" --op-name rmsnorm_kernel \
	--warmup 3 --repeats 3 --retry 1 --timing-source runner_reported \
	--case-arg --case-id --stability-kind relative --stability-range 0.5 \
	--promotion-rule "promote to formal when the quick mean case speedup exceeds 1.2 on every target case" \
	>/dev/null
echo "frozen: $OP/docs/perf/frozen_contract.json"

step "Stage 5: source ledger (preset sources enumerated before any experiment)"
L=$OP/docs/perf/optimization_ledger.json
"$TC" pypto items init --ledger "$L" >/dev/null
"$TC" pypto items source --ledger "$L" --kind kb_selected --count 0 \
	--ref "KB_SELECTION.json: no selected pattern or constraint for this CPU example" >/dev/null
"$TC" pypto items source --ledger "$L" --kind general_method --count 2 \
	--ref "general-optimization-methods.md (example subset): general-01, general-02" >/dev/null
"$TC" pypto items source --ledger "$L" --kind knowledge_card --count 0 \
	--ref "knowledge-cards INDEX.md: no active stage5_eligible row" >/dev/null
"$TC" pypto items source --ledger "$L" --kind template --count 0 \
	--ref "templates/INDEX.md: no active stage5_eligible row for a CPU row loop" >/dev/null
"$TC" pypto items add --ledger "$L" --item '{"item_id": "general-01", "source_kind": "general_method",
	"source_ref": "general-optimization-methods.md#general-01 hoist loop invariants",
	"case_scope": ["p0_small", "p0_large"],
	"applicability": {"status": "applicable", "basis": "sqrt(mean+eps) is recomputed per element"},
	"expected_metric": "one sqrt and one division per row instead of per element"}' >/dev/null
"$TC" pypto items add --ledger "$L" --item '{"item_id": "general-02", "source_kind": "general_method",
	"source_ref": "general-optimization-methods.md#general-02 builtin reductions",
	"case_scope": ["p0_small", "p0_large"],
	"applicability": {"status": "applicable", "basis": "reduction and scaling run as interpreted loops"},
	"expected_metric": "less interpreted work per element (map/sum in C)"}' >/dev/null
"$TC" pypto items next --ledger "$L" | "$PYTHON" -c 'import json,sys; d=json.load(sys.stdin); print("next:", d["phase"], d["next"]["item_id"])'

step "Stage 5: formal baseline compare"
CMP=(pypto compare --op-dir "$OP" --case-manifest "$OP/PERFORMANCE_CASES.json")
BASE_SHA=$(sha256sum "$OP/test_rmsnorm.py" | cut -d' ' -f1)
"$TC" "${CMP[@]}" --collection-id walk_baseline >/dev/null
echo "baseline round: $(ls "$OP/docs/perf" | grep round_ | tail -1)"

step "Stage 5: candidate cand1 (general-01): correctness, formal compare"
install_version cand1
correctness
"$TC" "${CMP[@]}" --collection-id walk_cand1 >/dev/null

step "Stage 5: candidate cand2 (general-02): correctness, formal compare"
install_version cand2
correctness
"$TC" "${CMP[@]}" --collection-id walk_cand2 >/dev/null

step "Stage 5: best-version selection over the frozen target cases"
cat >"$OP/docs/perf/candidates.json" <<EOF
{"schema_version": 1, "candidates": [
 {"candidate_id": "baseline", "evaluation_order": 0, "round": "docs/perf/round_001", "source_items": [],
  "correct": true, "compliant": true, "correctness_evidence": "python3 test_rmsnorm.py: all P0 PASS (sha256 $BASE_SHA)",
  "compliance_evidence": "frozen SPEC, pure-Python single kernel"},
 {"candidate_id": "cand1", "evaluation_order": 1, "round": "docs/perf/round_002", "source_items": ["general-01"],
  "correct": true, "compliant": true, "correctness_evidence": "python3 test_rmsnorm.py: all P0 PASS",
  "compliance_evidence": "frozen SPEC, pure-Python single kernel"},
 {"candidate_id": "cand2", "evaluation_order": 2, "round": "docs/perf/round_003", "source_items": ["general-01", "general-02"],
  "correct": true, "compliant": true, "correctness_evidence": "python3 test_rmsnorm.py: all P0 PASS",
  "compliance_evidence": "frozen SPEC, pure-Python single kernel"}]}
EOF
"$TC" pypto select --op-dir "$OP" --candidates "$OP/docs/perf/candidates.json" \
	--output "$OP/docs/perf/selection.json" >/dev/null
"$TC" pypto select --op-dir "$OP" --candidates "$OP/docs/perf/candidates.json" --markdown
BEST=$("$PYTHON" -c 'import json,sys; print(json.load(open(sys.argv[1]))["selected"]["candidate_id"])' "$OP/docs/perf/selection.json")
echo "selected: $BEST"

step "Stage 5: close the preset items by the selection (keep or restore, §5)"
close_item() {	# close_item ID STATUS [REASON]
	if [ $# -eq 3 ]; then
		"$TC" pypto items close --ledger "$L" --item "$1" --status "$2" \
			--reason-code no_stable_gain --reason "$3" >/dev/null
	else
		"$TC" pypto items close --ledger "$L" --item "$1" --status "$2" \
			--evidence '{"selection": "docs/perf/selection.json"}' >/dev/null
	fi
}
case $BEST in
cand2)	close_item general-01 accepted
	close_item general-02 accepted ;;
cand1)	close_item general-01 accepted
	close_item general-02 rejected "cand2 is not stably better than cand1 within the frozen range; code restored to cand1" ;;
*)	close_item general-01 rejected "no candidate is stably better than the baseline; code restored"
	close_item general-02 rejected "no candidate is stably better than the baseline; code restored" ;;
esac

step "Stage 5: autonomous item after the preset sources are closed, final sweep"
install_version "$BEST"
ANALYSIS_SHA=$(sha256sum "$OP/test_rmsnorm.py" | cut -d' ' -f1)
"$TC" pypto items add --ledger "$L" --item '{"item_id": "bd-01", "source_kind": "bottleneck_derived",
	"source_ref": "selected version, latest round: the per-row Python loop remains the bottleneck",
	"case_scope": ["p0_large"],
	"applicability": {"status": "to_be_proven", "basis": "remaining time is interpreter dispatch per row"},
	"expected_metric": "fewer interpreted row iterations",
	"bottleneck": {"mechanism": "interpreter dispatch of the row loop", "minimal_change": "none without leaving pure Python",
	"risk": "would change the frozen pure-Python contract", "stop_condition": "no legal change inside the contract",
	"analysis_code_sha256": "'"$ANALYSIS_SHA"'"}}' >/dev/null
"$TC" pypto items close --ledger "$L" --item bd-01 --status unsupported \
	--reason "no legal change inside the frozen pure-Python contract" >/dev/null
"$TC" pypto items sweep --ledger "$L" --scope "final code, latest rounds, full ledger" \
	--findings "no new legal candidate" >/dev/null
"$TC" pypto items validate --ledger "$L" --require-closed >/dev/null
echo "ledger closed"

step "Stage 5: independent final compare of the selected version"
set +e
correctness
RC=$?
set -e
"$TC" "${CMP[@]}" --collection-id walk_final >/dev/null
"$PYTHON" "$HERE/make_report.py" "$OP" "$OP/docs/perf/selection.json" "$RC"

step "stage5-check (file-decidable gates)"
"$TC" pypto check stage5 --op-dir "$OP" --dispatch "$HERE/op/dispatch.json" >"$WORK/stage5-check.json"
"$PYTHON" -c 'import json,sys; d=json.load(open(sys.argv[1])); print("verdict:", d["verdict"]); [print(" ", g["gate"], g["status"]) for g in d["gates"]]' "$WORK/stage5-check.json"

step "Stage 5 exit: complete_stage(5) (a real run waits for the full verifier PASS)"
state complete_stage --stage 5 >/dev/null
state show | "$PYTHON" -c 'import json,sys; d=json.load(sys.stdin); print("stage_status:", d["state"]["stage_status"])'
echo
echo "walk complete: $OP"
