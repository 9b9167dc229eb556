#!/bin/sh
# Plain-script host for `tunectl run-next`: no agent, a program per phase.
#
# tunectl runs: host.sh --task <abs phase-task.json> --result <abs phase-result.json>
# The worker for a phase is "$TUNECTL_WORKERS/<phase>" (default: the demo
# workers in examples/workers/), run with the same two arguments; the worker
# of a support task ("tunectl support run") is
# "$TUNECTL_WORKERS/support/<role agent_id>".  A task without a worker is an
# error, never a silent success.
set -eu
task= result=
while [ $# -gt 0 ]; do
	case $1 in
	--task) task=$2; shift 2 ;;
	--result) result=$2; shift 2 ;;
	*) echo "script host: unexpected argument: $1" >&2; exit 2 ;;
	esac
done
[ -n "$task" ] && [ -n "$result" ] || { echo "script host: --task and --result are required" >&2; exit 2; }
TUNECTL=${TUNECTL:-tunectl}
here=$(cd "$(dirname "$0")" && pwd)
workers=${TUNECTL_WORKERS:-$here/../../workers}
schema=$("$TUNECTL" json get "$task" /schema_version)
if [ "$schema" = tunectl-support-task-v1 ]; then
	role=$("$TUNECTL" json get "$task" /role/agent_id)
	worker=$workers/support/$role
	[ -x "$worker" ] || { echo "script host: no executable worker for support role $role at $worker" >&2; exit 3; }
else
	phase=$("$TUNECTL" json get "$task" /step/phase)
	worker=$workers/$phase
	[ -x "$worker" ] || { echo "script host: no executable worker for phase $phase at $worker" >&2; exit 3; }
fi
exec "$worker" --task "$task" --result "$result"
