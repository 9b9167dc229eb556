#!/bin/sh
# OpenAI Codex CLI agent host for `tunectl run-next`.
#
# tunectl runs: host.sh --task <abs phase-task.json> --result <abs phase-result.json>
# One fresh `codex exec` per phase; the prompt comes from `tunectl prompt`.
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
prompt=$("$TUNECTL" prompt --task "$task" --result "$result" --host codex)
# stdin from /dev/null: codex exec appends piped stdin to the prompt and would
# otherwise wait for it.
exec codex exec --sandbox "${CODEX_SANDBOX:-workspace-write}" "$prompt" </dev/null
