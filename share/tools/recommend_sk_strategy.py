#!/bin/sh
''':'
# recommend_sk_strategy.py - tunectl's stand-in for the reference runtime tool of this name.
# Not implemented by tunectl: always fails with exit 69.
# Runs as a shell script (./recommend_sk_strategy.py, as execute-phase does) or under Python
# (python3 recommend_sk_strategy.py, as workers written for the reference do): Python re-runs
# this file with /bin/sh.  See docs/leases.md, "Tools directory".
shim_name=recommend_sk_strategy.py
shim_command=
case $0 in */*) shim_dir=${0%/*} ;; *) shim_dir=. ;; esac
. "$shim_dir/tunectl_shim.sh"
exec "$TUNECTL" false "$@"
'''
import os, sys
os.execv("/bin/sh", ["/bin/sh", os.path.abspath(__file__)] + sys.argv[1:])
