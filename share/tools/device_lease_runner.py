#!/bin/sh
''':'
# device_lease_runner.py - tunectl's stand-in for the reference runtime tool of this name.
# Maps to: tunectl lease run ARGS...
# Runs as a shell script (./device_lease_runner.py, as execute-phase does) or under Python
# (python3 device_lease_runner.py, as workers written for the reference do): Python re-runs
# this file with /bin/sh.  See docs/leases.md, "Tools directory".
shim_name=device_lease_runner.py
shim_command=lease
case $0 in */*) shim_dir=${0%/*} ;; *) shim_dir=. ;; esac
. "$shim_dir/tunectl_shim.sh"
exec "$TUNECTL" lease run "$@"
'''
import os, sys
os.execv("/bin/sh", ["/bin/sh", os.path.abspath(__file__)] + sys.argv[1:])
