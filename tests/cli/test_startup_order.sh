#!/usr/bin/env bash
# test_startup_order.sh - the code a controller command runs is gathered
# at the front of build/tunectl's text (scripts/startup-order.ld, built
# with -ffunction-sections; docs/hardening.md, "Start-up, 2026-12-07"):
# the section is there, holds the functions verify, status, resume and
# next run (tunectl's and libc's) and not those of the commands they do
# not run; their objects' read-only data is at the front of .rodata.  Placement only: every behaviour is tested where it is.
. "$(dirname "$0")/lib.sh"

BIN=${TUNECTL_BIN:-$TUNECTL_SRC/${BUILD:-build}/tunectl}
if ! command -v readelf >/dev/null 2>&1 || ! command -v nm >/dev/null 2>&1; then
	skip "readelf or nm (binutils) is not installed"
	finish
	exit
fi

# section NAME: "ADDRESS SIZE" (hex) of the program's section NAME
section() { readelf -SW "$BIN" | awk -v n="$1" '$2 == n { print $4, $6 }'; }

sect=$(section .text.tc_start)
check "the static PIE has the start-up section .text.tc_start" test -n "$sect"
from=$((16#${sect% *}))
to=$((from + 16#${sect#* }))
echo "# .text.tc_start: $((to - from)) bytes"
check "the start-up section is smaller than 512 KiB" test "$((to - from))" -lt 524288

# inside NAME: the function NAME lies within the start-up section
inside() {
	local a
	a=$(nm "$BIN" | awk -v n="$1" '$3 == n && $2 ~ /^[Tt]$/ { print $1; exit }')
	[ -n "$a" ] && [ "$((16#$a))" -ge "$from" ] && [ "$((16#$a))" -lt "$to" ]
}
# libc's only where it is linked in (the static PIE; not the sanitizer
# and valgrind builds' dynamic one)
libc=
readelf -lW "$BIN" | grep -q INTERP || libc="__libc_start_main _dl_relocate_static_pie __libc_malloc"
for fn in main tc_cli_run tc_verify_loaded tc_json__read tc_sidecar_checked_manifest \
    tc_report_final_render tc_resume_session tc_session_next_step $libc; do
	check "$fn is in the start-up section" inside "$fn"
done
for fn in tc_pypto_render_report tc_analysis_fusion tc_tune_spec_parse; do
	check "$fn (a command none of them runs) is not" eval "! inside $fn"
done

# and their read-only data at the front of .rodata
ro=$(section .rodata.tc_start)
check "the static PIE has the start-up read-only data .rodata.tc_start" test -n "$ro"
rodata=$(section .rodata)
check ".rodata.tc_start comes before .rodata" test "$((16#${ro% *}))" -lt "$((16#${rodata% *}))"
check ".rodata.tc_start is not empty" test "$((16#${ro#* }))" -gt 0
finish
