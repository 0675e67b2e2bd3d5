"""Synthetic inputs for tests and benchmarks, generated to be consistent by construction."""
