#!/usr/bin/env bash
# test_concurrency.sh - N processes released at the same instant race for
# the same thing, ROUNDS times: to seal one step (the same handoff, and
# competing handoffs), to run-next one session, to take one device lease,
# to write one lease manifest, to apply one PyPTO action, to append to
# one item ledger.  Each time exactly one wins (or, for appends, every
# writer's change is kept), the others fail with a clear message, nothing
# is lost or duplicated, and readers running alongside never see a torn
# document.
#
# The short form (make check) runs N=6 for 2 rounds; TUNECTL_STRESS=1
# (make stress) runs N=12 for 20 rounds.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/controller_fixtures.sh"

unset SUPERKERNEL_DEVICE_LEASE_HELD SUPERKERNEL_DEVICE_IDS SUPERKERNEL_DEVICE_LEASE_ROOT
if [ "${TUNECTL_STRESS:-0}" = 1 ]; then
	N=12 ROUNDS=20
else
	N=6 ROUNDS=2
fi
HOST="$TUNECTL_SRC/tests/fixtures/hosts/fake_host.py"
RACES=0

# race DIR CMD...: start N copies of CMD (with $i = 1..N in the
# environment as RACER), all blocked on a start file, then release them
# together and wait.  Each racer's exit code, stdout and stderr land in
# DIR/<i>.rc, .out, .err.
race() {
	local dir=$1 i pids=()
	shift
	mkdir -p "$dir"
	rm -f "$dir/go"
	for ((i = 1; i <= N; i++)); do
		(
			while [ ! -e "$dir/go" ]; do sleep 0.005; done
			RACER=$i "$@" >"$dir/$i.out" 2>"$dir/$i.err"
			echo $? >"$dir/$i.rc"
		) &
		pids+=($!)
	done
	sleep 0.1
	touch "$dir/go"
	wait "${pids[@]}"
	RACES=$((RACES + 1))
}
winners() { grep -lx 0 "$1"/*.rc 2>/dev/null | wc -l; }
# every loser exited 1 and said why (one of the accepted messages)
losers_explain() {	# losers_explain DIR REGEX
	local f rc
	for f in "$1"/*.rc; do
		rc=$(cat "$f")
		[ "$rc" = 0 ] && continue
		if [ "$rc" != 1 ] && [ "$rc" != 2 ]; then
			echo "# racer ${f%.rc} exited $rc" >&2
			return 1
		fi
		if ! grep -qE "$2" "${f%.rc}.out" "${f%.rc}.err"; then
			echo "# racer ${f%.rc}: $(cat "${f%.rc}.out" "${f%.rc}.err" | head -c 300)" >&2
			return 1
		fi
	done
}

# ---- seal: N copies of the same handoff --------------------------------------
all_ok=1
for ((r = 1; r <= ROUNDS; r++)); do
	ctl_init "$T/seal$r" none >/dev/null 2>&1
	ctl_result "$T/seal$r/intake.json"
	# a reader polls the session while the writers race
	( for _ in $(seq 1 40); do "$TUNECTL_BIN" next --session "$S" >/dev/null 2>&1 || echo torn; done ) \
	    >"$T/seal$r/reader" &
	reader=$!
	race "$T/seal$r/race" "$TUNECTL_BIN" seal --session "$S" --result "$T/seal$r/intake.json"
	wait "$reader"
	w=$(winners "$T/seal$r/race")
	if [ "$w" != 1 ]; then
		echo "# round $r: $w racers sealed the same step" >&2
		all_ok=0
	fi
	losers_explain "$T/seal$r/race" "phase result step_id does not match the current step|current step is already sealed" || all_ok=0
	[ -s "$T/seal$r/reader" ] && { echo "# round $r: a reader saw a torn session" >&2; all_ok=0; }
	"$TUNECTL_BIN" verify --session "$S" >/dev/null 2>&1 || { echo "# round $r: verify fails" >&2; all_ok=0; }
	n=$(find "$R/phases" -name phase-result.json | wc -l)
	[ "$n" = 1 ] || { echo "# round $r: $n sealed scenes" >&2; all_ok=0; }
	[ "$(find "$R" -name '*.tmp' | wc -l)" = 0 ] || { echo "# round $r: temp files left" >&2; all_ok=0; }
done
check "racing seals of one handoff: exactly one wins, the others are refused, one scene, readers never see a torn session" test "$all_ok" = 1

# ---- seal: competing handoffs (succeeded vs blocked) ---------------------------
all_ok=1
for ((r = 1; r <= ROUNDS; r++)); do
	ctl_init "$T/comp$r" none >/dev/null 2>&1
	ctl_result "$T/comp$r/ok.json"
	ctl_result "$T/comp$r/blocked.json" blocked
	seal_one() {
		local f=ok
		[ $((RACER % 2)) = 0 ] && f=blocked
		"$TUNECTL_BIN" seal --session "$S" --result "$T/comp$r/$f.json" && echo "winner $f" >"$T/comp$r/winner"
	}
	race "$T/comp$r/race" seal_one
	w=$(winners "$T/comp$r/race")
	[ "$w" = 1 ] || { echo "# round $r: $w winners" >&2; all_ok=0; }
	losers_explain "$T/comp$r/race" "phase result step_id does not match the current step|current step is already sealed" || all_ok=0
	want=succeeded
	grep -q blocked "$T/comp$r/winner" && want=blocked
	got=$(jpy "$S" 'd["steps"][0]["outcome_status"]')
	[ "$got" = "$want" ] || { echo "# round $r: sealed $got, the winner handed in $want" >&2; all_ok=0; }
	"$TUNECTL_BIN" verify --session "$S" >/dev/null 2>&1 || { echo "# round $r: verify fails" >&2; all_ok=0; }
done
check "competing handoffs for one step: the one that won is the one sealed, the rest are refused" test "$all_ok" = 1

# ---- run-next: N controllers on one session ------------------------------------
cat >"$T/slow_host.sh" <<EOF
#!/bin/sh
sleep 1.5
exec "$HOST" ok "\$@"
EOF
chmod +x "$T/slow_host.sh"
printf '["%s"]\n' "$T/slow_host.sh" >"$T/slow.json"
all_ok=1
for ((r = 1; r <= ROUNDS; r++)); do
	D=$T/rn$r
	"$TUNECTL_BIN" init --session "$D/s.json" --artifact-root "$D" --session-id "$CTL_ID" \
	    --optional-mode none >/dev/null
	race "$D/race" "$TUNECTL_BIN" run-next --session "$D/s.json" --runner-command-json "$T/slow.json"
	w=$(winners "$D/race")
	[ "$w" = 1 ] || { echo "# round $r: $w run-next won" >&2; all_ok=0; }
	losers_explain "$D/race" "another run-next is already running for session" || all_ok=0
	n=$(ls -d "$D"/dispatches/*-attempt-* 2>/dev/null | wc -l)
	[ "$n" = 1 ] || { echo "# round $r: $n attempt directories" >&2; all_ok=0; }
	[ -f "$D/dispatches/intake-preparation-attempt-001/dispatch-receipt.json" ] ||
	    { echo "# round $r: the winner's receipt is missing" >&2; all_ok=0; }
	"$TUNECTL_BIN" verify --session "$D/s.json" >/dev/null 2>&1 || { echo "# round $r: verify fails" >&2; all_ok=0; }
done
check "racing run-next on one session: one dispatches, the others are refused, one attempt, one receipt" test "$all_ok" = 1

# ---- leases: N commands for one device ------------------------------------------
# The holder runs; with a short lease timeout the others are blocked.
all_ok=1
for ((r = 1; r <= ROUNDS; r++)); do
	D=$T/lease$r
	mkdir -p "$D/m" "$D/cwd"
	take() {
		"$TUNECTL_BIN" lease run --lease-root "$D/root" --device-id 0 --timeout-seconds 20 \
		    --lease-timeout-seconds 0.5 --cwd "$D/cwd" --command-id "r$RACER" \
		    --manifest-out "$D/m/$RACER.json" -- /bin/sh -c 'mkdir busy || exit 9; sleep 1.5; rmdir busy'
	}
	race "$D/race" take
	w=$(winners "$D/race")
	[ "$w" = 1 ] || { echo "# round $r: $w commands held device 0" >&2; all_ok=0; }
	for ((i = 1; i <= N; i++)); do
		rc=$(cat "$D/race/$i.rc")
		[ -f "$D/m/$i.json" ] || { echo "# round $r: racer $i wrote no manifest" >&2; all_ok=0; continue; }
		if [ "$rc" = 2 ]; then
			grep -q '"reason": "timed out acquiring NPU device lease 0"' "$D/m/$i.json" ||
			    { echo "# round $r: blocked manifest $i lacks its reason" >&2; all_ok=0; }
		elif [ "$rc" != 0 ]; then
			echo "# round $r: racer $i exited $rc" >&2
			all_ok=0
		fi
	done
done
check "racing for one device lease: one command holds it, every other is blocked with a manifest saying so" test "$all_ok" = 1

# With a long lease timeout they all run, one at a time: no overlap, no
# manifest lost.
D=$T/lease-serial
mkdir -p "$D/m" "$D/cwd"
take_all() {
	"$TUNECTL_BIN" lease run --lease-root "$D/root" --device-id 0 --timeout-seconds 20 \
	    --lease-timeout-seconds 30 --cwd "$D/cwd" --command-id "r$RACER" \
	    --manifest-out "$D/m/$RACER.json" -- /bin/sh -c 'mkdir busy || exit 9; sleep 0.05; rmdir busy'
}
race "$D/race" take_all
check "serialised lease holders never overlap and every one writes its manifest" \
    test "$(winners "$D/race")" = "$N" -a "$(ls "$D"/m/*.json | wc -l)" = "$N"

# N commands, one manifest path: exactly one manifest, never overwritten.
D=$T/lease-same
mkdir -p "$D/cwd"
take_same() {
	"$TUNECTL_BIN" lease run --lease-root "$D/root$RACER" --device-id 0 --timeout-seconds 20 \
	    --cwd "$D/cwd" --command-id "r$RACER" --manifest-out "$D/manifest.json" -- /bin/echo "racer $RACER"
}
race "$D/race" take_same
w=$(winners "$D/race")
grep -q '"command_id": "r' "$D/manifest.json" 2>/dev/null
check "racers for one manifest path: exactly one manifest is written and the rest are refused by name" \
    test "$w" = 1 -a -f "$D/manifest.json"
check "the losers for one manifest path say it exists" \
    losers_explain "$D/race" "File exists|already exists"

# ---- pypto state: N processes apply one action ------------------------------------
all_ok=1
for ((r = 1; r <= ROUNDS; r++)); do
	D=$T/py$r
	mkdir -p "$D/custom"
	(cd "$D" && "$TUNECTL_BIN" pypto state --op-dir custom/op init >/dev/null)
	echo "# spec" >"$D/custom/op/SPEC.md"
	apply() { cd "$D" && "$TUNECTL_BIN" pypto state --op-dir custom/op complete_stage --stage 1; }
	race "$D/race" apply
	w=$(winners "$D/race")
	[ "$w" = 1 ] || { echo "# round $r: $w racers completed stage 1" >&2; all_ok=0; }
	losers_explain "$D/race" "cannot complete stage 1: current_stage is 2" || all_ok=0
	stage=$(jpy "$D/custom/op/.orchestrator_state.json" 'd["current_stage"]')
	[ "$stage" = 2 ] || { echo "# round $r: current_stage $stage" >&2; all_ok=0; }
done
check "racing PyPTO actions: one applies, the others are refused by the state machine" test "$all_ok" = 1

# ---- pypto items: N writers append one item each: no write lost --------------------
D=$T/items
"$TUNECTL_BIN" pypto items init --ledger "$D/l.json" >/dev/null
"$TUNECTL_BIN" pypto items source --ledger "$D/l.json" --kind general_method --count "$N" --ref m.md >/dev/null
add() {
	"$TUNECTL_BIN" pypto items add --ledger "$D/l.json" --item "{\"item_id\": \"general-$RACER\", \"source_kind\": \"general_method\", \"source_ref\": \"m.md#$RACER\", \"case_scope\": [\"p0\"], \"applicability\": {\"status\": \"applicable\", \"basis\": \"b\"}, \"expected_metric\": \"m\"}"
}
race "$D/race" add
n=$(jpy "$D/l.json" 'len(d["items"])')
seqs=$(jpy "$D/l.json" 'len({e["seq"] for i in d["items"] for e in i["history"]})')
check "$N concurrent item-ledger appends: all $N items kept, every history sequence number distinct" \
    test "$(winners "$D/race")" = "$N" -a "$n" = "$N" -a "$seqs" = "$N"

echo "# concurrency: $RACES races of $N processes"
finish
