"""Golden of the rmsnorm example (the device-side reference).

On the CPU stand-in the "device" is the CPU; _get_device() is where every
test obtains it.  This module imports neither pypto nor pypto_pro.
"""
import math


def _get_device():
    return "cpu"


def rmsnorm_golden(x, w, eps=1e-06):
    out = []
    for row in x:
        mean_sq = math.fsum(v * v for v in row) / len(row)
        scale = 1.0 / math.sqrt(mean_sq + eps)
        out.append([v * scale * wj for v, wj in zip(row, w)])
    return out
