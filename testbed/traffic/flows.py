"""Traffic: iperf3 flows, TCP with a chosen congestion control or UDP at a constant rate."""

from __future__ import annotations

import json
import re
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from testbed.net.path import IP, Path
from testbed.programs import require
from testbed.run.records import FlowResult

BASE_PORT = 5201
# receiver-side report interval: the per-flow goodput-over-time traces
REPORT_INTERVAL_S = 1.0


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
    group: str = ""  # flows of one [[flows]] entry share a group (its label or cc)
    index: int = 0  # the [[flows]] entry it comes from
    # a UDP flow at this rate instead of TCP
    udp_mbit: float | None = None
    # TCP maximum segment size to request (iperf3 -M), None: the path's
    mss: int | None = None
    # socket buffer size (iperf3 -w, e.g. "60K"; caps the receiver's window
    # at about half of it), None: autotuning
    window: str | None = None
    # seconds to wait for iperf3 before giving up, None: duration + 60
    timeout_s: float | None = None

    def to_json(self) -> FlowResult:
        out: FlowResult = {
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
        if self.window:
            out["window"] = self.window
        if self.udp_mbit is not None:
            out["udp_mbit"] = self.udp_mbit
        return out

    def seconds(self) -> int:
        """iperf3's ``-t``: it takes whole seconds."""
        return max(1, round(self.duration_s))

    def wait_s(self) -> float:
        """How long the client may run before it is given up."""
        return self.timeout_s or self.seconds() + 60

    def iperf3_args(self) -> list[str]:
        """iperf3 client options for this flow's protocol."""
        if self.udp_mbit is not None:
            return ["-u", "-b", f"{self.udp_mbit:g}M", "-l", "1400"]
        return ["-C", self.cc]


def start_server(
    path: Path, node: str, port: int, *args: str, on_line: Callable[[str], None] | None = None
) -> subprocess.Popen[str]:
    """``iperf3 -s`` on ``node``; returns once it listens (it says so on stdout,
    flushed with --forceflush: no polling process per server).  ``on_line``,
    if given, gets each later line of its output as it is printed."""
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
    out = proc.stdout

    def read() -> None:
        for line in out:
            if on_line:
                on_line(line)

    threading.Thread(target=read, daemon=True).start()
    return proc


_INTERVAL = re.compile(
    r"^\[\s*\d+\]\s+([\d.]+)-\s*([\d.]+)\s+sec\s+[\d.]+\s+\w*Bytes\s+([\d.]+)\s+([KMG]?)bits/sec\s*$"
)
_SCALE = {"": 1.0, "K": 1e3, "M": 1e6, "G": 1e9}


def interval(line: str) -> tuple[float, float] | None:
    """(end in s since its test began, bits/s) of a receiver's interval
    report line, else None (a summary line ends in "receiver")."""
    m = _INTERVAL.match(line.rstrip())
    return (float(m[2]), float(m[3]) * _SCALE[m[4]]) if m else None


def interval_end(line: str) -> float | None:
    """The end (s since its test began) of a receiver's interval report line, else None."""
    iv = interval(line)
    return iv[0] if iv else None


def receiver_start(seen: list[tuple[float, float]]) -> float | None:
    """When the receiver's intervals began, from ``(read at, interval end)``
    of its interval lines: the earliest read less its end (a line is read
    after its interval ends, never before), None without lines."""
    return min((t - end for t, end in seen), default=None)


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
        iv = interval(line)
        if iv:
            out.append([round(iv[0], 3), iv[1]])
    return out


def _summarise(flow: Flow, report: dict[str, Any]) -> FlowResult:
    out = flow.to_json()
    if "error" in report:
        out["error"] = report["error"]
        return out
    end = report["end"]
    if flow.udp_mbit is not None:
        udp = end["sum"]
        out["sent_bps"] = udp["bits_per_second"]
        out["bytes_sent"] = udp["bytes"]
        out["packets"] = udp.get("packets")
        out["lost_packets"] = udp.get("lost_packets")
        out["seconds"] = udp["seconds"]
        return out
    recv, sent = end["sum_received"], end["sum_sent"]
    seconds = float(recv["seconds"]) or flow.duration_s
    sender = end["streams"][0]["sender"]
    mss = report.get("start", {}).get("tcp_mss_default") or flow.mss or 1448
    retrans = sent.get("retransmits") or 0
    sent_s = float(sent.get("seconds") or seconds)
    out["goodput_bps"] = recv["bytes"] * 8 / seconds
    # bits the sender put on the wire: application bytes + retransmitted segments
    out["throughput_bps"] = (sent["bytes"] + retrans * mss) * 8 / sent_s
    out["bytes_received"] = recv["bytes"]
    out["bytes_sent"] = sent["bytes"]
    out["seconds"] = seconds
    out["retransmits"] = sent.get("retransmits")
    out["mss"] = mss
    out["cc_used"] = end.get("sender_tcp_congestion", flow.cc)
    out["max_snd_cwnd"] = sender.get("max_snd_cwnd")
    out["mean_rtt_us"] = sender.get("mean_rtt")
    out["min_rtt_us"] = sender.get("min_rtt")
    out["max_rtt_us"] = sender.get("max_rtt")
    out["intervals"] = _intervals(report)
    return out


class FlowRunner:
    """iperf3 servers and clients of a set of flows; clients start at ``t0 + start_s``."""

    def __init__(self, path: Path, flows: list[Flow], base_port: int = BASE_PORT):
        require(IP, "iperf3", what="flows")
        self.path = path
        self.flows = flows
        self.ports = [base_port + i for i in range(len(flows))]
        self.results: list[FlowResult] = [{} for _ in flows]
        # (trial time read, interval end) of each receiver's interval lines
        self._seen: list[list[tuple[float, float]]] = [[] for _ in flows]
        self._t0: float | None = None
        self._servers: list[subprocess.Popen[str]] = []
        self._threads: list[threading.Thread] = []

    def dest(self, i: int) -> str:
        """``addr:port`` of flow ``i``'s receiver (the sender socket's peer)."""
        return f"{self.path.ip_of(self.flows[i].dst)}:{self.ports[i]}"

    def start_servers(self) -> None:
        for i, (flow, port) in enumerate(zip(self.flows, self.ports, strict=True)):
            srv = start_server(
                self.path, flow.dst, port, "-1", "-i", f"{REPORT_INTERVAL_S:g}",
                on_line=self._reader(i),
            )  # fmt: skip
            self._servers.append(srv)

    def _reader(self, i: int) -> Callable[[str], None]:
        """What flow ``i``'s server output goes to: its interval lines' times."""

        def seen(line: str) -> None:
            end = interval_end(line)
            if end is not None and self._t0 is not None:
                self._seen[i].append((time.monotonic() - self._t0, end))

        return seen

    def start_clients(self, t0: float) -> None:
        self._t0 = t0
        for i, flow in enumerate(self.flows):
            t = threading.Thread(target=self._client, args=(i, flow, t0), daemon=True)
            t.start()
            self._threads.append(t)

    def _client(self, i: int, flow: Flow, t0: float) -> None:
        delay = t0 + flow.start_s - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        started = time.monotonic() - t0
        seconds = flow.seconds()
        argv = [IP, "netns", "exec", self.path.ns(flow.src), "iperf3", "-J",
                "-c", self.path.ip_of(flow.dst), "-p", str(self.ports[i]),
                "-t", str(seconds), *flow.iperf3_args(), "--get-server-output"]  # fmt: skip
        if flow.mss:
            argv += ["-M", str(flow.mss)]
        if flow.window:
            argv += ["-w", flow.window]
        timeout = flow.wait_s()
        try:
            proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
            report = json.loads(proc.stdout)
        except subprocess.TimeoutExpired:
            report = {"error": f"iperf3 did not finish in {timeout:g} s"}
        except json.JSONDecodeError:
            report = {"error": f"iperf3 exit {proc.returncode}: {proc.stderr.strip()}"}
        finished = time.monotonic() - t0
        result = _summarise(flow, report)
        result["started_s"] = round(started, 3)
        # iperf3's -t timer starts once it is connected: a SYN lost at a full
        # queue starts the data a second or more after the launch, and the
        # client exits right after the data ends (see metrics.data_start)
        result["finished_s"] = round(finished, 3)
        # the receiver's own time base, read from its printed interval lines
        start = receiver_start(list(self._seen[i]))
        if start is not None and "error" not in result:
            result["data_start_s"] = round(start, 3)
        result["port"] = self.ports[i]
        self.results[i] = result

    def join(self) -> list[FlowResult]:
        for t in self._threads:
            t.join()
        for s in self._servers:
            try:
                s.wait(timeout=5)
            except subprocess.TimeoutExpired:
                s.kill()
                s.wait()
        return self.results
