"""pypto_pro.language stand-in: @pl.jit on the CPU.

Each call of a jit kernel is one "launch".  It is timed with the
monotonic clock and reported on stdout as one line

    PYPTO_PERF_TASK {"op_name": "<lowered name>", "duration_us": <float>,
                     "task_type": "CPU_PYTHON"}

which is what tunectl's runner_reported timing source, its discovery run
and its timeline read.  The lowered name is fixed per kernel (its name
plus a lowering suffix), as a compiler's mangled name would be.
"""
import functools
import json
import sys
import time

LOWERING_SUFFIX = "__pl_cpu_f64"


def jit(fn):
    """Run fn as a kernel launch and report it."""
    lowered = fn.__name__ + LOWERING_SUFFIX

    @functools.wraps(fn)
    def launch(*args, **kwargs):
        start = time.perf_counter_ns()
        out = fn(*args, **kwargs)
        elapsed_us = (time.perf_counter_ns() - start) / 1000.0
        print("PYPTO_PERF_TASK " + json.dumps({
            "op_name": lowered, "duration_us": elapsed_us,
            "task_type": "CPU_PYTHON"}), flush=True)
        return out

    launch.pl_lowered_name = lowered
    return launch


def device():
    """The device tests run on: the CPU here."""
    return "cpu"


__all__ = ["jit", "device"]
