#!/bin/sh
''':'
# analyze_sk_meta.py - the reference runtime tool of this name, as a launcher:
# tunectl analyze sk-meta with the same arguments (the reference's
# analyze_sk_meta.py flags, replay mode included; docs/analysis.md).
# Runs as a shell script (./analyze_sk_meta.py, as execute-phase does) or under Python
# (python3 analyze_sk_meta.py, as workers written for the reference do): Python re-runs
# this file with /bin/sh.  See docs/leases.md, "Tools directory".
shim_name=analyze_sk_meta.py
shim_command=analyze
case $0 in */*) shim_dir=${0%/*} ;; *) shim_dir=. ;; esac
. "$shim_dir/tunectl_shim.sh"
# usage and errors name the reference's program, as its argparse does
TUNECTL_PROG=analyze_sk_meta.py
export TUNECTL_PROG
exec "$TUNECTL" analyze sk-meta "$@"
'''
import os, sys
os.execv("/bin/sh", ["/bin/sh", os.path.abspath(__file__)] + sys.argv[1:])
