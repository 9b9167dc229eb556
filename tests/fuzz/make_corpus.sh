#!/usr/bin/env bash
# make_corpus.sh - regenerate the seed corpora tests/fuzz/corpus/<target>/
# from the documents tunectl's own flows produce (init, seal, derive,
# run-next, demo, the PyPTO walk) and the fixtures the tests use.
#
#   tests/fuzz/make_corpus.sh [TUNECTL_BINARY]      (default build/tunectl)
#
# Seeds are small valid documents plus a few near misses; inputs of
# several documents separate them with the line "%%" (tests/fuzz/
# fuzz_common.h).  Seeds of fuzz_json_reader and fuzz_report_html are
# hand-written and left alone.  Files are overwritten, never removed:
# inputs added by hand, the regress-* inputs that once crashed and the
# coverage-minimised inputs found by fuzzing (SHA-1 names; see
# docs/hardening.md) all stay.
#
# To fold a fuzzing run's finds into the corpora:
#   FUZZ_KEEP_CORPUS=/tmp/kept FUZZ_SECONDS=30 scripts/fuzz.sh
#   build/fuzz/T -merge=1 -use_counters=0 -use_cmp=0 NEW tests/fuzz/corpus/T /tmp/kept/T
#   then copy the files of NEW that the corpus lacks.
set -euo pipefail
cd "$(dirname "$0")/../.."
SRC=$PWD
TC=$(cd "$(dirname "${1:-build/tunectl}")" && pwd)/$(basename "${1:-build/tunectl}")
C=$SRC/tests/fuzz/corpus
W=$(mktemp -d "${TMPDIR:-/tmp}/tunectl-corpus.XXXXXX")
trap 'rm -rf "$W"' EXIT
SEP=$'\n%%\n'

seed() {	# seed TARGET NAME  (content on stdin)
	mkdir -p "$C/$1"
	cat >"$C/$1/$2"
}
parts() {	# parts FILE... : the files joined by the separator
	local first=1 f
	for f in "$@"; do
		[ $first = 1 ] || printf '%s' "$SEP"
		first=0
		cat "$f"
	done
}

# ---- sessions: init in every mode, a completed parent, a derived child ------
for m in none multistream source-range both; do
	"$TC" init --session "$W/init-$m/s.json" --artifact-root "$W/init-$m" \
	    --session-id "session-20260905-a" --optional-mode "$m" >/dev/null
	seed fuzz_session "init-$m.json" <"$W/init-$m/s.json"
done
python3 "$SRC/tests/fixtures/derive/derive_fixture.py" parent "$TC" "$W/d" >/dev/null
P=$W/d/parent-artifacts
seed fuzz_session completed.json <"$P/auto-tune-session.json"
"$TC" derive-session --parent-session "$P/auto-tune-session.json" \
    --session "$W/child/auto-tune-session.json" --artifact-root "$W/child" \
    --session-id derived-session --profiling-analysis "$P/evidence/profiling-analysis.json" \
    --ledger "$P/evidence/experiment-ledger.json" \
    --source-scope-map "$P/evidence/source-scope-map.json" \
    --approve-imported-evidence --optional-mode both >/dev/null
seed fuzz_session derived.json <"$W/child/auto-tune-session.json"
printf '{"schema_version": "superkernel-auto-tune-session-v1", "steps": [' |
    seed fuzz_session truncated.json

# ---- phase results: every phase of the completed parent, Final with ledger
for f in "$P"/phases/*/phase-result.json; do
	step=$(basename "$(dirname "$f")")
	if [ "$step" = final-e2e-report ]; then
		parts "$f" "$P/ledger.json" | seed fuzz_result "$step+ledger.json"
	fi
	seed fuzz_result "$step.json" <"$f"
done
python3 - "$P/phases/final-e2e-report/phase-result.json" "$W/final-traversal.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["ledger_path"] = "../ledger.json"
r["consumed_artifacts"] = ["/etc/passwd", "a/../../b"]
json.dump(r, open(sys.argv[2], "w"), ensure_ascii=False)
PY
seed fuzz_result final-traversal.json <"$W/final-traversal.json"

# ---- dispatch tasks (merge patches and whole tasks)
"$TC" dispatch --session "$W/init-none/s.json" --output "$W/task.json" >/dev/null
seed fuzz_dispatch_task task-init.json <"$W/task.json"
echo '{}' | seed fuzz_dispatch_task patch-empty.json
echo '{"session_fingerprint": "0000"}' | seed fuzz_dispatch_task patch-stale.json
echo '{"step": {"agent_id": "sk-final-e2e-report"}}' | seed fuzz_dispatch_task patch-agent.json
echo '{"consumed_handoffs": []}' | seed fuzz_dispatch_task patch-handoffs.json

# ---- run-next: receipts of a real run
"$TC" init --session "$W/rn/s.json" --artifact-root "$W/rn" --session-id session-20260905-a \
    --optional-mode none >/dev/null
printf '["%s", "ok"]\n' "$SRC/tests/fixtures/hosts/fake_host.py" >"$W/ok.json"
printf '["%s", "exit7"]\n' "$SRC/tests/fixtures/hosts/fake_host.py" >"$W/exit7.json"
"$TC" run-next --session "$W/rn/s.json" --runner-command-json "$W/exit7.json" >/dev/null 2>&1 || true
"$TC" run-next --session "$W/rn/s.json" --runner-command-json "$W/ok.json" >/dev/null
seed fuzz_receipt failed.json <"$W/rn/dispatches/intake-preparation-attempt-001/dispatch-receipt.json"
seed fuzz_receipt passed.json <"$W/rn/dispatches/intake-preparation-attempt-002/dispatch-receipt.json"
: | seed fuzz_receipt none
echo '{"runner_status": "passed"}' | seed fuzz_receipt minimal.json
parts "$W/rn/dispatches/intake-preparation-attempt-002/dispatch-receipt.json" \
    "$W/rn/dispatches/intake-preparation-attempt-002/phase-result.json" |
    seed fuzz_receipt passed+other-result.json
seed fuzz_lease runner.json <"$W/ok.json"

# ---- evidence import (merge patches over the fixture's documents)
echo '{}' | seed fuzz_evidence_import empty
echo '{"authorization": {"approved": false}}' | seed fuzz_evidence_import unapproved
echo '{"artifacts": {"ledger": {"path": "../outside.json"}}}' | seed fuzz_evidence_import traversal
echo '{"base_handoff": {"step_id": "final-e2e-report"}}' | seed fuzz_evidence_import wrong-step
echo '{"parent": {"session_path": "../../etc/passwd"}}' | seed fuzz_evidence_import parent-traversal
printf '{}%s{"schema_version": "1.1"}%s{"source_ranges": []}%s{"experiments": {}}\n' \
    "$SEP" "$SEP" "$SEP" | seed fuzz_evidence_import content-patches
seed fuzz_evidence_import raw-manifest.json <"$W/child/imports/evidence-import.json"

# ---- experiment ledger: the reference fixture S3, a schema 1 ledger, merges
S3=$(sed -n "s/^S3_JSON='\(.*\)'\$/\1/p" "$SRC/tests/cli/test_ledger.sh")
printf '%s\n' "$S3" | seed fuzz_ledger s3.json
printf '%s%s{}\n' "$S3" "$SEP" | seed fuzz_ledger s3+empty-ledger.json
cat >"$W/v1.json" <<'JSON'
{"schema_version": 1, "experiments": {"S2": {"experiment_id": "S2",
  "artifacts": {"metadata": "S2/sk-meta.json"}}},
 "verified_exclusions": [{"experiment_id": "S2", "source_evidence": "S2/source-map.json"}],
 "conditional_performance_evidence": {"stale": {}}}
JSON
seed fuzz_ledger v1.json <"$W/v1.json"
printf '%s%s' "$S3" "$SEP" | cat - "$W/v1.json" | seed fuzz_ledger s3+v1.json
printf '%s\n' "$S3" >"$W/s3.json"
"$TC" ledger merge --ledger "$W/none.json" --result "$W/s3.json" --output "$W/merged.json" >/dev/null 2>&1 || true
[ -f "$W/merged.json" ] && parts "$W/s3.json" "$W/merged.json" | seed fuzz_ledger s3+merged.json
seed fuzz_ledger final-ledger.json <"$P/ledger.json"

# ---- the Final view of the ledger
seed fuzz_final_ledger beneficial.json <"$P/ledger.json"
parts "$P/ledger.json" "$P/phases/final-e2e-report/phase-result.json" |
    seed fuzz_final_ledger beneficial+result.json
parts "$P/ledger.json" "$W/final-traversal.json" | seed fuzz_final_ledger traversal
SUMMARY='{"schema_version": "superkernel-report-summary-v1", "baseline": {"metric": "TP worst-rank mean", "value_ms": 10.0, "run_count": 5, "reason_zh": "五次基线稳定。", "evidence_artifacts": ["evidence.json"]}, "stages": [{"stage": "stage_a", "kind": "screening", "candidate_id": "S1", "metric": "TP worst-rank mean", "baseline_ms": 10.0, "candidate_ms": 11.0, "run_count": 3, "eligible": false, "selector_rank": 1, "status": "no_gain", "reason_zh": "收益未达标。", "gates_zh": "阈值 1%；P90 不通过；stddev 不通过", "evidence_artifacts": ["evidence.json"]}], "fallback": {"candidate_id": "S0", "scope_strategy": "SK-off", "reason_zh": "已验证并恢复 SK-off。", "evidence_artifacts": ["evidence.json"]}}'
python3 - "$P/ledger.json" "$SUMMARY" "$W/ledger-summary.json" <<'PY'
import json, sys
ledger = json.load(open(sys.argv[1]))
ledger["report_summary"] = json.loads(sys.argv[2])
json.dump(ledger, open(sys.argv[3], "w"), ensure_ascii=False)
PY
seed fuzz_final_ledger with-summary.json <"$W/ledger-summary.json"
python3 - "$P/ledger.json" "$W/not-run.json" <<'PY'
import json, sys
ledger = json.load(open(sys.argv[1]))
e = ledger["final_e2e"]
for k in ("baseline", "candidate", "improvement_pct"):
    e.pop(k, None)
e["classification"] = "not_run"
json.dump(ledger, open(sys.argv[2], "w"), ensure_ascii=False)
PY
seed fuzz_final_ledger not-run.json <"$W/not-run.json"

# ---- report_summary and the reports
printf '%s\n' "$SUMMARY" | seed fuzz_report_summary summary.json
printf '%s%s' "$SUMMARY" "$SEP" | cat - "$W/ledger-summary.json" | seed fuzz_report_summary summary+ledger.json
python3 - "$SUMMARY" "$W/xss.json" <<'PY'
import json, sys
s = json.loads(sys.argv[1])
s["baseline"]["reason_zh"] = "<script>alert(1)</script>"
s["stages"][0]["candidate_id"] = "<iframe src=javascript:alert(1)>"
json.dump(s, open(sys.argv[2], "w"), ensure_ascii=False)
PY
seed fuzz_report_summary xss.json <"$W/xss.json"

# ---- phase manifests
for f in "$SRC"/share/phases/*/phase.json; do
	seed fuzz_phase_manifest "$(basename "$(dirname "$f")").json" <"$f"
done
python3 - "$SRC/share/phases/s0_baseline/phase.json" "$W/pm-traversal.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["runtime_tools"] = ["../../bin/sh", "/bin/sh", ".."]
json.dump(m, open(sys.argv[2], "w"))
PY
seed fuzz_phase_manifest traversal.json <"$W/pm-traversal.json"

# ---- leases: environments, a real lease command manifest, Slurm strings
echo '{"PATH": "/usr/bin:/bin", "HOME": "/root", "LANG": "C.UTF-8"}' | seed fuzz_lease env.json
echo '{"GITHUB_TOKEN": "x", "PATH": "/bin"}' | seed fuzz_lease env-secret.json
mkdir -p "$W/lease"
"$TC" lease run --lease-root "$W/lease/root" --device-id 0 --timeout-seconds 10 --cwd "$W" \
    --manifest-out "$W/lease/m.json" -- /bin/true >/dev/null 2>&1 || true
[ -f "$W/lease/m.json" ] && seed fuzz_lease manifest.json <"$W/lease/m.json"
printf '{"PATH": "/bin"}%sSUPERKERNEL_DEVICE_LEASE_HELD=1\nSUPERKERNEL_DEVICE_IDS=0,1\nSUPERKERNEL_DEVICE_LEASE_ROOT=/leases\nPATH=/bin%s0,1 /leases\ngpu:2\nnpu:a100:1\ngres:gpu:1\n0-1,3\n2,0\nnpu:2(IDX:0-1),gpu:a100:1(IDX:0)\nJobId=7 JobState=RUNNING NodeList=n1 GRES=gpu:1\n' \
    "$SEP" "$SEP" | seed fuzz_lease markers+slurm

# ---- run sets: the rank log format, two ranks, runset.json, gate matrices
mkdir -p "$W/rs/run-1"
for r in 0 1; do
	for i in 0 1 2 3 4 5 6 7 8 9 10 11; do
		echo "step $i rank $r Inference time (decode): 0.$((880 + i * 7 + r)) ms"
	done >"$W/rs/run-1/log_$r.log"
	echo "Inference time (prefill): 12.5 ms" >>"$W/rs/run-1/log_$r.log"
done
seed fuzz_runset one-rank.log <"$W/rs/run-1/log_0.log"
parts "$W/rs/run-1/log_0.log" "$W/rs/run-1/log_1.log" | seed fuzz_runset two-ranks
printf '\001Inference time (decode): 1e400 ms\nInference time (decode): 0.1.2 ms\n' | seed fuzz_runset bad-numerals.log
"$TC" bench run --runs 2 --out "$W/bench" -- /bin/echo "Inference time (decode): 1.5 ms" >/dev/null 2>&1 || true
if [ -f "$W/bench/runset.json" ]; then
	parts "$W/rs/run-1/log_0.log" "$W/rs/run-1/log_1.log" "$W/bench/runset.json" |
	    seed fuzz_runset two-ranks+runset.json
fi
sed -n '/^cat > matrix.json/,/^EOF/p' "$SRC/tests/cli/test_gate.sh" | sed '1d;$d' >"$W/matrix.json"
parts "$W/rs/run-1/log_0.log" "$W/rs/run-1/log_1.log" "$W/bench/runset.json" "$W/matrix.json" |
    seed fuzz_runset screening-matrix
PTR=/model_config/custom_params/super_kernel_optimize_options
sed -n '/^cat > om.json/,/^EOF/p' "$SRC/tests/cli/test_gate.sh" | sed '1d;$d' |
    sed "s|\$P|$PTR|g" >"$W/om.json"
parts "$W/rs/run-1/log_0.log" "$W/rs/run-1/log_1.log" "$W/bench/runset.json" "$W/om.json" |
    seed fuzz_runset option-matrix

# ---- PyPTO: state sequences, case manifests with Golden, item ledgers
printf '%sinit\n' "$SEP" | sed 's/^init$/action=init/' | seed fuzz_pypto_state init
printf '%saction=init\n\naction=complete_stage\nstage=1\n\naction=complete_stage\nstage=2\n\naction=complete_stage\nstage=3\n\naction=plan_stage4\nis_fusion=true\nmodule_count=2\n\naction=start_module\nmodule=1\n\naction=submit_for_verify\nmodule=1\n\naction=complete_module\nmodule=1\n\naction=fail_module\nmodule=2\nreason=r\nlast_error=e\n\naction=rollback_to_stage\ntarget_stage=2\nreason=r\nfailure_category=stage2_golden_gap\n\naction=start_stage\nstage=abc\n' \
    "$SEP" | seed fuzz_pypto_state walk
printf '%saction=record_artifact_hash\nname=design_md\nhash=abc\n\naction=fail_stage\nstage=1\nreason=x\n%s{"summary": {"pass": 0, "warn": 1, "info": 2, "fail": 1, "skip": 0, "has_error_fail": true}, "findings": [{"rule_id": "PL04", "severity": "S1", "status": "FAIL", "message": "golden missing", "file": "op_golden.py"}]}\n' \
    "$SEP" "$SEP" | seed fuzz_pypto_state hash+lint
mkdir -p "$W/py/custom"
(cd "$W/py" && "$TC" pypto state --op-dir custom/op init >/dev/null &&
    "$TC" pypto state --op-dir custom/op plan_stage4 --module-count 2 --is-fusion true >/dev/null 2>&1 || true)
seed fuzz_pypto_state state-file.json <"$W/py/custom/op/.orchestrator_state.json"
printf '%saction=complete_stage\nstage=1\n' "$SEP" | cat "$W/py/custom/op/.orchestrator_state.json" - |
    seed fuzz_pypto_state state-file+action

printf '%s\n' '{"schema_version": 1, "cases": [{"id": "p0_small", "shape": "[64,512]", "dtype": "float64", "test_function": "test_rmsnorm_p0_small"}, {"id": "p0_large", "shape": "[128,1024]", "dtype": "float64", "test_function": "test_rmsnorm_p0_large"}], "optimization_target": {"case_ids": ["p0_small", "p0_large"], "selection_mode": "all_p0_no_questions"}}' >"$W/cases.json"
seed fuzz_pypto_cases example.json <"$W/cases.json"
M='{"schema_version": 1, "cases": [{"id": "p0", "shape": "[1,32]", "dtype": "fp16"}]}'
GOLDEN='{"schema_version": 1, "golden_source": {"path": "@GOLDEN@", "sha256": "@GSHA@", "size_bytes": @GSIZE@}, "case_manifest_source": {"path": "@MANIFEST@", "sha256": "@MSHA@", "size_bytes": @MSIZE@, "schema_version": 1}, "device_id": 0, "iterations": 1, "warmup": 3, "repeats": 3, "seed": 42, "timing_scope": "all_golden_npu_kernels", "aggregation": "median_of_repeat_totals", "cases": [{"id": "p0", "shape": "(1, 32)", "dtype": "torch.float16", "raw_repeat_e2e_us": [9.0, 10.0, 11.0], "median_total_us": 10.0, "per_iteration_e2e_us": 10.0}]}'
printf '%s%s%s\n' "$M" "$SEP" "$GOLDEN" | seed fuzz_pypto_cases golden-joined
printf '{"schema_version": 1, "cases": [{"id": "a", "shape": "[1]", "dtype": "fp16"}, {"id": "a", "shape": "[1]", "dtype": "fp16"}]}\n' |
    seed fuzz_pypto_cases duplicate-ids.json
printf '%s%s%s%s{"schema_version": 1}%s# Report\n\n```json stage5-evidence\n{"rounds": [1]}\n```\n\n```json machine-contract\n{"op": "x"}\n```\n' \
    "$(cat "$W/cases.json")" "$SEP" "" "$SEP" "$SEP" | seed fuzz_pypto_cases contract+markdown

L=$W/items.json
"$TC" pypto items init --ledger "$L" >/dev/null
seed fuzz_pypto_items init.json <"$L"
"$TC" pypto items source --ledger "$L" --kind general_method --count 1 --ref methods.md >/dev/null
"$TC" pypto items add --ledger "$L" --item '{"item_id": "general-01", "source_kind": "general_method", "source_ref": "methods.md#1", "case_scope": ["p0"], "applicability": {"status": "applicable", "basis": "b"}, "expected_metric": "m"}' >/dev/null
seed fuzz_pypto_items one-item.json <"$L"
printf '%s{"item_id": "general-02", "source_kind": "general_method", "source_ref": "methods.md#2", "case_scope": ["p0"], "applicability": {"status": "applicable", "basis": "b"}, "expected_metric": "m"}%sgeneral-01\nrejected\nno stable gain\nno_stable_gain\nkb_selected\nall\nnothing found\n' \
    "$SEP" "$SEP" | cat "$L" - | seed fuzz_pypto_items one-item+mutations
if [ -d "${PYPTO_DEMO:-}" ]; then
	# a finished pipeline (tunectl demo --pipeline pypto --artifact-root
	# DIR; PYPTO_DEMO=DIR/latest): a closed ledger, a frozen contract, a
	# completed Stage 5 state
	O=$PYPTO_DEMO/project/custom/rmsnorm
	seed fuzz_pypto_items closed.json <"$O/docs/perf/optimization_ledger.json"
	seed fuzz_pypto_state stage5.json <"$O/.orchestrator_state.json"
	parts "$O/PERFORMANCE_CASES.json" /dev/null "$O/docs/perf/frozen_contract.json" \
	    "$O/PERFORMANCE_REPORT.md" | seed fuzz_pypto_cases walk
fi
# ---- dictionaries: the field names and enumeration values of each
# target's seeds (ASCII, at most 40 bytes), for libFuzzer's -dict
for d in "$C"/fuzz_*; do
	t=$(basename "$d")
	[ "$t" = fuzz_json_reader ] && continue
	{
		echo "# $t.dict - generated by tests/fuzz/make_corpus.sh from the seeds"
		echo '"\x0A%%\x0A"'
		cat "$d"/* | grep -aoE '"[A-Za-z0-9_./:@-]{2,40}"' | grep -v '^"/' | sort -u
	} >"$SRC/tests/fuzz/$t.dict"
done
du -sh "$C"
