#!/bin/sh
''':'
# check_environment.py - tunectl's stand-in for the reference runtime tool of this name.
# Maps to: tunectl env-check ARGS...
# Runs as a shell script (./check_environment.py, as execute-phase does) or under Python
# (python3 check_environment.py, as workers written for the reference do): Python re-runs
# this file with /bin/sh.  See docs/leases.md, "Tools directory".
shim_name=check_environment.py
shim_command=env-check
case $0 in */*) shim_dir=${0%/*} ;; *) shim_dir=. ;; esac
. "$shim_dir/tunectl_shim.sh"
exec "$TUNECTL" env-check "$@"
'''
import os, sys
os.execv("/bin/sh", ["/bin/sh", os.path.abspath(__file__)] + sys.argv[1:])
