#!/usr/bin/env bash
# make install into a staging DESTDIR with its own PREFIX: the library,
# its headers (the umbrella <tunectl/tunectl.h> and the generated
# <tunectl/version.h>) and tunectl.pc land under DESTDIR/PREFIX, and the
# example program of examples/libtunectl builds with pkg-config against
# that install and runs.
. "$(dirname "$0")/lib.sh"

SRC=$TUNECTL_SRC
D=$T/root
P=/opt/tunectl
version=$(cat "$SRC/VERSION")

# Every public header is part of the umbrella header.
missing=""
for h in "$SRC"/include/tunectl/*.h; do
	b=${h##*/}
	[ "$b" = tunectl.h ] && continue
	grep -q "^#include \"tunectl/$b\"" "$SRC/include/tunectl/tunectl.h" || missing="$missing $b"
done
check "tunectl.h includes every header of include/tunectl/" test -z "$missing"
[ -n "$missing" ] && echo "# not in tunectl.h:$missing"

# Everything is built already (make check); install only copies.
make -s --no-print-directory -C "$SRC" BUILD="${BUILD:-build}" SANITIZE="${SANITIZE:-0}" \
    install DESTDIR="$D" PREFIX="$P" >"$T/install.log" 2>&1
rc=$?
check "make install DESTDIR=... PREFIX=$P succeeds" test "$rc" = 0
[ "$rc" = 0 ] || tail -5 "$T/install.log" | sed 's/^/# /'
for f in lib/libtunectl.a lib/pkgconfig/tunectl.pc include/tunectl/tunectl.h \
    include/tunectl/version.h include/tunectl/json.h bin/tunectl; do
	check "installed $P/$f" test -f "$D$P/$f"
done
check "nothing is installed outside DESTDIR/PREFIX" test "$(ls "$D")" = opt
for f in host.sh tunelib.py intake_preparation s0_baseline stage_a_scope_selection \
    stage_o_option_tuning base_profile_source_mapping optional_experiments final_e2e_report; do
	check "tune's generic worker share/tunectl/workers/$f is installed" test -f "$D$P/share/tunectl/workers/$f"
done
check "and the workers stay executable" test -x "$D$P/share/tunectl/workers/stage_a_scope_selection"

export PKG_CONFIG_PATH=$D$P/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$D
expect_eq "$(pkg-config --modversion tunectl 2>&1)" "$version" "pkg-config reports the version of VERSION"
# shellcheck disable=SC2046 # word splitting folds pkg-config's spacing
expect_eq "$(echo $(pkg-config --cflags tunectl 2>&1))" "-I$D$P/include -D_GNU_SOURCE" \
    "pkg-config's cflags name the staged include directory (and the POSIX/GNU declarations the headers use)"
case " $(pkg-config --libs tunectl 2>&1) " in
*" -L$D$P/lib -ltunectl "*) ok=1 ;;
*) ok=0 ;;
esac
check "pkg-config's libs name the staged library" test "$ok" = 1

cp -R "$SRC/examples/libtunectl" "$T/example"
rm -f "$T/example/canon"
san=""
[ "${SANITIZE:-0}" = 1 ] && san="-fsanitize=address,undefined"
make -s --no-print-directory -C "$T/example" LDFLAGS="$san" >"$T/example.log" 2>&1
rc=$?
check "the example builds with pkg-config against the installed library" test "$rc" = 0
[ "$rc" = 0 ] || tail -8 "$T/example.log" | sed 's/^/# /'

printf '{"b": 1, "a": [true, 2.5], "c": "\\u00e9"}' | "$T/example/canon" >"$T/canon.out" 2>&1
check "the example runs" test $? = 0
expect_eq "$(sed -n 1p "$T/canon.out")" "libtunectl $version ($version)" "the example prints the version macros"
printf '{"b": 1, "a": [true, 2.5], "c": "\\u00e9"}' > "$T/doc.json"
want=$(python3 -c '
import hashlib, json, sys
d = json.load(open(sys.argv[1]))
c = json.dumps(d, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
print(c); print("sha256:" + hashlib.sha256(c.encode()).hexdigest())' "$T/doc.json")
expect_eq "$(sed -n '2,3p' "$T/canon.out")" "$want" "the example prints the canonical form and digest"

finish
