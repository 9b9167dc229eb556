#!/bin/sh
# OpenCode agent host for `tunectl run-next`.
#
# tunectl runs: host.sh --task <abs phase-task.json> --result <abs phase-result.json>
# One fresh `opencode run` per phase; the prompt comes from `tunectl prompt`.
set -eu
task= result=
while [ $# -gt 0 ]; do
	case $1 in
	--task) task=$2; shift 2 ;;
	--result) result=$2; shift 2 ;;
	*) echo "opencode host: unexpected argument: $1" >&2; exit 2 ;;
	esac
done
[ -n "$task" ] && [ -n "$result" ] || { echo "opencode host: --task and --result are required" >&2; exit 2; }
TUNECTL=${TUNECTL:-tunectl}
command -v opencode >/dev/null 2>&1 || { echo "opencode host: the 'opencode' CLI is not on PATH" >&2; exit 127; }
prompt=$("$TUNECTL" prompt --task "$task" --result "$result" --host opencode)
exec opencode run "$prompt" </dev/null
