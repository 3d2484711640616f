"""Budgets that shrink under CI (``CI=true``): tuning trials, repeats, dataset sizes."""
from __future__ import annotations

import os
from typing import TypeVar

T = TypeVar("T")


def ci() -> bool:
    """True when the environment variable ``CI`` is ``true``/``1``/``yes`` (case-insensitive)."""
    return os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}


def pick(default: T, ci_value: T) -> T:
    """Return ``ci_value`` under CI, else ``default``."""
    return ci_value if ci() else default
