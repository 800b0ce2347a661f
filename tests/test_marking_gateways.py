"""testbed.experiments.marking_gateways: trial lists, metrics, criteria on synthetic results
(no VM)."""

from __future__ import annotations

from typing import Any

import pytest

from testbed.experiments import marking_gateways as aq


def fig_result(gateway: str, run: int, qlens: list[int], goodput: float, rate_bps: float):
    samples = []
    sent = 0.0
    for i, q in enumerate(qlens):
        t = i * 0.1
        samples.append({"t": t, "qlen": q, "bytes": int(sent), "packets": 0, "drops": 0})
        sent += rate_bps * 0.1 / 8
    return {
        "params": {"part": "fig810", "gateway": gateway, "run": run},
        "flows": [{"goodput_bps": goodput, "started_s": 0.3, "seconds": 30.0}],
        "samples": {"queues": {aq.QUEUE: samples}},
    }


def stag_result(run: int, drops_at: dict[float, int], rates: list[float]) -> dict[str, Any]:
    samples = []
    drops = 0
    for i in range(121):
        t = i * 0.5
        drops += drops_at.get(t, 0)
        samples.append({"t": t, "qlen": 5, "packets": i * 200, "drops": drops, "bytes": 0})
    flows = [
        {
            "start_s": start,
            "started_s": start,
            "goodput_bps": r,
            "intervals": [[float(k), r] for k in range(1, 61 - start)],
        }
        for start, r in zip(aq.STAGGER_S, rates, strict=True)
    ]
    return {
        "params": {"part": "staggered", "run": run},
        "flows": flows,
        "samples": {"queues": {aq.QUEUE: samples}},
    }


def test_trials() -> None:
    ts = aq.fig810_trials(2, 30) + aq.staggered_trials(1)
    assert len(ts) == 7
    vcrr1 = next(t for t in ts if t.params.get("gateway") == "vcrr1")
    gw = vcrr1.links[-1].queue.tc_args()
    assert gw[0] == "vcrr" and "gamma" in gw and gw[gw.index("gamma") + 1] == "1"
    assert gw[gw.index("rate") + 1] == "2mbit"
    stag = ts[-1]
    assert [f.start_s for f in stag.flows] == [0, 20, 40]
    assert all(f.start_s + f.duration_s == 60 for f in stag.flows)
    sgw = stag.links[-1].queue.tc_args()
    assert sgw[sgw.index("rate") + 1] == "5mbit"


def summary_of(results: list[dict[str, Any]]) -> dict[str, Any]:
    return aq.summarise({"results": results})


def test_fig810_criteria_pass_and_fail() -> None:
    steady_aq = [40, 10] * 150  # mean 25, std 15
    steady_v1 = [6, 4] * 150  # mean 5, std 1
    results = [
        fig_result("cwaq", 0, steady_aq, 1.85e6, 1.98e6),
        fig_result("vcrr1", 0, steady_v1, 1.80e6, 1.90e6),
        fig_result("vcrr95", 0, steady_v1, 1.70e6, 1.84e6),
    ]
    s = summary_of(results)["fig810"]
    assert s["cwaq"]["qlen_mean"] == pytest.approx(25)
    assert s["cwaq"]["qlen_std"] == pytest.approx(15)
    assert s["vcrr95"]["utilisation"] == pytest.approx(0.92, rel=1e-3)
    assert s["vcrr95"]["utilisation_all"] == pytest.approx(0.92, rel=1e-3)
    assert all(ok for _, ok, _ in aq.criteria({"fig810": s}))
    # a VCRR queue as long as CW's, and a link 99% used, fail
    results[1] = fig_result("vcrr1", 0, steady_aq, 1.80e6, 1.90e6)
    results[2] = fig_result("vcrr95", 0, steady_v1, 1.70e6, 1.98e6)
    failed = [c for c, ok, _ in aq.criteria(summary_of(results)) if not ok]
    assert failed == [
        "vcrr gamma 1 mean queue <= 1/2 of cw aq",
        "vcrr gamma 1 queue std <= 1/2 of cw aq",
        "vcrr gamma 0.95 utilisation in [0.88, 0.97]",
    ]


def test_staggered_counts_drops_after_10s_only() -> None:
    # 30 slow-start drops at 2 s are ignored; 3 drops later of ~22000 packets pass
    ok = stag_result(0, {2.0: 30, 30.0: 3}, [1.5e6, 1.5e6, 1.45e6])
    s = summary_of([ok])["staggered"]
    assert s["runs"][0]["drops_after_10s"] == 3
    assert s["drop_ratio_after_10s"] == pytest.approx(3 / (100 * 200 + 3), rel=1e-6)
    assert s["jain"] > 0.99
    assert all(holds for _, holds, _ in aq.criteria({"staggered": s}))
    bad = stag_result(0, {30.0: 40}, [3e6, 1e6, 0.5e6])
    crit = dict((c, holds) for c, holds, _ in aq.criteria(summary_of([bad])))
    assert not crit["staggered: tail drops after 10 s <= 0.1% of packets"]
    assert not crit["staggered: Jain index while all three run >= 0.95"]
