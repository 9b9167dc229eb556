#!/bin/sh
''':'
# validate_stage_a_options.py - tunectl's stand-in for the reference runtime tool of this name.
# Maps to: tunectl gate stage-a-options CONFIG... (the Stage-A option controls of
# analyze_performance.py, checked before the candidates run; docs/measurement.md)
# Runs as a shell script (./validate_stage_a_options.py, as execute-phase does) or under Python
# (python3 validate_stage_a_options.py, as workers written for the reference do): Python re-runs
# this file with /bin/sh.  See docs/leases.md, "Tools directory".
shim_name=validate_stage_a_options.py
shim_command=gate
case $0 in */*) shim_dir=${0%/*} ;; *) shim_dir=. ;; esac
. "$shim_dir/tunectl_shim.sh"
exec "$TUNECTL" gate stage-a-options "$@"
'''
import os, sys
os.execv("/bin/sh", ["/bin/sh", os.path.abspath(__file__)] + sys.argv[1:])
