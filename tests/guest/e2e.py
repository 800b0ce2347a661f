"""Foundation end-to-end checks on the thesis fig 5.11 path (runs in the VM).

``python -m tests.guest.e2e --out FILE [--duration 20]`` runs, concurrently on
separate namespaces, 20 s iperf3 flows:

* ``reno_0``: reno, no loss;
* ``reno_1``, ``westwood_1``: ``netem loss random 1%`` on the 2 Mb/s hop;
* ``ge_5``: bbr over Gilbert-Elliott loss with a 5% mean;
* ``red_ecn``: reno with ECN through ``red ... ecn`` as the bottleneck.

and writes the trial results as JSON.  tests/test_vm_e2e.py asserts on them.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from testbed.net import topologies
from testbed.net.path import Link, Loss, Queue
from testbed.run.trial import Trial, environment, run_trials
from testbed.traffic.flows import Flow

GE_MEAN = 0.05


def fig511(**params: Any) -> list[Link]:
    return topologies.links("fig511", **params)


def trials(duration: float) -> list[Trial]:
    def flow(cc: str) -> list[Flow]:
        return [Flow("src", "rcv", cc, duration)]

    # bad states of two packets on average losing half their packets, good
    # states a tenth of the mean
    ge = Loss.ge_mean(GE_MEAN, burst=2, bad_loss=0.5, good_loss=GE_MEAN / 10)
    red = Queue.red_ecn(rate_mbit=2, min_pkts=5, max_pkts=15, max_p=0.1, limit_pkts=50)
    return [
        Trial("reno_0", fig511(), flow("reno")),
        Trial("reno_1", fig511(loss=Loss.random(0.01)), flow("reno")),
        Trial("westwood_1", fig511(loss=Loss.random(0.01)), flow("westwood")),
        # bbr keeps the link busy despite the loss, so the ratio is measured on
        # ~3000 packets (reno would send a third of that)
        Trial("ge_5", fig511(loss=ge), flow("bbr"), params={"ge_mean": ge.mean}),
        Trial(
            "red_ecn",
            fig511(gateway=red),
            flow("reno"),
            sysctls={"src": {"net.ipv4.tcp_ecn": "1"}},
        ),
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", required=True)
    ap.add_argument("--duration", type=float, default=20)
    args = ap.parse_args()
    results = run_trials(trials(args.duration))
    doc = {"environment": environment(), "trials": {r["name"]: r for r in results}}
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=1))


if __name__ == "__main__":
    main()
