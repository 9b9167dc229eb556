#!/usr/bin/env bash
# The program shell: version, help, unknown commands and options, exit codes.
. "$(dirname "$0")/lib.sh"

tc --version
expect_rc 0 "--version exits 0"
expect_out "tunectl $(cat "$TUNECTL_SRC/VERSION")" "--version prints the VERSION file's version"

tc version
expect_rc 0 "version command exits 0"

tc
expect_rc 2 "no command is a usage error"
expect_err "usage: tunectl" "no command prints the overview on stderr"

tc --help
expect_rc 0 "--help exits 0"
expect_out "json" "--help lists the json command"

tc help
expect_rc 0 "help lists the commands"
expect_out "sha256" "help lists the sha256 command"

tc help json
expect_rc 0 "help COMMAND shows one command"
expect_out "usage: tunectl json canonical" "help json prints its usage"

tc help no-such-command
expect_rc 2 "help of an unknown command is a usage error"
expect_err "'no-such-command' is not a tunectl command" "help names the unknown command"

tc frobnicate
expect_rc 2 "an unknown command exits 2"
expect_err "'frobnicate' is not a tunectl command" "an unknown command is named on stderr"

# Every registered command answers --help with its usage and exit 0.
tc help
for cmd in $(printf '%s\n' "$out" | awk '/^  [a-z]/ {print $1}'); do
	tc "$cmd" --help
	expect_rc 0 "$cmd --help exits 0"
	expect_out "usage: tunectl" "$cmd --help prints a usage line"
done

tc demo --help
expect_rc 0 "demo --help exits 0"
expect_out "Run a complete evidence-gated SuperKernel tuning session" "demo --help says what the demo does"
expect_out "in turn (bench ab: A B A B ...)" "demo --help says its comparisons interleave their runs"
for flag in --artifact-root --optional-mode --workload --profile --resume --no-html --quiet --pipeline; do
	expect_out "  $flag " "demo --help describes $flag"
done

finish
