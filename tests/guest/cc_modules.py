"""In-VM checks of the diffc, newrenolp and balde modules and the testbed's
oracle (tests/test_cc_vm.py).

``python -m tests.guest.cc_modules --out FILE [--duration 20] [--cycles 10]``

1. each module is selectable by ``sysctl net.ipv4.tcp_congestion_control``
   inside a network namespace;
2. concurrently, short iperf3 flows with ``-C``: diffc with ECN through a RED
   ECN gateway followed by 1 % corruption loss (holds on loss, halves on ECE),
   diffc without ECN (Reno fallback), newrenolp on the NewReno-LP path with
   1 % uniform loss (classification), balde and reno on the BaLDE path at
   1 %, with the loss tracepoints and, 5 s into each flow, ``ss -tin``; the
   oracle behind a queue that never overflows with 1 % corruption (every
   loss held) and behind a small drop-tail queue without corruption (every
   loss answered as congestion);
3. ``tests.guest.modcycle`` for each module: rmmod refused while a connection
   uses it, load/unload cycles under traffic, clean kernel log;
   (diffc with ``needs_ecn=0``: with the default, a loopback peer declines
   ECN and the socket continues as diffc-noecn);
4. with the default ``needs_ecn=Y``, a diffc connection to a receiver whose
   listener does not need ECN continues as diffc-noecn (plain sockets on
   loopback: an iperf3 server would give its listener the client's ``-C``,
   which then needs ECN and accepts it).

Writes everything as JSON; the test file asserts on it.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from testbed import modules
from testbed.net import topologies
from testbed.net.path import IP, Link, Loss, Queue
from testbed.net.path import Path as NetPath
from testbed.run.trial import Trial, environment, run_trials
from testbed.traffic.flows import Flow
from tests.guest.modcycle import TCP_CONGESTION, in_ns

CCS = {"diffc": "tcp_diffc", "newrenolp": "tcp_newrenolp", "balde": "tcp_balde",
       "oracle": "tcp_oracle"}  # fmt: skip
EVENTS = [
    "diffc/diffc_loss",
    "newrenolp/newrenolp_loss",
    "balde/balde_loss",
    "oracle/oracle_loss",
    "oracle/oracle_drop",
]
ECN = {"src": {"net.ipv4.tcp_ecn": "1"}}
NO_ECN = {"src": {"net.ipv4.tcp_ecn": "0"}}


def sysctl_select(cc: str) -> dict[str, Any]:
    """Set and read back the default congestion control in a fresh namespace."""
    ns = f"jccsel-{cc}"
    subprocess.run([IP, "netns", "add", ns], check=True)
    try:
        key = "net.ipv4.tcp_congestion_control"
        w = subprocess.run([IP, "netns", "exec", ns, "sysctl", "-w", f"{key}={cc}"],
                           capture_output=True, text=True)  # fmt: skip
        r = subprocess.run([IP, "netns", "exec", ns, "sysctl", "-n", key],
                           capture_output=True, text=True)  # fmt: skip
        return {"rc": w.returncode, "err": w.stderr.strip(), "value": r.stdout.strip()}
    finally:
        subprocess.run([IP, "netns", "del", ns], check=False)


class SsProbe:
    """Trial monitor: ``ss -tin`` in the sender's namespace ``at_s`` into the flows."""

    def __init__(self, at_s: float = 5.0):
        self.at_s = at_s

    def __call__(self, path: NetPath, trial: Trial) -> contextlib.AbstractContextManager[dict]:
        return self._run(path, trial)

    @contextlib.contextmanager
    def _run(self, path: NetPath, trial: Trial) -> Iterator[dict[str, Any]]:
        doc: dict[str, Any] = {}

        def probe() -> None:
            time.sleep(self.at_s)
            out = subprocess.run([IP, "netns", "exec", path.ns(trial.flows[0].src),
                                  "ss", "-tin", "state", "established"],
                                 capture_output=True, text=True)  # fmt: skip
            doc["ss"] = out.stdout

        t = threading.Thread(target=probe)
        t.start()
        yield doc
        t.join()


def ecn_gateway_path(loss: Loss | None) -> list[Link]:
    """src -10 Mb/s, 20 ms- gw -2 Mb/s, 1 ms, RED ECN (5/15), lossy- rcv."""
    red = Queue.red_ecn(rate_mbit=2, min_pkts=5, max_pkts=15, max_p=0.1, limit_pkts=100)
    return [
        Link("src", "gw", rate_mbit=10, delay_ms=20, queue=Queue.pfifo(500)),
        Link("gw", "rcv", rate_mbit=2, delay_ms=1, loss=loss, queue=red),
    ]


def oracle_path(loss: Loss | None, limit: int) -> list[Link]:
    """src -10 Mb/s, 20 ms- gw -2 Mb/s, 1 ms, drop-tail of ``limit``, ``loss``- rcv."""
    return [
        Link("src", "gw", rate_mbit=10, delay_ms=20, queue=Queue.pfifo(500)),
        Link("gw", "rcv", rate_mbit=2, delay_ms=1, loss=loss, queue=Queue.pfifo(limit)),
    ]


def trials(duration: float) -> list[Trial]:
    def flow(cc: str, window: str | None = None) -> list[Flow]:
        return [Flow("src", "rcv", cc, duration, window=window)]

    probe = SsProbe()
    return [
        Trial("diffc_ecn", ecn_gateway_path(Loss.random(0.01)), flow("diffc"),
              sysctls=ECN, trace_events=EVENTS, monitor=probe),
        Trial("diffc_noecn", ecn_gateway_path(Loss.random(0.01)), flow("diffc"),
              sysctls=NO_ECN, trace_events=EVENTS),
        Trial("newrenolp", topologies.links("newrenolp", loss=0.01), flow("newrenolp"),
              trace_events=EVENTS, monitor=probe),
        Trial("balde", topologies.links("balde", loss=0.01), flow("balde"),
              trace_events=EVENTS, monitor=probe),
        Trial("reno_balde_path", topologies.links("balde", loss=0.01), flow("reno")),
        # a 200 kB window never fills the 1000-packet queue: only the medium drops
        Trial("oracle_medium", oracle_path(Loss.random(0.01), 1000), flow("oracle", "200K"),
              trace_events=EVENTS),
        Trial("oracle_queue", oracle_path(None, 15), flow("oracle"), trace_events=EVENTS),
    ]  # fmt: skip


def declined_probe() -> dict[str, Any]:
    """A diffc client to a listener whose CC does not need ECN, on loopback."""
    ns = "jccecn"
    subprocess.run([IP, "netns", "del", ns], capture_output=True)
    subprocess.run([IP, "netns", "add", ns], check=True)
    subprocess.run([IP, "-n", ns, "link", "set", "lo", "up"], check=True)

    def probe() -> dict[str, Any]:
        srv = socket.socket()
        srv.bind(("127.0.0.1", 0))
        srv.listen(1)
        cli = socket.socket()
        cli.setsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, b"diffc")
        cli.connect(srv.getsockname())
        conn, _ = srv.accept()
        cli.sendall(b"x" * 100000)
        got = 0
        while got < 100000:
            got += len(conn.recv(65536))
        name = cli.getsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, 16).rstrip(b"\0").decode()
        listener = srv.getsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, 16).rstrip(b"\0")
        for s in (cli, conn, srv):
            s.close()
        return {"cc": name, "listener_cc": listener.decode(), "bytes": got}

    try:
        return dict(in_ns(ns, probe))
    finally:
        subprocess.run([IP, "netns", "del", ns], check=False)


def modcycle(module: str, cc: str, cycles: int, out: Path) -> dict[str, Any]:
    f = out.with_name(f"{out.stem}-modcycle-{cc}.json")
    params = ["--param", "needs_ecn=0"] if cc == "diffc" else []
    proc = subprocess.run(
        [sys.executable, "-m", "tests.guest.modcycle", "--out", str(f), "--module", module,
         "--cc", cc, "--cycles", str(cycles), *params],
        capture_output=True, text=True,
    )  # fmt: skip
    doc = json.loads(f.read_text()) if f.exists() else {}
    f.unlink(missing_ok=True)
    return {"rc": proc.returncode, "stderr": proc.stderr[-2000:], **doc}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--duration", type=float, default=20)
    ap.add_argument("--cycles", type=int, default=10)
    args = ap.parse_args()
    out = Path(args.out)
    t0 = time.monotonic()
    doc: dict[str, Any] = {"params_loaded": {}}
    # the testbed convention: ECN modules without NEEDS_ECN, senders tcp_ecn=1
    doc["params_loaded"]["tcp_diffc"] = modules.load("tcp_diffc", needs_ecn=0, classify="paper")
    doc["environment"] = environment()
    doc["sysctl"] = {cc: sysctl_select(cc) for cc in CCS}
    res = run_trials(trials(args.duration))
    doc["trials"] = {r["name"]: r for r in res}
    for r in res:
        for link in r["links"]:
            link.pop("queue_stats", None)
    doc["modcycle"] = {cc: modcycle(mod, cc, args.cycles, out) for cc, mod in CCS.items()}
    try:
        doc["params_needs_ecn"] = modules.load("tcp_diffc", needs_ecn=1, classify="paper")
        doc["needs_ecn_declined"] = declined_probe()
    except (RuntimeError, OSError) as exc:
        doc["needs_ecn_error"] = str(exc)
        doc["lsmod"] = Path("/proc/modules").read_text()
        doc["sockets"] = subprocess.run(
            ["sh", "-c", "ip netns list; ss -tanei; ip -all netns exec ss -tanei"],
            capture_output=True,
            text=True,
        ).stdout
    doc["wall_s"] = time.monotonic() - t0
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
