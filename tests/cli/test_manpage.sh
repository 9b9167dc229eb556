#!/usr/bin/env bash
# test_manpage.sh - docs/tunectl.1 renders without warnings and documents
# every command (and every subcommand in the usage text) that tunectl
# itself lists, so the man page cannot silently fall behind the code.
. "$(dirname "$0")/lib.sh"

PAGE=$TUNECTL_SRC/docs/tunectl.1

# The '.SS "tunectl WORDS ...' headings of a page, "\-" unescaped.
sections() {
	grep '^\.SS "tunectl ' "$1" | sed 's/\\-/-/g'
}

# has_section PAGE "cmd [sub]": is there a heading for it, followed by a
# space or the closing quote (so "run" is not satisfied by "run-next")?
has_section() {
	sections "$1" | grep -qE "^\.SS \"tunectl $2( |\")"
}

# The commands "tunectl help" lists, one per line.
tc help
help_rc=$rc
commands=$(printf '%s\n' "$out" | sed -n 's/^  \([a-z][a-z0-9-]*\)  *.*/\1/p')

# ---- (a) rendering ---------------------------------------------------------

check "the man page source is ASCII (other characters as roff escapes)" \
    bash -c '! LC_ALL=C grep -q "[^[:print:][:space:]]" "$1"' _ "$PAGE"

if ! command -v man >/dev/null 2>&1; then
	echo "ok $((_n + 1)) # SKIP man is not installed"
	_n=$((_n + 1))
else
	LC_ALL=C MANWIDTH=80 man --warnings -l "$PAGE" >"$T/man.out" 2>"$T/man.err"
	rc=$?
	out=$(head -c 400 "$T/man.out")
	err=$(cat "$T/man.err")
	check "man --warnings -l docs/tunectl.1 renders without warnings" \
	    test "$rc" = 0 -a ! -s "$T/man.err" -a -s "$T/man.out"
fi

# ---- (b) every command has a section ---------------------------------------

rc=$help_rc
expect_rc 0 "tunectl help exits 0"
check "tunectl help lists the commands (at least 20)" \
    test "$(printf '%s\n' "$commands" | grep -c .)" -ge 20

missing_commands() {	# missing_commands PAGE: the listed commands without a section
	local c miss=""
	for c in $commands; do
		has_section "$1" "$c" || miss="$miss $c"
	done
	printf '%s' "${miss# }"
}
expect_eq "$(missing_commands "$PAGE")" "" \
    "every command tunectl help lists has a .SS \"tunectl <command>\" section"

# The check itself must catch a missing section: drop the gate sections and
# the run section (but keep run-next's).
grep -v -e '^\.SS "tunectl gate ' -e '^\.SS "tunectl run \\-\\-' "$PAGE" >"$T/partial.1"
expect_eq "$(missing_commands "$T/partial.1")" "gate run" \
    "a page without the gate and run sections is reported as missing exactly them"

# Subcommands: the first word after the command in each usage line of
# "tunectl help COMMAND" ("tunectl gate promote|screen|option-trial ..."),
# alternatives split on "|"; placeholders (FILE, [..], --opt) are skipped.
missing_subs=""
unknown_subs=""
nsubs=0
for c in $commands; do
	tc help "$c"
	subs=$(printf '%s\n' "$out" |
	    sed -n "s/^\\(usage: \\|       \\)tunectl $c \\([a-z][a-z0-9|-]*\\)\\( .*\\)\\?\$/\\2/p" |
	    tr '|' '\n' | sort -u)
	for s in $subs; do
		nsubs=$((nsubs + 1))
		has_section "$PAGE" "$c $s" || missing_subs="$missing_subs $c:$s"
		tc help "$c" "$s"
		[ "$rc" = 0 ] || unknown_subs="$unknown_subs $c:$s"
	done
done
check "the usage texts name subcommands (at least 20)" test "$nsubs" -ge 20
expect_eq "${missing_subs# }" "" \
    "every subcommand in a command's usage has a .SS \"tunectl <command> <subcommand>\" section"
expect_eq "${unknown_subs# }" "" \
    "every subcommand in a command's usage is one the dispatcher knows ('tunectl help <command> <subcommand>')"

finish
