#!/bin/sh
''':'
# analyze_performance.py - tunectl's stand-in for the reference runtime tool of this name.
# Maps to: tunectl gate analyze --reference-output ARGS... (the reference's report
# exactly; see docs/measurement.md)
# Runs as a shell script (./analyze_performance.py, as execute-phase does) or under Python
# (python3 analyze_performance.py, as workers written for the reference do): Python re-runs
# this file with /bin/sh.  See docs/leases.md, "Tools directory".
shim_name=analyze_performance.py
shim_command=gate
case $0 in */*) shim_dir=${0%/*} ;; *) shim_dir=. ;; esac
. "$shim_dir/tunectl_shim.sh"
exec "$TUNECTL" gate analyze --reference-output "$@"
'''
import os, sys
os.execv("/bin/sh", ["/bin/sh", os.path.abspath(__file__)] + sys.argv[1:])
