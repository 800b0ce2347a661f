"""Traffic: iperf3 flows, TCP with a chosen congestion control or UDP at a constant rate."""

from __future__ import annotations

import json
import subprocess
import threading
import time
from dataclasses import dataclass
from typing import Any

from testbed.netpath import IP, Path

BASE_PORT = 5201


@dataclass
class Flow:
    """One iperf3 flow from node ``src`` to node ``dst``.

    TCP with congestion control ``cc``, or, when ``udp_mbit`` is set, UDP at
    that constant rate (``cc`` is then ignored).
    """

    src: str
    dst: str
    cc: str = "reno"
    duration_s: float = 20
    start_s: float = 0
    label: str = ""
    udp_mbit: float | None = None
    # TCP maximum segment size to request (iperf3 -M), None: the path's
    mss: int | None = None
    # socket buffer size (iperf3 -w, e.g. "60K"; caps the receiver's window
    # at about half of it), None: autotuning
    window: str | None = None
    # seconds to wait for iperf3 before giving up, None: duration + 60
    timeout_s: float | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "src": self.src,
            "dst": self.dst,
            "cc": self.cc,
            "duration_s": self.duration_s,
            "start_s": self.start_s,
            "label": self.label,
            "udp_mbit": self.udp_mbit,
            "mss": self.mss,
            "window": self.window,
        }

    def iperf3_args(self) -> list[str]:
        """iperf3 client options for this flow's protocol."""
        if self.udp_mbit is not None:
            return ["-u", "-b", f"{self.udp_mbit:g}M", "-l", "1400"]
        return ["-C", self.cc]


def _wait_listening(path: Path, node: str, port: int, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        out = subprocess.run(
            [IP, "netns", "exec", path.ns(node), "ss", "-Hltn", f"sport = :{port}"],
            capture_output=True,
            text=True,
        ).stdout
        if out.strip():
            return
        time.sleep(0.05)
    raise RuntimeError(f"iperf3 server on {node}:{port} did not start")


def _summarise(flow: Flow, report: dict[str, Any]) -> dict[str, Any]:
    if "error" in report:
        return {**flow.to_json(), "error": report["error"]}
    end = report["end"]
    if flow.udp_mbit is not None:
        udp = end["sum"]
        return {
            **flow.to_json(),
            "sent_bps": udp["bits_per_second"],
            "bytes_sent": udp["bytes"],
            "packets": udp.get("packets"),
            "lost_packets": udp.get("lost_packets"),
            "seconds": udp["seconds"],
        }
    recv, sent = end["sum_received"], end["sum_sent"]
    seconds = float(recv["seconds"]) or flow.duration_s
    return {
        **flow.to_json(),
        "goodput_bps": recv["bytes"] * 8 / seconds,
        "bytes_received": recv["bytes"],
        "bytes_sent": sent["bytes"],
        "seconds": seconds,
        "retransmits": sent.get("retransmits"),
        "cc_used": end.get("sender_tcp_congestion", flow.cc),
        "max_snd_cwnd": end["streams"][0]["sender"].get("max_snd_cwnd"),
        "mean_rtt_us": end["streams"][0]["sender"].get("mean_rtt"),
        "min_rtt_us": end["streams"][0]["sender"].get("min_rtt"),
    }


def run_flows(path: Path, flows: list[Flow]) -> list[dict[str, Any]]:
    """Run ``flows`` (each at its start time) and return one summary each.

    Goodput is application bytes received over the receiver's measured time.
    """
    servers = []
    for i, flow in enumerate(flows):
        port = BASE_PORT + i
        servers.append(
            subprocess.Popen(
                [IP, "netns", "exec", path.ns(flow.dst), "iperf3", "-s", "-1", "-p", str(port)],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        )
    for i, flow in enumerate(flows):
        _wait_listening(path, flow.dst, BASE_PORT + i)

    results: list[dict[str, Any]] = [{} for _ in flows]
    t0 = time.monotonic()

    def client(i: int, flow: Flow) -> None:
        delay = t0 + flow.start_s - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        argv = [IP, "netns", "exec", path.ns(flow.src), "iperf3", "-J",
                "-c", path.ip_of(flow.dst), "-p", str(BASE_PORT + i),
                "-t", f"{flow.duration_s:g}", *flow.iperf3_args()]  # fmt: skip
        if flow.mss:
            argv += ["-M", str(flow.mss)]
        if flow.window:
            argv += ["-w", flow.window]
        timeout = flow.timeout_s or flow.duration_s + 60
        try:
            proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            results[i] = {**flow.to_json(), "error": f"iperf3 did not finish in {timeout:g} s"}
            return
        try:
            report = json.loads(proc.stdout)
        except json.JSONDecodeError:
            report = {"error": f"iperf3 exit {proc.returncode}: {proc.stderr.strip()}"}
        results[i] = _summarise(flow, report)

    threads = [threading.Thread(target=client, args=(i, f)) for i, f in enumerate(flows)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for s in servers:
        try:
            s.wait(timeout=5)
        except subprocess.TimeoutExpired:
            s.kill()
    return results
