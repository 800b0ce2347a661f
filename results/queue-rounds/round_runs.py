"""Runs of rounds with a standing queue, from a point's ``jersey:jersey_round`` trace.

For each point file: how many rounds showed a standing queue (lossclass_core.h's
lc_queue_threshold()), the lengths of their runs, and how many ``why=queue``
answers of ``jersey:jersey_loss`` had at least K such rounds in a row before them::

    python results/queue-rounds/round_runs.py 'out/round-trace/6.1/bottlenecks/runs/*.json'
"""

from __future__ import annotations

import bisect
import collections
import glob
import json
import sys
from typing import Any


def threshold(min_rtt_us: int) -> int:
    """lc_queue_threshold(): min_rtt / 8 in [4, 16] ms, at most half of min_rtt (>= 0.5 ms)."""
    clamped = min(max(min_rtt_us >> 3, 4000), 16000)
    return min(clamped, max(min_rtt_us >> 1, 500))


def summarise(point: dict[str, Any], ks: tuple[int, ...] = (1, 4, 8)) -> list[str]:
    trace = point["trace"]
    rounds = [e for e in trace if e.get("event") == "jersey_round"]
    losses = [e for e in trace if e.get("event") == "jersey_loss" and e.get("why") == "queue"]
    lines = [f"goodput {point['metrics']['goodput_bps'] / 1e6:.2f} Mb/s, {len(rounds)} rounds"]
    if not rounds:
        return lines
    times: list[float] = []
    in_a_row: list[int] = []
    lengths: list[int] = []
    k = 0
    for r in rounds:
        shows = r["min"] - r["rtt_min"] > threshold(r["rtt_min"])
        if shows:
            k += 1
        elif k:
            lengths.append(k)
            k = 0
        times.append(r["t"])
        in_a_row.append(k)
    runs = sorted(collections.Counter(lengths).items())
    lines.append(f"rounds with a queue {sum(1 for n in in_a_row if n)}; run lengths {runs}")
    for want in ks:
        kept = 0
        for e in losses:
            i = bisect.bisect_left(times, e["t"]) - 1
            kept += i >= 0 and in_a_row[i] >= want
        lines.append(f"K={want}: {kept} of {len(losses)} queue answers had K rounds before them")
    return lines


def main(pattern: str) -> None:
    for path in sorted(glob.glob(pattern)):
        with open(path) as f:
            point = json.load(f)
        print(path.rsplit("/", 1)[-1])
        for line in summarise(point):
            print("  " + line)


if __name__ == "__main__":
    main(sys.argv[1])
