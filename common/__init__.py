"""Shared layer of ml-compiler-labs: models, numeric gates, timing, results tables, data, errors."""
