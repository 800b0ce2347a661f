"""Kernel tracepoints through tracefs: enable events, read and parse them.

Our modules' events print ``key=value`` pairs (``TP_printk``), e.g.::

    iperf3-812 [001] ..s1. 41.2: jersey_loss: src=10.11.1.1:5201 dest=... cause=wireless

:func:`parse` turns each line into ``{"event": "jersey_loss", "t": 41.2,
"src": "10.11.1.1:5201", ..., "cause": "wireless"}``.  One collector serves
a whole VM boot; events are assigned to trials by their addresses, since every
path has its own 10.<path id>.0.0/16, or (qdisc events) by the inode of their
network namespace.
"""

from __future__ import annotations

import os
import re
import select
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

TRACEFS = Path("/sys/kernel/tracing")
_LINE = re.compile(
    r"^\s*(?P<task>.+?)\s+\[(?P<cpu>\d+)\]\s+\S+\s+(?P<t>[\d.]+):\s+(?P<ev>\w+):\s(?P<rest>.*)$"
)
_PAIR = re.compile(r"(\w+)=(\S+)")
# what TraceStream.sync() writes to trace_marker
_SYNC = "testbed-trace-sync"
_SYNC_SEEN = re.compile(_SYNC + r" (\d+)")


def _num(v: str) -> int | str:
    return int(v) if v.isdigit() else v


def parse(text: str) -> list[dict[str, Any]]:
    """Parse trace lines into dicts; comment lines and other formats are skipped."""
    events = []
    for line in text.splitlines():
        m = _LINE.match(line)
        if not m:
            continue
        ev: dict[str, Any] = {"event": m["ev"], "t": float(m["t"])}
        for key, val in _PAIR.findall(m["rest"]):
            ev[key] = _num(val)
        events.append(ev)
    return events


def host_of(endpoint: str) -> str:
    """'10.1.0.1:5201' -> '10.1.0.1'; '[fd00::1]:5201' -> 'fd00::1'."""
    return endpoint.rsplit(":", 1)[0].strip("[]")


def path_of(endpoint: str) -> int | None:
    """The path id of a testbed address: '10.12.1.2:5201' -> 12."""
    parts = host_of(endpoint).split(".")
    if len(parts) == 4 and parts[0] == "10" and parts[1].isdigit():
        return int(parts[1])
    return None


class TraceStream:
    """Enable tracepoints and stream ``trace_pipe`` for the life of a ``with`` block.

    A reader thread parses events as they come (nothing is lost to a full
    ring buffer however long the block lasts) and files each under the path
    id of its source address.  :meth:`take` hands a path's events over and
    forgets them, so ids can be reused by later trials; it first waits for
    the reader to catch up with the ring buffer (:meth:`sync`).
    """

    def __init__(self, events: list[str], root: Path = TRACEFS, buffer_kb: int = 8192):
        self.root = root
        self.requested = list(events)
        self.events = [e for e in events if (root / "events" / e / "enable").exists()]
        self.buffer_kb = buffer_kb
        self._by_path: dict[int, list[dict[str, Any]]] = {}
        self._netns: dict[int, int] = {}  # netns inode -> path id
        self._lock = threading.Lock()
        self._caught_up = threading.Condition(self._lock)
        self._sync_sent = 0
        self._sync_seen = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.lines = 0

    @property
    def missing(self) -> list[str]:
        return [e for e in self.requested if e not in self.events]

    def _write(self, rel: str, value: str) -> None:
        (self.root / rel).write_text(value)

    def __enter__(self) -> TraceStream:
        if not self.events:
            return self
        if not (self.root / "trace_pipe").exists():
            raise RuntimeError(f"tracefs not mounted at {self.root}")
        self._write("tracing_on", "0")
        self._write("buffer_size_kb", str(self.buffer_kb))
        # event times on CLOCK_MONOTONIC, Python's time.monotonic()
        self._clock = (self.root / "trace_clock").read_text()
        self._write("trace_clock", "mono")
        self._write("trace", "")
        for e in self.events:
            self._write(f"events/{e}/enable", "1")
        self._write("tracing_on", "1")
        self._thread = threading.Thread(target=self._reader, daemon=True)
        self._thread.start()
        return self

    def _reader(self) -> None:
        fd = os.open(self.root / "trace_pipe", os.O_RDONLY | os.O_NONBLOCK)
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        rest = b""
        try:
            while True:
                stopping = self._stop.is_set()
                # read on a timeout too: poll() on trace_pipe may wait for a
                # watermark of the ring buffer (buffer_percent)
                poller.poll(200)
                try:
                    chunk = os.read(fd, 1 << 16)
                except BlockingIOError:
                    chunk = b""
                if chunk:
                    data = rest + chunk
                    *lines, rest = data.split(b"\n")
                    self._file(b"\n".join(lines).decode(errors="replace"))
                    continue
                if stopping:
                    return
        finally:
            os.close(fd)

    def _file(self, text: str) -> None:
        evs = parse(text)
        seen = [int(n) for n in _SYNC_SEEN.findall(text)]
        with self._lock:
            if seen:
                self._sync_seen = max(self._sync_seen, *seen)
                self._caught_up.notify_all()
            self.lines += len(evs)
            for ev in evs:
                if "netns" in ev:  # qdisc events: the namespace of their device
                    pid = self._netns.get(ev["netns"])
                else:
                    pid = path_of(str(ev.get("src", "")))
                if pid is not None:
                    self._by_path.setdefault(pid, []).append(ev)

    def drop(self, path_id: int) -> None:
        """Forget what was filed under ``path_id`` (before a new trial uses the id)."""
        with self._lock:
            self._by_path.pop(path_id, None)
            self._netns = {k: v for k, v in self._netns.items() if v != path_id}

    def watch_netns(self, path_id: int, inodes: Iterable[int]) -> None:
        """File events that carry ``netns=`` (qdisc events) with an inode in
        ``inodes`` under ``path_id``."""
        with self._lock:
            for ino in inodes:
                self._netns[ino] = path_id

    def sync(self, timeout: float = 60) -> bool:
        """Wait until the reader has filed every event recorded before the call.

        A marker written to ``trace_marker`` comes out of ``trace_pipe`` after
        the events recorded before it.  The reader lags the ring buffer by
        seconds in a loaded guest: without this, the events of a trial's last
        seconds were missing from what :meth:`take` handed over (a queue's
        traced marks 206 for the 236 it counted).  False on a timeout.
        """
        if self._thread is None or self._stop.is_set():
            return True
        with self._lock:
            self._sync_sent += 1
            n = self._sync_sent
        self._write("trace_marker", f"{_SYNC} {n}\n")
        with self._caught_up:
            return self._caught_up.wait_for(lambda: self._sync_seen >= n, timeout)

    def take(self, path_id: int) -> list[dict[str, Any]]:
        """The events recorded for ``path_id`` so far (and forget them)."""
        if not self.sync():
            raise RuntimeError("trace_pipe's reader did not catch up within 60 s")
        with self._lock:
            return self._by_path.pop(path_id, [])

    def __exit__(self, *exc: object) -> None:
        if not self.events:
            return
        self._write("tracing_on", "0")
        for e in self.events:
            self._write(f"events/{e}/enable", "0")
        self._stop.set()
        if self._thread:
            self._thread.join()
        current = re.search(r"\[(\w+)\]", self._clock)
        if current:
            self._write("trace_clock", current[1])
