"""Goodput vs packet error rate on the thesis fig 5.11 path (runs in the VM).

``python -m testbed.goodput_sweep --out FILE --ccs reno,cubic --pers 0,0.01
--runs 3 --duration 20`` runs every (cc, per, run) point as its own trial on
its own namespaces, ``--parallel`` points at a time, and writes every
trial's full result as JSON.  The gateway queue is ``red ... ecn`` (5/15
packets, 50-packet buffer) for every scheme, and senders keep the kernel's
default ``net.ipv4.tcp_ecn=2``: schemes that need ECN (jersey, dctcp: flag
TCP_CONG_NEEDS_ECN) negotiate it and get CE marks; the others do not, and
RED drops their packets early instead.  That is how each scheme runs out of
the box.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from testbed import scenarios
from testbed.flows import Flow
from testbed.netpath import Loss, Queue
from testbed.trial import Trial, environment, run_trials


def gateway_queue() -> Queue:
    return Queue.red_ecn(rate_mbit=2, min_pkts=5, max_pkts=15, max_p=0.1, limit_pkts=50)


def point(cc: str, per: float, run: int, duration: float) -> Trial:
    loss = Loss.random(per) if per > 0 else None
    return Trial(
        f"{cc}-per{per:g}-run{run}",
        scenarios.fig511(loss, gateway_queue()),
        [Flow("src", "rcv", cc, duration)],
        params={"cc": cc, "per": per, "run": run, "duration_s": duration},
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", required=True)
    ap.add_argument("--ccs", default="reno,cubic,westwood,bbr")
    ap.add_argument("--pers", default="0,0.001,0.01,0.05")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--duration", type=float, default=20)
    ap.add_argument("--parallel", type=int, default=8)
    args = ap.parse_args()
    ccs = args.ccs.split(",")
    pers = [float(p) for p in args.pers.split(",")]
    trials = [
        point(cc, per, run, args.duration) for run in range(args.runs) for per in pers for cc in ccs
    ]
    results = []
    t0 = time.monotonic()
    for i in range(0, len(trials), args.parallel):
        chunk = trials[i : i + args.parallel]
        results += run_trials(chunk)
        print(
            f"sweep: {len(results)}/{len(trials)} points, {time.monotonic() - t0:.0f} s",
            file=sys.stderr,
            flush=True,
        )
    doc = {
        "environment": environment(),
        "scenario": "fig5.11",
        "ccs": ccs,
        "pers": pers,
        "trials": results,
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=1))


if __name__ == "__main__":
    main()
