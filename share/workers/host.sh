#!/bin/sh
# The plain-script host `tunectl tune` runs the generic phase workers with:
# tunectl starts "host.sh --task <phase-task.json> --result <phase-result.json>",
# and this runs the worker named after the task's phase, beside this file.
# A phase without a worker, or a support task (the generic workers hand no
# support roles out), is an error, never a silent success.
set -eu
[ $# -eq 4 ] && [ "$1" = --task ] && [ "$3" = --result ] ||
	{ echo "tune host: usage: host.sh --task TASK --result RESULT" >&2; exit 2; }
TUNECTL=${TUNECTL:-tunectl}
phase=$("$TUNECTL" json get "$2" /step/phase) ||
	{ echo "tune host: $2 is not a phase task (no support roles here)" >&2; exit 3; }
worker=$(CDPATH='' cd -- "$(dirname -- "$0")" && pwd)/$phase
[ -x "$worker" ] || { echo "tune host: no generic worker for phase $phase at $worker" >&2; exit 3; }
exec "$worker" --task "$2" --result "$4"
