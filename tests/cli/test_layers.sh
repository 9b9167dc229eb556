#!/usr/bin/env bash
# test_layers.sh - the library's layers are one-way (docs/HACKING.md,
# "Layers"): scripts/check-layers.py finds no include and no call that
# goes up a layer in src/, and it does find one planted in a scratch tree.
. "$(dirname "$0")/lib.sh"

CHECK=$TUNECTL_SRC/scripts/check-layers.py
case ${BUILD:-build} in
/*) BUILD_DIR=$BUILD ;;
*) BUILD_DIR=$TUNECTL_SRC/${BUILD:-build} ;;
esac

out=$(python3 "$CHECK" --root "$TUNECTL_SRC" "$BUILD_DIR" 2>&1)
rc=$?
err=$out
expect_rc 0 "no include or call in src/ goes up a layer"
expect_out "none goes up" "the checker says what it checked"

# A scratch tree with one upward include and one upward call: util may
# not include the session header, and may not call into the CLI.
mkdir -p "$T/src/util" "$T/src/cli" "$T/include/tunectl" \
    "$T/build/obj/src/util" "$T/build/obj/src/cli"
printf '#include "tunectl/session.h"\n' >"$T/include/tunectl/x.h"
cat >"$T/src/util/low.c" <<'C'
/* low.c */
#include "tunectl/buf.h"
#include "tunectl/session.h"
int tc_low(void);
int tc_high(void);

int
tc_low(void)
{
	return tc_high();
}
C
cat >"$T/src/cli/high.c" <<'C'
int tc_high(void);

int
tc_high(void)
{
	return 1;
}
C
# low.c's headers are not in the scratch tree: its object is built from
# the same function without them.
${CC:-cc} -c -o "$T/build/obj/src/util/low.o" -x c - <<'C'
int tc_low(void);
int tc_high(void);
int tc_low(void) { return tc_high(); }
C
${CC:-cc} -c -o "$T/build/obj/src/cli/high.o" "$T/src/cli/high.c"
out=$(python3 "$CHECK" --root "$T" "$T/build" 2>&1)
rc=$?
err=$out
expect_rc 1 "a planted upward dependency fails the check"
expect_out "src/util/low.c:3: includes tunectl/session.h: util (layer 1) may not use session (layer 6)" \
    "an upward include is named with its file and line"
expect_out "src/util/low.c:5: calls tc_high (src/cli/high.c): util (layer 1) may not use cli (layer 11)" \
    "an upward call is named with its file, line and callee"
expect_out "include/tunectl/x.h:1: header not in the layer table" \
    "a header outside the layer table is refused"

out=$(python3 "$CHECK" --root "$T" "$T/nothing" 2>&1)
rc=$?
expect_rc 2 "without object files the check fails instead of passing"

finish
