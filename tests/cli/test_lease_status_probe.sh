#!/usr/bin/env bash
# A waiter's queue ticket is never visible unlocked.  "lease status"
# probes each ticket with a non-blocking shared flock; a probe that landed
# between a waiter creating its ticket and locking it made the waiter's
# own flock fail, and the waiter exited 1 with no manifest and its command
# never run (the lost w4 of test_lease_contention.sh).  An LD_PRELOAD shim
# widens that moment (the waiter pauses before its non-blocking exclusive
# flock; a status probe holds its shared flock a while) so that the race
# is hit every round if it exists.
. "$(dirname "$0")/lib.sh"

unset SUPERKERNEL_DEVICE_LEASE_HELD SUPERKERNEL_DEVICE_IDS SUPERKERNEL_DEVICE_LEASE_ROOT
cat > "$T/shim.c" <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sys/file.h>
#include <unistd.h>

int
flock(int fd, int op)
{
	static int (*real)(int, int);
	int rc;

	if (real == NULL)
		real = (int (*)(int, int))dlsym(RTLD_NEXT, "flock");
	if (op == (LOCK_EX | LOCK_NB))
		usleep(5000);
	rc = real(fd, op);
	if (rc == 0 && op == (LOCK_SH | LOCK_NB))
		usleep(20000);
	return rc;
}
C
if ! "${CC:-cc}" -shared -fPIC -o "$T/shim.so" "$T/shim.c" -ldl 2>"$T/cc.log"; then
	echo "ok 1 # SKIP no C compiler to build the flock shim"
	echo "1..1"
	exit 0
fi
# The sanitizer build must not insist on coming first in the library list.
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0
shim=$T/shim.so
lost=0
for round in 1 2 3; do
	F=$T/r$round
	mkdir -p "$F"
	mkfifo "$F/gate"
	"$TUNECTL_BIN" lease run --lease-root "$F/leases" --device-id 0 --timeout-seconds 60 \
	    --cwd "$F" --manifest-out "$F/holder.json" -- /bin/sh -c "read x < '$F/gate'" \
	    >/dev/null 2>&1 &
	holder=$!
	sleep 0.3
	probes=()
	for q in 1 2 3; do
		( for i in $(seq 60); do
			LD_PRELOAD=$shim "$TUNECTL_BIN" lease status --lease-root "$F/leases" >/dev/null 2>&1
		done ) &
		probes+=($!)
	done
	waiters=()
	for w in $(seq 8); do
		( LD_PRELOAD=$shim "$TUNECTL_BIN" lease run --lease-root "$F/leases" --device-id 0 \
		    --timeout-seconds 60 --cwd "$F" --manifest-out "$F/w$w.json" -- /bin/true \
		    >"$F/w$w.out" 2>&1
		  echo "$?" > "$F/w$w.rc" ) &
		waiters+=($!)
	done
	wait_for 60 "the status probes of round $round" "${probes[@]}"
	open_gate "$F/gate" "the holder of round $round"
	wait_for 120 "the holder and waiters of round $round" "$holder" "${waiters[@]}"
	for w in $(seq 8); do
		if [ ! -f "$F/w$w.json" ]; then
			lost=$((lost + 1))
			echo "# round $round waiter w$w: exit $(cat "$F/w$w.rc" 2>/dev/null || echo ?):" \
			    "$(head -c 300 "$F/w$w.out" 2>/dev/null)"
		fi
	done
done
check "every waiter queued while lease status probed wrote its manifest ($lost lost)" test "$lost" = 0
check "no ticket draft is left in a queue" test -z "$(find "$T"/r*/leases -name '.ticket-draft' 2>/dev/null)"
finish
