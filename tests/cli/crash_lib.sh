# crash_lib.sh - kill tunectl at every write boundary of a command and
# check what it leaves behind (source it after lib.sh).
#
# tc_write_atomic() crosses four fault points per file it writes, in this
# order: write, fsync, rename, dirsync (include/tunectl/fileio.h).  With
# TUNECTL_FAULT_POINT=P TUNECTL_FAULT_COUNT=N the Nth crossing of P in one
# process raises SIGKILL.  crash_sweep runs the command under test once per
# (P, N), each time on a fresh copy of the same starting state, raising N
# until the command runs to completion without reaching the Nth crossing;
# after every kill it calls the case's recovery check.
#
# A case defines three functions and calls crash_sweep:
#   crash_setup     build the starting state under $W (called once; $W is
#                   then snapshotted and restored at the same absolute path
#                   before every run, because sessions store absolute roots)
#   crash_run       run the command under test (one tunectl process; its
#                   stdout/stderr are captured)
#   crash_recover P N  after a kill at crossing N of P: assert the state is
#                   consistent and recover it; print the reason and return
#                   non-zero on a problem
# and may define crash_reference (prints the state a completed command
# leaves, in a form that does not depend on time; called once after an
# uncrashed run, kept in $CRASH_REF for crash_recover to compare with).
#
#   crash_sweep NAME       one TAP line per sweep: every kill recovered
#
# Totals for docs/hardening.md: CRASH_KILLS (kill points exercised) and
# CRASH_BOUNDARIES (write boundaries seen, per point) accumulate over the
# sweeps of a script.

# Fault points exist only in the test build of tunectl (TUNECTL_TEST_HOOKS):
# every tunectl this script runs is tunectl-test.
if [ ! -x "$TUNECTL_TEST_BIN" ]; then
	echo "crash_lib.sh: $TUNECTL_TEST_BIN is missing (make test-hooks)" >&2
	exit 1
fi
TUNECTL_BIN=$TUNECTL_TEST_BIN

CRASH_KILLS=0
CRASH_SWEEPS=0
CRASH_POINTS="write fsync rename dirsync"
# The work happens on a tmpfs when there is one: a SIGKILL is a process
# crash, not a power cut, so what counts is the order of the writes, and
# a disk's fsync latency would only make the sweep slow.
CRASH_DIR=$T
if [ "${TUNECTL_CRASH_TMPFS:-1}" = 1 ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then
	CRASH_DIR=$(mktemp -d /dev/shm/tunectl-crash.XXXXXX)
	trap 'rm -rf "$T" "$CRASH_DIR"' EXIT
fi
W=$CRASH_DIR/work
CRASH_SNAP=$CRASH_DIR/snapshot
# The sidecars of reference-policy sessions live under $W, so that every
# run starts from the same sidecar as from the same session.
export TUNECTL_STATE_DIR=$W/.state

crash_reference() { :; }
CRASH_REF=""

# Run the command under test with a fault armed; echoes nothing, returns
# the command's exit status (137 when the fault killed it).  The subshell
# keeps bash's "Killed" notice out of the log.
_crash_armed() {	# _crash_armed POINT N
	(
		export TUNECTL_FAULT_POINT=$1 TUNECTL_FAULT_COUNT=$2
		crash_run >"$T/crash.out" 2>"$T/crash.err"
	) 2>/dev/null
}

_crash_restore() {
	rm -rf "$W"
	cp -a "$CRASH_SNAP" "$W"
}

crash_sweep() {	# crash_sweep NAME
	local name=$1 p n rc kills=0 bounds="" problem=""
	rm -rf "$W" "$CRASH_SNAP"
	mkdir -p "$W"
	if ! crash_setup >"$T/crash-setup.log" 2>&1; then
		not_ok "$name: setup" "$(tail -5 "$T/crash-setup.log")"
		return
	fi
	cp -a "$W" "$CRASH_SNAP"
	# the reference: the command once without a fault
	_crash_restore
	if ! crash_run >"$T/crash.out" 2>"$T/crash.err"; then
		not_ok "$name: the command succeeds without a kill" \
		    "$(head -c 300 "$T/crash.out") $(head -c 300 "$T/crash.err")"
		return
	fi
	CRASH_REF=$(crash_reference)
	for p in $CRASH_POINTS; do
		n=1
		while [ -z "$problem" ]; do
			_crash_restore
			_crash_armed "$p" "$n"
			rc=$?
			if [ "$rc" -ne 137 ]; then
				# ran to completion: N-1 crossings of P
				if [ "$rc" -ne 0 ]; then
					problem="the command without a kill exited $rc: $(head -c 300 "$T/crash.out") $(head -c 300 "$T/crash.err")"
				elif [ "$(crash_reference)" != "$CRASH_REF" ]; then
					problem="the completed command left another state than the reference run"
				fi
				break
			fi
			kills=$((kills + 1))
			if ! crash_recover "$p" "$n" >"$T/crash-recover.log" 2>&1; then
				problem="after a kill at $p #$n: $(tail -5 "$T/crash-recover.log")"
				break
			fi
			n=$((n + 1))
			if [ "$n" -gt 500 ]; then
				problem="more than 500 crossings of $p"
				break
			fi
		done
		bounds="$bounds $p=$((n - 1))"
		[ -n "$problem" ] && break
	done
	CRASH_KILLS=$((CRASH_KILLS + kills))
	CRASH_SWEEPS=$((CRASH_SWEEPS + 1))
	if [ -z "$problem" ]; then
		ok "$name: recovers from each of its $kills kill points ($bounds )"
	else
		not_ok "$name: recovers from every kill point" "$problem"
	fi
}

# ---- shared assertions --------------------------------------------------------

# The session file parses and passes verify (old or new: never broken).
crash_session_verifies() {	# crash_session_verifies SESSION
	local o
	if ! o=$("$TUNECTL_BIN" verify --session "$1" 2>&1); then
		echo "verify failed: $o"
		return 1
	fi
	# every step the session shows sealed is bound by its sidecar: a
	# seal completes its sidecar record before it writes the session
	case $o in
	*"artifacts unbound"*) echo "a sealed step lost its binding: $o"; return 1 ;;
	esac
}

# What the sidecar of a reference-policy session holds: one line per
# record, its kind and the steps its manifests bind.
crash_sidecar() {	# crash_sidecar SESSION
	local f
	f=$(sidecar_of "$1")
	[ -f "$f" ] || { echo "no sidecar"; return 0; }
	python3 -c 'import json, sys
for r in json.load(open(sys.argv[1]))["records"]:
    print("sidecar", r["seq"], r["kind"], " ".join(m["step_id"] for m in r.get("manifests", [])))' "$f"
}

# No temp file of the atomic writer is left where a reader could take it
# for evidence: stray ".<name>.<hex>.tmp" files may remain after a kill,
# but never under a name without the leading dot.
crash_no_partial_files() {	# crash_no_partial_files DIR
	local f
	f=$(find "$1" -name '*.tmp' ! -name '.*' 2>/dev/null | head -1)
	if [ -n "$f" ]; then
		echo "a temp file without the hidden prefix: $f"
		return 1
	fi
}

# The steps' states and outcomes, one line per step ("id state outcome"),
# read from the pretty JSON tunectl writes (keys sorted, so within a step
# outcome_status and state come before step_id).  No Python: this runs
# several times per kill point.
crash_steps() {	# crash_steps SESSION
	awk '
	/^      "outcome_status": / { o = $2 }
	/^      "state": / { st = $2 }
	/^      "step_id": / { gsub(/[",]/, "", o); gsub(/[",]/, "", st);
		id = $2; gsub(/[",]/, "", id); print id, st, (o == "" ? "None" : o);
		o = ""; st = "" }' "$1"
}

# The state of one step ("pending", "sealed").
crash_step_state() {	# crash_step_state SESSION STEP_ID
	crash_steps "$1" | awk -v id="$2" '$1 == id { print $2 }'
}
