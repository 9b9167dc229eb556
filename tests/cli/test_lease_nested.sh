#!/usr/bin/env bash
# Nested leases: a command running under a lease starts the lease runner
# again.  With the exact markers the child inherits (no second lock, so
# no self-deadlock); partial or mismatching markers are refused with the
# reference's messages.
. "$(dirname "$0")/lib.sh"

j() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }
unset SUPERKERNEL_DEVICE_LEASE_HELD SUPERKERNEL_DEVICE_IDS SUPERKERNEL_DEVICE_LEASE_ROOT
L=$T/leases
N=$T/nested
mkdir -p "$N"

# The outer command runs the inner requests; its environment carries the
# outer lease's markers.
cat > "$T/outer.sh" <<SH
#!/bin/sh
inner() {	# inner NAME [env changes] -- device flags
	name=\$1; shift
	env "\$@" --lease-root "$L" --timeout-seconds 5 --lease-timeout-seconds 0.5 \\
	    --cwd "$N" --manifest-out "$N/\$name.json" -- /bin/sh -c 'env | grep ^SUPERKERNEL_DEVICE_IDS=' >/dev/null 2>&1
	echo "\$name \$?" >> "$N/rcs"
}
inner exact "$TUNECTL_BIN" lease run --device-id 1 --device-id 0
inner subset "$TUNECTL_BIN" lease run --device-id 0
inner superset "$TUNECTL_BIN" lease run --device-id 0 --device-id 1 --device-id 2
inner partial -u SUPERKERNEL_DEVICE_IDS "$TUNECTL_BIN" lease run --device-id 0 --device-id 1
inner held2 SUPERKERNEL_DEVICE_LEASE_HELD=yes "$TUNECTL_BIN" lease run --device-id 0 --device-id 1
inner otherroot SUPERKERNEL_DEVICE_LEASE_ROOT=$T/other "$TUNECTL_BIN" lease run --device-id 0 --device-id 1
SH
chmod +x "$T/outer.sh"

tc lease run --lease-root "$L" --device-id 0 --device-id 1 --timeout-seconds 60 --cwd "$N" \
    --manifest-out "$T/outer.json" -- "$T/outer.sh"
expect_rc 0 "the outer command finishes"
expect_eq "$(j "$T/outer.json" 'd["lease_mode"]')" "acquired" "the outer lease is acquired"

rc_of() { awk -v n="$1" '$1 == n {print $2}' "$N/rcs"; }
expect_eq "$(rc_of exact)" "0" "a child with the exact parent markers runs"
expect_eq "$(j "$N/exact.json" 'd["status"], d["lease_mode"], d["reason"]')" "('passed', 'inherited', None)" "exact markers: lease inherited"
expect_eq "$(cat "$N/exact.stdout.log")" "SUPERKERNEL_DEVICE_IDS=0,1" "the inherited markers reach the grandchild unchanged"
for c in "subset:SUPERKERNEL_DEVICE_IDS" "superset:SUPERKERNEL_DEVICE_IDS" "held2:SUPERKERNEL_DEVICE_LEASE_HELD" "otherroot:SUPERKERNEL_DEVICE_LEASE_ROOT"; do
	name=${c%%:*} marker=${c##*:}
	expect_eq "$(rc_of "$name")" "2" "$name request under a parent lease is blocked"
	expect_eq "$(j "$N/$name.json" 'd["reason"], d["command"], d["lease_mode"]')" "('parent lease context invalid: parent device lease marker mismatch: $marker', None, None)" "$name: mismatch of $marker"
done
expect_eq "$(rc_of partial)" "2" "partial parent markers are refused"
expect_eq "$(j "$N/partial.json" 'd["reason"]')" "parent lease context invalid: parent device lease markers are incomplete" "partial markers: incomplete"
expect_eq "$(j "$N/exact.json" 'd["lease_accounting"]["devices"], d["lease_accounting"]["wait_seconds"]')" "([], 0.0)" "an inherited lease takes no lock and waits for nothing"

finish
