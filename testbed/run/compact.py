"""Published point records: a compact copy of each point's JSON, tracked by git.

The harness writes each point's full JSON to ``OUT/<scenario>/runs/<point
id>.json``: 50-200 KB, most of it tracepoint events and time series, and not
tracked by git (``.gitignore``).  Next to it it writes the point's compact
record, ``OUT/<scenario>/points/<point id>.json``: the same document without
the bulky keys (:data:`DROPPED`, :data:`DROPPED_IN`; the record's
``compact`` key names those it had), a few KB, which git tracks.  A compact
record keeps what identifies the point and where it comes from (identity,
values, run, spec, seeds, meta with the commit, environment, versions,
status, CPU load, wall time) and its metrics, computed from the full document
(:func:`testbed.analysis.metrics.point_metrics`, as the report does), so that

- resume (:func:`testbed.run.harness.point_done`) counts a point whose full
  JSON is missing by its compact record: a bench can be measured over
  several sittings, each from a fresh clone;
- the report's tables, medians and CIs, verdicts, scorecards and calibration
  tables come out the same from compact records as from the full JSON; only
  time-series figures need the full JSON (:func:`is_compact`).

A compact record's metrics are those of the code that wrote it: after a
change to :mod:`testbed.analysis.metrics`, ``report --records`` rewrites them
from the full JSON where it is there; a point of compact record only keeps them.

:func:`point_files` is where a scenario's points are read from (the full
JSON where it is there), :func:`backfill` writes the compact records of
points measured before the harness wrote them (``python -m testbed report
--records``).  Records are written deterministically, one top-level key a
line in sorted order, so that ``git diff`` shows which part of a point
changed.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, cast

from testbed.analysis import metrics
from testbed.run.records import PointRecord

# a scenario directory's full JSON (not tracked) and compact records (tracked)
RUNS = "runs"
POINTS = "points"
# top-level keys of a point's JSON its compact record leaves out: tracepoint
# events, the monitors' time series (queues, ping, ss), nstat's counters, and
# the trial monitor's document (packet captures' routes and statistics, the
# fading schedule); the metrics computed from them stay
DROPPED = ("trace", "samples", "nstat", "monitor")
# and the key left out of each item of a list: a flow's 1 s interval reports
# (a time series), a cross-traffic source's runs (its schedule), a link's
# ``tc -s -j`` record of its qdisc (its counters stay in the link's record)
DROPPED_IN = {"flows": "intervals", "traffic": "runs", "links": "queue_stats"}


def is_compact(doc: PointRecord | dict[str, Any]) -> bool:
    """Is ``doc`` a compact record (no time series, no trace events)?"""
    return "compact" in doc


def compact(doc: PointRecord) -> PointRecord:
    """The compact record of a point's full JSON ``doc`` (as read back from
    its file): ``doc`` without :data:`DROPPED` and :data:`DROPPED_IN`, with
    ``compact`` naming what it left out and, for a point whose status is
    ``ok``, the metrics computed from ``doc`` (those the report computes from
    the full JSON).  A compact record is returned as it is."""
    if is_compact(doc):
        return doc
    out: dict[str, Any] = {k: v for k, v in doc.items() if k not in DROPPED}
    left = [k for k in DROPPED if k in doc]
    for key, inner in DROPPED_IN.items():
        items = doc.get(key)
        if isinstance(items, list) and any(isinstance(x, dict) and inner in x for x in items):
            out[key] = [
                {k: v for k, v in x.items() if k != inner} if isinstance(x, dict) else x
                for x in items
            ]
            left.append(f"{key}[].{inner}")
    if doc.get("status") == "ok":
        out["metrics"] = metrics.point_metrics(doc)
    out["compact"] = sorted(left)
    return cast(PointRecord, out)


def dumps(doc: PointRecord | dict[str, Any]) -> str:
    """A record's text: one top-level key a line, in sorted order, without
    spaces.  Within a value the keys keep the document's order: the report
    orders flow groups and tools as they come."""
    lines = [
        f"{json.dumps(k)}:{json.dumps(v, separators=(',', ':'), default=str)}"
        for k, v in sorted(doc.items())
    ]
    return "{\n" + ",\n".join(lines) + "\n}\n"


def write(path: Path, doc: PointRecord) -> bool:
    """Write the compact record of ``doc`` (full JSON or compact) to ``path``;
    False when the file already says the same (left untouched)."""
    text = dumps(compact(doc))
    try:
        if path.read_text() == text:
            return False
    except OSError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)
    return True


def record_of(full: Path) -> Path:
    """The compact record's file of a point's full JSON ``runs/<id>.json``."""
    return full.parent.parent / POINTS / full.name


def has_points(sdir: Path) -> bool:
    """Has a scenario directory points: full JSON or compact records?"""
    return (sdir / RUNS).is_dir() or (sdir / POINTS).is_dir()


def point_files(sdir: Path) -> list[Path]:
    """A scenario directory's points, one file each in the order of their
    names: ``runs/<id>.json`` where it is there, else ``points/<id>.json``."""
    files = {f.name: f for f in (sdir / POINTS).glob("*.json")}
    files.update({f.name: f for f in (sdir / RUNS).glob("*.json")})
    return [files[name] for name in sorted(files)]


def backfill(sdir: Path) -> tuple[int, int]:
    """(Re)write the compact record of every point of a scenario directory
    that has its full JSON in ``runs/``; (records written, already the same).
    A file that is no JSON is left out."""
    written = same = 0
    for f in sorted((sdir / RUNS).glob("*.json")):
        try:
            doc = json.loads(f.read_text())
        except (json.JSONDecodeError, OSError):
            continue
        if write(record_of(f), doc):
            written += 1
        else:
            same += 1
    return written, same
