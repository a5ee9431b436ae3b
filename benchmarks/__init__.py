"""strata's benchmark suite: ``python -m benchmarks [scenario ...] [--sizes ...] [--quick] [--out DIR]``.

Not part of the test run (pytest collects ``tests/`` only); ``tests/test_benchmarks_smoke.py``
runs every scenario at a tiny size. See ``benchmarks/README.md``.
"""
