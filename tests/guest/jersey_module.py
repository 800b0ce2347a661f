"""Functional checks of the jersey module on the target kernel (runs in the VM).

``python -m tests.guest.jersey_module --out FILE``

Records, for tests/test_jersey_vm.py to assert on:

* ``params``: module parameter validation at load time and at run time;
* ``select``: jersey chosen by ``sysctl net.ipv4.tcp_congestion_control`` in a
  namespace (no ``-C``) and by ``iperf3 -C``; with the default
  ``needs_ecn=Y`` against a receiver whose listener does not need ECN the
  connection continues as ``jersey-noecn`` (ECN declined, no ECT sent),
  against a receiver whose default CC is jersey ECN is negotiated;
  ``ss -tin`` of a running jersey flow;
* ``tracepoints``: the events the module defines.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

from testbed import modules
from testbed.measure.trace import TRACEFS
from testbed.net.path import Link, Queue
from testbed.net.path import Path as NetPath
from testbed.traffic.flows import start_server

MODULE = "tcp_jersey"


def try_run(*argv: str) -> tuple[int, str]:
    proc = subprocess.run(argv, capture_output=True, text=True)
    return proc.returncode, (proc.stdout + proc.stderr).strip()


def check_params() -> dict[str, Any]:
    """Bad values are refused with a message, good ones accepted."""
    modules.unload(MODULE)
    ko = str(modules.ko_path(MODULE))
    out: dict[str, Any] = {}
    for arg in ("estimator=bogus", "filter=3", "filter=x"):
        rc, msg = try_run("insmod", ko, arg)
        out[f"insmod {arg}"] = {"rc": rc, "loaded": modules.loaded(MODULE)}
        modules.unload(MODULE)
    rc, _ = try_run("insmod", ko)
    out["insmod"] = {"rc": rc}
    modules.allow_all_ccs()
    d = Path("/sys/module") / MODULE / "parameters"
    for name, value in (("estimator", "bogus"), ("estimator", "ts"), ("filter", "2")):
        try:
            (d / name).write_text(value)
            out[f"write {name}={value}"] = {"ok": True, "now": (d / name).read_text().strip()}
        except OSError as exc:
            out[f"write {name}={value}"] = {"ok": False, "errno": exc.errno}
    (d / "estimator").write_text("auto")
    (d / "filter").write_text("1")
    out["needs_ecn"] = (d / "needs_ecn").read_text().strip()
    dmesg = subprocess.run(["dmesg"], capture_output=True, text=True).stdout
    out["dmesg_messages"] = [ln for ln in dmesg.splitlines() if "tcp_jersey: invalid" in ln]
    return out


def ss_while(path: NetPath, node: str, after_s: float, out: dict[str, str]) -> threading.Thread:
    def body() -> None:
        time.sleep(after_s)
        cmd = ["ip", "netns", "exec", path.ns(node), "ss", "-tino", "state", "established"]
        out["ss"] = subprocess.run(cmd, capture_output=True, text=True).stdout

    t = threading.Thread(target=body)
    t.start()
    return t


def check_select() -> dict[str, Any]:
    """How a connection gets jersey, and whether ECN is negotiated.

    iperf3 3.12 (Debian bookworm) applies ``-C`` after ``connect()``, so the
    handshake still belongs to the namespace's default CC; selecting jersey
    system-wide (or with setsockopt before connect) makes the SYN jersey's.
    """
    links = [Link("snd", "rcv", rate_mbit=20, delay_ms=5, queue=Queue.pfifo(100))]
    jersey_default = {"net.ipv4.tcp_congestion_control": "jersey"}
    out: dict[str, Any] = {}
    cases: list[tuple[str, dict[str, dict[str, str]], str | None]] = [
        # sysctl in the sender's namespace, ordinary receiver: ECT SYN declined
        ("sysctl", {"snd": jersey_default}, None),
        # ... receiver whose listener needs ECN (its default CC is jersey)
        ("sysctl_ecn_listener", {"snd": jersey_default, "rcv": jersey_default}, None),
        # iperf3 -C after connect: the kernel's tcp_ecn decides ECN
        ("iperf3_C", {}, "jersey"),
        ("iperf3_C_tcp_ecn", {"snd": {"net.ipv4.tcp_ecn": "1"}}, "jersey"),
    ]
    for name, sysctls, cc in cases:
        with NetPath(links, sysctls) as path:
            ss: dict[str, str] = {}
            t = ss_while(path, "snd", 2.0, ss)
            res = iperf3(path, "snd", "rcv", 4, cc)
            t.join()
            out[name] = res | {"ss": ss.get("ss", "")}
    return out


def iperf3(path: NetPath, src: str, dst: str, seconds: int, cc: str | None) -> dict[str, Any]:
    """One iperf3 flow; without ``cc`` it uses the sender namespace's default CC."""
    # returns once the server listens (a fixed sleep lost the race under TCG)
    srv = start_server(path, dst, 5301, "-1")
    cli = subprocess.run(
        ["ip", "netns", "exec", path.ns(src), "iperf3", "-J", "-c", path.ip_of(dst),
         "-p", "5301", "-t", str(seconds), *(["-C", cc] if cc else [])],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    srv.wait(timeout=10)
    doc = json.loads(cli.stdout)
    if "error" in doc:
        raise RuntimeError(f"iperf3 {src} -> {dst} ({cc or 'default cc'}): {doc['error']}")
    end = doc["end"]
    return {
        "cc_used": end.get("sender_tcp_congestion"),
        "goodput_bps": end["sum_received"]["bits_per_second"],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    doc: dict[str, Any] = {"kernel": subprocess.run(["uname", "-r"], capture_output=True,
                                                    text=True).stdout.strip()}  # fmt: skip
    doc["params"] = check_params()
    doc["select"] = check_select()
    events = TRACEFS / "events" / "jersey"
    doc["tracepoints"] = sorted(p.name for p in events.iterdir() if p.is_dir())
    doc["module_params"] = modules.params(MODULE)
    Path(args.out).write_text(json.dumps(doc, indent=1))
    print(json.dumps(doc, indent=1))


if __name__ == "__main__":
    main()
