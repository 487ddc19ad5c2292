"""What the bench scripts share: one definition of a percentile, so their figures agree."""

from __future__ import annotations


def percentile(values: list[float], p: float) -> float:
    """The ``p``-th percentile (0-100) by nearest rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]
