# tunectl_shim.sh - sourced by the reference-named tools beside it (never
# run on its own).  Finds the tunectl program and makes sure it has the
# command a tool maps to, so a tool whose implementation has not landed
# says so and fails instead of pretending to succeed.
#
# The caller sets shim_name (the tool's reference name), shim_command
# (the tunectl command, or "" for a reference tool tunectl does not
# implement) and shim_dir (its own directory).  On return TUNECTL names
# the program to exec.  Only shell builtins are used before that, so a
# tool works under a minimal PATH.
#
# tunectl is searched in this order:
#   1. $TUNECTL (execute-phase exports the tunectl that runs the phase);
#   2. <tools>/../../../bin/tunectl   (installed: PREFIX/share/tunectl/tools);
#   3. <tools>/../../build/tunectl    (the source tree's default build);
#   4. tunectl in PATH.

shim_dir=$(CDPATH='' cd -- "$shim_dir" && pwd)

if [ -z "$shim_command" ]; then
	echo "$shim_name: this reference tool is not implemented by tunectl;" \
	    "use the reference implementation for it" >&2
	exit 69
fi

if [ -n "${TUNECTL:-}" ] && [ -x "$TUNECTL" ]; then
	:
elif [ -x "$shim_dir/../../../bin/tunectl" ]; then
	TUNECTL=$shim_dir/../../../bin/tunectl
elif [ -x "$shim_dir/../../build/tunectl" ]; then
	TUNECTL=$shim_dir/../../build/tunectl
elif command -v tunectl >/dev/null 2>&1; then
	TUNECTL=$(command -v tunectl)
else
	echo "$shim_name: cannot find the tunectl program (set TUNECTL to its path)" >&2
	exit 69
fi

if ! "$TUNECTL" help "$shim_command" >/dev/null 2>&1; then
	echo "$shim_name: $TUNECTL has no '$shim_command' command yet," \
	    "so $shim_name is not available" >&2
	exit 69
fi
