"""Benchmarks for keel-heat, or any Heat-compatible endpoint."""
