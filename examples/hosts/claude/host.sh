#!/bin/sh
# Claude Code agent host for `tunectl run-next`, `tunectl run` and
# `tunectl support run`.  Checked against Claude Code 2.1.197 (npm
# @anthropic-ai/claude-code); see README.md beside this file.
#
# tunectl runs: host.sh --task <abs task.json> --result <abs result.json>
# The skills go where Claude Code looks for them (<artifact root>/.claude/skills,
# installed once, unchanged afterwards), the prompt comes from `tunectl prompt`
# (naming that installed SKILL.md), and one fresh non-interactive run works in
# the artifact root.  In -p mode nothing can be approved interactively, so the
# permissions are granted up front, and only what a worker needs: edits
# inside the artifact root (--permission-mode acceptEdits, the working
# directory) and running tunectl itself (an allowed-tool rule for the exact
# program; every phase tool runs through `tunectl execute-phase --tool`).
# Never a blanket bypass.
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
program=$(readlink -f "$(command -v "$TUNECTL")")
root=$("$TUNECTL" json get "$task" /artifact_root)
"$TUNECTL" skills install --host claude --dir "$root" >/dev/null
prompt=$(TUNECTL_SKILLS_DIR=$root/.claude/skills "$TUNECTL" prompt --task "$task" --result "$result" --host claude)
cd "$root"
# The prompt comes first: --allowedTools takes every following word.
exec claude -p "$prompt" --output-format text \
    --permission-mode "${CLAUDE_PERMISSION_MODE:-acceptEdits}" \
    --add-dir "$root" --allowedTools "Bash($program *)" </dev/null
