@pl.jit
def rmsnorm_kernel(x, w, eps):
    out = []
    for row in x:
        n = len(row)
        sum_sq = 0.0
        for v in row:
            sum_sq += math.pow(v, 2)
        res = []
        for j in range(n):
            res.append(row[j] / math.sqrt(sum_sq / n + eps) * w[j])
        out.append(res)
    return out
