"""testbed/experiments/diffc_newrenolp_balde.py: trial lists and the summary's checks (no VM)."""

from __future__ import annotations

from typing import Any

import pytest

from testbed.experiments import diffc_newrenolp_balde as acc


def test_parts_build_their_trials() -> None:
    names = {k: [t.name for t in fn(3, d)] for k, (fn, d, _) in acc.PARTS.items()}
    assert len(names["nrlp_uniform"]) == 3 * len(acc.NRLP_PERS) * 2
    every = [n for v in names.values() for n in v]
    assert len(set(every)) == len(every)
    lp = [t for t in acc.nrlp_uniform(1, 10) if t.params["cc"] == "newrenolp"]
    assert all(t.monitor is not None and t.trace_events for t in lp)
    ge = acc.ge_loss(1.0)
    assert ge.params[0] == pytest.approx(1 / 833.33, rel=1e-3)  # good: 1 s of packets
    assert ge.params[1] == pytest.approx(1 / 41.67, rel=1e-3)  # bad: 0.05 s
    sat = acc.satellite(1, 10)
    five = next(t for t in sat if t.params.get("ber") == 5e-5)
    assert five.params["per"] == pytest.approx(0.33, abs=0.01)
    assert all(f.mss == acc.SAT_MSS for t in sat for f in t.flows)
    # a lost SYN must not turn a connection into one without ECN (diffc -> Reno)
    assert all(t.sysctls["src"]["net.ipv4.tcp_ecn_fallback"] == "0" for t in sat)
    q, model = acc.sat_queue(1)
    assert q.kind == "red" and "ecn" in q.args
    assert 7 < model["max_th"] < 10


def trial(name: str, bps: list[float], gt: dict[str, Any] | None = None) -> dict[str, Any]:
    t: dict[str, Any] = {"name": name, "flows": [{"goodput_bps": b} for b in bps], "links": []}
    if gt is not None:
        t["groundtruth"] = gt
    return t


def test_summary_medians_and_checks() -> None:
    gt = {"accuracy": 0.8, "judged": 10, "truth_counts": {}, "confusion": {}}
    uni = []
    for per in acc.NRLP_PERS:
        for run in range(3):
            uni.append(trial(f"u{per:g}-newrenolp-{run}", [4e6 + run], gt))
            uni.append(trial(f"u{per:g}-reno-{run}", [2e6 + run]))
    doc = {
        "environment": {"kernel": "6.12.95+deb12-amd64"},
        "parts": {
            "nrlp_uniform": {"trials": uni},
            "nrlp_fair": {
                "trials": [trial(f"fair-{i}", [2e6, 2e6, 2e6, 2e6, 1e6]) for i in range(3)]
            },  # fmt: skip
            "balde": {"trials": [trial("b0.01-balde-0", [3e6]), trial("b0.01-reno-0", [2.5e6])]},
        },
    }
    s = acc.summarize_kernel(doc)
    checks = {c["name"]: c for c in s["checks"]}
    one = checks["nrlp_uniform PER 0.01: newrenolp/reno at 1%"]
    assert one["pass"] and one["value"] == pytest.approx((4e6 + 1) / (2e6 + 1))
    assert checks["nrlp_uniform PER 0.05: accuracy"]["value"] == pytest.approx(0.8)
    assert not checks["nrlp_fair: Jain of 5 newrenolp"]["pass"]  # 0.947
    assert not checks["balde PER 0.01: balde/reno"]["pass"]  # 1.2
    md = acc.markdown([s])
    assert "**FAIL**" in md and "| nrlp_fair: Jain of 5 newrenolp |" in md


def test_variant_part_uses_base_reno_and_skips_unmeasured_points() -> None:
    gt = {"accuracy": 0.75, "judged": 10, "truth_counts": {}, "confusion": {}}
    base = [trial(f"u{per:g}-reno-{r}", [1e6]) for per in acc.NRLP_PERS for r in range(3)]
    variant = [trial(f"u0.01-newrenolp-{r}", [3e6], gt) for r in range(3)]
    doc = {
        "environment": {"kernel": "6.1.0-56-amd64"},
        "parts": {"nrlp_uniform": {"trials": base}, "nrlp_uniform.rtt_min": {"trials": variant}},
    }
    s = acc.summarize_kernel(doc)
    checks = {c["name"]: c for c in s["checks"]}
    ratio = checks["nrlp_uniform.rtt_min PER 0.01: newrenolp/reno"]
    assert ratio["pass"] and ratio["value"] == pytest.approx(3.0)
    assert [r["point"] for r in s["nrlp"]["nrlp_uniform.rtt_min"]] == [0.01]
    assert not any(n.startswith("nrlp_uniform.rtt_min PER 0.05") for n in checks)


def test_a_diffc_run_without_ecn_is_flagged() -> None:
    loss = {"event": "diffc_loss", "kind": "dupack"}
    assert acc.diffc_had_ecn({"trace": [dict(loss, ecn=1), dict(loss, ecn=1)]}) is True
    assert acc.diffc_had_ecn({"trace": [dict(loss, ecn=0), dict(loss, ecn=0)]}) is False
    assert acc.diffc_had_ecn({"trace": []}) is None
