"""Foundation end-to-end checks on the thesis fig 5.11 path (runs in the VM).

``python -m testbed.e2e --out FILE [--duration 20]`` runs, concurrently on
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

from testbed import scenarios
from testbed.flows import Flow
from testbed.netpath import Loss, Queue
from testbed.trial import Trial, environment, run_trials

GE_MEAN = 0.05


def trials(duration: float) -> list[Trial]:
    def flow(cc: str) -> list[Flow]:
        return [Flow("src", "rcv", cc, duration)]

    ge = scenarios.ge_for_mean(GE_MEAN)
    red = Queue.red_ecn(rate_mbit=2, min_pkts=5, max_pkts=15, max_p=0.1, limit_pkts=50)
    return [
        Trial("reno_0", scenarios.fig511(), flow("reno")),
        Trial("reno_1", scenarios.fig511(Loss.random(0.01)), flow("reno")),
        Trial("westwood_1", scenarios.fig511(Loss.random(0.01)), flow("westwood")),
        # bbr keeps the link busy despite the loss, so the ratio is measured on
        # ~3000 packets (reno would send a third of that)
        Trial("ge_5", scenarios.fig511(ge), flow("bbr"), params={"ge_mean": ge.mean}),
        Trial(
            "red_ecn",
            scenarios.fig511(queue=red),
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
