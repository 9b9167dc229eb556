#!/bin/sh
''':'
# validate_option_matrix.py - a tunectl runtime tool (no reference tool of this name).
# Maps to: tunectl gate option-matrix FILE [--json-out FILE] (winner option matrix v1;
# docs/measurement.md)
# Runs as a shell script (./validate_option_matrix.py, as execute-phase does) or under Python
# (python3 validate_option_matrix.py, as workers written for the reference do): Python re-runs
# this file with /bin/sh.  See docs/leases.md, "Tools directory".
shim_name=validate_option_matrix.py
shim_command=gate
case $0 in */*) shim_dir=${0%/*} ;; *) shim_dir=. ;; esac
. "$shim_dir/tunectl_shim.sh"
exec "$TUNECTL" gate option-matrix "$@"
'''
import os, sys
os.execv("/bin/sh", ["/bin/sh", os.path.abspath(__file__)] + sys.argv[1:])
