"""Goodput vs packet error rate on the thesis fig 5.11 path (runs in the VM).

``python -m testbed.goodput_sweep --out FILE --ccs reno,jersey --pers 0,0.01
--runs 3 --duration 20`` runs every (cc, per, run) point as its own trial on
its own namespaces, ``--parallel`` points at a time, and writes every
trial's full result as JSON.

The gateway in front of the lossy hop is the thesis's own: a CW marking
queue (``cw``, 50-packet buffer, threshold a third of it).  Every sender
has ECN on (``net.ipv4.tcp_ecn=1``): the kernel's schemes answer CE marks
as RFC 3168 says, and jersey (loaded with ``needs_ecn=0``, i.e. the
kernel's RFC 3168 negotiation, which any ECN-capable receiver accepts)
uses them to tell congestion from corruption.  bbr ignores ECN.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from testbed import modules, scenarios
from testbed.flows import Flow
from testbed.netpath import Loss, Queue
from testbed.trial import Trial, environment, run_trials

# our modules that take part in the sweep, and the parameters they run with
MODULE_PARAMS = {"jersey": ("tcp_jersey", {"needs_ecn": 0})}
SENDER_SYSCTLS = scenarios.ECN_SENDER_SYSCTLS


def gateway_queue() -> Queue:
    return Queue("cw", ("limit", str(scenarios.WIRELESS_BUFFER)))


def point(cc: str, per: float, run: int, duration: float) -> Trial:
    loss = Loss.random(per) if per > 0 else None
    return Trial(
        f"{cc}-per{per:g}-run{run}",
        scenarios.fig511(loss, gateway_queue()),
        [Flow("src", "rcv", cc, duration)],
        sysctls=SENDER_SYSCTLS,
        params={"cc": cc, "per": per, "run": run, "duration_s": duration},
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", required=True)
    ap.add_argument("--ccs", default="reno,cubic,westwood,veno,vegas,bbr,jersey")
    ap.add_argument("--pers", default="0,0.001,0.01,0.05")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--duration", type=float, default=20)
    ap.add_argument("--parallel", type=int, default=8)
    args = ap.parse_args()
    ccs = args.ccs.split(",")
    for cc in ccs:
        if cc in MODULE_PARAMS:
            module, values = MODULE_PARAMS[cc]
            modules.load(module, **values)
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
