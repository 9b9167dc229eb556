#!/usr/bin/python3
"""check-layers.py - every include and every call in src/ goes down a layer.

The library is a stack of layers (docs/HACKING.md, "Layers").  A module may
include the headers of, and call functions defined in, its own module and
the modules of lower layers; nothing goes up, and modules of one layer do
not use each other.  This script checks both:

  * includes: every '#include "..."' in src/*/*.[ch] and include/tunectl/*.h
    (a public header belongs to the module that implements it, HEADERS
    below; a relative include such as "../num/stats_acc.h" to the module
    whose directory holds it);
  * calls: every undefined symbol of an object file BUILD/obj/src/M/F.o
    that another module's object defines (nm), so a call through a
    declaration written by hand is caught too.

Usage: scripts/check-layers.py [--root DIR] [BUILD]
Prints one line per violation, "src/session/seal.c:25: includes
tunectl/report.h: session (layer 6) may not use report (layer 7)", and exits
1 when there is any; 2 when BUILD holds no objects to check.
"""
import os
import re
import subprocess
import sys

# Lowest first.  One entry per layer; modules of one layer are independent.
LAYERS = [
    ["util"],                   # memory, errors, files, paths, processes, text
    ["json"],                   # the JSON value model, reader and writers
    ["num"],                    # Python's decimal and statistics arithmetic
    ["bench", "lease", "analysis"],  # measurements and gates; device
                                # leases; profile analysis after msprof
    ["ledger"],                 # the experiment ledger and the Final checks
    ["session"],                # the session controller
    ["report", "attest", "phase"],  # reports; signed sessions; phase entrypoints
    ["skills"],                 # the workers' skills
    ["host"],                   # agent hosts and attempts
    ["pypto", "tune"],          # the PyPTO-Pro pipeline; workload specs
    ["cli"],                    # the command-line program
]

# Public header (include/tunectl/NAME.h) -> the module that implements it.
HEADERS = {
    "buf": "util", "error": "util", "fileio": "util", "lock": "util",
    "path": "util", "proc": "util", "sha256": "util", "timeutil": "util",
    "text": "util", "heap": "util", "finder": "util",
    "json": "json", "canon": "json",
    "decimal": "num", "stats": "num",
    "bench": "bench", "analysis": "analysis",
    "lease": "lease", "slurm": "lease",
    "ledger": "ledger", "final": "ledger",
    "session": "session", "phases": "session", "evidence": "session",
    "derive": "session", "session_reports": "session",
    "report": "report", "html": "report", "refusal": "report",
    "round_report": "report", "own_reports": "report",
    "attest": "attest",
    "phase": "phase", "envcheck": "phase",
    "skills": "skills",
    "host": "host", "attempt": "host", "support": "host",
    "tune": "tune",
    # the umbrella header of library users includes every layer; version.h
    # (generated from VERSION) depends on nothing
    "tunectl": "cli", "version": "util",
}

INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def rank_of():
    ranks = {}
    for i, layer in enumerate(LAYERS):
        for m in layer:
            ranks[m] = i + 1
    return ranks


RANK = rank_of()


def header_module(name):
    """The module of public header NAME.h, or None."""
    if name in HEADERS:
        return HEADERS[name]
    if name == "pypto" or name.startswith("pypto_"):
        return "pypto"
    return None


def allowed(user, used):
    return used == user or RANK[used] < RANK[user]


def describe(user, used):
    return "%s (layer %d) may not use %s (layer %d)" % (
        user, RANK[user], used, RANK[used])


def check_includes(root, problems):
    checked = 0
    files = []
    for mod in sorted(os.listdir(os.path.join(root, "src"))):
        d = os.path.join(root, "src", mod)
        if not os.path.isdir(d):
            continue
        if mod not in RANK:
            problems.append("src/%s: module not in the layer table "
                            "(scripts/check-layers.py LAYERS)" % mod)
            continue
        for f in sorted(os.listdir(d)):
            if f.endswith((".c", ".h")):
                files.append(("src/%s/%s" % (mod, f), mod))
    inc = os.path.join(root, "include", "tunectl")
    if os.path.isdir(inc):
        for f in sorted(os.listdir(inc)):
            if not f.endswith(".h"):
                continue
            mod = header_module(f[:-2])
            rel = "include/tunectl/" + f
            if mod is None:
                problems.append("%s:1: header not in the layer table "
                                "(scripts/check-layers.py HEADERS)" % rel)
                continue
            files.append((rel, mod))
    for rel, mod in files:
        with open(os.path.join(root, rel), encoding="utf-8",
                  errors="surrogateescape") as fh:
            for lineno, line in enumerate(fh, 1):
                m = INCLUDE_RE.match(line)
                if not m:
                    continue
                target = m.group(1)
                checked += 1
                if target.startswith("tunectl/"):
                    used = header_module(target[len("tunectl/"):-2])
                    if used is None:
                        problems.append("%s:%d: includes %s, which is not "
                                        "in the layer table" %
                                        (rel, lineno, target))
                        continue
                else:
                    path = os.path.normpath(os.path.join(
                        os.path.dirname(rel), target))
                    parts = path.split(os.sep)
                    if len(parts) != 3 or parts[0] != "src":
                        continue        # a test or tool header
                    used = parts[1]
                    if used not in RANK:
                        continue
                if not allowed(mod, used):
                    problems.append("%s:%d: includes %s: %s" %
                                    (rel, lineno, target, describe(mod, used)))
    return checked


def nm(args):
    out = subprocess.run(["nm"] + args, check=True, capture_output=True,
                         text=True).stdout
    return out.splitlines()


def first_line(root, rel, sym):
    word = re.compile(r"\b%s\b" % re.escape(sym))
    try:
        with open(os.path.join(root, rel), encoding="utf-8",
                  errors="surrogateescape") as fh:
            for lineno, line in enumerate(fh, 1):
                if word.search(line):
                    return lineno
    except OSError:
        pass
    return 1


def check_calls(root, build, problems):
    objdir = os.path.join(build, "obj", "src")
    objects = []
    if os.path.isdir(objdir):
        for mod in sorted(os.listdir(objdir)):
            d = os.path.join(objdir, mod)
            if mod not in RANK or not os.path.isdir(d):
                continue
            for f in sorted(os.listdir(d)):
                rel = "src/%s/%s.c" % (mod, f[:-2])
                # an object whose source is gone (moved, deleted) is stale
                if f.endswith(".o") and os.path.exists(
                        os.path.join(root, rel)):
                    objects.append((mod, rel, os.path.join(d, f)))
    if not objects:
        return None
    definer = {}
    for mod, rel, obj in objects:
        for line in nm(["-g", "--defined-only", obj]):
            parts = line.split()
            if len(parts) == 3:
                definer[parts[2]] = (mod, rel)
    checked = 0
    for mod, rel, obj in objects:
        for line in nm(["-u", obj]):
            sym = line.split()[-1]
            if sym not in definer:
                continue
            used, where = definer[sym]
            if used == mod:
                continue
            checked += 1
            if not allowed(mod, used):
                problems.append("%s:%d: calls %s (%s): %s" % (
                    rel, first_line(root, rel, sym), sym, where,
                    describe(mod, used)))
    return checked


def main(argv):
    root = "."
    args = argv[1:]
    if len(args) >= 2 and args[0] == "--root":
        root = args[1]
        args = args[2:]
    build = args[0] if args else os.environ.get("BUILD", "build")
    if not os.path.isabs(build):
        build = os.path.join(root, build)
    problems = []
    includes = check_includes(root, problems)
    calls = check_calls(root, build, problems)
    for p in problems:
        print(p)
    if calls is None:
        print("no object files under %s/obj/src: build first" % build,
              file=sys.stderr)
        return 2
    if problems:
        print("%d layer violation(s); the layers are in docs/HACKING.md"
              % len(problems), file=sys.stderr)
        return 1
    print("layers: %d includes and %d calls between modules checked, "
          "none goes up" % (includes, calls))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
