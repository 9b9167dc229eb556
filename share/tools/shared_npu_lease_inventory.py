#!/bin/sh
''':'
# shared_npu_lease_inventory.py - tunectl's stand-in for the reference runtime tool of this name.
# Maps to: tunectl lease status ARGS... (--lease-root DIR: who holds which device;
# the reference audits its own scripts' device launches instead, see docs/leases.md)
# Runs as a shell script (./shared_npu_lease_inventory.py, as execute-phase does) or under Python
# (python3 shared_npu_lease_inventory.py, as workers written for the reference do): Python re-runs
# this file with /bin/sh.  See docs/leases.md, "Tools directory".
shim_name=shared_npu_lease_inventory.py
shim_command=lease
case $0 in */*) shim_dir=${0%/*} ;; *) shim_dir=. ;; esac
. "$shim_dir/tunectl_shim.sh"
exec "$TUNECTL" lease status "$@"
'''
import os, sys
os.execv("/bin/sh", ["/bin/sh", os.path.abspath(__file__)] + sys.argv[1:])
