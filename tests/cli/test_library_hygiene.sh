#!/usr/bin/env bash
# What libtunectl.a exports and carries: every symbol it defines for other
# files starts with tc_ (internal ones tc_<module>__), and the test hooks
# (fault points, the PyPTO clock override) are in the test build only:
# the production library and binary read none of their variables, while
# tunectl-test does and is killed at an armed fault point.
. "$(dirname "$0")/lib.sh"

B=$TUNECTL_SRC/${BUILD:-build}
LIB=$B/libtunectl.a

nm -g --defined-only "$LIB" 2>/dev/null | awk 'NF == 3 { print $3 }' | sort -u > "$T/exported"
check "libtunectl.a exports symbols" test -s "$T/exported"
# AddressSanitizer adds one __odr_asan.NAME marker per global (its
# one-definition-rule check); those are the compiler's, not the library's.
grep -v -e '^tc_' -e '^__odr_asan\.tc_' "$T/exported" > "$T/unprefixed"
check "every symbol libtunectl.a exports starts with tc_" test ! -s "$T/unprefixed"
head -5 "$T/unprefixed" | sed 's/^/# not tc_: /'

for hook in TUNECTL_FAULT_POINT TUNECTL_FAULT_COUNT TUNECTL_PYPTO_NOW; do
	check "the production library does not read $hook" test "$(grep -c -a "$hook" "$LIB")" = 0
	check "the production tunectl does not read $hook" test "$(grep -c -a "$hook" "$TUNECTL_BIN")" = 0
	check "tunectl-test reads $hook" grep -q -a "$hook" "$TUNECTL_TEST_BIN"
done

# Behaviour: the first atomic write of keygen crosses "write".
TUNECTL_FAULT_POINT=write "$TUNECTL_BIN" keygen --out "$T/prod.key" >/dev/null 2>&1
check "an armed fault point does nothing to the production tunectl" test $? = 0
TUNECTL_FAULT_POINT=write "$TUNECTL_TEST_BIN" keygen --out "$T/test.key" >/dev/null 2>&1
check "an armed fault point kills tunectl-test (SIGKILL)" test $? = 137

finish
