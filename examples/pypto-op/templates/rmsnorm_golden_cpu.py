"""CPU float64 golden of the rmsnorm example: the precision reference."""
import math


def rmsnorm_golden_cpu(x, w, eps=1e-06):
    out = []
    for row in x:
        mean_sq = math.fsum(v * v for v in row) / len(row)
        scale = 1.0 / math.sqrt(mean_sq + eps)
        out.append([v * scale * wj for v, wj in zip(row, w)])
    return out
