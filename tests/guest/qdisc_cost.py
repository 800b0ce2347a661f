"""Per-packet cost of the marking qdiscs against pfifo, measured by pktgen.

The guest half of tests/bench_qdisc_cost.py (a benchmark, not a test): the
kernel's packet generator sends COUNT packets through ``dev_queue_xmit``
(``xmit_mode queue_xmit``) to a dummy device whose root qdisc is each
setting in turn (pfifo, cw, vcrr at its default and at the extreme
accepted settings), so each packet is enqueued and dequeued once.  Each
setting is measured ROUNDS times, interleaved; the result is the median
nanoseconds per packet and its ratio to vcrr's default.

    python -m tests.guest.qdisc_cost --out FILE [--count N] [--rounds R]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
from pathlib import Path
from typing import Any

from testbed import modules

TC = str(Path(__file__).resolve().parents[2] / "build" / "tc")
PG = Path("/proc/net/pktgen")
DEV = "bench0"


def vcrr(interval: str, est: str, window: str, rate: str = "100mbit") -> list[str]:
    return ["vcrr", "rate", rate, "interval", interval, "estimator", est, "window", window,
            "qref", "60s"]  # fmt: skip


# the settings: label -> tc qdisc arguments
SETTINGS: dict[str, list[str]] = {
    "pfifo": ["pfifo", "limit", "1000"],
    "cw aq (default)": ["cw"],
    "cw pq, interval 1us": ["cw", "mode", "pq", "interval", "1us"],
    "vcrr (default)": ["vcrr", "rate", "100mbit"],
    "vcrr count, interval 1us": vcrr("1us", "count", "1us"),
    "vcrr tsw, interval 1us, window 64us": vcrr("1us", "tsw", "64us"),
    "vcrr csfq, interval 1us, window 64us": vcrr("1us", "csfq", "64us"),
    "vcrr tsw, interval 60s, window 60s, 8 Tbit/s": vcrr("60s", "tsw", "60s", "8000gbit"),
    "vcrr csfq, interval 60s, window 60s, 8 Tbit/s": vcrr("60s", "csfq", "60s", "8000gbit"),
}


def sh(*argv: str) -> str:
    return subprocess.run(argv, check=True, capture_output=True, text=True).stdout


def pg(path: str, cmd: str) -> None:
    (PG / path).write_text(cmd + "\n")


def run_pktgen(count: int) -> float:
    """ns per packet of one pktgen run through DEV's root qdisc."""
    pg("kpktgend_0", "rem_device_all")
    pg("kpktgend_0", f"add_device {DEV}")
    for cmd in (f"count {count}", "pkt_size 1000", "delay 0", "dst 10.99.0.2",
                "dst_mac 02:00:00:00:00:02", "xmit_mode queue_xmit", "burst 1"):  # fmt: skip
        pg(DEV, cmd)
    pg("pgctrl", "start")
    text = (PG / DEV).read_text()
    m = re.search(r"Result: OK: (\d+)\(.*?\) usec, (\d+) \(", text)
    if not m:
        raise RuntimeError(f"pktgen: {text[-500:]}")
    return int(m[1]) * 1000 / int(m[2])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--count", type=int, default=200_000)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    for mod in ("sch_cw", "sch_vcrr"):
        modules.load(mod)
    subprocess.run(["modprobe", "pktgen"], check=True)
    subprocess.run(["ip", "link", "del", DEV], capture_output=True)
    sh("ip", "link", "add", DEV, "type", "dummy")
    sh("ip", "addr", "add", "10.99.0.1/24", "dev", DEV)
    sh("ip", "link", "set", DEV, "up")
    samples: dict[str, list[float]] = {k: [] for k in SETTINGS}
    for _ in range(args.rounds):
        for label, qdisc in SETTINGS.items():
            sh(TC, "qdisc", "replace", "dev", DEV, "root", *qdisc)
            samples[label].append(run_pktgen(args.count))
    sh(TC, "qdisc", "del", "dev", DEV, "root")
    sh("ip", "link", "del", DEV)
    base = statistics.median(samples["vcrr (default)"])
    doc: dict[str, Any] = {
        "kernel": os.uname().release,
        "count": args.count,
        "rounds": args.rounds,
        "ns_per_packet": {k: round(statistics.median(v), 1) for k, v in samples.items()},
        "vs_vcrr_default": {k: round(statistics.median(v) / base, 2) for k, v in samples.items()},
        "samples": samples,
        "load": Path("/proc/loadavg").read_text().split()[:3],
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(doc, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
