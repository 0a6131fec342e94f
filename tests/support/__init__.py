"""Test data and helpers shared by tests and benchmarks (kept out of the ``builder`` package)."""
