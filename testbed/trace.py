"""Kernel tracepoints through tracefs: enable events, read and parse them.

Our modules' events print ``key=value`` pairs (``TP_printk``), e.g.::

    iperf3-812 [001] ..s1. 41.2: jersey_loss: src=10.11.1.1:5201 dest=... cause=wireless

:func:`parse` turns each line into ``{"event": "jersey_loss", "t": 41.2,
"src": "10.11.1.1:5201", ..., "cause": "wireless"}``.  One collector serves
a whole VM boot; events are assigned to trials by their addresses, since every
path has its own 10.<path id>.0.0/16.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

TRACEFS = Path("/sys/kernel/tracing")
_LINE = re.compile(
    r"^\s*(?P<task>.+?)\s+\[(?P<cpu>\d+)\]\s+\S+\s+(?P<t>[\d.]+):\s+(?P<ev>\w+):\s(?P<rest>.*)$"
)
_PAIR = re.compile(r"(\w+)=(\S+)")


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


class Tracer:
    """Enable tracepoints (``system/event`` names) for the life of a ``with`` block."""

    def __init__(self, events: list[str], buffer_kb: int = 16384, root: Path = TRACEFS):
        self.root = root
        self.events = [e for e in events if (root / "events" / e / "enable").exists()]
        self.buffer_kb = buffer_kb

    def _write(self, rel: str, value: str) -> None:
        (self.root / rel).write_text(value)

    def __enter__(self) -> Tracer:
        if not (self.root / "trace").exists():
            raise RuntimeError(f"tracefs not mounted at {self.root}")
        self._write("tracing_on", "0")
        # one clock for all CPUs: events of a qdisc (serialised by its lock)
        # may be recorded on either CPU and must come out in their order
        self._write("trace_clock", "global")
        self._write("buffer_size_kb", str(self.buffer_kb))
        self._write("trace", "")
        for e in self.events:
            self._write(f"events/{e}/enable", "1")
        self._write("tracing_on", "1")
        return self

    def __exit__(self, *exc: object) -> None:
        self._write("tracing_on", "0")
        for e in self.events:
            self._write(f"events/{e}/enable", "0")

    def read(self) -> list[dict[str, Any]]:
        return parse((self.root / "trace").read_text())
