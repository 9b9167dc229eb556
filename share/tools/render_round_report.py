#!/bin/sh
''':'
# render_round_report.py - tunectl's stand-in for the reference runtime tool of this name.
# Maps to: tunectl render-round-report ARGS... (see docs/ledger.md)
# Runs as a shell script (./render_round_report.py, as execute-phase does) or under Python
# (python3 render_round_report.py, as workers written for the reference do): Python re-runs
# this file with /bin/sh.  See docs/leases.md, "Tools directory".
shim_name=render_round_report.py
shim_command=render-round-report
case $0 in */*) shim_dir=${0%/*} ;; *) shim_dir=. ;; esac
. "$shim_dir/tunectl_shim.sh"
exec "$TUNECTL" render-round-report "$@"
'''
import os, sys
os.execv("/bin/sh", ["/bin/sh", os.path.abspath(__file__)] + sys.argv[1:])
