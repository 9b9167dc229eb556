#!/bin/sh
''':'
# run_benchmark.py - a tunectl runtime tool (no reference tool of this name).
# Maps to: tunectl bench run ARGS... (clean timed runs of a workload into a run set;
# docs/measurement.md), or with --interleaved first to tunectl bench ab ARGS...
# (the runs of several sides taken in turn, one run set each)
# Runs as a shell script (./run_benchmark.py, as execute-phase does) or under Python
# (python3 run_benchmark.py, as workers written for the reference do): Python re-runs
# this file with /bin/sh.  See docs/leases.md, "Tools directory".
shim_name=run_benchmark.py
shim_command=bench
case $0 in */*) shim_dir=${0%/*} ;; *) shim_dir=. ;; esac
. "$shim_dir/tunectl_shim.sh"
# --interleaved first: tunectl bench ab ARGS... (interleaved sides)
if [ "${1:-}" = --interleaved ]; then
	shift
	exec "$TUNECTL" bench ab "$@"
fi
exec "$TUNECTL" bench run "$@"
'''
import os, sys
os.execv("/bin/sh", ["/bin/sh", os.path.abspath(__file__)] + sys.argv[1:])
