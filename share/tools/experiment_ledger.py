#!/bin/sh
''':'
# experiment_ledger.py - tunectl's stand-in for the reference runtime tool of this name.
# Maps to: tunectl ledger ARGS... (validate FILE | merge ...; see docs/ledger.md)
# Runs as a shell script (./experiment_ledger.py, as execute-phase does) or under Python
# (python3 experiment_ledger.py, as workers written for the reference do): Python re-runs
# this file with /bin/sh.  See docs/leases.md, "Tools directory".
shim_name=experiment_ledger.py
shim_command=ledger
case $0 in */*) shim_dir=${0%/*} ;; *) shim_dir=. ;; esac
. "$shim_dir/tunectl_shim.sh"
exec "$TUNECTL" ledger "$@"
'''
import os, sys
os.execv("/bin/sh", ["/bin/sh", os.path.abspath(__file__)] + sys.argv[1:])
