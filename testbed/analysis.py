"""Metrics and summaries computed from trial results (runs on the host)."""

from __future__ import annotations

import statistics
from typing import Any

WIRELESS_RATE_BPS = 2e6


def jain(xs: list[float]) -> float:
    """Jain's fairness index (sum x)^2 / (n sum x^2); 1 for an empty or all-zero list."""
    sq = sum(x * x for x in xs)
    return (sum(xs) ** 2) / (len(xs) * sq) if sq > 0 else 1.0


def ceiling(capacity_bps: float, per: float) -> float:
    """The goodput ceiling C (1 - PER) of a lossy link."""
    return capacity_bps * (1 - per)


def goodput_summary(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """One record per (cc, per): the median goodput of the runs and the ceiling."""
    groups: dict[tuple[str, float], list[float]] = {}
    for trial in doc["trials"]:
        p = trial["params"]
        flow = trial["flows"][0]
        if "error" in flow:
            continue
        groups.setdefault((p["cc"], p["per"]), []).append(flow["goodput_bps"])
    kernel = doc["environment"]["kernel"]
    return [
        {
            "cc": cc,
            "per": per,
            "goodput_bps": statistics.median(vals),
            "ceiling_bps": ceiling(WIRELESS_RATE_BPS, per),
            "kernel": kernel,
            "runs": len(vals),
            "goodput_runs_bps": vals,
        }
        for (cc, per), vals in sorted(groups.items(), key=lambda kv: (kv[0][1], kv[0][0]))
    ]
