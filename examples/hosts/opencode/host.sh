#!/bin/sh
# OpenCode agent host for `tunectl run-next`, `tunectl run` and
# `tunectl support run`.  Checked against opencode 1.18.33 (npm
# opencode-ai); see README.md beside this file.
#
# tunectl runs: host.sh --task <abs task.json> --result <abs result.json>
# One fresh `opencode run` per task in the artifact root (--dir).  The skills
# go where OpenCode looks for project skills (<artifact root>/.opencode/skills);
# the prompt comes from `tunectl prompt`.
#
# Which agent: the SuperKernel workflow maps OpenCode to its `general` agent,
# because there a controller session spawns each phase worker as a subagent
# (the Task tool).  `opencode run` instead starts a top-level session, which
# only a primary agent can run: `--agent general` is refused ("is a subagent,
# not a primary agent") and falls back to the default.  So the adapter names
# the default primary agent, `build`, explicitly: it has general's tools and
# permissions (general only additionally denies its to-do list).  OPENCODE_AGENT
# picks another primary agent.  `opencode run` rejects every permission it would
# have to ask for, so the adapter grants the one thing outside the working
# directory a worker needs: running the tunectl program.
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
program=$(readlink -f "$(command -v "$TUNECTL")")
root=$("$TUNECTL" json get "$task" /artifact_root)
"$TUNECTL" skills install --host opencode --dir "$root" >/dev/null
prompt=$(TUNECTL_SKILLS_DIR=$root/.opencode/skills "$TUNECTL" prompt --task "$task" --result "$result" --host opencode)
if [ -z "${OPENCODE_CONFIG_CONTENT:-}" ]; then
	OPENCODE_CONFIG_CONTENT="{\"permission\": {\"external_directory\": {\"$(dirname "$program")/*\": \"allow\"}}}"
	export OPENCODE_CONFIG_CONTENT
fi
exec opencode run --agent "${OPENCODE_AGENT:-build}" --dir "$root" "$prompt" </dev/null
