"""jersey's loss differentiation: goodput against reno and its wireless/congestion decisions.

The acceptance experiment of the jersey module (runs on the target kernel).

``python -m testbed.experiments.jersey_loss_differentiation --out FILE [--runs 3] [--duration 30]``

On the thesis fig 5.11 path (source -10 Mb/s, 45 ms- gateway -2 Mb/s,
1 ms- receiver) with the thesis's CW marking gateway (``cw``, 50-packet
buffer, threshold 16) in front of the 2 Mb/s hop, ECN on at every sender
and jersey loaded with ``needs_ecn=0`` (RFC 3168 negotiation):

* ``u1``: uniform 1% loss on the wireless hop, jersey and reno, one flow each;
* ``u5``: uniform 5% loss, jersey and reno;
* ``cong``: no loss, one jersey and one reno flow sharing the bottleneck;
* ``burst``: no loss, jersey and an on/off UDP source (2 Mb/s for 1 s every
  5 s) that overflows the buffer: every loss jersey sees is a queue drop;
* ``ge5``: Gilbert-Elliott loss with a 5% mean, jersey, reno, westwood, bbr.

Every point is repeated ``--runs`` times; jersey's loss decisions come from
its ``jersey:jersey_loss`` tracepoint.  :func:`summarise` turns the raw
results into the numbers the acceptance criteria are checked against.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from testbed import modules
from testbed.analysis.metrics import ceiling
from testbed.net import topologies
from testbed.net.path import Loss, Queue
from testbed.run.records import TrialResult
from testbed.run.trial import ECN_SYSCTLS, Trial, environment, run_trials
from testbed.traffic.flows import Flow

SENDERS = {"src": ECN_SYSCTLS}
GE_MEAN = 0.05
LOSS_CAUSES = ("wireless", "congestion", "rto_wireless", "rto_congestion")
WIRELESS_CAUSES = ("wireless", "rto_wireless")
CEILING_BPS = 2e6
# Gilbert-Elliott with a 5 % mean: bad states of two packets on average
# losing half their packets, good states a tenth of the mean
GE_LOSS = Loss.ge_mean(GE_MEAN, burst=2, bad_loss=0.5, good_loss=GE_MEAN / 10)


def gateway() -> Queue:
    return Queue("cw", ("limit", "50", "thresh", "16"))


def trials(runs: int, duration: float) -> list[Trial]:
    out = []
    points: list[tuple[str, Loss | None, list[list[str]]]] = [
        ("u1", Loss.random(0.01), [["jersey"], ["reno"]]),
        ("u5", Loss.random(0.05), [["jersey"], ["reno"]]),
        ("cong", None, [["jersey", "reno"]]),
        ("burst", None, [["jersey"]]),
        ("ge5", GE_LOSS, [["jersey"], ["reno"], ["westwood"], ["bbr"]]),
    ]
    for run in range(runs):
        for point, loss, mixes in points:
            for ccs in mixes:
                flows = [Flow("src", "rcv", cc, duration) for cc in ccs]
                if point == "burst":
                    flows += udp_bursts(duration)
                out.append(
                    Trial(
                        f"{point}-{'+'.join(ccs)}-run{run}",
                        topologies.links("fig511", loss=loss, gateway=gateway()),
                        flows,
                        sysctls=SENDERS,
                        params={
                            "point": point,
                            "ccs": ccs,
                            "run": run,
                            "loss": loss.to_json() if loss else None,
                            "duration_s": duration,
                        },
                        trace_events=["jersey/jersey_loss"] if "jersey" in ccs else [],
                    )
                )
    return out


def udp_bursts(duration: float, period: float = 5, rate_mbit: float = 2) -> list[Flow]:
    """On/off UDP at the link rate: 1 s on every ``period`` s after the first."""
    starts = [t for t in range(int(period), int(duration) - 1, int(period))]
    return [Flow("src", "rcv", duration_s=1, start_s=t, udp_mbit=rate_mbit) for t in starts]


def decisions(result: dict[str, Any]) -> dict[str, int]:
    """Jersey's decisions in one trial by cause (the final running totals)."""
    counts: dict[str, int] = {}
    for ev in result.get("trace", []):
        if ev.get("event") == "jersey_loss":
            counts[str(ev["cause"])] = counts.get(str(ev["cause"]), 0) + 1
    return counts


def wireless_link(result: dict[str, Any]) -> dict[str, Any]:
    return next(x for x in result["links"] if x["link"] == "gw->rcv")


def _goodputs(results: list[dict[str, Any]], point: str, ccs: list[str]) -> list[float]:
    return [
        r["flows"][0]["goodput_bps"]
        for r in results
        if r["params"]["point"] == point and r["params"]["ccs"] == ccs
    ]


def summarise(doc: dict[str, Any]) -> dict[str, Any]:
    """The acceptance numbers: medians over runs, and every run's value."""
    res = doc["trials"]
    for r in res:
        for f in r["flows"]:
            if "error" in f:
                raise RuntimeError(f"{r['name']}: {f['error']}")
    med = statistics.median
    out: dict[str, Any] = {"kernel": doc["environment"]["kernel"], "runs": doc["runs"]}
    for point, per in (("u1", 0.01), ("u5", 0.05)):
        j, reno = _goodputs(res, point, ["jersey"]), _goodputs(res, point, ["reno"])
        dec: dict[str, int] = {}
        air = queue = 0
        for r in res:
            if r["params"]["point"] == point and r["params"]["ccs"] == ["jersey"]:
                for k, v in decisions(r).items():
                    dec[k] = dec.get(k, 0) + v
                air += wireless_link(r)["air_drops"]
                queue += wireless_link(r)["queue_drops"]
        losses = sum(dec.get(c, 0) for c in LOSS_CAUSES)
        wireless = sum(dec.get(c, 0) for c in WIRELESS_CAUSES)
        out[point] = {
            "jersey_bps": med(j),
            "reno_bps": med(reno),
            "jersey_runs_bps": j,
            "reno_runs_bps": reno,
            "ceiling_bps": ceiling(CEILING_BPS, per, None),
            "jersey_over_ceiling": med(j) / ceiling(CEILING_BPS, per, None),
            "jersey_over_reno": med(j) / med(reno),
            "decisions": dec,
            "loss_decisions": losses,
            "wireless_fraction": wireless / losses if losses else None,
            "air_drops": air,
            "queue_drops": queue,
        }
    for point in ("cong", "burst"):
        shares: list[float] = []
        cong_dec: dict[str, int] = {}
        qdrops = airdrops = 0
        for r in res:
            if r["params"]["point"] != point:
                continue
            if point == "cong":
                by_cc = {f["cc"]: f["goodput_bps"] for f in r["flows"]}
                shares.append(by_cc["jersey"] / by_cc["reno"])
            for k, v in decisions(r).items():
                cong_dec[k] = cong_dec.get(k, 0) + v
            qdrops += sum(x["queue_drops"] for x in r["links"])
            airdrops += sum(x["air_drops"] for x in r["links"])
        losses = sum(cong_dec.get(c, 0) for c in LOSS_CAUSES)
        congestion = losses - sum(cong_dec.get(c, 0) for c in WIRELESS_CAUSES)
        out[point] = {
            "jersey_over_reno_runs": shares,
            "jersey_over_reno": med(shares) if shares else None,
            "jersey_bps_runs": [
                r["flows"][0]["goodput_bps"] for r in res if r["params"]["point"] == point
            ],
            "decisions": cong_dec,
            "loss_decisions": losses,
            "congestion_decisions": congestion,
            "congestion_fraction": congestion / losses if losses else None,
            "queue_drops": qdrops,
            "air_drops": airdrops,
        }
    # every loss in both congestion points was a queue drop (no link loss)
    both = [out["cong"], out["burst"]]
    losses = sum(p["loss_decisions"] for p in both)
    out["congestion_fraction"] = (
        sum(p["congestion_decisions"] for p in both) / losses if losses else None
    )
    ge = {cc: med(_goodputs(res, "ge5", [cc])) for cc in ("jersey", "reno", "westwood", "bbr")}
    out["ge5"] = {
        "goodput_bps": ge,
        "runs_bps": {cc: _goodputs(res, "ge5", [cc]) for cc in ge},
        "measured_drop_ratio": [
            wireless_link(r)["air_drop_ratio"] for r in res if r["params"]["point"] == "ge5"
        ],
    }
    return out


def criteria(s: dict[str, Any]) -> dict[str, bool]:
    """The acceptance criteria of the jersey module on a summary."""
    return {
        "u1: jersey >= 0.85 ceiling": s["u1"]["jersey_over_ceiling"] >= 0.85,
        "u1: jersey >= 1.15 reno": s["u1"]["jersey_over_reno"] >= 1.15,
        "u1: >= 85% wireless decisions": (s["u1"]["wireless_fraction"] or 0) >= 0.85,
        "u5: jersey >= 0.65 ceiling": s["u5"]["jersey_over_ceiling"] >= 0.65,
        "u5: jersey >= 2 reno": s["u5"]["jersey_over_reno"] >= 2.0,
        "cong: >= 90% congestion decisions": (s["congestion_fraction"] or 0) >= 0.90,
        "cong: jersey/reno share in 0.67-1.5": 0.67 <= s["cong"]["jersey_over_reno"] <= 1.5,
        "ge5: jersey >= reno": s["ge5"]["goodput_bps"]["jersey"] >= s["ge5"]["goodput_bps"]["reno"],
        "ge5: jersey >= westwood": s["ge5"]["goodput_bps"]["jersey"]
        >= s["ge5"]["goodput_bps"]["westwood"],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", required=True)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--duration", type=float, default=30)
    ap.add_argument("--parallel", type=int, default=10)
    args = ap.parse_args()
    modules.load("tcp_jersey", needs_ecn=0, classify="paper")
    todo = trials(args.runs, args.duration)
    results: list[TrialResult] = []
    t0 = time.monotonic()
    for i in range(0, len(todo), args.parallel):
        results += run_trials(todo[i : i + args.parallel])
        print(
            f"jersey_loss_differentiation: {len(results)}/{len(todo)} trials,"
            f" {time.monotonic() - t0:.0f} s",
            file=sys.stderr,
            flush=True,
        )
    doc: dict[str, Any] = {
        "environment": environment(),
        "runs": args.runs,
        "duration_s": args.duration,
        "gateway": gateway().to_json(),
        "sender_sysctls": SENDERS,
        "trials": results,
    }
    doc["summary"] = summarise(doc)
    doc["criteria"] = criteria(doc["summary"])
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=1))
    print(json.dumps({"summary": doc["summary"], "criteria": doc["criteria"]}, indent=1))


if __name__ == "__main__":
    main()
