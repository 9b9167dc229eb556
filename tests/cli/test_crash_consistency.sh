#!/usr/bin/env bash
# test_crash_consistency.sh - SIGKILL at every write boundary of seal,
# run-next, derive-session, init and pypto state (the atomic writer's
# fault injection, tests/cli/crash_lib.sh), and after each kill: the
# session still loads and verifies (the old state or the new one, never a
# mix; every step it shows sealed still bound by its sidecar), no temp
# file poses as evidence, the designed recovery works
# (docs/controller.md "Recovery": re-running the command, or resume, or
# run-next completing a receipt), and the recovered state equals what an
# uninterrupted run leaves.
#
# quarantine is swept too (its sidecar record, then the move).
#
# The short form (make check) sweeps one representative command of each
# kind; TUNECTL_STRESS=1 (make stress) sweeps every step of every mode.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/controller_fixtures.sh"
. "$(dirname "$0")/crash_lib.sh"

LONG=${TUNECTL_STRESS:-0}
HOST="$TUNECTL_SRC/tests/fixtures/hosts/fake_host.py"
FIX="$TUNECTL_SRC/tests/fixtures/derive/derive_fixture.py"
T_RESULT=$T/handoff.json

# ---- seal -----------------------------------------------------------------------
# The state a seal leaves: every step's state and outcome, and the sealed
# bytes of the handed-in result (generated short-circuit scenes carry a
# time-dependent digest, so only their outcome counts).
seal_reference() {
	crash_steps "$S"
	crash_sidecar "$S"
	[ -f "$SEAL_SCENE" ] && sha_file "$SEAL_SCENE"
	[ -f "$R/FINAL_E2E_REPORT.md" ] && echo "final report present"
	return 0
}

# After a kill: verify passes on what is there; then both recoveries --
# the same seal again, and resume (then the seal, if the step is still
# pending) -- end in the reference state.
seal_recover() {
	local crashed=$CRASH_DIR/crashed
	crash_session_verifies "$S" || return 1
	crash_no_partial_files "$R" || return 1
	rm -rf "$crashed"
	cp -a "$W" "$crashed"

	if [ "$(crash_step_state "$S" "$SEAL_STEP")" = pending ]; then
		"$TUNECTL_BIN" seal --session "$S" --result "$T_RESULT" >/dev/null ||
		    { echo "re-running the seal failed"; return 1; }
	fi
	crash_session_verifies "$S" || return 1
	[ "$(crash_reference)" = "$CRASH_REF" ] ||
	    { echo "re-sealing left another state:"; crash_reference; return 1; }

	rm -rf "$W"
	mv "$crashed" "$W"
	"$TUNECTL_BIN" resume --session "$S" >/dev/null 2>&1 ||
	    { echo "resume failed: $("$TUNECTL_BIN" resume --session "$S" 2>&1)"; return 1; }
	if [ "$(crash_step_state "$S" "$SEAL_STEP")" = pending ]; then
		"$TUNECTL_BIN" seal --session "$S" --result "$T_RESULT" >/dev/null ||
		    { echo "sealing after resume failed"; return 1; }
	fi
	crash_session_verifies "$S" || return 1
	[ "$(crash_reference)" = "$CRASH_REF" ] ||
	    { echo "resume left another state:"; crash_reference; return 1; }
}

crash_run() { "$TUNECTL_BIN" seal --session "$S" --result "$T_RESULT"; }
crash_reference() { seal_reference; }
crash_recover() { seal_recover; }

# seal_case NAME MODE STATUS-OF-STEP [SEALS-BEFORE]: sweep the seal of the
# step after SEALS-BEFORE default seals (all: up to Final).
seal_case() {
	local name=$1 mode=$2 status=$3 before=$4
	crash_setup() {
		ctl_init "$W" "$mode" || return 1
		if [ "$before" = final ]; then
			ctl_advance_to_final || return 1
		else
			local i
			for ((i = 0; i < before; i++)); do
				ctl_seal || return 1
				[ "$rc" = 0 ] || return 1
			done
		fi
		ctl_result "$T_RESULT" "$status"
	}
	S=$W/artifacts/auto-tune-session.json
	R=$W/artifacts
	rm -rf "$W"
	mkdir -p "$W"
	crash_setup >/dev/null 2>&1 || { not_ok "$name: setup"; return; }
	SEAL_STEP=$(jpy "$S" "next(s['step_id'] for s in d['steps'] if s['state'] == 'pending')")
	SEAL_SCENE=$R/phases/$SEAL_STEP/phase-result.json
	crash_sweep "$name"
}

seal_case "seal of intake" none "" 0
seal_case "seal that short-circuits the session (S0 blocked)" none blocked 1
seal_case "seal of Final (ledger, FINAL_E2E_REPORT.md)" none "" final
if [ "$LONG" = 1 ]; then
	for mode in none multistream source-range both; do
		i=0
		while :; do
			rm -rf "$W"
			mkdir -p "$W"
			ctl_init "$W" "$mode" >/dev/null 2>&1
			for ((k = 0; k < i; k++)); do ctl_seal >/dev/null 2>&1; done
			next=$(jpy "$W/artifacts/auto-tune-session.json" "next((s['step_id'] for s in d['steps'] if s['state'] == 'pending'), '')")
			[ -z "$next" ] && break
			status=""
			[ "$next" = optional-multistream ] && status=accepted
			seal_case "seal of $next ($mode)" "$mode" "$status" "$i"
			i=$((i + 1))
		done
	done
	seal_case "seal of Final no_gain (both)" both no_gain final
	seal_case "seal of Final not_run (source-range)" source-range not_run final
fi

# ---- init -----------------------------------------------------------------------
crash_setup() { :; }
crash_run() {
	"$TUNECTL_BIN" init --session "$W/artifacts/auto-tune-session.json" \
	    --artifact-root "$W/artifacts" --session-id "$CTL_ID" --optional-mode both
}
crash_reference() {
	crash_steps "$W/artifacts/auto-tune-session.json"
	crash_sidecar "$W/artifacts/auto-tune-session.json"
}
crash_recover() {
	local s=$W/artifacts/auto-tune-session.json
	if [ -e "$s" ]; then
		crash_session_verifies "$s" || return 1
	else
		crash_run >/dev/null || { echo "re-running init failed"; return 1; }
	fi
	[ "$(crash_reference)" = "$CRASH_REF" ] || { echo "another session"; return 1; }
}
crash_sweep "init"

# ---- quarantine -----------------------------------------------------------------
# A file planted in S0's scene: quarantine records it in the sidecar, then
# moves it.  After a kill the session verifies and quarantine again ends
# with the planted bytes under quarantine/ and the scene free.
crash_setup() {
	ctl_init "$W" none || return 1
	ctl_seal || return 1
	mkdir -p "$W/artifacts/phases/s0-baseline"
	printf '{"forged": true}\n' >"$W/artifacts/phases/s0-baseline/phase-result.json"
}
crash_run() { "$TUNECTL_BIN" quarantine --session "$W/artifacts/auto-tune-session.json"; }
crash_reference() {
	[ -e "$W/artifacts/phases/s0-baseline/phase-result.json" ] && echo "scene occupied"
	find "$W/artifacts/quarantine" -type f -exec sha256sum {} + 2>/dev/null | cut -d' ' -f1
	crash_steps "$W/artifacts/auto-tune-session.json"
}
crash_recover() {
	crash_session_verifies "$W/artifacts/auto-tune-session.json" || return 1
	crash_run >/dev/null || { echo "re-running quarantine failed"; return 1; }
	[ "$(crash_reference)" = "$CRASH_REF" ] || { echo "another state:"; crash_reference; return 1; }
}
crash_sweep "quarantine (sidecar record, move)"

# ---- run-next -------------------------------------------------------------------
printf '["%s", "ok"]\n' "$HOST" >"$T/ok.json"
# What run-next leaves: step states, and for every step a worker sealed,
# a bound receipt that passed.
runnext_reference() {
	local id st o rel
	crash_steps "$S" | while read -r id st o; do
		if [ "$st" != sealed ]; then
			echo "$id $st $o"
			continue
		fi
		rel=$(awk -v id="$id" '
		    /^      "dispatch_receipt_path": / { p = $2 }
		    /^      "step_id": / { s = $2; gsub(/[",]/, "", s)
			if (s == id) { gsub(/[",]/, "", p); print p } p = "" }' "$S")
		if [ -z "$rel" ]; then
			echo "$id $st $o NO RECEIPT BOUND"
		else
			echo "$id $st $o receipt $(grep -o '"runner_status": "[a-z_]*"' "$R/$rel" | cut -d'"' -f4)"
		fi
	done
	crash_sidecar "$S"
}
# One more run-next.  When the session is already complete (the kill or
# resume sealed the last step) it has nothing to dispatch: it binds the
# lost receipt, then says so and exits 1.
runnext_again() {	# runnext_again WHEN
	if ! "$TUNECTL_BIN" run-next --session "$S" --runner-command-json "$T/ok.json" >"$T/rn.out" 2>"$T/rn.err"; then
		grep -q '^  "status": "completed"' "$S" &&
		    grep -q "completed session has no dispatchable step" "$T/rn.out" ||
		    { echo "run-next $1 failed: $(cat "$T/rn.out" "$T/rn.err")"; return 1; }
	fi
}
runnext_recover() {
	local crashed=$CRASH_DIR/crashed
	crash_session_verifies "$S" || return 1
	crash_no_partial_files "$R" || return 1
	rm -rf "$crashed"
	cp -a "$W" "$crashed"
	# run-next again (it seals the next step too when the killed run had
	# already sealed its own)
	runnext_again "after the kill" || return 1
	crash_session_verifies "$S" || return 1
	runnext_reference | grep -q "NO RECEIPT BOUND" &&
	    { echo "a sealed step has no receipt:"; runnext_reference; return 1; }
	runnext_reference | grep -q "^intake-preparation sealed succeeded receipt passed$" ||
	    { echo "intake is not sealed with its receipt:"; runnext_reference; return 1; }
	# resume first, then run-next
	rm -rf "$W"
	mv "$crashed" "$W"
	"$TUNECTL_BIN" resume --session "$S" >/dev/null 2>&1 || { echo "resume failed"; return 1; }
	runnext_again "after resume" || return 1
	crash_session_verifies "$S" || return 1
	runnext_reference | grep -q "NO RECEIPT BOUND" &&
	    { echo "after resume a sealed step has no receipt:"; runnext_reference; return 1; }
	return 0
}
runnext_case() {	# runnext_case NAME MODE SEALS-BEFORE
	local mode=$2 before=$3
	crash_setup() {
		local i
		"$TUNECTL_BIN" init --session "$S" --artifact-root "$R" --session-id "$CTL_ID" \
		    --optional-mode "$mode" >/dev/null || return 1
		for ((i = 0; i < before; i++)); do
			"$TUNECTL_BIN" run-next --session "$S" --runner-command-json "$T/ok.json" >/dev/null 2>&1 || return 1
		done
	}
	crash_run() { "$TUNECTL_BIN" run-next --session "$S" --runner-command-json "$T/ok.json"; }
	crash_reference() { runnext_reference; }
	crash_recover() { runnext_recover; }
	S=$W/artifacts/auto-tune-session.json
	R=$W/artifacts
	crash_sweep "$1"
}
runnext_case "run-next of intake (task, seal, receipt, binding)" none 0
if [ "$LONG" = 1 ]; then
	runnext_case "run-next of s0" none 1
	runnext_case "run-next of Final" none 6
	runnext_case "run-next of optional-multistream (both)" both 5
fi

# ---- derive-session -------------------------------------------------------------
derive_args() {
	P=$W/d/parent-artifacts
	echo --parent-session "$P/auto-tune-session.json" --session "$W/child/auto-tune-session.json" \
	    --artifact-root "$W/child" --session-id derived-session \
	    --profiling-analysis "$P/evidence/profiling-analysis.json" \
	    --ledger "$P/evidence/experiment-ledger.json" \
	    --source-scope-map "$P/evidence/source-scope-map.json" --approve-imported-evidence
}
crash_setup() { python3 "$FIX" parent "$TUNECTL_BIN" "$W/d" >/dev/null; }
crash_run() {
	# shellcheck disable=SC2046
	"$TUNECTL_BIN" derive-session $(derive_args) --optional-mode both
}
crash_reference() {
	[ -f "$W/child/auto-tune-session.json" ] && crash_steps "$W/child/auto-tune-session.json"
	"$TUNECTL_BIN" verify --deep --session "$W/child/auto-tune-session.json" >/dev/null 2>&1 &&
	    echo "deep verify passes"
	return 0
}
crash_recover() {
	if [ -e "$W/child/auto-tune-session.json" ]; then
		"$TUNECTL_BIN" verify --deep --session "$W/child/auto-tune-session.json" >/dev/null 2>&1 ||
		    { echo "a derived session left by the kill does not verify"; return 1; }
	else
		if ! crash_run >"$T/d.out" 2>&1; then
			# Finding D1 (docs/hardening.md): a manifest left without
			# its session is refused by name; removing it (no session
			# refers to it) is the recovery.
			grep -q "evidence import already exists: $W/child/imports/evidence-import.json" "$T/d.out" ||
			    { echo "re-running derive-session failed: $(head -c 400 "$T/d.out")"; return 1; }
			rm "$W/child/imports/evidence-import.json"
			crash_run >"$T/d.out" 2>&1 ||
			    { echo "derive-session after removing the orphaned manifest failed: $(head -c 400 "$T/d.out")"; return 1; }
		fi
	fi
	crash_session_verifies "$W/d/parent-artifacts/auto-tune-session.json" || return 1
	[ "$(crash_reference)" = "$CRASH_REF" ] || { echo "another child:"; crash_reference; return 1; }
}
crash_sweep "derive-session (manifest, session)"

# ---- pypto state ----------------------------------------------------------------
pypto() { (cd "$W/proj" && "$TUNECTL_BIN" pypto state --op-dir custom/op "$@"); }
pypto_stage() { sed -n 's/^  "current_stage": \([0-9]*\),$/\1/p' "$W/proj/custom/op/.orchestrator_state.json"; }
crash_setup() {
	mkdir -p "$W/proj/custom"
	pypto init >/dev/null && echo "# spec" >"$W/proj/custom/op/SPEC.md"
}
crash_run() { pypto complete_stage --stage 1; }
crash_reference() {
	pypto_stage
	grep -A5 '"stage_status"' "$W/proj/custom/op/.orchestrator_state.json"
}
crash_recover() {
	pypto show >/dev/null 2>&1 || { echo "pypto state show fails after the kill"; return 1; }
	case $(pypto_stage) in
	1) crash_run >/dev/null 2>&1 || { echo "re-running complete_stage failed"; return 1; } ;;
	2) ;;
	*) echo "the state file is neither the old nor the new state"; return 1 ;;
	esac
	[ "$(crash_reference)" = "$CRASH_REF" ] || { echo "another state"; return 1; }
}
crash_sweep "pypto state complete_stage (SPEC freeze)"

echo "# crash consistency: $CRASH_KILLS kill points in $CRASH_SWEEPS sweeps"
finish
