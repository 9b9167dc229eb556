@pl.jit
def rmsnorm_kernel(x, w, eps):
    out = []
    for row in x:
        n = len(row)
        sum_sq = 0.0
        for v in row:
            sum_sq += math.pow(v, 2)
        scale = 1.0 / math.sqrt(sum_sq / n + eps)
        res = []
        for j in range(n):
            res.append(row[j] * scale * w[j])
        out.append(res)
    return out
