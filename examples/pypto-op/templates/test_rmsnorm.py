"""Stage 4 test of the rmsnorm example operator (CPU stand-in of PyPTO-Pro).

Usage: python3 test_rmsnorm.py [--case-id ID]
  Without --case-id every test case runs.  With it exactly that case runs and
  the line PYPTO_PERF_SELECTED_CASE=<id> is printed; an unknown id exits 2.
Every kernel launch reports itself (pypto_pro.language.jit prints one
PYPTO_PERF_TASK line); every case prints its precision verdict,
PASS matched_ratio=... max_abs_error=...  Inputs use seed 42.
"""
import argparse
import math
import operator
import random
import sys

import pypto_pro.language as pl

CASES = {"p0_small": (64, 512), "p0_large": (128, 1024),
         "tail_rows": (7, 96), "single_row": (1, 33)}
EPS = 1e-06
ATOL = 1e-09
RTOL = 1e-09


# --- kernel begin (the implementation Stage 5 tunes) ---
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
# --- kernel end ---


def rmsnorm_wrapper(x, w, eps=1e-06):
    """Check the parameters and launch the kernel once."""
    if not x or len(w) != len(x[0]):
        raise ValueError("w must have one entry per column of x")
    return rmsnorm_kernel(x, w, eps)


def _make_inputs(rows, cols):
    rng = random.Random(42)
    x = [[rng.uniform(-1.0, 1.0) for _ in range(cols)] for _ in range(rows)]
    w = [rng.uniform(0.5, 1.5) for _ in range(cols)]
    return x, w


def _assert_precision(out, ref):
    total = matched = 0
    max_abs = 0.0
    for row_o, row_r in zip(out, ref):
        for a, b in zip(row_o, row_r):
            diff = abs(a - b)
            max_abs = max(max_abs, diff)
            total += 1
            matched += diff <= ATOL + RTOL * abs(b)
    if matched != total or len(out) != len(ref):
        print(f"FAIL matched_ratio={matched / max(total, 1):.6f} "
              f"max_abs_error={max_abs:.3e}")
        raise SystemExit(1)
    print(f"PASS matched_ratio={matched / total:.6f} max_abs_error={max_abs:.3e}")


def _run_case(case_id):
    # imported here, so test_rmsnorm.py with rmsnorm_golden.py alone is a
    # delivery unit that imports cleanly
    from rmsnorm_golden import _get_device
    from rmsnorm_golden_cpu import rmsnorm_golden_cpu

    _get_device()
    rows, cols = CASES[case_id]
    x, w = _make_inputs(rows, cols)
    out = rmsnorm_wrapper(x, w, EPS)
    _assert_precision(out, rmsnorm_golden_cpu(x, w, EPS))


def test_rmsnorm_p0_small():
    _run_case("p0_small")


def test_rmsnorm_p0_large():
    _run_case("p0_large")


def test_rmsnorm_tail_rows():
    _run_case("tail_rows")


def test_rmsnorm_single_row():
    _run_case("single_row")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--case-id")
    args = parser.parse_args()
    if args.case_id is None:
        for case_id in CASES:
            _run_case(case_id)
        return 0
    if args.case_id not in CASES:
        print(f"unknown case id {args.case_id!r}", file=sys.stderr)
        return 2
    _run_case(args.case_id)
    print(f"PYPTO_PERF_SELECTED_CASE={args.case_id}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
