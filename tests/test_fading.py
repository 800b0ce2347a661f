"""testbed/net/fading.py: the time-based Gilbert-Elliott schedule and commands (no VM)."""

from __future__ import annotations

import itertools
import random
import statistics

import pytest

from testbed.net import fading, topologies
from testbed.net.path import Path


def test_schedule_alternates_with_the_mean_durations() -> None:
    plan = fading.schedule(random.Random(1), 2000, 1.0, 0.05)
    assert plan[0] == (0.0, False)
    pairs = list(itertools.pairwise(plan))
    assert all(a[1] != b[1] for a, b in pairs)
    durations = [b[0] - a[0] for a, b in pairs]
    assert statistics.mean(durations[0::2]) == pytest.approx(1.0, rel=0.1)
    assert statistics.mean(durations[1::2]) == pytest.approx(0.05, rel=0.1)
    assert plan[-1][0] < 2000


def test_commands_and_mean_loss() -> None:
    links = topologies.links("newrenolp")
    for i, link in enumerate(links):
        link.index = i
    path = Path(links)
    f = fading.Fading(2, bad_loss=0.5)
    base = "qdisc change dev pb root handle 1: netem limit 100000 delay 0.01ms"
    assert f._cmd(path, True) == base + " loss random 50%"
    assert f._cmd(path, False) == base
    assert f.to_json()["mean_loss"] == pytest.approx(0.5 * 0.05 / 1.05)
