#!/bin/sh
# OpenAI Codex CLI agent host for `tunectl run-next`, `tunectl run` and
# `tunectl support run`.  Checked against codex-cli 0.171.0 (npm
# @openai/codex); see README.md beside this file.
#
# tunectl runs: host.sh --task <abs task.json> --result <abs result.json>
# One fresh `codex exec` per task.  The skills go where Codex looks for
# project skills (<artifact root>/.agents/skills); the prompt comes from
# `tunectl prompt`.  An artifact root is rarely a git repository, and
# `codex exec` refuses to start outside one ("Not inside a trusted directory
# and --skip-git-repo-check was not specified"), so the adapter passes
# --skip-git-repo-check; the workspace-write sandbox lets the agent write only
# its working root, so -C makes that the artifact root, where every result
# and evidence file goes.  CODEX_ADD_DIRS (space-separated) adds writable
# directories, e.g. a lease root outside the artifact root and /tmp.
set -eu
task= result=
while [ $# -gt 0 ]; do
	case $1 in
	--task) task=$2; shift 2 ;;
	--result) result=$2; shift 2 ;;
	*) echo "codex host: unexpected argument: $1" >&2; exit 2 ;;
	esac
done
[ -n "$task" ] && [ -n "$result" ] || { echo "codex host: --task and --result are required" >&2; exit 2; }
TUNECTL=${TUNECTL:-tunectl}
command -v codex >/dev/null 2>&1 || { echo "codex host: the 'codex' CLI is not on PATH" >&2; exit 127; }
root=$("$TUNECTL" json get "$task" /artifact_root)
"$TUNECTL" skills install --host codex --dir "$root" >/dev/null
prompt=$(TUNECTL_SKILLS_DIR=$root/.agents/skills "$TUNECTL" prompt --task "$task" --result "$result" --host codex)
set --
for dir in ${CODEX_ADD_DIRS:-}; do set -- "$@" --add-dir "$dir"; done
# stdin from /dev/null: codex exec appends piped stdin to the prompt and would
# otherwise wait for it.
exec codex exec --skip-git-repo-check -C "$root" \
    --sandbox "${CODEX_SANDBOX:-workspace-write}" "$@" "$prompt" </dev/null
