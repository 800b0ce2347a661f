"""Time series sampled while a trial runs: queues, RTT, sender state.

* :class:`QdiscSampler`: ``tc -s -j qdisc show`` of chosen devices every
  ``interval`` through one long-lived ``tc -batch`` process per namespace
  (no process per sample): backlog, drops, marks, and the marking state of
  our qdiscs (cw's measure, vcrr's probability).
* :class:`Pinger`: ``ping -D`` along a path: RTT samples and jitter.
* :class:`SsSampler`: ``ss -tin`` in a sender's namespace: cwnd, srtt,
  rttvar, the flight (unacked, sacked, lost), what limited the sender
  (rwnd_limited, sndbuf_limited) and, for jersey (and bbr), the rate
  estimate (``bbr:(bw:...)``).
* :func:`cpu_times` / :func:`cpu_load`: the machine's CPU busy and steal
  fractions over a trial (``/proc/stat``), which every point records: under
  TCG a saturated guest delays packets and ACKs.  :class:`CpuMeter` adds the
  host's (``host_busy``, ``host_steal``) in testbed/vm's guest, whose own
  steal stays 0 under TCG while the hypervisor below takes the host's CPU,
  and the VM's own share of it (``host_vm``: QEMU's CPU time) and that of
  every other process (``host_other``: a build, a test suite), which the
  guest, slowed with its host, measured too.

Sampling costs CPU under TCG; intervals of 0.2-0.5 s keep it small.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import threading
import time
from typing import Any

from testbed.net.path import IP, TC, Path
from testbed.programs import require
from testbed.run.records import qdisc_marks


def cpu_times(stat: str = "/proc/stat") -> list[int]:
    """The aggregate ``cpu`` line of /proc/stat: user, nice, system, idle,
    iowait, irq, softirq, steal (jiffies of all CPUs)."""
    with open(stat) as f:
        fields = f.readline().split()
    if not fields or fields[0] != "cpu":
        raise RuntimeError(f"{stat}: no aggregate cpu line")
    return [int(x) for x in fields[1:9]]


def vm_ticks(copy: str) -> tuple[int, int] | None:
    """The CPU time (clock ticks) of the VM's processes and of all the
    host's, from testbed/vm's copy of the host's CPU line (its ``vm <ticks>
    <ticks>`` line), or None (an older testbed/vm, no VM yet)."""
    with open(copy) as f:
        for line in f:
            key, *values = line.split()
            if key == "vm" and len(values) == 2:
                return int(values[0]), int(values[1])
    return None


def cpu_load(before: list[int], after: list[int]) -> dict[str, float]:
    """Busy (neither idle nor iowait) and steal fractions of the CPU time
    between two :func:`cpu_times`."""
    d = [a - b for a, b in zip(after, before, strict=True)]
    total = sum(d)
    if total <= 0:
        return {"busy": float("nan"), "steal": float("nan")}
    idle = d[3] + d[4]
    return {"busy": round((total - idle) / total, 4), "steal": round(d[7] / total, 4)}


# testbed/vm's copy of the host's aggregate cpu line (testbed/vm.py
# HostStatSampler: refreshed once a second), named by guest-init.sh
HOST_STAT_ENV = "JERSEY_HOST_STAT"


class CpuMeter:
    """The CPU load of an interval, :meth:`start` to :meth:`stop`: the
    machine's (``stat``), and the host's where ``host_stat`` names a copy of
    the host's cpu line (default: :data:`HOST_STAT_ENV`, set in testbed/vm's
    guest).  The host's keys are left out when that copy cannot be read at
    either end (no VM, an older testbed/vm, a copy that stopped)."""

    def __init__(self, stat: str = "/proc/stat", host_stat: str | None = None) -> None:
        self.stat = stat
        self.host_stat = host_stat if host_stat is not None else os.environ.get(HOST_STAT_ENV)
        self._before: list[int] = []
        self._host_before: tuple[list[int], tuple[int, int] | None] | None = None

    def _host_times(self) -> tuple[list[int], tuple[int, int] | None] | None:
        """The host's cpu line and the VM's ticks, read from one copy."""
        if not self.host_stat:
            return None
        try:
            return cpu_times(self.host_stat), vm_ticks(self.host_stat)
        except (OSError, RuntimeError, ValueError):
            return None

    def start(self) -> None:
        self._before = cpu_times(self.stat)
        self._host_before = self._host_times()

    def stop(self) -> dict[str, float]:
        """``busy`` and ``steal`` (:func:`cpu_load`); ``host_busy`` and
        ``host_steal`` if the host's copy was read at both ends, and
        ``host_vm`` and ``host_other`` if both had the VM's ticks."""
        out = cpu_load(self._before, cpu_times(self.stat))
        host_after = self._host_times()
        if self._host_before is None or host_after is None:
            return out
        (times0, vm0), (times1, vm1) = self._host_before, host_after
        host = cpu_load(times0, times1)
        out |= {"host_busy": host["busy"], "host_steal": host["steal"]}
        total = sum(times1) - sum(times0)
        if vm0 is not None and vm1 is not None and total > 0:
            # shares of all the host's CPU time: the VM's processes', and
            # every other process's
            out["host_vm"] = round((vm1[0] - vm0[0]) / total, 4)
            out["host_other"] = round(((vm1[1] - vm0[1]) - (vm1[0] - vm0[0])) / total, 4)
        return out


class QdiscSampler:
    """Samples the qdiscs of ``targets`` = [(name, namespace, device, handle|kind)]."""

    FIELDS = ("qlen", "backlog", "packets", "bytes", "drops", "overlimits")

    def __init__(self, targets: list[tuple[str, str, str, str]], interval: float):
        require(TC, what="[monitor] queues")
        self.targets = targets
        self.interval = interval
        self.samples: dict[str, list[dict[str, Any]]] = {t[0]: [] for t in targets}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._procs: dict[str, subprocess.Popen[str]] = {}

    def _proc(self, ns: str) -> subprocess.Popen[str]:
        if ns not in self._procs:
            self._procs[ns] = subprocess.Popen(
                [TC, "-n", ns, "-s", "-j", "-batch", "-"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                bufsize=1,
            )
        return self._procs[ns]

    @staticmethod
    def pick(qdiscs: list[dict[str, Any]], which: str) -> dict[str, Any] | None:
        for q in qdiscs:
            if which in (q.get("handle"), q.get("kind")):
                return q
        return None

    @classmethod
    def compact(cls, q: dict[str, Any]) -> dict[str, Any]:
        """The numbers worth keeping from one ``tc -s -j`` qdisc record."""
        out = {k: q[k] for k in cls.FIELDS if k in q}
        marked = qdisc_marks(q)
        if marked is not None:
            out["marked"] = marked
        for k in ("prob", "measure", "early", "pdrop", "dropped"):
            if k in q:
                out[k] = q[k]
        xs = q.get("xstats") or {}
        for k in ("prob", "measure", "early", "pdrop", "qmin"):
            if k in xs and k not in out:
                out[k] = xs[k]
        return out

    def sample_once(self, t: float) -> None:
        for name, ns, dev, which in self.targets:
            proc = self._proc(ns)
            assert proc.stdin is not None and proc.stdout is not None
            proc.stdin.write(f"qdisc show dev {dev}\n")
            proc.stdin.flush()
            line = proc.stdout.readline()
            if not line:
                continue
            try:
                q = self.pick(json.loads(line), which)
            except json.JSONDecodeError:
                continue
            if q is not None:
                self.samples[name].append({"t": round(t, 3), **self.compact(q)})

    def start(self, t0: float) -> None:
        def loop() -> None:
            nxt = time.monotonic()
            while not self._stop.is_set():
                try:
                    self.sample_once(time.monotonic() - t0)
                except (OSError, ValueError):
                    return
                nxt += self.interval
                self._stop.wait(max(0.0, nxt - time.monotonic()))

        self._thread = threading.Thread(target=loop, daemon=True)
        self._thread.start()

    def stop(self) -> dict[str, list[dict[str, Any]]]:
        self._stop.set()
        if self._thread:
            self._thread.join()
        for p in self._procs.values():
            if p.stdin:
                p.stdin.close()
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                p.kill()
        return self.samples


_PING = re.compile(r"^\[(?P<ts>[\d.]+)\].*icmp_seq=(?P<seq>\d+).*time=(?P<rtt>[\d.]+) ms")


def parse_ping(text: str) -> list[list[float]]:
    """``ping -D`` lines -> [[unix time, seq, rtt ms], ...]."""
    out = []
    for line in text.splitlines():
        m = _PING.match(line)
        if m:
            out.append([float(m["ts"]), int(m["seq"]), float(m["rtt"])])
    return out


class Pinger:
    """``ping -D -i interval`` from one node to another for the life of a trial."""

    def __init__(self, path: Path, src: str, dst: str, interval: float):
        require(IP, "ping", what="[monitor] ping")
        self.name = f"{src}->{dst}"
        self.argv = [IP, "netns", "exec", path.ns(src), "ping", "-D", "-n"]
        self.argv += ["-i", f"{interval:g}", "-W", "2", path.ip_of(dst)]
        self.interval = interval
        self._proc: subprocess.Popen[str] | None = None
        self._t0_wall = 0.0

    def start(self, t0: float) -> None:
        self._t0_wall = time.time() - (time.monotonic() - t0)
        self._proc = subprocess.Popen(
            self.argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
        )

    def stop(self) -> dict[str, Any]:
        if self._proc is None:
            return {}
        self._proc.send_signal(signal.SIGINT)
        try:
            out, _ = self._proc.communicate(timeout=5)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            out, _ = self._proc.communicate()
        samples = parse_ping(out)
        sent = max((s[1] for s in samples), default=0)
        return {
            "interval_s": self.interval,
            "sent": sent,
            "received": len(samples),
            # [t since trial start, rtt ms]
            "rtt": [[round(ts - self._t0_wall, 3), rtt] for ts, _seq, rtt in samples],
        }


_SS_SOCK = re.compile(r"^(?:[A-Z-]+\s+)?\d+\s+\d+\s+(?P<local>\S+)\s+(?P<peer>\S+)")
_SS_KV = {
    "cwnd": re.compile(r"\bcwnd:(\d+)"),
    "ssthresh": re.compile(r"\bssthresh:(\d+)"),
    "rtt": re.compile(r"\brtt:([\d.]+)/([\d.]+)"),
    "bw": re.compile(r"bbr:\(bw:([\d.]+)([KMG]?)bps"),
    "delivery_rate": re.compile(r"\bdelivery_rate ([\d.]+)([KMG]?)bps"),
    "retrans": re.compile(r"\bretrans:\d+/(\d+)"),
    "bytes_acked": re.compile(r"\bbytes_acked:(\d+)"),
    "unacked": re.compile(r"\bunacked:(\d+)"),
    "lost": re.compile(r"\blost:(\d+)"),
    "sacked": re.compile(r"\bsacked:(\d+)"),
    "snd_wnd": re.compile(r"\bsnd_wnd:(\d+)"),
    "rwnd_limited_pct": re.compile(r"\brwnd_limited:\d+ms\(([\d.]+)%\)"),
    "sndbuf_limited_pct": re.compile(r"\bsndbuf_limited:\d+ms\(([\d.]+)%\)"),
}
_UNIT = {"": 1.0, "K": 1e3, "M": 1e6, "G": 1e9}


def parse_ss(text: str) -> dict[str, dict[str, float]]:
    """``ss -tinH`` output -> {peer "addr:port": {cwnd, srtt_ms, rttvar_ms, bw_bps, ...}}.

    Of several sockets to one peer (iperf3's control and data connections)
    the one that has delivered the most bytes is kept.
    """
    out: dict[str, dict[str, float]] = {}
    peer = None
    for line in text.splitlines():
        m = _SS_SOCK.match(line)
        if m and not line.startswith((" ", "\t")):
            peer = m["peer"]
            continue
        if peer is None:
            continue
        rec: dict[str, float] = {}
        for key, rx in _SS_KV.items():
            mm = rx.search(line)
            if not mm:
                continue
            if key == "rtt":
                rec["srtt_ms"], rec["rttvar_ms"] = float(mm[1]), float(mm[2])
            elif key in ("bw", "delivery_rate"):
                rec[f"{key}_bps"] = float(mm[1]) * _UNIT[mm[2]]
            else:
                rec[key] = float(mm[1])
        if rec and rec.get("bytes_acked", 0) >= out.get(peer, {}).get("bytes_acked", -1):
            out[peer] = rec
        peer = None
    return out


class SsSampler:
    """``ss -tin`` of the sockets of ``node`` whose peer port is in ``ports``."""

    def __init__(self, path: Path, node: str, ports: list[int], interval: float):
        require("ss", what="[monitor] ss")
        self.ns = path.ns(node)
        self.ports = set(ports)
        self.interval = interval
        lo, hi = min(ports), max(ports)
        self.argv = ["ss", "-N", self.ns, "-tinH", "state", "established"]
        self.argv += [f"( dport >= :{lo} and dport <= :{hi} )"]
        self.samples: dict[str, list[dict[str, float]]] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self, t0: float) -> None:
        def loop() -> None:
            nxt = time.monotonic()
            while not self._stop.is_set():
                out = subprocess.run(self.argv, capture_output=True, text=True).stdout
                t = round(time.monotonic() - t0, 3)
                for peer, rec in parse_ss(out).items():
                    if int(peer.rsplit(":", 1)[1]) in self.ports:
                        self.samples.setdefault(peer, []).append({"t": t, **rec})
                nxt += self.interval
                self._stop.wait(max(0.0, nxt - time.monotonic()))

        self._thread = threading.Thread(target=loop, daemon=True)
        self._thread.start()

    def stop(self) -> dict[str, list[dict[str, float]]]:
        self._stop.set()
        if self._thread:
            self._thread.join()
        return self.samples
