"""Benchmarks (not tests): engine and environment throughput."""
