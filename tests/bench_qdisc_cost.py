"""Benchmark (not a test): per-packet cost of cw and vcrr against pfifo.

Runs tests/guest/qdisc_cost.py (pktgen through a dummy device's root
qdisc) in the VM and prints the median ns per packet of each setting and
its ratio to vcrr's default; the JSON goes to results/bench/.

    .venv/bin/python tests/bench_qdisc_cost.py [--kernel 6.12] [--count N] [--rounds R]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

TOP = Path(__file__).resolve().parents[1]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kernel", default="6.12")
    ap.add_argument("--count", type=int, default=200_000)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    out = TOP / "results" / "bench" / f"qdisc-cost-{args.kernel}.json"
    out.unlink(missing_ok=True)
    python = str(TOP / ".venv" / "bin" / "python")
    argv = [str(TOP / "testbed" / "vm"), "--kernel", args.kernel, "--", python, "-m",
            "tests.guest.qdisc_cost", "--out", str(out), "--count", str(args.count),
            "--rounds", str(args.rounds)]  # fmt: skip
    rc = subprocess.run(argv, cwd=TOP).returncode
    if rc or not out.exists():
        return rc or 1
    doc = json.loads(out.read_text())
    print(f"{doc['kernel']}: {doc['count']} packets x {doc['rounds']} rounds (median)")
    for label, ns in doc["ns_per_packet"].items():
        print(f"  {label:48} {ns:8.1f} ns/packet  {doc['vs_vcrr_default'][label]:5.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
