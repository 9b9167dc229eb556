@pl.jit
def rmsnorm_kernel(x, w, eps):
    mul = operator.mul
    out = []
    for row in x:
        scale = 1.0 / math.sqrt(sum(map(mul, row, row)) / len(row) + eps)
        out.append([v * scale * wj for v, wj in zip(row, w)])
    return out
