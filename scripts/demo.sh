#!/bin/sh
# demo.sh - what `make demo` runs: tunectl's main job end to end.
#
# Tunes the demo workload (examples/workload/skw.c, real CPU work with real
# timings) through all seven SuperKernel phases with the plain-script workers,
# then prints where the reports are.  Extra arguments go to `tunectl demo`
# (e.g. DEMO_ARGS="--optional-mode both").
set -eu
TUNECTL=${1:-build/tunectl}
shift 2>/dev/null || true
scripts/deps.sh demo
exec "$TUNECTL" demo --artifact-root "${DEMO_DIR:-tunectl-demo}" ${DEMO_ARGS:-} "$@"
