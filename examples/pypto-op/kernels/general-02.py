@pl.jit
def rmsnorm_kernel(x, w, eps):
    mul = operator.mul
    out = []
    for row in x:
        n = len(row)
        sum_sq = sum(map(mul, row, row))
        out.append([row[j] / math.sqrt(sum_sq / n + eps) * w[j]
                    for j in range(n)])
    return out
