"""Traffic: iperf3 bulk flows with a chosen congestion control."""

from __future__ import annotations

import json
import re
import subprocess
import threading
import time
from dataclasses import dataclass
from typing import Any

from testbed.netpath import IP, Path

BASE_PORT = 5201
# receiver-side report interval: the per-flow goodput-over-time traces
REPORT_INTERVAL_S = 1.0


@dataclass
class Flow:
    """One iperf3 TCP flow from node ``src`` to node ``dst``."""

    src: str
    dst: str
    cc: str = "reno"
    duration_s: float = 20
    start_s: float = 0
    label: str = ""
    group: str = ""  # flows of one [[flows]] entry share a group (its label or cc)
    mss: int | None = None
    index: int = 0  # the [[flows]] entry it comes from

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "src": self.src,
            "dst": self.dst,
            "cc": self.cc,
            "duration_s": self.duration_s,
            "start_s": self.start_s,
            "label": self.label,
        }
        if self.group:
            out["group"] = self.group
        if self.mss:
            out["mss"] = self.mss
        return out


def start_server(path: Path, node: str, port: int, *args: str) -> subprocess.Popen[str]:
    """``iperf3 -s`` on ``node``; returns once it listens (it says so on stdout,
    flushed with --forceflush: no polling process per server)."""
    argv = [IP, "netns", "exec", path.ns(node), "iperf3", "-s", "-p", str(port), "--forceflush"]
    argv += args
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert proc.stdout is not None
    seen = []
    for line in proc.stdout:
        seen.append(line)
        if "listening on" in line:
            break
    else:
        raise RuntimeError(f"iperf3 server on {node}:{port} did not start: {''.join(seen)}")
    # keep reading so that the server never blocks on a full pipe
    threading.Thread(target=proc.stdout.read, daemon=True).start()
    return proc


def wait_listening(path: Path, node: str, port: int, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        out = subprocess.run(
            ["ss", "-N", path.ns(node), "-Hltn", f"sport = :{port}"],
            capture_output=True,
            text=True,
        ).stdout
        if out.strip():
            return
        time.sleep(0.05)
    raise RuntimeError(f"iperf3 server on {node}:{port} did not start")


_wait_listening = wait_listening  # the old private name


_INTERVAL = re.compile(
    r"^\[\s*\d+\]\s+([\d.]+)-\s*([\d.]+)\s+sec\s+[\d.]+\s+\w*Bytes\s+([\d.]+)\s+([KMG]?)bits/sec\s*$"
)
_SCALE = {"": 1.0, "K": 1e3, "M": 1e6, "G": 1e9}


def _intervals(report: dict[str, Any]) -> list[list[float]]:
    """[[end time s, bits/s], ...] of the receiver's (server's) interval reports.

    The server runs in text mode (its "listening" line tells us it is
    ready), so ``--get-server-output`` brings its report as text: the
    per-interval lines, not the final summary (which ends in "receiver").
    """
    server = report.get("server_output_json") or {}
    out = []
    for iv in server.get("intervals", []):
        s = iv.get("sum", {})
        if "end" in s and "bits_per_second" in s:
            out.append([round(float(s["end"]), 3), float(s["bits_per_second"])])
    for line in str(report.get("server_output_text") or "").splitlines():
        m = _INTERVAL.match(line.rstrip())
        if m:
            out.append([round(float(m[2]), 3), float(m[3]) * _SCALE[m[4]]])
    return out


def _summarise(flow: Flow, report: dict[str, Any]) -> dict[str, Any]:
    if "error" in report:
        return {**flow.to_json(), "error": report["error"]}
    end = report["end"]
    recv, sent = end["sum_received"], end["sum_sent"]
    seconds = float(recv["seconds"]) or flow.duration_s
    sender = end["streams"][0]["sender"]
    mss = report.get("start", {}).get("tcp_mss_default") or flow.mss or 1448
    retrans = sent.get("retransmits") or 0
    sent_s = float(sent.get("seconds") or seconds)
    return {
        **flow.to_json(),
        "goodput_bps": recv["bytes"] * 8 / seconds,
        # bits the sender put on the wire: application bytes + retransmitted segments
        "throughput_bps": (sent["bytes"] + retrans * mss) * 8 / sent_s,
        "bytes_received": recv["bytes"],
        "bytes_sent": sent["bytes"],
        "seconds": seconds,
        "retransmits": sent.get("retransmits"),
        "mss": mss,
        "cc_used": end.get("sender_tcp_congestion", flow.cc),
        "max_snd_cwnd": sender.get("max_snd_cwnd"),
        "mean_rtt_us": sender.get("mean_rtt"),
        "min_rtt_us": sender.get("min_rtt"),
        "max_rtt_us": sender.get("max_rtt"),
        "intervals": _intervals(report),
    }


class FlowRunner:
    """iperf3 servers and clients of a set of flows; clients start at ``t0 + start_s``."""

    def __init__(self, path: Path, flows: list[Flow], base_port: int = BASE_PORT):
        self.path = path
        self.flows = flows
        self.ports = [base_port + i for i in range(len(flows))]
        self.results: list[dict[str, Any]] = [{} for _ in flows]
        self._servers: list[subprocess.Popen[str]] = []
        self._threads: list[threading.Thread] = []

    def dest(self, i: int) -> str:
        """``addr:port`` of flow ``i``'s receiver (the sender socket's peer)."""
        return f"{self.path.ip_of(self.flows[i].dst)}:{self.ports[i]}"

    def start_servers(self) -> None:
        for flow, port in zip(self.flows, self.ports, strict=True):
            self._servers.append(
                start_server(self.path, flow.dst, port, "-1", "-i", f"{REPORT_INTERVAL_S:g}")
            )

    def start_clients(self, t0: float) -> None:
        for i, flow in enumerate(self.flows):
            t = threading.Thread(target=self._client, args=(i, flow, t0), daemon=True)
            t.start()
            self._threads.append(t)

    def _client(self, i: int, flow: Flow, t0: float) -> None:
        delay = t0 + flow.start_s - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        started = time.monotonic() - t0
        # iperf3 takes whole seconds
        seconds = max(1, round(flow.duration_s))
        argv = [IP, "netns", "exec", self.path.ns(flow.src), "iperf3", "-J",
                "-c", self.path.ip_of(flow.dst), "-p", str(self.ports[i]),
                "-t", str(seconds), "-C", flow.cc, "--get-server-output"]  # fmt: skip
        if flow.mss:
            argv += ["-M", str(flow.mss)]
        try:
            proc = subprocess.run(argv, capture_output=True, text=True, timeout=seconds + 60)
            report = json.loads(proc.stdout)
        except subprocess.TimeoutExpired:
            report = {"error": "iperf3 client timed out"}
        except json.JSONDecodeError:
            report = {"error": f"iperf3 exit {proc.returncode}: {proc.stderr.strip()}"}
        self.results[i] = {**_summarise(flow, report), "started_s": round(started, 3)}
        self.results[i]["port"] = self.ports[i]

    def join(self) -> list[dict[str, Any]]:
        for t in self._threads:
            t.join()
        for s in self._servers:
            try:
                s.wait(timeout=5)
            except subprocess.TimeoutExpired:
                s.kill()
                s.wait()
        return self.results


def run_flows(path: Path, flows: list[Flow]) -> list[dict[str, Any]]:
    """Run ``flows`` (each at its start time) and return one summary each.

    Goodput is application bytes received over the receiver's measured time.
    """
    runner = FlowRunner(path, flows)
    runner.start_servers()
    runner.start_clients(time.monotonic())
    return runner.join()
