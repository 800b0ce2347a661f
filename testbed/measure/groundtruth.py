"""Per-loss ground truth: which drops were the queue's and which the air's.

netem's and the queue's drop counters say how many packets each dropped, not
which ones.  To judge a loss classifier loss by loss we capture a flow's data
segments (headers only) with ``tcpdump`` on both sides of every place that
can drop them, and follow each transmission:

* a *dropper* is a link direction's bottleneck queue (``queue``, congestion)
  or its air (netem loss, ``air``, wireless; only where loss is configured);
* a *capture point* sits just before each dropper on the flow's route (the
  node's ingress before a queue: nothing drops between a node's ingress and
  its egress qdisc; the air namespace's ingress port before the air), plus
  the receiver's ingress;
* a transmission (TCP seq, length, IP id) seen at one point and not at the
  next was dropped by the dropper between them.

The queue at the sender's own interface is not a dropper here: TCP Small
Queues keep it nearly empty, and the kernel reports a drop there to TCP as a
local one.

A loss decision of a congestion control (a tracepoint with ``src=``,
``snd_una=``, and the CLOCK_MONOTONIC microseconds ``una_tx=`` of the last
transmission of the segment at snd_una and ``now=`` of the decision) is then
matched to that transmission of the segment containing snd_una, whose fate
is the decision's ground truth.  Capture timestamps (CLOCK_REALTIME) are
brought to CLOCK_MONOTONIC with the offset measured when the captures start.

Use it as a trial's monitor and classify afterwards::

    trial = Trial(..., trace_events=["newrenolp/newrenolp_loss"], monitor=Capture())
    result = run_trials([trial])[0]
    summary = classify(result)      # per-decision truth, accuracy
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import struct
import subprocess
import tempfile
import threading
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from testbed.measure.trace import host_of
from testbed.net.path import IP, Link, Path
from testbed.programs import require
from testbed.run.records import TrialResult
from testbed.traffic.flows import BASE_PORT

SNAPLEN = 96
# a decision's transmission may be seen at the first point this much before
# the kernel's transmit timestamp (clock granularity, offset measurement)
TX_SLACK_S = 0.002
STOP_WAIT_S = 1.5


@dataclass(frozen=True)
class Hop:
    """One link direction on a route."""

    link: Link
    reverse: bool

    @property
    def name(self) -> str:
        a, b = (self.link.b, self.link.a) if self.reverse else (self.link.a, self.link.b)
        return f"{a}->{b}"

    @property
    def lossy(self) -> bool:
        return (self.link.loss_rev if self.reverse else self.link.loss) is not None


@dataclass(frozen=True)
class Point:
    """Where to capture: a device in a namespace, one direction; ``before`` the dropper
    it precedes (``"queue:r->n"``, ``"air:n->rcv"``) or ``"receiver"``."""

    ns: str
    dev: str
    direction: str  # "in" or "out" (tcpdump -Q)
    before: str


def route(links: list[Link], src: str, dst: str) -> list[Hop]:
    """The hops from ``src`` to ``dst`` (shortest path, as the path's routes)."""
    adj: dict[str, list[tuple[str, Hop]]] = {}
    for link in links:
        adj.setdefault(link.a, []).append((link.b, Hop(link, False)))
        adj.setdefault(link.b, []).append((link.a, Hop(link, True)))
    prev: dict[str, tuple[str, Hop]] = {}
    seen, todo = {src}, deque([src])
    while todo:
        cur = todo.popleft()
        for nxt, hop in adj.get(cur, []):
            if nxt not in seen:
                seen.add(nxt)
                prev[nxt] = (cur, hop)
                todo.append(nxt)
    if dst not in seen:
        raise KeyError(f"no route from {src} to {dst}")
    hops: list[Hop] = []
    node = dst
    while node != src:
        node, hop = prev[node]
        hops.append(hop)
    return hops[::-1]


def droppers(hops: list[Hop]) -> list[str]:
    """Places on the route that can drop a data segment, in path order."""
    out = []
    for i, hop in enumerate(hops):
        if i > 0:  # not the sender's own queue
            out.append(f"queue:{hop.name}")
        if hop.lossy:
            out.append(f"air:{hop.name}")
    return out


def capture_points(path: Path, hops: list[Hop]) -> list[Point]:
    """A point before every dropper on the route, and one at the receiver."""
    points = []
    for i, hop in enumerate(hops):
        head = hop.link.b if hop.reverse else hop.link.a
        tail = hop.link.a if hop.reverse else hop.link.b
        if i > 0:
            prev = hops[i - 1]
            points.append(Point(path.ns(head), path.dev(prev.link), "in", f"queue:{hop.name}"))
        if hop.lossy:
            port = "pb" if hop.reverse else "pa"
            points.append(Point(path.air(hop.link), port, "in", f"air:{hop.name}"))
        if i == len(hops) - 1:
            points.append(Point(path.ns(tail), path.dev(hop.link), "in", "receiver"))
    return points


# -- pcap -------------------------------------------------------------------


@dataclass(frozen=True)
class Segment:
    """A TCP data segment as captured."""

    t: float  # capture time, CLOCK_REALTIME seconds
    sport: int
    dport: int
    seq: int
    length: int  # payload bytes
    ipid: int

    @property
    def key(self) -> tuple[int, int, int, int]:
        return (self.sport, self.seq, self.length, self.ipid)


def parse_pcap(data: bytes) -> list[Segment]:
    """IPv4 TCP segments with payload from a pcap (Ethernet or Linux cooked)."""
    if len(data) < 24:
        return []
    magic = struct.unpack("<I", data[:4])[0]
    if magic in (0xA1B2C3D4, 0xA1B23C4D):
        endian = "<"
    elif magic in (0xD4C3B2A1, 0x4D3CB2A1):
        endian = ">"
    else:
        raise ValueError(f"not a pcap file (magic {magic:#x})")
    nano = magic in (0xA1B23C4D, 0x4D3CB2A1)
    linktype = struct.unpack(endian + "I", data[20:24])[0]
    l2 = {1: 14, 113: 16}.get(linktype)
    if l2 is None:
        raise ValueError(f"unsupported link type {linktype}")
    out = []
    off = 24
    while off + 16 <= len(data):
        sec, frac, incl, _orig = struct.unpack(endian + "IIII", data[off : off + 16])
        pkt = data[off + 16 : off + 16 + incl]
        off += 16 + incl
        if len(pkt) < l2 + 20 or pkt[l2 - 2 : l2] != b"\x08\x00":
            continue
        ip = pkt[l2:]
        ihl = (ip[0] & 0x0F) * 4
        if ip[0] >> 4 != 4 or ip[9] != 6 or len(ip) < ihl + 20:
            continue
        total, ipid = struct.unpack("!HH", ip[2:6])
        tcp = ip[ihl:]
        sport, dport, seq = struct.unpack("!HHI", tcp[:8])
        doff = (tcp[12] >> 4) * 4
        length = total - ihl - doff
        if length <= 0:
            continue
        t = sec + frac / (1e9 if nano else 1e6)
        out.append(Segment(t, sport, dport, seq, length, ipid))
    return out


# -- fates --------------------------------------------------------------------


def fates(points: list[str], captured: list[list[Segment]]) -> list[tuple[Segment, str]]:
    """Each transmission seen at the first point, with its fate.

    ``points`` names what follows each capture point (``Point.before``; the
    last is the receiver).  The fate is ``"delivered"`` or the dropper
    between the last point that saw it and the first that did not.
    """
    if len(points) != len(captured) or not points:
        raise ValueError("one capture per point")
    seen = [{s.key for s in segs} for segs in captured]
    out = []
    for seg in captured[0]:
        fate = "delivered"
        for i in range(1, len(points)):
            if seg.key not in seen[i]:
                fate = points[i - 1]
                break
        out.append((seg, fate))
    return out


def truth_of(fate: str) -> str:
    """'congestion' (a queue dropped it), 'wireless' (the air), or 'not_lost'."""
    if fate.startswith("queue:"):
        return "congestion"
    if fate.startswith("air:"):
        return "wireless"
    return "not_lost"


def match_decision(
    decision: dict[str, Any], txs: list[tuple[float, int, int, str]], offset: float
) -> dict[str, Any]:
    """The ground truth of one decision.

    ``txs`` are the flow's transmissions ``(t_realtime, seq, length, fate)``
    in capture order; ``offset`` is CLOCK_REALTIME - CLOCK_MONOTONIC.  The
    transmission is the one of the segment containing ``snd_una`` nearest to
    (not before, within slack) ``una_tx``; without ``una_tx``, the last one
    before the decision ``now``.
    """
    una = int(decision["snd_una"])
    una_tx = int(decision.get("una_tx") or 0) / 1e6
    now = int(decision.get("now") or 0) / 1e6
    cands = [
        (t - offset, fate)
        for t, seq, length, fate in txs
        if (una - seq) % 2**32 < length  # seq <= una < seq + length, mod 2^32
    ]
    pick: tuple[float, str] | None = None
    if una_tx:
        after = [c for c in cands if c[0] >= una_tx - TX_SLACK_S and (not now or c[0] <= now)]
        if after:
            pick = min(after, key=lambda c: c[0])
    if pick is None and now:
        before = [c for c in cands if c[0] <= now]
        if before:
            pick = max(before, key=lambda c: c[0])
    if pick is None:
        return {"truth": "unmatched", "fate": None, "tx_delay_s": None}
    return {
        "truth": truth_of(pick[1]),
        "fate": pick[1],
        "tx_delay_s": pick[0] - una_tx if una_tx else None,
    }


WIRELESS_CAUSES = {"wireless", "rto_wireless", "hold"}
CONGESTION_CAUSES = {"congestion", "rto_congestion", "halve", "reset", "ecn"}


def predicted_class(decision: dict[str, Any]) -> str | None:
    """What a decision said: 'wireless', 'congestion' or None (unknown format)."""
    label = str(decision.get("cause") or decision.get("action") or "")
    if label in WIRELESS_CAUSES:
        return "wireless"
    if label in CONGESTION_CAUSES:
        return "congestion"
    return None


def score(
    decisions: list[dict[str, Any]], kinds: tuple[str, ...] = ("dupack", "rto")
) -> dict[str, Any]:
    """Classification accuracy of annotated decisions (with ``truth``).

    Accuracy is correct / decisions of the given kinds whose segment really
    was lost (truth wireless or congestion).
    """
    counts: dict[str, int] = {}
    correct = judged = 0
    confusion: dict[str, int] = {}
    for d in decisions:
        if kinds and d.get("kind") not in kinds:
            continue
        truth = d.get("truth", "unmatched")
        counts[truth] = counts.get(truth, 0) + 1
        pred = predicted_class(d)
        if truth in ("wireless", "congestion") and pred:
            judged += 1
            correct += pred == truth
            key = f"{truth}->{pred}"
            confusion[key] = confusion.get(key, 0) + 1
    return {
        "decisions": sum(counts.values()),
        "judged": judged,
        "correct": correct,
        "accuracy": correct / judged if judged else None,
        "truth_counts": counts,
        "confusion": confusion,
    }


# -- capturing -----------------------------------------------------------------


def bpf_filter(src_ip: str, dst_ip: str, dport: int) -> str:
    """Data segments of a flow (payload > 0); every client port to ``dport``."""
    payload = "(ip[2:2] - ((ip[0] & 0xf) << 2) - ((tcp[12] & 0xf0) >> 2)) > 0"
    return f"tcp and src host {src_ip} and dst host {dst_ip} and dst port {dport} and {payload}"


class Capture:
    """A trial monitor: capture flow ``flow_index``'s data at every point of its route.

    Yields a dict that, when the flows have ended, holds ``points``,
    ``capture_stats`` (per point: packets, kernel drops), ``offset``
    (CLOCK_REALTIME - CLOCK_MONOTONIC) and ``transmissions`` (per sender port:
    ``[t, seq, length, fate]`` lists, bulky: drop them after :func:`classify`).
    """

    def __init__(self, flow_index: int = 0, snaplen: int = SNAPLEN, buffer_kb: int = 8192):
        self.flow_index = flow_index
        self.snaplen = snaplen
        self.buffer_kb = buffer_kb  # tcpdump -B: kernel capture buffer per point

    def __call__(self, path: Path, trial: Any) -> contextlib.AbstractContextManager[dict[str, Any]]:
        return self._run(path, trial)

    @contextlib.contextmanager
    def _run(self, path: Path, trial: Any) -> Iterator[dict[str, Any]]:
        require(IP, "tcpdump", what="[monitor] groundtruth")
        flow = trial.flows[self.flow_index]
        hops = route(path.links, flow.src, flow.dst)
        points = capture_points(path, hops)
        filt = bpf_filter(path.ip_of(flow.src), path.ip_of(flow.dst), BASE_PORT + self.flow_index)
        doc: dict[str, Any] = {
            "flow_index": self.flow_index,
            "route": [h.name for h in hops],
            "droppers": droppers(hops),
            "points": [p.__dict__ for p in points],
        }
        with tempfile.TemporaryDirectory(prefix="jgt") as tmp:
            dumps = [
                Tcpdump(p.ns, p.dev, p.direction, os.path.join(tmp, f"p{i}.pcap"), filt,
                        self.snaplen, self.buffer_kb)
                for i, p in enumerate(points)
            ]  # fmt: skip
            try:
                for d in dumps:
                    d.wait_ready()
                doc["offset"] = time.time() - time.monotonic()
                yield doc
            finally:
                # libpcap hands packets over in ring blocks retired after
                # tcpdump's 1 s timeout; SIGINT before that loses them
                time.sleep(STOP_WAIT_S)
                doc["capture_stats"] = [d.stop() for d in dumps]
            captured = [parse_pcap(d.read()) for d in dumps]
            per_port: dict[str, list[list[Any]]] = {}
            for seg, fate in fates([p.before for p in points], captured):
                per_port.setdefault(str(seg.sport), []).append([seg.t, seg.seq, seg.length, fate])
            doc["transmissions"] = per_port
            doc["fate_counts"] = _fate_counts(per_port)


class Tcpdump:
    """``tcpdump -w FILE`` in a namespace, headers only; its stderr read by a thread."""

    def __init__(
        self,
        ns: str,
        dev: str,
        direction: str,
        file: str,
        filt: str,
        snaplen: int,
        buffer_kb: int = 8192,
    ):
        self.file = file
        argv = [IP, "netns", "exec", ns, "tcpdump", "-i", dev, "-Q", direction,
                "-s", str(snaplen), "-B", str(buffer_kb), "-Z", "root", "-n", "-U", "-w", file,
                filt]  # fmt: skip
        self.proc = subprocess.Popen(argv, stderr=subprocess.PIPE, text=True)
        self.lines: list[str] = []
        self.ready = threading.Event()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.lines.append(line)
            if "listening on" in line:
                self.ready.set()
        self.ready.set()  # exited: wait_ready() reports it

    def wait_ready(self, timeout: float = 10.0) -> None:
        if not self.ready.wait(timeout) or self.proc.poll() is not None:
            raise RuntimeError(f"tcpdump not capturing: {''.join(self.lines).strip()}")

    def stop(self) -> dict[str, Any]:
        """Stop (SIGINT flushes the file) and return tcpdump's packet counts."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.reader.join(timeout=5)
        return _tcpdump_stats("".join(self.lines))

    def read(self) -> bytes:
        if not os.path.exists(self.file):
            raise RuntimeError(f"tcpdump wrote no {self.file}: {''.join(self.lines).strip()}")
        with open(self.file, "rb") as fh:
            return fh.read()


def _tcpdump_stats(err: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if "rror" in err:
        out["error"] = err.strip()[-500:]
    for key, pat in (
        ("captured", r"(\d+) packets? captured"),
        ("received", r"(\d+) packets? received by filter"),
        ("dropped", r"(\d+) packets? dropped by kernel"),
    ):
        m = re.search(pat, err)
        if m:
            out[key] = int(m.group(1))
    return out


def _fate_counts(per_port: dict[str, list[list[Any]]]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for txs in per_port.values():
        for _, _, _, fate in txs:
            counts[fate] = counts.get(fate, 0) + 1
    return counts


def classify(result: TrialResult, keep_transmissions: bool = False) -> dict[str, Any]:
    """Annotate a trial result's loss decisions with their ground truth; score them.

    Decisions are the trace events with ``snd_una``; each gets ``truth``
    (``wireless``, ``congestion``, ``not_lost`` or ``unmatched``) and
    ``fate``.  Returns :func:`score` of them (dupack and rto decisions) and
    stores it as ``result["groundtruth"]``; the bulky transmissions are
    removed from ``result["monitor"]`` unless ``keep_transmissions``.
    """
    mon = result.get("monitor") or {}
    per_port = mon.get("transmissions") or {}
    offset = float(mon.get("offset", 0.0))
    decisions = [e for e in result.get("trace", []) if "snd_una" in e]
    for d in decisions:
        port = host_port(str(d.get("src", "")))
        d.update(match_decision(d, per_port.get(port, []), offset))
    summary = score(decisions)
    summary["fate_counts"] = mon.get("fate_counts", {})
    summary["capture_stats"] = mon.get("capture_stats", [])
    result["groundtruth"] = summary
    if not keep_transmissions:
        mon.pop("transmissions", None)
    return summary


def host_port(endpoint: str) -> str:
    """'10.1.0.1:40000' -> '40000'."""
    return endpoint.rsplit(":", 1)[1] if ":" in endpoint else ""


__all__ = [
    "Capture",
    "Hop",
    "Point",
    "capture_points",
    "classify",
    "droppers",
    "fates",
    "host_of",
    "match_decision",
    "parse_pcap",
    "route",
    "score",
]
