"""Load/unload a module of ours under traffic and check the kernel log.

``python -m tests.guest.modcycle --out FILE --module tcp_jersey --cc jersey --cycles 100``
``python -m tests.guest.modcycle --out FILE --module sch_cw --qdisc "cw limit 50"``
``python -m tests.guest.modcycle ... --module tcp_diffc --cc diffc --param needs_ecn=0``
(``--param``: module parameters for every insmod, repeatable)

In namespaces it creates (loopback for a congestion control; for a qdisc, two
namespaces joined by a veth pair whose sending end carries the qdisc):

1. *busy*: while a connection uses the module, ``rmmod`` must fail and the
   module stay loaded; after the connection ends, ``rmmod`` must succeed.
2. *cycles*: ``insmod``, traffic through the module, ``rmmod``, N times.

Afterwards the kernel log must not show an oops, warning, BUG or leak
report.  Writes a JSON summary; exits non-zero on failure.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from testbed import modules

TOP = Path(__file__).resolve().parent.parent.parent
BAD_LOG = re.compile(
    r"(WARNING:|BUG:|Oops|general protection|refcount_t|kernel BUG|unreferenced object"
    r"|Call Trace|use-after-free|double free)"
)
NS = "jmodcycle"  # the sender's namespace
NS_PEER = "jmodcycle-b"  # the receiver's, for qdiscs
TCP_CONGESTION = getattr(socket, "TCP_CONGESTION", 13)


def run(*argv: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(argv, capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)}: {proc.stderr.strip()}")
    return proc


def rmmod(module: str, wait_s: float = 10.0) -> float:
    """Unload, retrying while sockets wind down; returns seconds waited."""
    t0 = time.monotonic()
    while True:
        proc = run("rmmod", module, check=False)
        if proc.returncode == 0:
            return time.monotonic() - t0
        if time.monotonic() - t0 > wait_s:
            raise RuntimeError(f"rmmod {module} still failing after {wait_s} s: {proc.stderr}")
        time.sleep(0.05)


def unreclaimable_slab_kb() -> int:
    """SUnreclaim of /proc/meminfo after the kernel freed what it can."""
    Path("/proc/sys/vm/drop_caches").write_text("3")
    time.sleep(0.5)
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("SUnreclaim:"):
            return int(line.split()[1])
    raise RuntimeError("no SUnreclaim in /proc/meminfo")


def in_ns(ns: str, fn: Any) -> Any:
    """Run fn in a thread that has joined namespace ns (setns is per thread;
    a socket stays in the namespace it was created in)."""
    result: dict[str, Any] = {}

    def body() -> None:
        fd = os.open(f"/run/netns/{ns}", os.O_RDONLY)
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            if libc.setns(fd, 0x40000000) != 0:  # CLONE_NEWNET
                raise OSError(ctypes.get_errno(), "setns")
            result["value"] = fn()
        except BaseException as exc:
            result["error"] = exc
        finally:
            os.close(fd)

    t = threading.Thread(target=body)
    t.start()
    t.join()
    if "error" in result:
        raise result["error"]
    return result.get("value")


# the longest a held connection waits for its peer thread (a stuck rmmod, say)
HOLD_MAX_S = 60.0


@dataclasses.dataclass
class Hold:
    """A connection kept open: ``sent`` once its data is sent, closed at ``release``."""

    sent: threading.Event = dataclasses.field(default_factory=threading.Event)
    release: threading.Event = dataclasses.field(default_factory=threading.Event)


def tcp_transfer(
    cc: str | None, nbytes: int, dst: str, server_ns: str, hold: Hold | None = None
) -> int:
    """Send nbytes to a sink on dst (in server_ns) using congestion control cc;
    with ``hold``, keep the connection open from when the data is sent until
    it is released.

    Called in the sender's namespace."""
    srv = in_ns(server_ns, socket.socket)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind((dst, 0))
    srv.listen(1)
    port = srv.getsockname()[1]
    received = 0

    def sink() -> None:
        nonlocal received
        conn, _ = srv.accept()
        with conn:
            while chunk := conn.recv(65536):
                received += len(chunk)

    t = threading.Thread(target=sink)
    t.start()
    cli = socket.socket()
    if cc:
        cli.setsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, cc.encode())
    cli.connect((dst, port))
    if cc:
        used = cli.getsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, 16).rstrip(b"\0").decode()
        # an ECN-needing module whose peer declined ECN continues as NAME-noecn
        if used not in (cc, f"{cc}-noecn"):
            raise RuntimeError(f"socket uses {used}, not {cc}")
    cli.sendall(b"j" * nbytes)
    if hold:
        hold.sent.set()
        hold.release.wait(HOLD_MAX_S)
    cli.close()
    t.join(timeout=30)
    srv.close()
    return received


def setup_ns(qdisc: str | None) -> tuple[str, str]:
    """Create the namespaces; returns (receiver namespace, receiver address)."""
    for ns in (NS, NS_PEER):
        run("ip", "netns", "del", ns, check=False)
    run("ip", "netns", "add", NS)
    run("ip", "-n", NS, "link", "set", "lo", "up")
    if qdisc is None:
        return NS, "127.0.0.1"
    run("ip", "netns", "add", NS_PEER)
    run("ip", "-n", NS, "link", "add", "a0", "type", "veth", "peer", "name", "b0", "netns", NS_PEER)
    run("ip", "-n", NS, "addr", "add", "10.99.0.1/24", "dev", "a0")
    run("ip", "-n", NS_PEER, "addr", "add", "10.99.0.2/24", "dev", "b0")
    run("ip", "-n", NS, "link", "set", "a0", "up")
    run("ip", "-n", NS_PEER, "link", "set", "b0", "up")
    return NS_PEER, "10.99.0.2"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", required=True)
    ap.add_argument("--module", required=True)
    ap.add_argument("--cc", help="congestion control the module registers")
    ap.add_argument("--qdisc", help='qdisc kind and options, e.g. "cw limit 50"')
    ap.add_argument("--tc", default=os.environ.get("JERSEY_TC", str(TOP / "build" / "tc")))
    ap.add_argument("--cycles", type=int, default=100)
    ap.add_argument("--bytes", type=int, default=256 * 1024)
    ap.add_argument(
        "--param", action="append", default=[], metavar="KEY=VALUE", help="for every insmod"
    )
    args = ap.parse_args()
    if bool(args.cc) == bool(args.qdisc):
        ap.error("give exactly one of --cc and --qdisc")

    ko = modules.ko_path(args.module)
    run("dmesg", "-C")
    peer_ns, target = setup_ns(args.qdisc)
    doc: dict[str, Any] = {"module": args.module, "kernel": os.uname().release}

    def attach() -> None:
        if args.qdisc:
            run(args.tc, "-n", NS, "qdisc", "replace", "dev", "a0", "root", *args.qdisc.split())

    def detach() -> None:
        if args.qdisc:
            run(args.tc, "-n", NS, "qdisc", "del", "dev", "a0", "root")

    def transfer(hold: Hold | None = None) -> int:
        return in_ns(NS, lambda: tcp_transfer(args.cc, args.bytes, target, peer_ns, hold))

    insmod = ["insmod", str(ko), *args.param]
    doc["params"] = args.param
    if modules.loaded(args.module) and args.param:
        rmmod(args.module)
    if not modules.loaded(args.module):
        run(*insmod)
    attach()
    # 1. busy while in use
    busy: dict[str, Any] = {}

    hold = Hold()
    holder = threading.Thread(target=lambda: busy.update(received=transfer(hold)))
    holder.start()
    busy["connected"] = hold.sent.wait(HOLD_MAX_S)  # rmmod while the connection is open
    proc = run("rmmod", args.module, check=False)
    busy["rmmod_rc"], busy["rmmod_err"] = proc.returncode, proc.stderr.strip()
    busy["still_loaded"] = modules.loaded(args.module)
    hold.release.set()
    holder.join()
    detach()
    busy["unload_wait_s"] = rmmod(args.module)
    doc["busy"] = busy

    # 2. cycles
    slab_before = unreclaimable_slab_kb()
    received, waits, t0 = 0, [], time.monotonic()
    for _ in range(args.cycles):
        run(*insmod)
        attach()
        received += transfer()
        detach()
        waits.append(rmmod(args.module))
    doc["cycles"] = {
        "count": args.cycles,
        "bytes_each": args.bytes,
        "bytes_received": received,
        "max_unload_wait_s": max(waits, default=0.0),
        "seconds": time.monotonic() - t0,
    }
    # Debian's kernels have no kmemleak: a leaked qdisc would hold a module
    # reference (rmmod above would fail); the slab is a coarse second check
    doc["cycles"]["unreclaimable_slab_delta_kb"] = unreclaimable_slab_kb() - slab_before
    log = run("dmesg").stdout
    doc["dmesg_bad"] = [line for line in log.splitlines() if BAD_LOG.search(line)]
    for ns in (NS, NS_PEER):
        run("ip", "netns", "del", ns, check=False)
    run(*insmod)  # leave it as testbed/vm promised: loaded
    ok = (
        busy["connected"]
        and busy["rmmod_rc"] != 0
        and busy["still_loaded"]
        and busy.get("received") == args.bytes
        and received == args.cycles * args.bytes
        and not doc["dmesg_bad"]
    )
    doc["ok"] = ok
    Path(args.out).write_text(json.dumps(doc, indent=1))
    print(json.dumps(doc, indent=1))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
