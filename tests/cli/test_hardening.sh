#!/usr/bin/env bash
# test_hardening.sh - build/tunectl is built hardened (issue 33): a PIE
# with full RELRO and BIND_NOW, the stack protector, stack clash probes
# and _FORTIFY_SOURCE in tunectl's own code.  Runs hardening-check
# (devscripts; a TAP skip where it is missing) and, for what
# hardening-check cannot see in a static PIE (it looks for
# __stack_chk_fail and the *_chk functions among undefined dynamic
# symbols, which a static program has none of, and takes a PIE without a
# PT_PHDR for a shared library), checks the same from the program's
# headers, symbols, debug information and code; and that a static PIE
# links nothing that would make its start-up pay for libcrypto's tables.  docs/hardening.md, "The
# binary", says why tunectl is a static PIE.
. "$(dirname "$0")/lib.sh"

BIN=${TUNECTL_BIN:-$TUNECTL_SRC/${BUILD:-build}/tunectl}
if [ "${SANITIZE:-0}" = 1 ] || [ "${VALGRIND:-0}" = 1 ]; then
	skip "the sanitizer and valgrind builds are not the shipped binary"
	finish
	exit
fi
if ! command -v hardening-check >/dev/null 2>&1 || ! command -v objdump >/dev/null 2>&1; then
	skip "hardening-check (devscripts) or objdump (binutils) is not installed"
	finish
	exit
fi

# Control flow integrity (IBT/SHSTK) needs every object linked to carry
# the property, Debian bookworm's C start-up files included, and they do
# not: no program on bookworm passes that line (/bin/true neither).
report=$(hardening-check --nocfprotection "$BIN" 2>&1)
hc_rc=$?
echo "$report" | sed 's/^/# /'
line() { echo "$report" | grep -F "$1"; }
static=0
readelf -lW "$BIN" | grep -q INTERP || static=1

check "hardening-check: read-only relocations (RELRO)" \
    grep -q 'yes' <<<"$(line 'Read-only relocations')"
check "hardening-check: immediate binding (BIND_NOW)" \
    grep -q 'yes' <<<"$(line 'Immediate binding')"
if [ "$static" = 0 ]; then
	# a dynamic PIE (STATIC=0): hardening-check sees everything
	expect_eq "$hc_rc" 0 "hardening-check passes the dynamic PIE"
else
	check "hardening-check: the static PIE is position independent (ELF type DYN)" \
	    grep -qE 'yes|regular shared library' <<<"$(line 'Position Independent Executable')"
fi

# What hardening-check may misread in a static program, checked directly.
check "the program is a PIE (ELF type DYN, DF_1_PIE)" \
    sh -c "readelf -hW '$BIN' | grep -q 'DYN ' && readelf -dW '$BIN' | grep -q 'Flags: .*PIE'"
check "full RELRO: GNU_RELRO segment and BIND_NOW" \
    sh -c "readelf -lW '$BIN' | grep -q GNU_RELRO && readelf -dW '$BIN' | grep -qE 'BIND_NOW|Flags: .*NOW'"
producers=$(readelf --debug-dump=info "$BIN" 2>/dev/null | grep 'DW_AT_producer' | grep 'GNU C17')
check "tunectl's own code has debug information naming its compile flags" test -n "$producers"
check "every C17 unit is compiled with -fstack-protector-strong" \
    test -z "$(grep -v -- '-fstack-protector-strong' <<<"$producers")"
check "every C17 unit is compiled with -fstack-clash-protection" \
    test -z "$(grep -v -- '-fstack-clash-protection' <<<"$producers")"
check "every C17 unit is compiled position independent (-fPIE)" \
    test -z "$(grep -v -- '-fPIE' <<<"$producers")"
# who calls what, in tunectl's own functions (tc_*)
calls=$(objdump -d --no-show-raw-insn "$BIN" | awk '
	/^[0-9a-f]+ <tc_/ { f = 1; next }
	/^[0-9a-f]+ </ { f = 0 }
	f && /call/ && /<__stack_chk_fail/ { sp++ }
	f && /call/ && /<__[a-z0-9_]+_chk(@plt)?>/ && !/__stack_chk_fail/ { fo++ }
	END { print sp + 0, fo + 0 }')
echo "# tc_* calls: __stack_chk_fail ${calls% *}, fortified *_chk ${calls#* }"
check "the stack protector guards tunectl's functions (calls to __stack_chk_fail)" test "${calls% *}" -gt 0
check "_FORTIFY_SOURCE is in effect (tunectl's functions call the checked *_chk variants)" test "${calls#* }" -gt 0

# What the hardening costs at each start: a static PIE relocates every
# pointer in its data (docs/hardening.md, "The binary").  OpenSSL's EVP,
# PEM and ASN.1 functions brought ~16,600 of the 20,700 it had; keys are
# libsodium's now, and SHA-256 is tunectl's own: no libcrypto at all, so
# no CPU probe of its runs before main.
if [ "$static" = 1 ]; then
	relocs=$(readelf -rW "$BIN" | grep -c 'R_X86_64_\|R_AARCH64_')
	echo "# relocations processed at start: $relocs"
	check "no OpenSSL EVP, PEM or ASN.1 code is linked into the static PIE" \
	    test -z "$(nm "$BIN" | grep -E ' [Tt] (EVP_PKEY_|PEM_read_bio|ASN1_item_d2i|OSSL_PROVIDER_)' | head -3)"
	check "the static PIE relocates fewer than 8,000 pointers at start" test "$relocs" -lt 8000
	check "no libcrypto is linked (its CPU probe would run before main)" \
	    test -z "$(nm "$BIN" | grep -E ' [Tt] (OPENSSL_cpuid_setup|OPENSSL_ia32_cpuid|SHA256_Init)$' | head -3)"
fi
finish
