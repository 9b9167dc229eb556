#!/bin/sh
# Claude Code agent host for `tunectl run-next`.
#
# tunectl runs: host.sh --task <abs phase-task.json> --result <abs phase-result.json>
# We build the child prompt from the task with `tunectl prompt` (it carries the
# five things every phase worker must be told) and start one fresh,
# non-interactive Claude Code run for this phase only.  The agent writes the
# phase result to the --result path; tunectl validates and seals it.
set -eu
task= result=
while [ $# -gt 0 ]; do
	case $1 in
	--task) task=$2; shift 2 ;;
	--result) result=$2; shift 2 ;;
	*) echo "claude host: unexpected argument: $1" >&2; exit 2 ;;
	esac
done
[ -n "$task" ] && [ -n "$result" ] || { echo "claude host: --task and --result are required" >&2; exit 2; }
TUNECTL=${TUNECTL:-tunectl}
command -v claude >/dev/null 2>&1 || { echo "claude host: the 'claude' CLI is not on PATH" >&2; exit 127; }
prompt=$("$TUNECTL" prompt --task "$task" --result "$result" --host claude)
# -p: one non-interactive run that exits when the agent is done.
# acceptEdits lets the worker write its evidence without a human at a prompt;
# use a stricter CLAUDE_PERMISSION_MODE where policy requires it.
exec claude -p "$prompt" --permission-mode "${CLAUDE_PERMISSION_MODE:-acceptEdits}" \
    --output-format text </dev/null
