#!/usr/bin/env bash
# Executable documentation: in a demo session (mode both, so every branch
# runs), every phase runs its real demo worker and then every command block
# of its skill's "## Commands" section, placeholders filled in
# (tests/fixtures/skills/doc_check_worker.py).  Each block must succeed: the
# skills say what actually works.  The workload logs modelled times
# (SKW_SIMULATED_TIMING=1) so a noisy machine cannot fail a gate.
. "$(dirname "$0")/lib.sh"

export SKW_SIMULATED_TIMING=1 SKW_PROFILE=quick
export TUNECTL=$TUNECTL_BIN
export SKW=$(dirname "$TUNECTL_BIN")/examples/skw
export SKW_SOURCE=$TUNECTL_SRC/examples/workload/skw_kernels.c
export TUNECTL_LEASE_ROOT=$T/leases
export DOC_EXAMPLES=$TUNECTL_SRC/examples
export DOC_LOG=$T/doc.log
export TUNECTL_WORKERS=$T/workers
: >"$DOC_LOG"
mkdir -p "$TUNECTL_WORKERS" "$TUNECTL_LEASE_ROOT"
for phase in intake_preparation s0_baseline stage_a_scope_selection stage_o_option_tuning \
    base_profile_source_mapping optional_experiments final_e2e_report; do
	ln -s "$TUNECTL_SRC/tests/fixtures/skills/doc_check_worker.py" "$TUNECTL_WORKERS/$phase"
done
ln -s "$DOC_EXAMPLES/workers/support" "$TUNECTL_WORKERS/support"
echo "[\"$DOC_EXAMPLES/hosts/script/host.sh\"]" >"$T/runner.json"

A=$T/doc
S=$A/auto-tune-session.json
tc init --session "$S" --artifact-root "$A" --session-id doc-1 --optional-mode both
tc run --session "$S" --runner-command-json "$T/runner.json" --max-attempts 1 --timeout-seconds 1200
expect_rc 0 "the demo session runs to completion with every skill's commands executed"
tc verify --session "$S"
expect_rc 0 "the session still verifies"

/usr/bin/python3 - "$DOC_LOG" <<'PY' >"$T/tap"
import json, sys
entries = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8")]
seen = set()
for e in entries:
    seen.add(e["skill"])
    name = "%s (%s), command block %d" % (e["skill"], e["step_id"], e["block"])
    if "skipped" in e:
        print("skip\t%s\t%s" % (name, e["skipped"]))
    elif e["rc"] == 0:
        print("ok\t%s runs" % name)
    else:
        print("not ok\t%s runs\trc=%s: %s\t%s" % (name, e["rc"], e["command"].splitlines()[0],
                                                 e["output"].replace("\n", " | ")[-400:]))
for skill in ["superkernel-intake-preparation", "superkernel-s0-baseline",
              "superkernel-stage-a-scope-selection", "superkernel-stage-o-option-tuning",
              "superkernel-base-profile-source-mapping", "superkernel-optional-experiments",
              "superkernel-final-e2e-report"]:
    print(("ok\t%s: its commands were run" if skill in seen else "not ok\t%s: its commands were never run") % skill)
PY
while IFS=$'\t' read -r verdict name detail more; do
	case $verdict in
	ok) ok "$name" ;;
	skip) : ;;
	*) not_ok "$name" "$detail" "${more:-}" ;;
	esac
done <"$T/tap"
check "branch-only blocks were skipped on the other branches" grep -q '"skipped"' "$DOC_LOG"
check "the branch-only executor blocks ran on their branch" \
    test "$(grep -c 'sk-multistream-tuning-executor' "$DOC_LOG")" -ge 1

finish
