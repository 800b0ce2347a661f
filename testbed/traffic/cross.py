"""Cross traffic from seeded schedules, driven with iperf3.

No packet generator of our own: every source is a sequence of iperf3 client
runs ("bursts" for UDP, "sessions" for TCP) against one iperf3 server on
the destination, started at the times of a schedule drawn from a seeded
``random.Random``.  The schedule (and its seed) is recorded with what each
run really did (its actual start, bytes, UDP loss).

* ``udp_cbr``: one constant-bit-rate UDP burst;
* ``udp_schedule``: explicit bursts ``[start_s, duration_s, rate_kbit]``
  (the thesis's on/off CBR on the reverse path);
* ``udp_onoff``: ``sources`` independent on/off sources, exponential on
  and off periods (VoIP-like: talk spurts at ``rate_kbit``);
* ``tcp_onoff``: short TCP transfers (Reno by default) with exponential
  on (transfer) and off periods (the SOHO cross traffic).

iperf3 counts time in whole seconds, so TCP sessions last
``max(1, round(on))`` s; UDP bursts are sized in bytes (``-n``) at the
paced rate, so they last their drawn duration.  Starting a client costs a
control-connection handshake (a few RTTs) before data flows; the recorded
``started_s`` is when the client was launched.
"""

from __future__ import annotations

import json
import random
import subprocess
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from testbed.net.path import IP, Path
from testbed.traffic.flows import start_server

BASE_PORT = 5301


@dataclass
class Burst:
    start_s: float
    duration_s: float
    rate_bps: float


def onoff(
    rng: random.Random,
    start_s: float,
    end_s: float,
    on_mean_s: float,
    off_mean_s: float,
    min_on_s: float = 0.0,
) -> list[tuple[float, float]]:
    """Exponential on/off periods in [start_s, end_s): [(start, duration), ...].

    Each source starts in a random phase (off with probability
    off/(on+off)); periods shorter than ``min_on_s`` are dropped, the last
    is cut at ``end_s``.
    """
    out = []
    t = start_s
    if rng.random() < off_mean_s / (on_mean_s + off_mean_s):
        t += rng.expovariate(1 / off_mean_s)
    while t < end_s:
        on = min(rng.expovariate(1 / on_mean_s), end_s - t)
        if on >= max(min_on_s, 1e-3):
            out.append((round(t, 3), round(on, 3)))
        t += on + rng.expovariate(1 / off_mean_s)
    return out


@dataclass
class Source:
    """One traffic source: a schedule of iperf3 runs from ``src`` to ``dst``."""

    kind: str  # "udp" or "tcp"
    src: str
    dst: str
    label: str
    bursts: list[Burst]
    size: int = 1000  # UDP payload bytes
    cc: str = "reno"
    seed: int | None = None
    runs: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "src": self.src,
            "dst": self.dst,
            "label": self.label,
            "size": self.size,
            "cc": self.cc if self.kind == "tcp" else None,
            "seed": self.seed,
            "schedule": [[b.start_s, b.duration_s, b.rate_bps] for b in self.bursts],
        }


def _periods(
    t: dict[str, Any], seed: int, duration_s: float, on_s: float, off_s: float, min_on_s: float
) -> list[tuple[float, float]]:
    """The on/off periods of an ``[[traffic]]`` entry ``t`` (``on_mean_s``,
    ``off_mean_s`` default to ``on_s``, ``off_s``), drawn with ``seed``."""
    return onoff(
        random.Random(seed),
        float(t.get("start_s", 0)),
        float(t.get("end_s", duration_s)),
        float(t.get("on_mean_s", on_s)),
        float(t.get("off_mean_s", off_s)),
        min_on_s,
    )


def sources(spec: list[dict[str, Any]], duration_s: float, seed: int) -> list[Source]:
    """The sources of a scenario point's ``[[traffic]]`` entries (seeded)."""
    out: list[Source] = []
    for i, t in enumerate(spec):
        kind = t["kind"]
        label = t.get("label") or f"{kind}{i}"
        size = int(t.get("size", 1000))
        start = float(t.get("start_s", 0))
        if kind == "udp_cbr":
            if float(t["rate_kbit"]) <= 0:
                continue  # switched off (e.g. by a sweep value)
            dur = float(t.get("duration_s", duration_s - start))
            bursts = [Burst(start, dur, float(t["rate_kbit"]) * 1e3)]
            out.append(Source("udp", t["src"], t["dst"], label, bursts, size))
        elif kind == "udp_schedule":
            bursts = [Burst(float(s), float(d), float(r) * 1e3) for s, d, r in t["bursts"]]
            out.append(Source("udp", t["src"], t["dst"], label, bursts, size))
        elif kind == "udp_onoff":
            for j in range(int(t.get("sources", 1))):
                s = seed * 1000 + i * 100 + j
                periods = _periods(t, s, duration_s, 1.0, 1.0, float(t.get("min_on_s", 0.1)))
                rate = float(t.get("rate_kbit", 96)) * 1e3
                bursts = [Burst(a, d, rate) for a, d in periods]
                out.append(
                    Source("udp", t["src"], t["dst"], f"{label}#{j + 1}", bursts, size, seed=s)
                )
        elif kind == "tcp_onoff":
            end = float(t.get("end_s", duration_s))
            s = seed * 1000 + i * 100
            periods = _periods(t, s, duration_s, 10.0, 1.0, 0.5)
            # whole seconds for iperf3, never past the end
            sessions = []
            for a, d in periods:
                secs = max(1, round(d))
                if a + secs <= end + 0.5:
                    sessions.append(Burst(a, float(secs), 0.0))
            out.append(
                Source("tcp", t["src"], t["dst"], label, sessions, cc=t.get("cc", "reno"), seed=s)
            )
        else:  # validated by the scenario loader
            raise ValueError(f"unknown traffic kind {kind}")
    return out


class TrafficRunner:
    """Run sources on a path: one iperf3 server each, runs at their scheduled times."""

    def __init__(self, path: Path, srcs: list[Source], base_port: int = BASE_PORT):
        self.path = path
        self.sources = srcs
        self.ports = [base_port + i for i in range(len(srcs))]
        self._servers: list[subprocess.Popen[str]] = []
        self._threads: list[threading.Thread] = []
        self._stop = threading.Event()

    def start_servers(self) -> None:
        for src, port in zip(self.sources, self.ports, strict=True):
            self._servers.append(start_server(self.path, src.dst, port))

    def start(self, t0: float) -> None:
        for src, port in zip(self.sources, self.ports, strict=True):
            t = threading.Thread(target=self._run, args=(src, port, t0), daemon=True)
            t.start()
            self._threads.append(t)

    def _run(self, src: Source, port: int, t0: float) -> None:
        for b in src.bursts:
            delay = t0 + b.start_s - time.monotonic()
            if delay > 0 and self._stop.wait(delay):
                return
            if self._stop.is_set():
                return
            started = time.monotonic() - t0
            argv = [IP, "netns", "exec", self.path.ns(src.src), "iperf3", "-J",
                    "-c", self.path.ip_of(src.dst), "-p", str(port)]  # fmt: skip
            if src.kind == "udp":
                nbytes = max(src.size, int(b.rate_bps * b.duration_s / 8))
                argv += ["-u", "-b", f"{b.rate_bps:.0f}", "-l", str(src.size), "-n", str(nbytes)]
            else:
                argv += ["-t", f"{b.duration_s:.0f}", "-C", src.cc]
            rec: dict[str, Any] = {"scheduled_s": b.start_s, "started_s": round(started, 3)}
            try:
                proc = subprocess.run(
                    argv, capture_output=True, text=True, timeout=b.duration_s + 30
                )
                rep = json.loads(proc.stdout)
                if "error" in rep:
                    rec["error"] = rep["error"]
                elif src.kind == "udp":
                    s = rep["end"]["sum"]
                    rec.update(
                        seconds=s.get("seconds"),
                        bytes=s.get("bytes"),
                        packets=s.get("packets"),
                        lost_packets=s.get("lost_packets"),
                    )
                else:
                    s = rep["end"]["sum_received"]
                    rec.update(seconds=s.get("seconds"), bytes=s.get("bytes"))
            except subprocess.TimeoutExpired:
                rec["error"] = "timeout"
            except (json.JSONDecodeError, KeyError) as e:
                rec["error"] = f"iperf3: {e}"
            rec["ended_s"] = round(time.monotonic() - t0, 3)
            src.runs.append(rec)

    def stop(self) -> list[dict[str, Any]]:
        """Stop launching runs, wait for running ones, stop servers; the record per source."""
        self._stop.set()
        for t in self._threads:
            t.join()
        for s in self._servers:
            s.terminate()
            try:
                s.wait(timeout=5)
            except subprocess.TimeoutExpired:
                s.kill()
                s.wait()
        out = []
        for src in self.sources:
            ok = [r for r in src.runs if "error" not in r]
            rec = {**src.to_json(), "runs": src.runs}
            rec["bytes"] = sum(int(r.get("bytes") or 0) for r in ok)
            if src.kind == "udp":
                rec["packets"] = sum(int(r.get("packets") or 0) for r in ok)
                rec["lost_packets"] = sum(int(r.get("lost_packets") or 0) for r in ok)
            rec["errors"] = len(src.runs) - len(ok)
            out.append(rec)
        return out
