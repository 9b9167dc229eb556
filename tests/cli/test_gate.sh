#!/usr/bin/env bash
# test_gate.sh - "tunectl gate" (analyze_performance.py) on run sets built
# by real "bench run" calls of the shipped workload: the S0 gate at its
# exact 5.0 % boundary, promotion, option trials, screening, the
# docs/spec/gates.md "Argument pre-validation" argument errors, exit codes,
# --json-out, and tunectl's extensions (bootstrap interval, --significance,
# environment drift).
. "$(dirname "$0")/lib.sh"
W="$TUNECTL_SRC/tests/fixtures/workloads/timed_workload.sh"
cd "$T"

mk() {	# mk NAME RUNS VALUES... (quietly)
	local name=$1 runs=$2
	shift 2
	"$TUNECTL_BIN" bench run --runs "$runs" --out "$name" -- "$W" "$@" >/dev/null 2>&1 ||
		echo "# bench run $name failed" >&2
}
mk base 5 10.0 10.1 10.2 10.3 10.4
# after --warmup 7 each run keeps "b a": exact means 9.75 9.875 10.00 10.125 10.25
mk edge 5 10.0/9.5 10.0/9.75 10.00/10.00 10.25/10.0 10.5/10.0
mk unstable 5 10.0 10.1 10.2 10.3 10.52
mk fast 3 8
mk one 1 8
mk o1 3 10.1
mk o2 3 10.2
mk wide 5 9.95 10.0 10.2 10.4 10.45
mk noisy 3 9.75 10.0 10.15
R=(--expected-ranks 1)

# ---- S0 ----------------------------------------------------------------------
tc gate stability --baseline edge --warmup 7 "${R[@]}" --require-pass
expect_rc 0 "a spread of exactly 5.0 % is stable (Decimal arithmetic)"
expect_out "baseline 5 10.0000 10.0000 10.2750 0.2500 - - True 5.0" "S0 row at the boundary"
tc gate stability --baseline unstable "${R[@]}" --require-pass
expect_rc 1 "5.086 % is unstable and --require-pass fails"
expect_out "baseline 5 10.2240 10.2000 10.4320 0.1786 - - False 5.086071987480438" \
	"unstable row carries the spread repr"
tc gate stability --baseline unstable "${R[@]}"
expect_rc 0 "without --require-pass the exit status ignores the verdict"
tc gate stability --baseline base "${R[@]}" --json-out s0/report.json
expect_rc 0 "S0 report"
check "json-out creates parent directories" test -f s0/report.json
check "report has the early selection form (no ranked_candidates)" \
	bash -c '! grep -q ranked_candidates s0/report.json'
check "report ends with a newline" bash -c '[ "$(tail -c1 s0/report.json | od -An -c | tr -d " ")" = "\\n" ]'
tc gate stability --baseline base
expect_rc 0 "without --expected-ranks the ranks come from the baseline's runset.json"
expect_out "baseline 5 10.2000 10.2000 10.3600 0.1414 - - True" "and the one-rank run set is read"
cp -r base noman && rm noman/runset.json
tc gate stability --baseline noman
expect_rc 2 "without runset.json the reference's default --expected-ranks 8 holds"
expect_err "tunectl gate stability: error: noman/run-1: expected 8 rank logs, found 1" \
	"the reference's rank-count message"
tc gate stability --baseline base --expected-ranks 2
expect_rc 2 "--expected-ranks given wins over runset.json"
tc gate stability --baseline nowhere "${R[@]}"
expect_rc 2 "a missing run set"
expect_err "nowhere: no run-* directories found" "the reference's message"

# ---- final promotion -----------------------------------------------------------
tc gate analyze --baseline base --candidate S1=fast --promotion-mode S1=whole_scope "${R[@]}" \
	--json-out out/p.json
expect_rc 0 "whole_scope promotion"
expect_eq "$out" "candidate runs worst-rank-mean-ms p50-ms p90-ms stddev-ms improvement promoted baseline-stable baseline-spread-pct
baseline 5 10.2000 10.2000 10.3600 0.1414 - - True 3.9215686274509802
S1 3 8.0000 8.0000 8.0000 0.0000 21.57% True - -
best-superkernel-candidate S1
recommended S1" "the stdout table, byte for byte"
check "json-out is ASCII with indent 2" grep -q '^  "baseline": {$' out/p.json
check "promotion recorded" grep -q '"final_promotion_decision": "promoted"' out/p.json
check "extension block present" grep -q '"bootstrap_ci95_improvement_pct"' out/p.json
tc gate analyze --baseline base --candidate S1=fast --promotion-mode S1=whole_scope "${R[@]}" \
	--json-out out/ref.json --reference-output
check "--reference-output omits the tunectl key" bash -c '! grep -q "\"tunectl\"" out/ref.json'

tc gate promote --baseline base --candidate S1=fast "${R[@]}"
expect_rc 2 "range_optimized (the default) needs replay evidence"
expect_err "replay evidence mapping mismatch (missing: S1)" "named like the reference"
expect_err "tunectl: hint: told so: --promotion-mode NAME=whole_scope per --candidate NAME" \
	"followed by the fix"
tc gate promote --help
expect_out "Final promotion: compare candidates against a frozen baseline" "gate promote --help says what promote does"
check "gate promote --help is not analyze's" bash -c '! grep -q "Summarize multi-rank" <<<"$0"' "$out"
tc gate analyze --help
expect_out "pass --promotion-mode NAME=whole_scope for each" "gate analyze --help explains the mapping mismatch"
expect_out "bootstrap seed (default 8391734862414113841)" "the seed printed is the code's (\"tunectl1\")"
tc gate analyze --baseline base --candidate S1=one --promotion-mode S1=whole_scope "${R[@]}"
expect_rc 0 "a one-run candidate is reported"
expect_out "S1 1 8.0000 8.0000 8.0000 0.0000 21.57% False - -" "but not promoted (needs 3 runs)"
tc gate analyze --baseline unstable --candidate S1=fast --promotion-mode S1=whole_scope "${R[@]}"
expect_out "S1 3 8.0000 8.0000 8.0000 0.0000 21.75% False - -" "an unstable baseline blocks promotion"
tc gate promote --baseline base --candidate S1=fast --promotion-mode S1=whole_scope "${R[@]}" --require-pass
expect_rc 0 "--require-pass passes when a candidate is promoted"

printf '{"candidate_name": "S1", "round_id": "S1-r1", "source_revision": "abc", "compat_metadata_root": 1}' > replay.json
tc gate analyze --baseline base --candidate S1=fast --replay-evidence S1=replay.json "${R[@]}"
expect_rc 2 "an invalid replay is a parser error, not a traceback"
expect_err "replay evidence invalid (S1: replay_artifact_path_invalid)" "with its failure reason"
tc gate analyze --baseline base --candidate S1=fast --candidate S2=fast \
	--replay-evidence S1=replay.json --promotion-mode S2=whole_scope \
	--replay-evidence S2=replay.json "${R[@]}"
expect_rc 2 "a replay for a whole_scope candidate"
expect_err "replay evidence mapping mismatch (extra: S2)" "counts as extra"

# ---- option trial --------------------------------------------------------------
tc gate option-trial --baseline base --candidate O1=o1 "${R[@]}"
expect_rc 0 "option trial"
expect_out "O1 3 10.1000 10.1000 10.1000 0.0000 0.98% True - -" "any strictly positive gain is accepted"
expect_out "option-trial-accepted True" "trailer names the decision"
expect_out "retained-incumbent O1" "and the new incumbent"
tc gate analyze --baseline base --candidate O1=o2 --option-trial "${R[@]}"
expect_out "O1 3 10.2000 10.2000 10.2000 0.0000 0.00% False - -" "no gain is rejected"
expect_out "retained-incumbent baseline" "and the incumbent stays"
tc gate option-trial --baseline base "${R[@]}"
expect_rc 2 "an option trial needs one candidate"
expect_err "option-trial requires exactly one candidate" "reference message"

# ---- Stage-A screening ------------------------------------------------------------
cat > config.yaml <<'EOF'
model_config:
  custom_params:
    super_kernel_optimize_options: {}
    super_kernel_debug_options: {}
EOF
for s in "S1 9.4" "S2 8.0" "S3 10.3"; do
	set -- $s
	TC_WORKLOAD_CONFIG="$T/config.yaml" "$TUNECTL_BIN" bench run --runs 3 --out "$1" -- "$W" "$2" >/dev/null 2>&1
done
cat > matrix.json <<'EOF'
{"schema_version": "superkernel-screening-matrix-v2",
 "candidate_set_frozen_before_execution": true,
 "candidates": [
  {"id": "S1", "strategy_kind": "automatic_aot", "only_change": "a", "status": "executed"},
  {"id": "S2", "strategy_kind": "broad_decode", "only_change": "b", "status": "executed"},
  {"id": "S3", "strategy_kind": "per_block", "only_change": "c", "status": "executed"},
  {"id": "S4", "strategy_kind": "semantic_segment", "only_change": "d", "status": "blocked",
   "blocker": {"code": "semantic_boundary_unavailable", "reason_zh": "源码无法建立保持依赖的语义分段边界。", "evidence": "intake/S4-BLOCKER.md"}}]}
EOF
tc gate screen --baseline base --screening-matrix matrix.json --candidate S1=S1 \
	--candidate S2=S2 --candidate S3=S3 "${R[@]}" --json-out out/s.json
expect_rc 0 "Stage-A screening"
expect_out "S2 3 8.0000 8.0000 8.0000 0.0000 21.57% True - -" "eligible candidate row"
expect_out "selected-for-deep-analysis S2" "the fastest eligible candidate is selected"
check "non-ASCII blocker text is escaped" grep -q 'u6e90' out/s.json
check "the matrix is fingerprinted" grep -q '"content_fingerprint": "sha256:' out/s.json
tc gate analyze --baseline base --selection-only --screening-matrix matrix.json \
	--candidate S1=S1 --candidate S2=S2 "${R[@]}"
expect_rc 2 "every executed candidate must be supplied"
expect_err "screening candidate set mismatch (missing executed candidates: S3)" "reference message"
tc gate analyze --baseline base --selection-only --screening-matrix matrix.json \
	--candidate S1=S1 --candidate S2=S2 --candidate S3=fast "${R[@]}"
expect_rc 2 "a screening run without its archived config.yaml"
expect_err "Stage-A clean run must archive config.yaml: fast/run-1" "reference message"

# ---- winner option matrix v1 ------------------------------------------------------
P=/model_config/custom_params/super_kernel_optimize_options
cat > om.json <<EOF
{"schema_version": "superkernel-winner-option-matrix-v1", "frozen_before_first_trial": true,
 "seed_candidate": "S2", "items": [
 {"id": "O1", "category": "dcci", "option": "dcci_disable_on_kernel", "value": [".*"],
  "pointer": "$P/dcci_disable_on_kernel", "original_value": null, "probe_evidence": "probe.json",
  "risk": "low", "status": "rejected"},
 {"id": "O2", "category": "auto_op_parallel", "option": "auto_op_parallel", "value": 1,
  "pointer": "$P/auto_op_parallel", "original_value": null, "probe_evidence": "probe.json",
  "risk": "low", "status": "accepted"},
 {"id": "O3", "category": "aggressive", "option": "aggressive_opt_strategies", "value": ["t1"],
  "pointer": "$P/aggressive_opt_strategies", "original_value": null, "probe_evidence": "probe.json",
  "risk": "medium", "status": "failed"},
 {"id": "O4", "category": "other_experimental", "option": "early_start", "value": true,
  "pointer": "$P/early_start", "original_value": null, "probe_evidence": "probe.json",
  "risk": "high", "status": "blocked", "reason_zh": "用户未授权该风险", "evidence": "intake/O4.md",
  "reason_code": "risk_not_authorized"}]}
EOF
tc gate option-matrix om.json
expect_rc 0 "a settled winner option matrix validates"
expect_out '"accepted_items": [' "and lists the accepted items"
sed -i 's/"status": "failed"/"status": "pending"/' om.json
tc gate option-matrix om.json
expect_rc 1 "an unsettled item is refused"
expect_out "winner option matrix O3 is not settled" "with the item named"

# ---- Stage-A option controls before the candidates run -----------------------------
printf 'model_config:\n  custom_params:\n    super_kernel_optimize_options: {}\n    super_kernel_debug_options: {}\n' > a-ok.yaml
printf 'model_config:\n  custom_params:\n    super_kernel_optimize_options: {unroll: 4}\n    super_kernel_debug_options: {}\n' > a-set.yaml
printf 'model_config:\n  custom_params:\n    super_kernel_optimize_options: {}\n' > a-missing.yaml
tc gate stage-a-options a-ok.yaml --json-out sa/controls.json
expect_rc 0 "explicitly empty option maps pass"
expect_eq "$(python3 -c 'import json; d=json.load(open("sa/controls.json")); print(d["all_explicitly_empty"], d["configs"][0]["sha256"] == __import__("hashlib").sha256(open("a-ok.yaml","rb").read()).hexdigest())')" \
    "True True" "--json-out records each config with the sha256 of its bytes"
tc gate stage-a-options a-ok.yaml a-set.yaml a-missing.yaml
expect_rc 1 "a config with a non-empty or missing option map fails"
expect_out "Stage-A config super_kernel_optimize_options must be an explicitly empty mapping: a-set.yaml" \
    "a set option is refused with the reference's message"
expect_out "Stage-A config must explicitly define super_kernel_debug_options: {}: a-missing.yaml" \
    "a missing map is refused with the reference's message"
expect_out '"all_explicitly_empty": false' "the verdict covers every config"
tc gate stage-a-options
expect_rc 2 "stage-a-options needs a config"

# ---- argument errors (exit 2) (docs/spec/gates.md "Argument pre-validation")
usage() {	# usage "args" "message" "test name"
	tc gate analyze $1
	expect_rc 2 "$3 (exit 2)"
	expect_err "tunectl gate analyze: error: $2" "$3"
}
usage "--baseline base --candidate S1" "argument --candidate: candidate must use NAME=PATH" "candidate without ="
usage "--baseline base --candidate =x" "argument --candidate: candidate must use NAME=PATH" "empty candidate name"
usage "--baseline base --replay-evidence S1=" "argument --replay-evidence: candidate must use NAME=PATH" "empty replay path"
usage "--baseline base --promotion-mode S1" "argument --promotion-mode: promotion mode must use NAME=MODE" "mode without ="
usage "--baseline base --promotion-mode S1=fast" \
	"argument --promotion-mode: promotion mode must use NAME=MODE where MODE is one of: range_optimized, whole_scope" \
	"unknown mode"
usage "--baseline base --candidate S1=a --candidate S1=b" "--candidate has duplicate name: S1" "duplicate candidate"
usage "--baseline base --promotion-mode S1=whole_scope --promotion-mode S1=whole_scope" \
	"--promotion-mode has duplicate candidate name" "duplicate promotion mode"
usage "--baseline base --replay-evidence S1=a --replay-evidence S1=b" \
	"--replay-evidence has duplicate name: S1" "duplicate replay"
usage "--baseline base --selection-only --option-trial" \
	"--selection-only and --option-trial are mutually exclusive" "both modes"
usage "--baseline base --selection-only" "--selection-only requires --screening-matrix" "screening without matrix"
usage "--baseline base --screening-matrix matrix.json" "--screening-matrix requires --selection-only" "matrix without screening"
usage "--baseline base --selection-only --screening-matrix absent.json" \
	"cannot load --screening-matrix absent.json: [Errno 2] No such file or directory: 'absent.json'" "missing matrix"
echo '' > empty.json
usage "--baseline base --selection-only --screening-matrix empty.json" \
	"cannot load --screening-matrix empty.json: Expecting value: line 2 column 1 (char 1)" "matrix that is not JSON"
usage "--baseline base --expected-ranks 1 --candidate S1=fast --promotion-mode S9=whole_scope" \
	"promotion mode mapping invalid (unknown candidates: S9)" "mode for an unknown candidate"
for f in --min-runs --baseline-required-runs --baseline-max-spread-ms --baseline-max-spread-pct; do
	tc gate analyze --baseline base "$f" 1
	expect_rc 2 "policy override $f is not accepted"
done
tc gate analyze
expect_rc 2 "--baseline is required"
expect_err "the following arguments are required: --baseline" "argparse wording"
tc gate analyze --help
expect_rc 0 "--help"
expect_out "replay_recomputation_unavailable" "help says what tunectl does not reproduce"

# ---- exit 1: where the reference dies with a traceback --------------------------
mkdir -p zero/run-1 && printf 'Inference time (decode): 0 ms\n' > zero/run-1/log_0.log
tc gate analyze --baseline zero --candidate S1=fast --promotion-mode S1=whole_scope "${R[@]}" --warmup 0
expect_rc 1 "a zero baseline mean cannot be divided by"
mkdir -p badnum/run-1 && printf 'Inference time (decode): 1.2.3 ms\n' > badnum/run-1/log_0.log
tc gate stability --baseline badnum "${R[@]}" --warmup 0
expect_rc 1 "an invalid Decimal numeral"
expect_err "'1.2.3'" "names the numeral"

# ---- extensions --------------------------------------------------------------------
tc gate analyze --baseline wide --candidate S1=noisy --promotion-mode S1=whole_scope "${R[@]}"
expect_out "S1 3 9.9667 10.0000 10.1200 0.1650 2.29% True - -" "the reference gate passes a noisy candidate"
tc gate analyze --baseline wide --candidate S1=noisy --promotion-mode S1=whole_scope "${R[@]}" \
	--significance --json-out out/sig.json
expect_out "S1 3 9.9667 10.0000 10.1200 0.1650 2.29% False - -" "--significance also needs the interval above 0"
check "the reference decision stays on record" grep -q '"S1": true' out/sig.json
check "the extra check is named" grep -q '"bootstrap_ci_lower_bound_positive": false' out/sig.json
tc gate analyze --baseline wide --candidate S1=noisy --promotion-mode S1=whole_scope "${R[@]}" \
	--json-out out/b1.json --bootstrap-seed 7
tc gate analyze --baseline wide --candidate S1=noisy --promotion-mode S1=whole_scope "${R[@]}" \
	--json-out out/b2.json --bootstrap-seed 7
check "the bootstrap is deterministic for a seed" cmp -s out/b1.json out/b2.json

sed -i 's/"cpu_model": "[^"]*"/"cpu_model": "Some Other CPU"/' fast/runset.json
tc gate analyze --baseline base --candidate S1=fast --promotion-mode S1=whole_scope "${R[@]}"
expect_rc 0 "differing environments still gate"
expect_err "warning: environment fingerprints differ between baseline and S1: cpu_model" "but warn"
tc gate analyze --baseline base --candidate S1=fast --promotion-mode S1=whole_scope "${R[@]}" --strict-environment
expect_rc 2 "--strict-environment refuses them"
tc gate analyze --baseline base --candidate S1=edge --promotion-mode S1=whole_scope "${R[@]}" --strict-environment
expect_rc 0 "identical fingerprints pass --strict-environment"

"$TUNECTL_BIN" bench ab --runs 3 --out-a ab_a --out-b ab_b -- "$W" 10 --- "$W" 9 >/dev/null 2>&1
tc gate analyze --baseline ab_a --candidate B=ab_b --promotion-mode B=whole_scope "${R[@]}"
expect_rc 0 "interleaved A/B run sets feed the same gates"
expect_out "B 3 9.0000 9.0000 9.0000 0.0000 10.00% False - -" "(a 3-run baseline is not S0)"

# ---- two rank logs whose names parse to one rank (log_01.log, log_1.log) --------
mkdir -p dup/run-1 dup/run-2
printf 'Inference time (decode): 1.0 ms\nInference time (decode): 2.0 ms\n' >dup/run-1/log_0.log
printf 'Inference time (decode): 5.0 ms\nInference time (decode): 7.0 ms\n' >dup/run-1/log_01.log
printf 'Inference time (decode): 3.0 ms\n' >dup/run-1/log_1.log
for r in 0 1 2; do printf 'Inference time (decode): %d.0 ms\n' $((4 + 2 * r)) >dup/run-2/log_$r.log; done
D=(--warmup 0 --expected-ranks 3)
tc gate stability --baseline dup "${D[@]}"
expect_rc 2 "a run directory holding two logs of one rank is refused"
expect_err "error: dup/run-1: rank logs dup/run-1/log_01.log and dup/run-1/log_1.log both name rank 1" \
	"the refusal names both logs"
tc gate stability --baseline dup "${D[@]}" --reference-output --json-out out/dup.json
expect_rc 0 "--reference-output summarises such a run as the reference does"
# the reference: both logs count and feed the run's pooled samples; the
# later in (rank, path) order replaces the earlier in ranks; the run
# set pools the samples its runs' ranks kept
got=$(/usr/bin/python3 - out/dup.json <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))["baseline"]
r = b["runs"][0]
print(r["rank_count"], list(r["ranks"]), r["ranks"]["1"]["samples_ms"],
      r["ranks"]["1"]["mean_exact_ms"], r["decode"]["samples_ms"], r["decode"]["mean_ms"],
      r["worst_rank"], r["worst_rank_mean_exact_ms"], b["decode"]["samples_ms"],
      b["decode"]["count"], b["decode"]["mean_ms"], b["run_worst_rank_means_exact_ms"])
PY
)
expect_eq "$got" "2 ['0', '1'] [3.0] 3.0 [1.0, 2.0, 5.0, 7.0, 3.0] 3.6 1 3.0 [1.0, 2.0, 3.0, 4.0, 6.0, 8.0] 6 4.0 ['3.0', '8.0']" \
	"per-rank, per-run and pooled statistics of a repeated rank match the reference"

finish
