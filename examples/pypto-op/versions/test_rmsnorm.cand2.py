"""Stage 4-style runner of the rmsnorm example operator (CPU, pure Python).

Usage: python3 test_rmsnorm.py [--case-id ID]
  without --case-id every P0 case runs; with it exactly that case runs and the
  line PYPTO_PERF_SELECTED_CASE=<id> is printed; an unknown id exits 2.
Each case prints one timing line for the target kernel launch,
  PYPTO_PERF_TASK {"op_name": "rmsnorm_kernel", "duration_us": <float>}
and the precision verdict (PASS matched_ratio=... max_abs_error=...).
Inputs are generated with seed 42.
"""
import argparse
import json
import math
import operator
import sys
import time

from rmsnorm_golden_cpu import rmsnorm_golden_cpu

OP_NAME = "rmsnorm_kernel"
CASES = {"p0_small": (64, 512), "p0_large": (128, 1024)}
EPS = 1e-06
ATOL = 1e-09
RTOL = 1e-09


# --- implementation under tuning (version: cand2, general-02) ----------
def rmsnorm_kernel(x, w, eps):
    mul = operator.mul
    out = []
    for row in x:
        scale = 1.0 / math.sqrt(sum(map(mul, row, row)) / len(row) + eps)
        scaled_w = [scale * wj for wj in w]
        out.append(list(map(mul, row, scaled_w)))
    return out
# --------------------------------------------------------------------------


def _make_inputs(rows, cols):
    import random
    rng = random.Random(42)
    x = [[rng.uniform(-1.0, 1.0) for _ in range(cols)] for _ in range(rows)]
    w = [rng.uniform(0.5, 1.5) for _ in range(cols)]
    return x, w


def _assert_precision(out, ref):
    total = matched = 0
    max_abs = 0.0
    for row_o, row_r in zip(out, ref):
        for a, b in zip(row_o, row_r):
            err = abs(a - b)
            max_abs = max(max_abs, err)
            total += 1
            matched += err <= ATOL + RTOL * abs(b)
    if matched != total or len(out) != len(ref):
        raise AssertionError(f"FAIL matched_ratio={matched / total:.6f} "
                             f"max_abs_error={max_abs:.3e}")
    print(f"PASS matched_ratio={matched / total:.6f} max_abs_error={max_abs:.3e}")


def _run_case(case_id):
    rows, cols = CASES[case_id]
    x, w = _make_inputs(rows, cols)
    start = time.perf_counter_ns()
    out = rmsnorm_kernel(x, w, EPS)
    elapsed_us = (time.perf_counter_ns() - start) / 1000.0
    print("PYPTO_PERF_TASK " + json.dumps({"op_name": OP_NAME,
                                           "duration_us": elapsed_us}))
    _assert_precision(out, rmsnorm_golden_cpu(x, w, EPS))


def test_rmsnorm_p0_small():
    _run_case("p0_small")


def test_rmsnorm_p0_large():
    _run_case("p0_large")


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
