"""CPU stand-in for the PyPTO-Pro package, for tunectl's example operator.

The real pypto_pro lowers a @pl.jit kernel to an NPU kernel.  This stand-in
runs the kernel as plain Python on the CPU and reports each launch the way
a profiler would see it, so the example operator can walk the whole
pipeline on a machine without an NPU.  It is not the PyPTO-Pro DSL.
"""
