"""The marking gateways: queue, utilisation and goodput of cw and vcrr; fairness and tail
drops of staggered flows behind vcrr.

The acceptance experiment of the marking qdiscs (runs on the target kernel).

``python -m testbed.experiments.marking_gateways --out FILE [--runs 3] [--parts fig810,staggered]``

* ``fig810`` (thesis fig 8.10-8.20): the fig 5.11 path (source -10 Mb/s,
  45 ms- gateway -2 Mb/s, 1 ms- receiver), 1% random loss on the wireless
  hop both ways, one jersey flow of ``--duration`` seconds, with the
  gateway ``cw aq`` (threshold 25 of a 50-packet buffer), ``vcrr gamma 1``
  and ``vcrr gamma 0.95`` (50 packets, 20 ms interval, the link's rate).
  The gateway's queue is sampled every 0.1 s; queue mean and standard
  deviation are taken from ``--settle`` seconds on (after slow start), the
  link utilisation is the bytes the gateway sent from then to the flow's
  end over the link's capacity (``utilisation_all``: over every sample).
* ``staggered`` (fig 8.21): S1, S2, S3 -100 Mb/s, 45 ms- gateway -5 Mb/s,
  1 ms- receiver, 1% loss, ``vcrr`` (gamma 0.95, 50 packets); jersey flows
  start at 0, 20 and 40 s and run to 60 s.  Tail (congestion) drops at the
  gateway after the first 10 s, from 0.5 s samples of its counters, over
  the packets it received in that time; Jain's index of the receivers'
  1 s goodput reports while all three run (42-60 s).

ECN is on at every sender (``tcp_ecn=1``, no fallback) and jersey is loaded
with ``needs_ecn=0``.  :func:`summarise` gives medians over the runs and
:func:`criteria` checks them against the acceptance thresholds.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from testbed import modules
from testbed.analysis.metrics import arrivals, data_start, jain, window_goodput
from testbed.net import topologies
from testbed.run.trial import ECN_SYSCTLS, Trial, environment, run_trials
from testbed.traffic.flows import Flow

SENDERS = {"src": ECN_SYSCTLS}
QUEUE = "gw->rcv"
GATEWAYS = {
    "cwaq": {"kind": "cw", "limit": 50, "thresh": 25, "mode": "aq"},
    "vcrr1": {"kind": "vcrr", "limit": 50, "gamma": 1.0},
    "vcrr95": {"kind": "vcrr", "limit": 50, "gamma": 0.95},
}
STAGGER_S = (0, 20, 40)
STAGGER_END_S = 60
JAIN_WINDOW = (42, 60)
DROPS_AFTER_S = 10


def fig810_trials(runs: int, duration: float) -> list[Trial]:
    out = []
    for run in range(runs):
        for name, gw in GATEWAYS.items():
            links = topologies.links("fig511", gateway=gw, loss=0.01, loss_rev=0.01)
            out.append(
                Trial(
                    f"fig810-{name}-run{run}",
                    links,
                    [Flow("src", "rcv", "jersey", duration)],
                    sysctls={"src": SENDERS["src"]},
                    params={"part": "fig810", "gateway": name, "queue": gw, "run": run},
                    samplers={"queues": [QUEUE], "sample_s": 0.1},
                    duration_s=duration,
                )
            )
    return out


def staggered_trials(runs: int) -> list[Trial]:
    out = []
    gw = {"kind": "vcrr", "limit": 50, "gamma": 0.95}
    for run in range(runs):
        links = topologies.links("staggered", gateway=gw, loss=0.01, loss_rev=0.01)
        flows = [
            Flow(f"s{i + 1}", "rcv", "jersey", STAGGER_END_S - start, start, f"flow{i + 1}")
            for i, start in enumerate(STAGGER_S)
        ]
        out.append(
            Trial(
                f"staggered-run{run}",
                links,
                flows,
                sysctls={f"s{i + 1}": SENDERS["src"] for i in range(len(STAGGER_S))},
                params={"part": "staggered", "queue": gw, "run": run},
                samplers={"queues": [QUEUE], "sample_s": 0.5},
                duration_s=STAGGER_END_S,
            )
        )
    return out


def _samples(result: dict[str, Any]) -> list[dict[str, Any]]:
    samples: list[dict[str, Any]] = result.get("samples", {}).get("queues", {}).get(QUEUE, [])
    return samples


def fig810_metrics(result: dict[str, Any], settle: float) -> dict[str, Any]:
    samples = _samples(result)
    steady = [s for s in samples if s["t"] >= settle]
    qlen = [float(s.get("qlen", 0)) for s in steady]
    flow = result["flows"][0]
    end = data_start(flow) + float(flow.get("seconds", 0))

    def utilisation(rows: list[dict[str, Any]]) -> float:
        rows = [s for s in rows if "bytes" in s]
        if len(rows) < 2 or rows[-1]["t"] <= rows[0]["t"]:
            return math.nan
        rate = (rows[-1]["bytes"] - rows[0]["bytes"]) * 8 / (rows[-1]["t"] - rows[0]["t"])
        return float(rate) / 2e6

    sent = [s for s in samples if "bytes" in s]
    return {
        "gateway": result["params"]["gateway"],
        "run": result["params"]["run"],
        "goodput_bps": flow.get("goodput_bps", math.nan),
        "error": flow.get("error"),
        "qlen_mean": statistics.fmean(qlen) if qlen else math.nan,
        "qlen_std": statistics.pstdev(qlen) if len(qlen) > 1 else math.nan,
        "samples": len(qlen),
        # the flow's steady state (from settle to its end), and every sample
        "utilisation": utilisation([s for s in steady if s["t"] <= end]),
        "utilisation_all": utilisation(sent),
        "marked": sent[-1].get("marked") if sent else None,
        "drops": sent[-1].get("drops") if sent else None,
    }


def staggered_metrics(result: dict[str, Any]) -> dict[str, Any]:
    samples = [s for s in _samples(result) if "packets" in s]
    after = [s for s in samples if s["t"] >= DROPS_AFTER_S]
    drops = received = 0
    if len(after) >= 2:
        first, last = after[0], after[-1]
        drops = last["drops"] - first["drops"]
        received = arrivals(first, last)
    flows = result["flows"]
    lo, hi = JAIN_WINDOW
    rates = [window_goodput(f, lo, hi, data_start(f)) for f in flows]
    got = [r for r in rates if r is not None]
    return {
        "run": result["params"]["run"],
        "errors": [f.get("error") for f in flows if f.get("error")],
        "drops_after_10s": drops,
        "packets_after_10s": received,
        "drop_ratio_after_10s": drops / received if received else math.nan,
        "drops_total": samples[-1]["drops"] if samples else None,
        "window_bps": rates,
        "jain": jain(got) if len(got) == len(flows) else math.nan,
        "goodput_bps": [f.get("goodput_bps") for f in flows],
    }


def _median(xs: list[float]) -> float:
    xs = [x for x in xs if x is not None and not math.isnan(x)]
    return statistics.median(xs) if xs else math.nan


def summarise(doc: dict[str, Any], settle: float = 5.0) -> dict[str, Any]:
    out: dict[str, Any] = {}
    fig = [fig810_metrics(r, settle) for r in doc["results"] if r["params"]["part"] == "fig810"]
    if fig:
        gws: dict[str, Any] = {}
        for name in GATEWAYS:
            rows = [m for m in fig if m["gateway"] == name]
            gws[name] = {
                key: _median([m[key] for m in rows])
                for key in (
                    "goodput_bps",
                    "qlen_mean",
                    "qlen_std",
                    "utilisation",
                    "utilisation_all",
                )
            }
            gws[name]["runs"] = rows
        out["fig810"] = gws
    stag = [staggered_metrics(r) for r in doc["results"] if r["params"]["part"] == "staggered"]
    if stag:
        out["staggered"] = {
            "drop_ratio_after_10s": _median([m["drop_ratio_after_10s"] for m in stag]),
            "jain": _median([m["jain"] for m in stag]),
            "runs": stag,
        }
    return out


def criteria(summary: dict[str, Any]) -> list[tuple[str, bool, str]]:
    """(criterion, holds, measured) for every acceptance criterion measured."""
    out = []
    fig = summary.get("fig810")
    if fig:
        aq, v1, v95 = fig["cwaq"], fig["vcrr1"], fig["vcrr95"]
        out += [
            (
                "vcrr gamma 1 mean queue <= 1/2 of cw aq",
                v1["qlen_mean"] <= aq["qlen_mean"] / 2,
                f"{v1['qlen_mean']:.2f} vs {aq['qlen_mean']:.2f} packets",
            ),
            (
                "vcrr gamma 1 queue std <= 1/2 of cw aq",
                v1["qlen_std"] <= aq["qlen_std"] / 2,
                f"{v1['qlen_std']:.2f} vs {aq['qlen_std']:.2f} packets",
            ),
            (
                "vcrr gamma 1 goodput within 10% of cw aq",
                abs(v1["goodput_bps"] - aq["goodput_bps"]) <= 0.1 * aq["goodput_bps"],
                f"{v1['goodput_bps'] / 1e6:.3f} vs {aq['goodput_bps'] / 1e6:.3f} Mb/s",
            ),
            (
                "vcrr gamma 0.95 utilisation in [0.88, 0.97]",
                0.88 <= v95["utilisation"] <= 0.97,
                f"{v95['utilisation']:.3f}",
            ),
        ]
    stag = summary.get("staggered")
    if stag:
        out += [
            (
                "staggered: tail drops after 10 s <= 0.1% of packets",
                stag["drop_ratio_after_10s"] <= 0.001,
                f"{stag['drop_ratio_after_10s'] * 100:.3f}%",
            ),
            (
                "staggered: Jain index while all three run >= 0.95",
                stag["jain"] >= 0.95,
                f"{stag['jain']:.3f}",
            ),
        ]
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--duration", type=float, default=30)
    ap.add_argument("--settle", type=float, default=5.0, help="queue statistics from this time on")
    ap.add_argument("--parts", default="fig810,staggered")
    ap.add_argument("--parallel", type=int, default=9)
    ap.add_argument(
        "--summarize", action="store_true", help="recompute --out's summary from its results"
    )
    args = ap.parse_args(argv)
    if args.summarize:
        return report(json.loads(Path(args.out).read_text()), args.out, args.settle)
    parts = args.parts.split(",")
    params = modules.load("tcp_jersey", needs_ecn=0, classify="paper")
    t0 = time.time()
    trials: list[Trial] = []
    if "fig810" in parts:
        trials += fig810_trials(args.runs, args.duration)
    if "staggered" in parts:
        trials += staggered_trials(args.runs)
    results = run_trials(trials, parallel=args.parallel)
    doc: dict[str, Any] = {
        "environment": {**environment(), "jersey_params": params},
        "args": vars(args),
        "wall_s": time.time() - t0,
        "results": results,
    }
    return report(doc, args.out, args.settle)


def report(doc: dict[str, Any], out: str, settle: float) -> int:
    doc["summary"] = summarise(doc, settle)
    doc["criteria"] = [
        {"criterion": c, "holds": ok, "measured": m} for c, ok, m in criteria(doc["summary"])
    ]
    Path(out).write_text(json.dumps(doc, indent=1, default=str))
    for c in doc["criteria"]:
        print(f"{'ok  ' if c['holds'] else 'FAIL'} {c['criterion']}: {c['measured']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
