"""Marking behaviour of cw and vcrr checked against their queue traces (runs in the VM).

``python -m tests.guest.qdisc_marking --out FILE [--duration 20]``

Four concurrent trials on the fig 5.11 path, each with a different gateway
queue in front of the 2 Mb/s hop (``cw`` aq, ``cw`` pq, ``vcrr``, and ``cw`` pq
with the path's offloads on, so that TSO aggregates of many segments reach
it), carrying an ECN jersey flow (ECT, the papers' jersey) and a slow non-ECT
UDP flow.  The per-packet tracepoints ``cw:cw_enqueue`` / ``vcrr:vcrr_enqueue``
give, for every arrival, the queue it found, the measure (or p) and what was done.  The analysis
recomputes the measure independently from the traced queue lengths (aq: the
EWMA, exactly as the kernel's integer arithmetic; vcrr: p from the bytes of
each control interval) and checks that

* an ECT packet is marked if and only if the measure is above the threshold
  (cw), marks only happen with p > 0 and their rate matches p (vcrr);
* a non-ECT packet is never marked;
* the receiver saw exactly as many CE packets as the queue marked;
* with offloads on, the queue saw segments (at most one MTU each), while the
  gateway received aggregates.
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from testbed import modules
from testbed.net import path as netpath
from testbed.net import topologies
from testbed.net.path import Queue
from testbed.run.trial import ECN_SYSCTLS, Trial, environment, run_trials
from testbed.traffic.flows import Flow

CW_W = 13107  # 0.2 in 1/65536, the default weight
VCRR_RATE = 250000  # 2 Mbit/s in bytes/s
VCRR_GAMMA = 62259  # 0.95 in 1/65536
VCRR_INTERVAL_S = 0.020
VCRR_QREF_S = 1.0  # the default
GATEWAYS = {
    "cw_aq": Queue("cw", ("limit", "50", "thresh", "16", "mode", "aq")),
    "cw_pq": Queue("cw", ("limit", "50", "thresh", "16", "mode", "pq", "interval", "20ms")),
    "vcrr": Queue("vcrr", ("rate", "2mbit", "gamma", "0.95", "interval", "20ms", "limit", "50")),
}
# the same queue as cw_pq, on a path whose devices keep TSO, GSO and GRO
GSO_TRIALS = {"cw_pq_gso": "cw_pq"}
ECT = (1, 2)  # ECT(1), ECT(0)


def rx_counters(ns: str, dev: str) -> tuple[int, int]:
    """(skbs, bytes) a device received; a veth counts an aggregate once."""
    rx = json.loads(netpath.sh("ip", "-j", "-s", "link", "show", "dev", dev, ns=ns))[0]
    return int(rx["stats64"]["rx"]["packets"]), int(rx["stats64"]["rx"]["bytes"])


@contextmanager
def offloads_on(p: netpath.Path, _trial: Trial) -> Iterator[dict[str, Any]]:
    """Turn the offloads the testbed turns off back on, on every device of
    the path: the sender's TSO aggregates then cross the veths and bridges
    whole, as they reach a gateway's qdisc after GRO on real hardware.
    Records what the gateway received from the sender: skbs and bytes."""
    for link in p.links:
        for ns, dev in (
            (p.ns(link.a), p.dev(link)),
            (p.ns(link.b), p.dev(link)),
            (p.air(link), "pa"),
            (p.air(link), "pb"),
        ):
            netpath.sh("ethtool", "-K", dev, "tso", "on", "gso", "on", "gro", "on", ns=ns)
    wired = next(x for x in p.links if {x.a, x.b} == {"src", "gw"})
    before = rx_counters(p.ns("gw"), p.dev(wired))
    out: dict[str, Any] = {}
    yield out
    after = rx_counters(p.ns("gw"), p.dev(wired))
    out["gw_rx_skbs"], out["gw_rx_bytes"] = (a - b for a, b in zip(after, before, strict=True))


def trials(duration: float) -> list[Trial]:
    flows = [
        Flow("src", "rcv", "jersey", duration),
        # non-ECT: iperf3 UDP without --tos
        Flow("src", "rcv", duration_s=duration, udp_mbit=0.2),
    ]
    gateways = list(GATEWAYS.items()) + [(n, GATEWAYS[g]) for n, g in GSO_TRIALS.items()]
    return [
        Trial(
            name,
            topologies.links("fig511", gateway=q),
            flows,
            sysctls={"src": ECN_SYSCTLS, "rcv": {}},
            params={"gateway": name, "queue": q.to_json()},
            trace_events=[f"{q.kind}/{q.kind}_enqueue"],
            monitor=offloads_on if name in GSO_TRIALS else None,
        )
        for name, q in gateways
    ]


def gateway_events(result: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    """The enqueue events of the bottleneck queue (handle 10:) in the gateway."""
    gw = result["netns_inodes"][next(n for n in result["netns_inodes"] if n.endswith("-gw"))]
    return [
        e
        for e in result.get("trace", [])
        if e["event"] == f"{kind}_enqueue" and e["netns"] == gw and str(e["handle"]) == "10"
    ]


def cw_ewma(avg: int, w: int, q: int) -> int:
    """sch_cw's EWMA step (cw_core.h), in the same integer arithmetic."""
    return ((65536 - w) * avg + w * (q << 16) + 32768) >> 16


def check_cw(events: list[dict[str, Any]], mode: str) -> dict[str, Any]:
    avg = 0
    ewma_mismatch = 0
    wrong_marks = wrong_unmarked = nonect_marked = 0
    for e in events:
        if mode == "aq":
            avg = cw_ewma(avg, CW_W, e["qlen"])
            ewma_mismatch += avg != e["measure"]
        over = e["measure"] > e["thresh"] << 16
        if e["action"] == "tail_drop":
            continue
        marked = e["action"] == "marked"
        if e["ecn"] in ECT:
            wrong_marks += marked and not over
            wrong_unmarked += over and not marked
        else:
            nonect_marked += marked
    ect = [e for e in events if e["ecn"] in ECT]
    return {
        "arrivals": len(events),
        "ect_arrivals": len(ect),
        "nonect_arrivals": len(events) - len(ect),
        "marked": sum(e["action"] == "marked" for e in events),
        "tail_drops": sum(e["action"] == "tail_drop" for e in events),
        "over_thresh_arrivals": sum(e["measure"] > e["thresh"] << 16 for e in events),
        "ewma_mismatch": ewma_mismatch if mode == "aq" else None,
        "marked_below_thresh": wrong_marks,
        "unmarked_above_thresh": wrong_unmarked,
        "nonect_marked": nonect_marked,
        "max_qlen": max((e["qlen"] for e in events), default=0),
    }


def vcrr_next_p(p: int, arrived: int) -> int:
    """p after an interval (8.36), for the parameters of GATEWAYS["vcrr"]."""
    vc = VCRR_RATE * VCRR_GAMMA / 65536
    nxt = p + (arrived - vc * VCRR_INTERVAL_S) / (vc * VCRR_QREF_S) * 2**32
    return int(min(max(nxt, 0), 2**32))


def check_vcrr(events: list[dict[str, Any]]) -> dict[str, Any]:
    by_interval: dict[int, list[dict[str, Any]]] = {}
    for e in events:
        by_interval.setdefault(e["updates"], []).append(e)
    # p recomputed from the bytes that arrived in each interval; compared
    # where the next interval also saw arrivals (its first one shows p)
    errors = []
    for k, evs in by_interval.items():
        nxt = by_interval.get(k + 1)
        if not nxt or any(e["prob"] != evs[0]["prob"] for e in evs):
            continue
        want = vcrr_next_p(evs[0]["prob"], sum(e["len"] for e in evs))
        errors.append(abs(nxt[0]["prob"] - want) / 2**32)
    ect = [e for e in events if e["ecn"] in ECT and e["action"] != "tail_drop"]
    expected = sum(min(e["prob"], 2**32) / 2**32 for e in ect)
    marked = sum(e["action"] == "marked" for e in ect)
    return {
        "arrivals": len(events),
        "ect_arrivals": len(ect),
        "nonect_arrivals": sum(e["ecn"] not in ECT for e in events),
        "intervals": len(by_interval),
        "intervals_checked": len(errors),
        "p_max_abs_error": max(errors, default=None),
        "marked": marked,
        "marked_expected": expected,
        # binomial: marks / expected within a few standard deviations
        "marked_z": (marked - expected) / math.sqrt(expected) if expected > 0 else None,
        "marked_with_p0": sum(e["action"] == "marked" and e["prob"] == 0 for e in events),
        "nonect_marked": sum(e["ecn"] not in ECT and e["action"] == "marked" for e in events),
        "tail_drops": sum(e["action"] == "tail_drop" for e in events),
        "mean_p": sum(e["prob"] for e in events) / len(events) / 2**32 if events else None,
    }


def analyse(result: dict[str, Any]) -> dict[str, Any]:
    kind = result["params"]["queue"]["kind"]
    events = gateway_events(result, kind)
    if kind == "cw":
        args = result["params"]["queue"]["args"]
        out = check_cw(events, dict(zip(args[::2], args[1::2], strict=True))["mode"])
    else:
        out = check_vcrr(events)
    wireless = next(x for x in result["links"] if x["link"] == "gw->rcv")
    out["tc_marked"] = wireless["queue_marked"]
    out["receiver_ce"] = result["nstat"].get("rcv", {}).get("IpExtInCEPkts", 0)
    out["max_len"] = max((e["len"] for e in events), default=0)
    out |= result.get("monitor", {})
    out["flows"] = [
        {k: f.get(k) for k in ("cc", "udp_mbit", "goodput_bps", "sent_bps", "error")}
        for f in result["flows"]
    ]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", required=True)
    ap.add_argument("--duration", type=float, default=20)
    args = ap.parse_args()
    # the papers' jersey (classify=paper), whose answer to a mark drains the
    # queue and whose window then climbs back through the threshold, round
    # after round: the safe mode drains only the standing queue's share and
    # held the measure near the threshold, above it for 13 arrivals of 3346
    # in a run on 6.1 (95-280 in others), too few to test the marking by
    modules.load("tcp_jersey", needs_ecn=0, classify="paper")
    results = run_trials(trials(args.duration))
    doc = {
        "environment": environment(),
        "checks": {r["name"]: analyse(r) for r in results},
    }
    Path(args.out).write_text(json.dumps(doc, indent=1))
    print(json.dumps(doc["checks"], indent=1))


if __name__ == "__main__":
    main()
