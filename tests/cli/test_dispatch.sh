#!/usr/bin/env bash
# test_dispatch.sh - the one command dispatcher: help requests, missing and
# unknown subcommands answer alike for every command that has subcommands,
# and refusals come in the shape of the command's reference.
. "$(dirname "$0")/lib.sh"

# The commands with subcommands, and one subcommand each.
pairs="bench:run gate:analyze json:canonical lease:run ledger:merge
pypto:state report:html skills:list support:roles"

for p in $pairs; do
	c=${p%%:*}
	s=${p#*:}
	tc "$c" help
	expect_rc 0 "'$c help' exits 0"
	expect_out "usage: tunectl $c" "'$c help' prints the usage on stdout"
	tc "$c" --help
	expect_rc 0 "'$c --help' exits 0"
	help_out=$out
	tc help "$c"
	expect_eq "$out" "$help_out" "'help $c' prints what '$c --help' prints"
	tc "$c" frobnicate
	expect_rc 2 "'$c frobnicate' is a usage error"
	expect_err "usage: tunectl $c" "'$c frobnicate' prints the usage on stderr"
	expect_err "tunectl $c: error: argument " "'$c frobnicate' says which argument"
	expect_err "invalid choice: 'frobnicate' (choose from " "'$c frobnicate' names the choice"
	expect_err "'$s'" "'$c frobnicate' lists $s among the choices"
	tc "$c"
	expect_rc 2 "'$c' without a subcommand is a usage error"
	expect_err "tunectl $c: error: " "'$c' without a subcommand says so"
done

# argparse's words where the reference names the subcommand "command".
tc ledger
expect_err "tunectl ledger: error: the following arguments are required: command" \
    "ledger without a subcommand is experiment_ledger.py's error"
tc ledger frob
expect_err "argument command: invalid choice: 'frob' (choose from 'validate', 'merge', 'migrate', 'final-e2e')" \
    "ledger lists its subcommands in order"
tc skills
expect_err "tunectl skills: error: a subcommand is required: list, show, install" \
    "skills without a subcommand lists them"

# A hidden subcommand is dispatched but never offered.
tc lease frob
check "lease does not offer slurm-step" bash -c '! grep -q slurm-step <<<"$1"' _ "$err"
tc lease slurm-step --help
expect_rc 0 "lease slurm-step still answers --help"

# help walks down to a subcommand; one that speaks as its parent shows the
# parent's usage.
tc help ledger merge
expect_rc 0 "'help ledger merge' exits 0"
expect_out "usage: tunectl ledger merge --ledger" "'help ledger merge' prints merge's usage"
help_out=$out
tc ledger merge --help
expect_eq "$out" "$help_out" "'ledger merge --help' prints what 'help ledger merge' prints"
tc help lease run
expect_out "usage: tunectl lease run --lease-root" "'help lease run' prints the lease usage"
tc help ledger frob
expect_rc 2 "'help ledger frob' is a usage error"
expect_err "'ledger frob' is not a tunectl command" "'help ledger frob' names it"

# argparse: -h anywhere before "--" wins in the gate subcommands.
tc gate analyze --bogus --help
expect_rc 0 "'gate analyze --bogus --help' prints the help"
expect_out "Reference flags (analyze_performance.py)" "and the help text follows the usage"

# The refusal shapes: the controller's one line, the ledger tool's sorted
# indent-2 object.
tc next --session "$T/missing.json"
expect_rc 1 "next on a missing session is refused"
expect_eq "$out" "{\"valid\": false, \"errors\": [\"cannot load session: [Errno 2] No such file or directory: '$T/missing.json'\"]}" \
    "the controller's refusal is one line, valid first"
tc ledger migrate --ledger "$T/missing.json" --output "$T/out.json"
expect_rc 1 "migrating a missing ledger is refused"
expect_eq "$out" "{
  \"errors\": [
    \"migrate failed: FileNotFoundError: [Errno 2] No such file or directory: '$T/missing.json'\"
  ],
  \"valid\": false
}" "the ledger tool's refusal is sorted and indented"

finish
