"""Tables, plots and ``report.md`` from the per-point JSON of a sweep (runs on the host).

``python -m testbed report [--out results] [SCENARIO...]`` reads
``OUT/<kernel series>/<scenario>/runs/*.json`` (written by
:mod:`testbed.run.harness`; ``python -m testbed run`` puts every kernel's
points in a directory of their own, :func:`kernel_dirs`), and for a point
whose full JSON is not there (``runs/`` is not tracked by git) its compact
record ``points/<point id>.json`` (:mod:`testbed.run.compact`), recomputes
every full point's metrics (:mod:`testbed.analysis.metrics`; a compact
record has them, computed from its full JSON), and writes per scenario
``<scenario>/<scenario>.md`` (its scorecard and tables), ``summary.json`` (the
same numbers as data) and the figures its file asks for (``<name>.png`` and
``.svg``), then each kernel's ``report.md`` linking them all, with the
acceptance checks (ground-truth validation, repeatability), and ``OUT/report.md``
linking every kernel's report and naming every kernel and commit
(:func:`index`).  A directory in the flat layout of earlier versions
(``OUT/<scenario>/runs/``, or one kernel's directory) is reported as it is.

Values are medians over runs with a 95 % percentile-bootstrap confidence
interval (``median [lo, hi]``, :func:`testbed.analysis.metrics.median_ci`);
a cell from fewer than 3 runs says ``(n=1)`` or ``(n=2)`` instead, and
figures draw the same interval as error bars, none below 3 runs.  Tables,
verdicts, scorecards and calibration come out the same from compact records;
time-series figures draw only the points whose full JSON is there, and a
scenario's page says which figures compact records left undrawn.  Metric names
are keys of the point metrics (dotted for nested ones, e.g.
``drops.link_share``); a ``_mbps``/``_kbps`` suffix converts a ``_bps``
metric.  A cell is empty when no run produced the value; an accuracy cell
gives the number of loss decisions it was computed from.

Figures: subplots of one figure share their y axis, facets wrap into rows so
that no figure is wider than :data:`MAX_FIG_WIDTH_IN`, crowded x tick labels
are rotated and thinned (:func:`tick_plan`), legends name schemes (a flow
group by its congestion control), and a per-flow goodput figure with
``ceiling = true`` draws the fair share C / flows as a dashed line.
``python -m testbed calibrate`` compares a scenario run at its ``parallel``
with the same run one point at a time (:func:`calibration_table`).
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import random
import re
import statistics
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from testbed import TOP
from testbed.analysis import metrics
from testbed.run import compact, scenario
from testbed.run.records import PointRecord

# the kernel's schemes every goodput figure must show next to ours
COMPARATORS = ("reno", "cubic", "westwood", "veno", "vegas", "bbr", "hybla", "illinois", "yeah")
OURS = ("jersey", "diffc", "newrenolp", "balde")
# the testbed's upper bound: Reno that knows which losses were the medium's
ORACLE = "oracle"
MARKERS = "os^vD<>ph*xP+"
REPEAT_TOLERANCE = 0.10
GT_THRESHOLD = 0.99


# -- loading ----------------------------------------------------------------------


def load_points(out: Path, name: str) -> list[PointRecord]:
    """Every point of a scenario (any status): its full JSON, else its compact
    record (:func:`testbed.run.compact.point_files`); the metrics of ok ones
    recomputed from the full JSON, a compact record's as it has them."""
    docs: list[PointRecord] = []
    for f in compact.point_files(out / name):
        try:
            doc = json.loads(f.read_text())
        except json.JSONDecodeError:
            continue
        if doc.get("status") == "ok":
            if compact.is_compact(doc):
                doc["metrics"] = doc.get("metrics") or {}
            else:
                doc["metrics"] = metrics.point_metrics(doc)
            if doc["metrics"].get("impossible"):  # refused, whatever the file says
                doc["status"], doc["error"] = "error", doc["metrics"]["impossible"]
        docs.append(doc)
    return docs


def flatten(d: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in d.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            out.update(flatten(v, key + "."))
        elif not isinstance(v, list):
            out[key] = v
    return out


def records(docs: list[PointRecord]) -> list[dict[str, Any]]:
    """Long format: one record per point (group "all"), per flow group and per
    flow; the point's also ``scheme.*`` of its scheme's flows (:func:`scheme_of`)."""
    out = []
    base_rtt = path_rtts(docs)
    for doc in docs:
        if doc.get("status") != "ok":
            continue
        m = doc["metrics"]
        base = {**doc["values"], "run": doc["run"], "_point": doc["point"]}
        top = {k: v for k, v in m.items() if k not in ("groups", "flows")}
        # the group whose goodput a share metric divides by: the competitor
        share = ((doc.get("spec") or {}).get("metrics") or {}).get("share") or []
        rival = {"_competitor": str(share[1])} if len(share) == 2 else {}
        qd = flow_qdelays(doc, base_rtt)
        # the sweep's values win over metrics of the same name
        out.append(
            {**flatten(top), **scheme_of(doc, qd), **base, "_level": "point", "group": "all",
             **rival}
        )  # fmt: skip
        ccs: dict[str, set[str]] = {}
        for fm in m.get("flows", []):
            ccs.setdefault(str(fm.get("group")), set()).add(str(fm.get("cc")))
        for g, gm in m.get("groups", {}).items():
            # a group's scheme: the congestion control of its flows (legends name it)
            scheme = {"_scheme": next(iter(ccs[g]))} if len(ccs.get(g, ())) == 1 else {}
            out.append({**flatten(gm), **base, "_level": "group", "group": g, **scheme})
        for fm in m.get("flows", []):
            mine: dict[str, Any] = (
                {"tcp_qdelay_ms": qd[fm["label"]]} if fm.get("label") in qd else {}
            )
            out.append(
                {**flatten(fm), **mine, **base, "_level": "flow", "group": fm["group"],
                 "flow": fm["label"]}
            )  # fmt: skip
    return out


def scheme_axis(keys: Iterable[str]) -> str | None:
    """The sweep axis among ``keys`` that names the schemes (:data:`SCHEME_AXES`)."""
    return next((a for a in SCHEME_AXES if a in keys), None)


def _condition(doc: PointRecord) -> tuple[tuple[str, str], ...]:
    """A point's sweep values but its scheme and run: the path it measured."""
    return tuple(sorted((k, str(v)) for k, v in doc["values"].items() if k not in SCHEME_AXES))


def path_rtts(docs: list[PointRecord]) -> dict[tuple[Any, ...], float]:
    """The base RTT (us) of each path: per condition (:func:`_condition`) and
    flow endpoints, the smallest RTT any flow of any scheme and run saw there
    (iperf3's ``min_rtt_us``).  A flow's own minimum will not do: a scheme
    that fills the queue in slow start never sees the empty path again."""
    out: dict[tuple[Any, ...], float] = {}
    for doc in (d for d in docs if d.get("status") == "ok"):
        cond = _condition(doc)
        for f in doc.get("flows", []):
            low = f.get("min_rtt_us")
            if isinstance(low, int | float) and low > 0:
                key = (cond, f.get("src"), f.get("dst"))
                out[key] = min(out.get(key, math.inf), float(low))
    return out


def flow_qdelays(doc: PointRecord, base_rtt: dict[tuple[Any, ...], float]) -> dict[str, float]:
    """Per flow label, the queueing delay its TCP sender saw (ms): its mean
    smoothed RTT (iperf3's TCP_INFO samples) above its path's base RTT
    (:func:`path_rtts`); flows without RTTs have none."""
    out, cond = {}, _condition(doc)
    for f in doc.get("flows", []):
        mean = f.get("mean_rtt_us")
        low = base_rtt.get((cond, f.get("src"), f.get("dst")))
        if isinstance(mean, int | float) and low is not None and f.get("label"):
            out[str(f["label"])] = max(0.0, (mean - low) / 1e3)
    return out


def scheme_of(doc: PointRecord, qdelays: dict[str, float]) -> dict[str, Any]:
    """``scheme.goodput_bps`` and ``scheme.tcp_qdelay_ms`` of the flows of the
    point's scheme (the value of its scheme axis, :data:`SCHEME_AXES`): the
    flow labelled so (a variant's), else the flows of that congestion
    control, else every flow when all share one; their
    goodput summed, their queueing delays (:func:`flow_qdelays`) averaged.
    Nothing when the point names no scheme or its flows mix others."""
    axis = scheme_axis(doc["values"])
    flows = doc["metrics"].get("flows", [])
    ccs = {str(f.get("cc")) for f in flows}
    want = str(doc["values"].get(axis)) if axis else None
    if axis is None or not flows:
        return {}
    # a variant's flow by its label (soho's "jersey-ack" is jersey), else by its cc
    mine = [f for f in flows if str(f.get("label")) == want] or [
        f for f in flows if str(f.get("cc")) == want
    ]
    if not mine and len(ccs) == 1:
        mine = flows
    if not mine:
        return {}
    out: dict[str, Any] = {}
    gps = [f["goodput_bps"] for f in mine if isinstance(f.get("goodput_bps"), int | float)]
    if len(gps) == len(mine):
        out["scheme.goodput_bps"] = sum(gps)
    qd = [qdelays[f["label"]] for f in mine if f.get("label") in qdelays]
    if qd:
        out["scheme.tcp_qdelay_ms"] = statistics.fmean(qd)
    return out


def value(rec: dict[str, Any], name: str) -> float | None:
    """A metric of a record by name (unit suffixes and single-wildcard lookup)."""
    conv = {"_mbps": ("_bps", 1e-6), "_kbps": ("_bps", 1e-3)}
    for suffix, (base, scale) in conv.items():
        if name.endswith(suffix):
            v = value(rec, name[: -len(suffix)] + base)
            return None if v is None else v * scale
    v = rec.get(name)
    if v is None and "." in name:
        head, _, tail = name.partition(".")
        cands = [k for k in rec if k.startswith(head + ".") and k.endswith("." + tail)]
        if len(cands) == 1:
            v = rec[cands[0]]
    if isinstance(v, bool) or not isinstance(v, int | float):
        return None
    return None if math.isnan(v) else float(v)


def level_of(*keys: str | None) -> str:
    if "flow" in keys:
        return "flow"
    if "group" in keys:
        return "group"
    return "point"


def select(recs: list[dict[str, Any]], sel: dict[str, Any] | None) -> list[dict[str, Any]]:
    if not sel:
        return recs
    return [r for r in recs if all(_eq(r.get(k), v) for k, v in sel.items())]


def _eq(a: Any, b: Any) -> bool:
    if isinstance(a, int | float) and isinstance(b, int | float):
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-15)
    return str(a) == str(b)


def ordered(values: Iterable[Any], axis_order: list[Any] | None = None) -> list[Any]:
    vals = list(dict.fromkeys(values))
    if axis_order:
        known = [v for v in axis_order if any(_eq(v, x) for x in vals)]
        return known + [v for v in vals if not any(_eq(v, k) for k in known)]
    return vals


def fmt_axis(v: Any, axis: str | None) -> str:
    if axis in ("per", "ge_mean", "loss", "bad_per") and isinstance(v, int | float):
        return f"{v * 100:g}%"
    if isinstance(v, float):
        return f"{v:g}"
    return str(v)


# -- tables -----------------------------------------------------------------------


def cell_values(recs: list[dict[str, Any]], name: str) -> list[float]:
    return [v for r in recs if (v := value(r, name)) is not None]


def decisions_metric(name: str) -> str | None:
    """The loss-decision count that goes with an accuracy metric
    (``accuracy`` -> ``decisions``, ``x.accuracy`` -> ``x.decisions``); None
    for any other metric."""
    head, _, last = name.rpartition(".")
    if last != "accuracy":
        return None
    return f"{head}.decisions" if head else "decisions"


def decisions_behind(recs: list[dict[str, Any]], name: str) -> int | None:
    """The loss decisions of the records that have accuracy ``name``, summed
    over them (None for a metric that is no accuracy)."""
    dec = decisions_metric(name)
    if dec is None:
        return None
    return int(sum(cell_values([r for r in recs if value(r, name) is not None], dec)))


def cell_text(ms: dict[str, float], fmt: str) -> str:
    """``median [lo, hi]`` (95 % CI), or ``median (n=k)`` below 3 runs."""
    med = format(ms["median"], fmt)
    if math.isnan(ms["ci_lo"]):
        return f"{med} (n={ms['runs']:.0f})"
    return f"{med} [{format(ms['ci_lo'], fmt)}, {format(ms['ci_hi'], fmt)}]"


def error_bar(vals: list[float]) -> tuple[float, float, float]:
    """The median of a figure's point and its CI as distances below and above
    it (0, 0 below 3 runs: no bar)."""
    med = statistics.median(vals)
    ci = metrics.median_ci(vals)
    if ci is None:
        return med, 0.0, 0.0
    return med, med - ci[0], ci[1] - med


def table(
    recs: list[dict[str, Any]],
    spec: dict[str, Any],
    axes: dict[str, list[Any]],
    unavailable: dict[tuple[tuple[str, str], ...], list[str]],
) -> tuple[str, dict[str, Any]]:
    """A Markdown table (median over runs) and its data."""
    rows_k, cols_k = spec["rows"], spec.get("cols")
    values = [v.strip() for v in spec["value"].split(",")]
    lvl = level_of(rows_k, cols_k)
    recs = [r for r in select(recs, spec.get("select")) if r["_level"] == lvl]
    fmt = spec.get("fmt", ".3g")
    row_vals = ordered((r.get(rows_k) for r in recs), axes.get(rows_k))
    row_vals += [v for v in axes.get(rows_k, []) if not any(_eq(v, x) for x in row_vals)]
    if cols_k:
        col_vals = ordered((r.get(cols_k) for r in recs), axes.get(cols_k))
        headers = [fmt_axis(c, cols_k) for c in col_vals]
    else:
        col_vals = values
        headers = values
    lines = [
        f"| {rows_k} | " + " | ".join(headers) + " |",
        "|---|" + "---:|" * len(headers),
    ]
    data: dict[str, Any] = {}
    for rv in row_vals:
        cells = []
        for cv in col_vals:
            name = values[0] if cols_k else cv
            sub = [
                r for r in recs if _eq(r.get(rows_k), rv) and (not cols_k or _eq(r.get(cols_k), cv))
            ]
            xs = cell_values(sub, name)
            key = f"{rv}|{cv}"
            if not xs:
                miss = _unavailable_for(
                    unavailable, {rows_k: rv, **({cols_k: cv} if cols_k else {})}
                )
                cells.append(f"n/a ({', '.join(miss)})" if miss else "")
                continue
            ms = metrics.median_spread(xs)
            data[key] = ms
            if spec.get("spread"):
                dev = ms["max_rel_dev"]
                cells.append(f"{dev * 100:.1f}" if not math.isnan(dev) else "")
            elif (n_dec := decisions_behind(sub, name)) is not None:
                data[key] = {**ms, "decisions": n_dec}
                cells.append(f"{cell_text(ms, fmt)}; {n_dec} decisions")
            else:
                cells.append(cell_text(ms, fmt))
        lines.append(f"| {fmt_axis(rv, rows_k)} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n", data


def _unavailable_for(
    unavailable: dict[tuple[tuple[str, str], ...], list[str]], where: dict[str, Any]
) -> list[str]:
    out: list[str] = []
    for key, missing in unavailable.items():
        vals = dict(key)
        if all(k not in vals or vals[k] == str(v) for k, v in where.items()):
            out += [m for m in missing if m not in out]
    return out


# -- figures ----------------------------------------------------------------------


def _plt() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update(
        {
            "font.size": 9,
            "axes.grid": True,
            "grid.alpha": 0.3,
            "legend.fontsize": 7,
            "svg.hashsalt": "jersey",
        }
    )
    return plt


# past matplotlib's ten colours: strong ones that differ from them (the paper
# scenarios' 14 schemes would repeat a colour otherwise; black is the oracle's)
EXTRA_COLORS = ("navy", "darkred", "darkgreen", "magenta", "saddlebrown", "teal", "gold",
                "slategray", "lime", "indigo")  # fmt: skip


def series_color(i: int) -> str:
    """The colour of the i-th series of a figure."""
    return f"C{i}" if i < 10 else EXTRA_COLORS[(i - 10) % len(EXTRA_COLORS)]


def _style(i: int, name: str) -> dict[str, Any]:
    if name == ORACLE:
        return {"marker": "*", "linewidth": 2.0, "linestyle": ":", "color": "black",
                "markersize": 7}  # fmt: skip
    ours = name.split("#")[0].split("-")[0] in OURS
    return {
        "color": series_color(i),
        "marker": MARKERS[i % len(MARKERS)],
        "linewidth": 2.0 if ours else 1.2,
        "linestyle": "-" if ours else "--" if i % 2 else "-.",
        "markersize": 5,
    }


def _save(fig: Any, sdir: Path, name: str) -> list[str]:
    files = []
    for ext in ("png", "svg"):
        fig.savefig(
            sdir / f"{name}.{ext}", dpi=120, metadata={"Date": None} if ext == "svg" else None
        )
        files.append(f"{name}.{ext}")
    _plt().close(fig)
    return files


def _facets(
    recs: list[dict[str, Any]], spec: dict[str, Any], axes: dict[str, list[Any]]
) -> list[Any]:
    facet = spec.get("facet")
    return ordered((r.get(facet) for r in recs), axes.get(facet)) if facet else [None]


# no figure wider than this: facets wrap into rows
MAX_FIG_WIDTH_IN = 20.0
# x tick labels (9 pt): the width of a character, the horizontal room a label
# rotated by 45 degrees needs, and the share of a panel's width its axis takes
CHAR_IN = 0.075
ROTATED_IN = 0.22
AXIS_SHARE = 0.8


def facet_grid(n: int, width_in: float, max_width_in: float = MAX_FIG_WIDTH_IN) -> tuple[int, int]:
    """Rows and columns for ``n`` panels ``width_in`` wide each, no row wider
    than ``max_width_in``."""
    cols = max(1, min(n, int(max_width_in // width_in)))
    return -(-n // cols), cols


def subplots(n: int, width_in: float, height_in: float) -> tuple[Any, list[Any]]:
    """A figure of ``n`` panels sharing their y axis, wrapped into rows
    (:func:`facet_grid`); the panels' axes in reading order."""
    rows, cols = facet_grid(n, width_in)
    fig, axs = _plt().subplots(
        rows, cols, figsize=(width_in * cols, height_in * rows), squeeze=False, sharey=True
    )
    flat = list(axs.flat)
    for ax in flat[n:]:
        ax.set_visible(False)
    return fig, flat[:n]


def tick_plan(labels: list[str], axis_in: float, rotate: bool = False) -> tuple[list[str], int]:
    """The x tick labels to show on an axis ``axis_in`` inches long, and their
    rotation, so that they do not overlap: level while every label fits its
    share of the axis (and ``rotate`` is not asked, e.g. for unevenly spaced
    ticks of a log scale); otherwise rotated by 45 degrees, and only every
    k-th label shown (the others blank) when even rotated ones are too many."""
    if not labels:
        return [], 0
    room = axis_in / len(labels)
    if not rotate and max(len(t) for t in labels) * CHAR_IN + 0.1 <= room:
        return list(labels), 0
    step = max(1, math.ceil(ROTATED_IN / room))
    return [t if i % step == 0 else "" for i, t in enumerate(labels)], 45


def spaced_labels(labels: list[str], at_in: list[float], min_in: float) -> list[str]:
    """Blank every label closer than ``min_in`` inches (``at_in``: where each
    tick is) to the last one kept, from the left: unevenly spaced ticks (a
    log scale's 1e-4 and 1.2e-4) do not print over each other."""
    out, last = [], -math.inf
    for text, x in zip(labels, at_in, strict=True):
        keep = bool(text) and x - last >= min_in
        out.append(text if keep else "")
        last = x if keep else last
    return out


def _xticks(ax: Any, pos: list[Any], labels: list[str], width_in: float, rotate: bool) -> None:
    shown, rot = tick_plan(labels, width_in * AXIS_SHARE, rotate)
    ax.set_xticks(pos)
    if rot and len(pos) > 1:  # where the ticks fall, in inches (the layout may shrink it)
        at = ax.transData.transform([(p, 0) for p in pos])[:, 0] / ax.figure.dpi
        shown = spaced_labels(shown, [float(x) for x in at], ROTATED_IN / AXIS_SHARE)
    ax.set_xticklabels(shown, rotation=rot, ha="right" if rot else "center",
                       rotation_mode="anchor" if rot else "default")  # fmt: skip


def series_label(
    s_k: str | None, sv: Any, srecs: list[dict[str, Any]], spec: dict[str, Any]
) -> str:
    """A legend entry: a scheme's name.  A flow group (``series = "group"``)
    is named by its flows' congestion control (``ours`` is a group's label,
    not a scheme); a group whose scheme changes along the x axis by the x
    axis' label."""
    if sv is None:
        return str(spec["y"])
    if isinstance(sv, int | float):
        return f"{s_k} {fmt_axis(sv, s_k)}"
    if s_k == "group":
        schemes = {r.get("_scheme") for r in srecs}
        if len(schemes) == 1 and None not in schemes:
            return str(schemes.pop())
        if len(schemes) > 1:
            return str(spec.get("xlabel", spec.get("x", sv)))
    return str(sv)


def _unit(y: str) -> float:
    """What a ``_bps`` value is multiplied by for metric ``y``'s unit."""
    return 1e-6 if y.endswith("_mbps") else 1e-3 if y.endswith("_kbps") else 1.0


def fair_share(recs: list[dict[str, Any]], points: set[str]) -> float | None:
    """The fair share of the bottleneck, capacity / number of flows (bit/s),
    median over the points ``points`` (ids) of ``recs`` (every level)."""
    nflows = Counter(r["_point"] for r in recs if r["_level"] == "flow" and r["_point"] in points)
    xs = [
        cap / nflows[r["_point"]]
        for r in recs
        if r["_level"] == "point" and nflows.get(r["_point"])
        and (cap := value(r, "capacity_bps"))
    ]  # fmt: skip
    return statistics.median(xs) if xs else None


def _per_flow(y: str, lvl: str) -> bool:
    """Is ``y`` a goodput per flow (a fair-share line belongs in its figure)?"""
    return (lvl == "flow" and y.startswith(("goodput", "throughput"))) or y.startswith(
        ("goodput_mean", "throughput_mean")
    )


FIG_W, FIG_H = 6.4, 4.2


def fig_lines_or_bars(
    recs: list[dict[str, Any]], spec: dict[str, Any], axes: dict[str, list[Any]], sdir: Path
) -> list[str]:
    x_k, s_k, y = spec["x"], spec.get("series"), spec["y"]
    lvl = level_of(x_k, s_k, spec.get("facet"))
    chosen = select(recs, spec.get("select"))
    recs = [r for r in chosen if r["_level"] == lvl]
    if not recs:
        return []
    facets = _facets(recs, spec, axes)
    fig, axs = subplots(len(facets), FIG_W, FIG_H)
    dec_name = decisions_metric(y)
    for ax, fv in zip(axs, facets, strict=True):
        frecs = [r for r in recs if fv is None or _eq(r.get(spec["facet"]), fv)]
        xs = ordered((r.get(x_k) for r in frecs), axes.get(x_k))
        series = ordered((r.get(s_k) for r in frecs), axes.get(s_k)) if s_k else [None]
        numeric = spec["kind"] == "lines" and all(isinstance(x, int | float) for x in xs)
        if numeric:
            xs = sorted(xs)
        width = 0.8 / max(1, len(series))
        used: set[str] = set()
        for i, sv in enumerate(series):
            srecs = [r for r in frecs if s_k is None or _eq(r.get(s_k), sv)]
            pts = []
            counts = []
            for j, xv in enumerate(xs):
                sub = [r for r in srecs if _eq(r.get(x_k), xv)]
                vals = cell_values(sub, y)
                if vals:
                    pts.append((xv if numeric else j, *error_bar(vals)))
                    counts.append(decisions_behind(sub, y))
            if not pts:
                continue
            label = series_label(s_k, sv, srecs, spec)
            if label in used:
                label = f"{label} ({sv})"
            used.add(label)
            px, py, lo, hi = zip(*pts, strict=True)
            if spec["kind"] == "lines":
                st = _style(i, label)
                bars = ax.errorbar(px, py, yerr=[lo, hi], label=label, capsize=2, **st)
                color = bars.lines[0].get_color()
            else:
                off = [p - 0.4 + width * (i + 0.5) for p in px]
                patches = ax.bar(off, py, width=width, yerr=[lo, hi], label=label, capsize=2)
                px, color = tuple(off), patches.patches[0].get_facecolor()
            if dec_name:  # an accuracy: the loss decisions it comes from, above its bar
                for xp, yp, up, n in zip(px, py, hi, counts, strict=True):
                    ax.annotate(f"{n}", (xp, yp + up), textcoords="offset points",
                                xytext=(0, 3), ha="center", fontsize=6, color=color)  # fmt: skip
        if spec.get("ceiling") and _per_flow(y, lvl):
            _fair_share_line(ax, chosen, spec, fv, xs, numeric)
        elif spec.get("ceiling"):
            cx, cy = [], []
            for xv in xs:
                sub = [r for r in frecs if _eq(r.get(x_k), xv) and r["_level"] == "point"]
                sub = sub or [r for r in recs if _eq(r.get(x_k), xv)]
                vals = cell_values(
                    sub, "ceiling" + y[y.index("_") :] if "_" in y else "ceiling_bps"
                )
                if vals:
                    cx.append(xv if numeric else xs.index(xv))
                    cy.append(statistics.median(vals))
            if cx:
                ax.plot(cx, cy, "k:", linewidth=1.5, label="ceiling C(1-PER)·payload/wire")
        labels = [fmt_axis(x, x_k) for x in xs]
        if numeric:
            scale = spec.get("xscale", "linear")
            if scale == "symlog":
                pos = [x for x in xs if x > 0]
                ax.set_xscale("symlog", linthresh=min(pos) if pos else 1e-5)
            elif scale != "linear":
                ax.set_xscale(scale)
            _xticks(ax, xs, labels, FIG_W, rotate=scale != "linear")
        else:
            _xticks(ax, list(range(len(xs))), labels, FIG_W, rotate=False)
        if spec.get("yscale"):
            ax.set_yscale(spec["yscale"])
        ax.set_xlabel(spec.get("xlabel", x_k))
        ax.set_ylabel(spec.get("ylabel", y))
        if "ymin" in spec or "ymax" in spec:
            ax.set_ylim(spec.get("ymin"), spec.get("ymax"))
        elif not spec.get("yscale"):
            ax.set_ylim(bottom=0)
        title = spec.get("title", "")
        if fv is not None:
            title = f"{title}\n{spec['facet']} = {fmt_axis(fv, spec['facet'])}"
        if dec_name:
            title += "\n(numbers: loss decisions behind each accuracy)"
        ax.set_title(title, fontsize=9)
        ax.legend(ncol=2 if len(series) > 6 else 1)
    fig.tight_layout()
    return _save(fig, sdir, spec.get("name", spec["y"]))


def _fair_share_line(
    ax: Any, chosen: list[dict[str, Any]], spec: dict[str, Any], fv: Any, xs: list[Any],
    numeric: bool,
) -> None:  # fmt: skip
    """The dashed fair share C / flows over each x of a per-flow goodput panel."""
    x_k, facet, scale = spec["x"], spec.get("facet"), _unit(spec["y"])
    cx, cy = [], []
    for j, xv in enumerate(xs):
        ids = {
            r["_point"]
            for r in chosen
            if r["_level"] == "point" and _eq(r.get(x_k), xv)
            and (fv is None or _eq(r.get(facet or ""), fv))
        }  # fmt: skip
        fs = fair_share(chosen, ids)
        if fs is not None:
            cx.append(xv if numeric else j)
            cy.append(fs * scale)
    if not cx:
        return
    label = "fair share C / flows"
    if numeric:
        ax.plot(cx, cy, "k--", linewidth=1.2, label=label)
    else:
        ax.hlines(cy, [c - 0.45 for c in cx], [c + 0.45 for c in cx], colors="k",
                  linestyles="--", linewidth=1.2, label=label)  # fmt: skip


def fig_scatter(
    recs: list[dict[str, Any]], spec: dict[str, Any], axes: dict[str, list[Any]], sdir: Path
) -> list[str]:
    """Pantheon's throughput-delay plot: metric ``y`` against metric ``x``
    (e.g. goodput against p95 queueing delay), one small dot per run and, per
    ``series`` value (a scheme), its medians with their 95 % CIs as error bars
    (none below 3 runs); one panel per ``facet`` value."""
    plt = _plt()
    x, s_k, y = spec["x"], spec["series"], spec["y"]
    recs = [r for r in select(recs, spec.get("select")) if r["_level"] == "point"]
    if not recs:
        return []
    facets = _facets(recs, spec, axes)
    fig, axs = subplots(len(facets), 4.8, FIG_H)
    drawn = False
    for ax, fv in zip(axs, facets, strict=True):
        frecs = [r for r in recs if fv is None or _eq(r.get(spec["facet"]), fv)]
        for i, sv in enumerate(ordered((r.get(s_k) for r in frecs), axes.get(s_k))):
            pairs = [
                (vx, vy)
                for r in frecs
                if _eq(r.get(s_k), sv)
                and (vx := value(r, x)) is not None
                and (vy := value(r, y)) is not None
            ]
            if not pairs:
                continue
            drawn = True
            xs, ys = [p[0] for p in pairs], [p[1] for p in pairs]
            marker = MARKERS[i % len(MARKERS)]
            color = "black" if sv == ORACLE else series_color(i)
            ax.scatter(xs, ys, s=10, alpha=0.4, marker=marker, color=color)
            mx, xlo, xhi = error_bar(xs)
            my, ylo, yhi = error_bar(ys)
            ax.errorbar(
                [mx], [my], xerr=[[xlo], [xhi]], yerr=[[ylo], [yhi]], marker=marker,
                color=color, markersize=7, capsize=2, label=str(sv),
            )  # fmt: skip
        ax.set_xlabel(spec.get("xlabel", x))
        ax.set_ylabel(spec.get("ylabel", y))
        ax.set_xlim(left=0)
        ax.set_ylim(bottom=0)
        title = spec.get("title", "")
        if fv is not None:  # a combined facet ("_cond") names its axes itself
            name = spec["facet"]
            title += "\n" + (str(fv) if name.startswith("_") else f"{name} = {fmt_axis(fv, name)}")
        ax.set_title(title, fontsize=9)
        ax.legend()
    if not drawn:
        plt.close(fig)
        return []
    fig.tight_layout()
    return _save(fig, sdir, spec.get("name", f"{y}_vs_{x}"))


def throughput_delay(
    recs: list[dict[str, Any]], axes: dict[str, list[Any]], figures: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], dict[str, Any], dict[str, list[Any]]] | None:
    """Every scenario's throughput-delay plot (Pantheon's), for one without
    a scatter figure of its own: the goodput of a point's scheme's flows
    against the queueing delay those TCP senders saw (``scheme.*``, from
    :func:`scheme_of`), one dot per run, medians with 95 % CIs per scheme
    (the scheme axis), one panel per combination of the other sweep values
    (those with more than one).  Returns the records to draw (with that
    combination as ``_cond``), the figure's spec and its axes; None without
    a scheme axis or RTTs."""
    axis = scheme_axis(axes)
    if axis is None or any(f.get("kind") == "scatter" for f in figures):
        return None
    pts = [
        r for r in recs if r["_level"] == "point" and value(r, "scheme.tcp_qdelay_ms") is not None
    ]
    if not pts:
        return None
    others = [a for a in axes if a != axis and len(axes[a]) > 1]

    def cond(vals: Iterable[Any]) -> str:
        return ", ".join(f"{a} = {fmt_axis(v, a)}" for a, v in zip(others, vals, strict=True))

    spec: dict[str, Any] = {
        "kind": "scatter", "x": "scheme.tcp_qdelay_ms", "y": "scheme.goodput_mbps",
        "series": axis, "name": "throughput_delay", "title": "Goodput vs TCP's queueing delay",
        "xlabel": "TCP's RTT above the path's minimum (ms, mean of the run)",
        "ylabel": "goodput of the scheme's flows (Mb/s)",
    }  # fmt: skip
    if others:
        spec["facet"] = "_cond"
    order = [cond(vals) for vals in itertools.product(*(axes[a] for a in others))]
    drawn = [{**r, "_cond": cond(r.get(a) for a in others)} for r in pts]
    return drawn, spec, {**axes, "_cond": order}


TS_SOURCES = {
    "throughput_mbps": ("flow", "intervals"),
    "cwnd": ("ss", "cwnd"),
    "srtt_ms": ("ss", "srtt_ms"),
    "are_mbps": ("ss", "bw_bps"),
    "queue_pkts": ("queue", "qlen"),
    "qdelay_ms": ("queue", "backlog"),
    "mark_prob": ("queue", "marked"),
    "prob": ("queue", "prob"),
    "rtt_ms": ("ping", "rtt"),
}


def series_of(doc: PointRecord, y: str) -> list[tuple[str, list[float], list[float]]]:
    """[(label, t, values)] of a time series metric of one point."""
    src, key = TS_SOURCES[y]
    out = []
    if src == "flow":
        for f in doc.get("flows", []):
            start = metrics.data_start(f)
            iv = f.get("intervals", [])
            out.append(
                (f.get("label") or f["cc"], [start + t for t, _ in iv], [b / 1e6 for _, b in iv])
            )
    elif src == "ss":
        by_dest = {f.get("dest"): f.get("label") or f["cc"] for f in doc.get("flows", [])}
        for peer, samples in doc.get("samples", {}).get("ss", {}).items():
            pts = [(s["t"], s[key]) for s in samples if key in s]
            scale = 1e-6 if key.endswith("_bps") else 1.0
            out.append((by_dest.get(peer, peer), [t for t, _ in pts], [v * scale for _, v in pts]))
    elif src == "queue":
        for name, samples in doc.get("samples", {}).get("queues", {}).items():
            if y == "mark_prob":
                mp = metrics.mark_probability(samples)
                out.append((name, [t for t, _ in mp], [p for _, p in mp]))
            elif y == "qdelay_ms":
                rate, _ = metrics.link_config(doc, name)
                out.append(
                    (
                        name,
                        [s["t"] for s in samples],
                        [s.get(key, 0) * 8 / rate * 1e3 for s in samples],
                    )
                )
            else:
                pts = [(s["t"], s[key]) for s in samples if key in s]
                out.append((name, [t for t, _ in pts], [float(v) for _, v in pts]))
    elif src == "ping":
        for name, p in doc.get("samples", {}).get("ping", {}).items():
            out.append((name, [t for t, _ in p.get("rtt", [])], [r for _, r in p.get("rtt", [])]))
    return out


def timeseries_points(docs: list[PointRecord], spec: dict[str, Any]) -> list[PointRecord]:
    """The ok points a time-series figure selects (run 0 unless its
    ``select`` names another), full JSON and compact records alike."""
    sel = {"run": 0, **spec.get("select", {})}
    return [
        d
        for d in docs
        if d.get("status") == "ok"
        and all(_eq({**d["values"], "run": d["run"]}.get(k), v) for k, v in sel.items())
    ]


def fig_timeseries(
    docs: list[PointRecord], spec: dict[str, Any], axes: dict[str, list[Any]], sdir: Path
) -> list[str]:
    """A time-series figure of the points it selects whose full JSON is here
    (a compact record has no time series)."""
    plt = _plt()
    pts = [d for d in timeseries_points(docs, spec) if not compact.is_compact(d)]
    if not pts:
        return []
    s_k: str = spec.get("series", "flow")
    f_k: str = spec.get("facet") or ""
    facets = ordered((d["values"].get(f_k) for d in pts), axes.get(f_k)) if f_k else [None]
    fig, axs = plt.subplots(
        len(facets),
        1,
        figsize=(7.5, 2.6 * len(facets) + 0.8),
        squeeze=False,
        sharex=True,
        sharey=True,
    )
    for ax, fv in zip(axs[:, 0], facets, strict=True):
        fpts = [d for d in pts if fv is None or _eq(d["values"].get(f_k), fv)]
        if s_k not in ("flow", "group"):
            order = axes.get(s_k, [])
            fpts.sort(
                key=lambda d: next(
                    (i for i, v in enumerate(order) if _eq(v, d["values"].get(s_k))), 99
                )
            )
        i = 0
        for d in fpts:
            for label, t, v in series_of(d, spec["y"]):
                name = label if s_k in ("flow", "group") else f"{d['values'].get(s_k)}"
                if s_k not in ("flow", "group") and len(series_of(d, spec["y"])) > 1:
                    name += f" {label}"
                ax.plot(
                    t,
                    v,
                    label=name,
                    linewidth=1.0,
                    marker=MARKERS[i % len(MARKERS)],
                    markersize=2,
                    markevery=max(1, len(t) // 12),
                )
                i += 1
        ax.set_ylabel(spec.get("ylabel", spec["y"]))
        if "ymin" in spec or "ymax" in spec:
            ax.set_ylim(spec.get("ymin"), spec.get("ymax"))
        elif spec["y"] not in ("rtt_ms", "srtt_ms"):
            ax.set_ylim(bottom=0)
        title = spec.get("title", "")
        if fv is not None:
            title = (
                f"{title} -- {f_k} = {fmt_axis(fv, f_k)}"
                if title
                else f"{f_k} = {fmt_axis(fv, f_k)}"
            )
        ax.set_title(title, fontsize=9)
        if i:
            ax.legend(ncol=3 if i > 4 else 1)
    axs[-1, 0].set_xlabel(spec.get("xlabel", "time (s)"))
    fig.tight_layout()
    return _save(fig, sdir, spec.get("name", spec["y"]))


# -- scenario and report ------------------------------------------------------------


def sweep_axes(sc: scenario.Scenario) -> dict[str, list[Any]]:
    """Every value of each sweep axis that a scenario's file names (its
    ``[sweep]``, then its profiles'), in the order they first appear there:
    the order of a page's sweep line, tables and figures, whatever the last
    invocation's ``--set`` swept."""
    out: dict[str, list[Any]] = {}
    for a, vs in scenario.declared_sweep(sc.raw).items():
        for v in map(scenario.display, vs):
            if not any(_eq(v, x) for x in out.setdefault(a, [])):
                out[a].append(v)
    return out


def _sort_key(v: Any) -> tuple[int, float, str]:
    """Numbers by value, then anything else by its text."""
    if isinstance(v, int | float) and not isinstance(v, bool):
        return (0, float(v), "")
    return (1, 0.0, str(v))


def point_axes(docs: list[PointRecord], axes: dict[str, list[Any]]) -> dict[str, list[Any]]:
    """The sweep values the points hold, per axis, in the order of @axes
    (:func:`sweep_axes`) and, after them, values and axes that @axes lacks
    sorted: a scenario run in several ``--set`` subsets has the union of
    their sweeps, not only the last one's, in an order none of them changes."""
    out: dict[str, list[Any]] = {}
    for d in docs:
        for a, v in (d.get("values") or {}).items():
            if not any(_eq(v, x) for x in out.setdefault(a, [])):
                out[a].append(v)

    def rank(a: str, v: Any) -> tuple[int, int, tuple[int, float, str]]:
        known = axes.get(a, [])
        i = next((i for i, k in enumerate(known) if _eq(k, v)), None)
        return (0, i, _sort_key(v)) if i is not None else (1, 0, _sort_key(v))

    order = [a for a in axes if a in out] + sorted(a for a in out if a not in axes)
    return {a: sorted(out[a], key=lambda v: rank(a, v)) for a in order}


def _either(words: list[str]) -> str:
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"


def runs_text(docs: list[PointRecord], fallback: int) -> str:
    """How many runs the points of each combination of sweep values have
    (``5 runs``; several counts: ``runs: 10 (4 combinations of values), 5
    (12)``), counted from the points (@fallback without any)."""
    per = Counter(
        tuple((a, str(v)) for a, v in sorted((d.get("values") or {}).items())) for d in docs
    )
    n = Counter(per.values())
    if len(n) <= 1:
        k = next(iter(n), fallback)
        return f"{k} run{'s' if k != 1 else ''}"
    parts = [f"{k} ({c} combination{'s' if c != 1 else ''} of values)" if i == 0 else f"{k} ({c})"
             for i, (k, c) in enumerate(sorted(n.items(), reverse=True))]  # fmt: skip
    return "runs: " + ", ".join(parts)


def setup_line(docs: list[PointRecord], resolved: dict[str, Any], profile: str) -> str:
    """A scenario page's line of durations, runs, points at a time and
    profiles, from the points (the scenario file's values, or the last
    invocation's, where the points lack one)."""
    specs = [(d.get("spec") or {}).get("duration_s") for d in docs]
    durs = sorted({float(x) for x in specs if isinstance(x, int | float)})
    dur_text = _either([f"{x:g}" for x in durs]) if durs else str(resolved.get("duration_s"))
    profiles = sorted({str(d["profile"]) for d in docs if d.get("profile")}) or [profile]
    ok = [d for d in docs if d.get("status") == "ok"]
    runs = runs_text(docs, int(resolved.get("runs", 1)))
    sep = "; " if runs.startswith("runs:") else ", "
    return (
        f"- {dur_text} s per point{sep}{runs}{sep}{at_a_time(ok, int(resolved.get('parallel', 1)))}"
        f"; profile{'s' if len(profiles) > 1 else ''} {', '.join(profiles)}"
    )


def count_cell(c: dict[str, int]) -> str:
    """A table cell "ok / unavailable / errors", and the points not measured
    yet when there are any."""
    cell = f"{c.get('ok', 0)} / {c.get('unavailable', 0)} / {c.get('error', 0)}"
    return cell + (f" ({c['not yet']} not yet)" if c.get("not yet") else "")


def points_line(docs: list[PointRecord]) -> str:
    """A scenario page's count of its points, in all and per status."""
    n = Counter(str(d.get("status")) for d in docs)
    names = {"ok": "ok", "unavailable": "unavailable", "error": "errors",
             "mixed": "not reported (mixed)"}  # fmt: skip
    parts = [f"{n[s]} {names[s]}" for s in ("ok", "unavailable", "error")]
    parts += [f"{c} {names.get(s, s)}" for s, c in n.items() if s not in names or s == "mixed"]
    return f"- points: {len(docs)} ({', '.join(parts)})"


def module_params_line(ok: list[PointRecord], axes: dict[str, list[Any]]) -> str:
    """A scenario page's line of the module parameters its points ran with:
    those all points share, then each parameter a sweep value sets (a
    variant's ``estimator``), with the values of the sweep axes where each
    setting, and only it, was used."""
    params = [d.get("environment", {}).get("module_params", {}) for d in ok]
    shown = {a: [fmt_axis(d.get("values", {}).get(a), a) for d in ok] for a in axes}
    common: dict[str, dict[str, Any]] = {m: {} for p in params for m in p}
    varying: list[str] = []
    for mod in common:
        for key in sorted({k for p in params for k in p.get(mod, {})}):
            vals = [str(p.get(mod, {}).get(key, "-")) for p in params]
            if len(set(vals)) == 1:
                common[mod][key] = params[0][mod][key]
                continue
            parts = []
            for v in dict.fromkeys(vals):
                where = []
                for a, col in shown.items():
                    mine = {x for x, w in zip(col, vals, strict=True) if w == v}
                    if mine.isdisjoint(x for x, w in zip(col, vals, strict=True) if w != v):
                        where.append(f"{a} {', '.join(sorted(mine))}")
                place = f" ({'; '.join(where)})" if where else ""
                parts.append(f"{v} in {vals.count(v)} points{place}")
            varying.append(f"`{mod}.{key}` {', '.join(parts)}")
    line = f"- module parameters: `{json.dumps(common)}`"
    return line + ("; set per point: " + "; ".join(varying) if varying else "")


def point_wall_s(docs: list[PointRecord]) -> float | None:
    """The VM time of a scenario's points: the time during which at least one
    of them was running, the union of their intervals [started, started +
    wall_s] (so points that ran N at a time count once, however full their
    pool was, and the time between invocations and between a run's module
    groups does not count); a point without a start time adds its wall time
    over the number that ran at once.  None without timings."""
    spans: list[tuple[float, float]] = []
    alone = 0.0
    timed = False
    for d in docs:
        wall, start = d.get("wall_s"), d.get("started")
        if not isinstance(wall, int | float) or isinstance(wall, bool) or wall <= 0:
            continue
        timed = True
        if isinstance(start, int | float) and not isinstance(start, bool):
            spans.append((float(start), float(start) + float(wall)))
        else:
            alone += float(wall) / max(1, int(d.get("parallel") or 1))
    total, end = 0.0, -math.inf
    for a, b in sorted(spans):
        if b > end:
            total += b - max(a, end)
            end = b
    return total + alone if timed else None


def provenance(docs: list[PointRecord]) -> tuple[list[str], list[str]]:
    """The commits (12 hex digits, "+dirty" for a modified tree) and kernels
    that produced a scenario's ok points."""
    ok = [d for d in docs if d.get("status") == "ok"]
    commits = sorted(
        {
            d.get("meta", {}).get("commit", "?")[:12]
            + ("+dirty" if d.get("meta", {}).get("dirty") == "yes" else "")
            for d in ok
        }
    )
    kernels = sorted({d.get("versions", {}).get("kernel") or "?" for d in ok})
    return commits, kernels


# -- scorecard ------------------------------------------------------------------------

# the sweep axis that names a scenario's schemes (its first one found)
SCHEME_AXES = ("cc", "ours", "variant")
# The scorecard's bars (transperf's pass/fail marks): a column passes when
# the median over the scheme's runs is on the bar's side.
#   utilisation    goodput / bottleneck capacity (metric goodput_norm)
#   qdelay_p95_ms  95th percentile of the queueing delay, ms: ping's RTT above
#                  its smallest sample (rtt.qdelay_p95_ms)
#   jain           Jain's index of every flow's goodput (in the metrics
#                  window if the scenario has one), of the points with several flows
#   accuracy       loss-classification accuracy (decisions right / decisions)
SCORECARD_BARS: dict[str, tuple[str, float]] = {
    "utilisation": (">=", 0.8),
    "qdelay_p95_ms": ("<=", 100.0),
    "jain": (">=", 0.9),
    "accuracy": (">=", 0.7),
}
SCORECARD_COLUMNS = (
    ("utilisation", "utilisation", ".2f"),
    ("qdelay_p95_ms", "p95 queueing delay (ms)", ".1f"),
    ("tcp_qdelay_ms", "TCP's RTT above the path's minimum (ms)", ".1f"),
    ("jain", "Jain's index", ".3f"),
    ("harm", "harm to competitor", ".2f"),
    ("accuracy", "loss-classification accuracy", ".2f"),
)


def passes(column: str, median: float) -> bool:
    op, bar = SCORECARD_BARS[column]
    return median >= bar if op == ">=" else median <= bar


def harm_values(
    recs: list[dict[str, Any]], axis: str, axes: dict[str, list[Any]]
) -> dict[str, list[float]]:
    """Per scheme (value of ``axis``), the harm it does to its competitor in
    each run: 1 - the competitor's mean per-flow goodput next to it / the
    competitor's median per-flow goodput next to its own kind (the point whose
    scheme is the competitor's congestion control) under the same other
    sweep values.  The competitor is the second group of the scenario's
    ``share`` metric; schemes without a share metric or whose conditions have
    no such baseline get none.  Negative: the competitor gained."""
    pts = {r["_point"]: r for r in recs if r["_level"] == "point" and r.get("_competitor")}
    rival: dict[str, tuple[str, float]] = {}  # point -> competitor's scheme, per-flow goodput
    for r in recs:
        p = pts.get(r["_point"]) if r["_level"] == "group" else None
        if p is not None and r.get("group") == p["_competitor"]:
            v = value(r, "goodput_mean_bps")
            if v is not None:
                rival[r["_point"]] = (str(r.get("_scheme") or r["group"]), v)

    def cond(r: dict[str, Any]) -> tuple[tuple[str, str], ...]:
        return tuple((a, str(r.get(a))) for a in axes if a != axis)

    base: dict[tuple[Any, ...], list[float]] = {}
    for pid, (cc, v) in rival.items():
        if str(pts[pid].get(axis)) == cc:
            base.setdefault((cond(pts[pid]), cc), []).append(v)
    out: dict[str, list[float]] = {}
    for pid, (cc, v) in rival.items():
        ref = base.get((cond(pts[pid]), cc))
        if ref and statistics.median(ref) > 0:
            out.setdefault(str(pts[pid].get(axis)), []).append(1 - v / statistics.median(ref))
    return out


def scorecard(
    recs: list[dict[str, Any]], axes: dict[str, list[Any]]
) -> tuple[list[str], dict[str, dict[str, Any]]]:
    """A scenario's scorecard (transperf's): one row per scheme (its ``cc``,
    ``ours`` or ``variant`` axis), every point and run of the scheme pooled
    over the other sweep values; median [95 % CI] per column and its verdict
    against :data:`SCORECARD_BARS`; harm by :func:`harm_values` (no bar);
    accuracy with the loss decisions behind it.  "-": not measured here.
    Nothing for a scenario without a scheme axis."""
    axis = scheme_axis(axes)
    pts = [r for r in recs if r["_level"] == "point"]
    if axis is None or not pts:
        return [], {}
    flows = Counter(r["_point"] for r in recs if r["_level"] == "flow")
    jain_k = "window.jain" if cell_values(pts, "window.jain") else "jain"
    source = {"utilisation": "goodput_norm", "qdelay_p95_ms": "rtt.qdelay_p95_ms",
              "tcp_qdelay_ms": "scheme.tcp_qdelay_ms", "jain": jain_k,
              "accuracy": "accuracy"}  # fmt: skip
    harms = harm_values(recs, axis, axes)
    bars = ", ".join(f"{c} {op} {bar:g}" for c, (op, bar) in SCORECARD_BARS.items())
    md = [
        "## Scorecard",
        "",
        f"One row per scheme (`{axis}`), its points and runs pooled over the other sweep values: "
        f"median [95 % CI] and pass/FAIL against the bars ({bars}).  Utilisation: goodput / "
        "bottleneck capacity; p95 queueing delay: ping's RTT above its minimum (scenarios "
        "that ping beside their flows); TCP's RTT above the path's minimum: the mean smoothed RTT "
        "(iperf3) of the scheme's senders above the smallest any flow saw on that path, no "
        "bar; Jain's index "
        "of every flow's goodput (points with several flows only); harm: 1 - the competitor's "
        "per-flow goodput next to this scheme / next to its own kind under the same conditions "
        "(scenarios with a `share` metric, where that baseline ran; negative: the competitor "
        "gained); accuracy with the loss decisions it comes from.  -: not measured.",
        "",
        f"| {axis} | " + " | ".join(head for _, head, _ in SCORECARD_COLUMNS) + " |",
        "|---|" + "---:|" * len(SCORECARD_COLUMNS),
    ]
    data: dict[str, dict[str, Any]] = {}
    for scheme in ordered((r.get(axis) for r in pts), axes.get(axis)):
        mine = [r for r in pts if _eq(r.get(axis), scheme)]
        cells = []
        for col, _, fmt in SCORECARD_COLUMNS:
            if col == "harm":
                xs = harms.get(str(scheme), [])
            elif col == "jain":  # of the points with several flows (one flow: 1 by definition)
                xs = cell_values([r for r in mine if flows[r["_point"]] > 1], source[col])
            else:
                xs = cell_values(mine, source[col])
            if not xs:
                cells.append("-")
                continue
            ms: dict[str, Any] = dict(metrics.median_spread(xs))
            text = cell_text(ms, fmt)
            if col in SCORECARD_BARS:
                ms["pass"] = passes(col, ms["median"])
                text += " pass" if ms["pass"] else " FAIL"
            if col == "accuracy":
                ms["decisions"] = decisions_behind(mine, "accuracy")
                text += f"; {ms['decisions']} decisions"
            data.setdefault(str(scheme), {})[col] = ms
            cells.append(text)
        md.append(f"| {fmt_axis(scheme, axis)} | " + " | ".join(cells) + " |")
    md.append("")
    return md, data


def build_scenario(out: Path, name: str, mixed: bool = False) -> dict[str, Any] | None:
    """Tables, figures and the Markdown page of one scenario; None if it has no results.

    Points from more than one commit or kernel are not compared in one table:
    the page says so and shows none, unless ``mixed`` (then every table says it).
    """
    sdir = out / name
    docs = load_points(out, name)
    if not docs:
        return None
    commits, kernels = provenance(docs)
    is_mixed = len(commits) > 1 or len(kernels) > 1
    if is_mixed and not mixed:
        for d in docs:  # refused: nothing of them in tables, figures or checks
            if d.get("status") == "ok":
                d["status"] = "mixed"
    meta_f = sdir / "scenario.json"
    meta = json.loads(meta_f.read_text()) if meta_f.exists() else {}
    sc = scenario.load(name)
    resolved = meta.get("resolved") or sc.resolved()
    # the values the points hold, not only the last invocation's sweep
    axes = point_axes(docs, sweep_axes(sc))
    recs = records(docs)
    unavailable: dict[tuple[tuple[str, str], ...], list[str]] = {}
    for d in docs:
        if d.get("status") == "unavailable":
            key = tuple((k, str(v)) for k, v in d["values"].items())
            unavailable[key] = d.get("missing", [])
    rep = resolved.get("report", {})
    states = ("ok", "unavailable", "error", "mixed")
    counts = {s: sum(d.get("status") == s for d in docs) for s in states}
    # the last invocation's points that have no result yet (a sitting of
    # `run --budget`, or a run interrupted): the same command runs them
    have = {str(d.get("point")) for d in docs}
    expected = [str(p) for p in meta.get("points", [])]
    counts["not yet"] = sum(p not in have for p in expected)
    ok = [d for d in docs if d.get("status") == "ok"]
    vers = ok[0].get("versions", {}) if ok else {}
    md = [f"# {resolved.get('title', name)}", ""]
    if resolved.get("paper"):
        md += [f"Reproduces: {resolved['paper']}.  Scenario file: `scenarios/{name}.toml`.", ""]
    if resolved.get("description"):
        md += [" ".join(resolved["description"].split()), ""]
    topo = resolved.get("topology", {})
    md += [
        f"- topology `{topo.get('name')}`: "
        + ", ".join(f"{k}={_short(v)}" for k, v in topo.items() if k != "name"),
        "- sweep: "
        + "; ".join(f"{a} = {', '.join(fmt_axis(v, a) for v in vs)}" for a, vs in axes.items()),
        setup_line(docs, resolved, meta.get("profile", "full")),
        points_line(docs),
        *(
            [
                f"- **incomplete**: {counts['not yet']} of the last run's {len(expected)} "
                "points not measured yet (a `run --budget` sitting, or a run interrupted: the "
                "same command runs them); the tables, checks and scorecard here are of the "
                "points present"
            ]
            if counts["not yet"]
            else []
        ),
        f"- kernel {', '.join(kernels) or '?'}, "
        f"backend {ok[0].get('backend', '?') if ok else '?'}, "
        f"accel {ok[0].get('meta', {}).get('accel', '?') if ok else '?'}, "
        f"commit {', '.join(commits) or '?'}",
        module_params_line(ok, axes),
        f"- tools: {', '.join(f'{k} {v}' for k, v in vers.items())}",
    ]
    deaths = sorted((sdir / "guest-deaths").glob("*.log"))
    if deaths:
        md.append(
            f"- the guest died {len(deaths)} time(s) in these batches and was booted again "
            "(the points it was running were run again): kernel logs in `guest-deaths/`"
        )
    if is_mixed and not mixed:
        n_mixed = sum(d.get("status") == "mixed" for d in docs)
        md.append(
            f"- **not reported**: its {n_mixed} points come from {len(commits)} commit(s) "
            f"({', '.join(commits)}) and {len(kernels)} kernel(s) ({', '.join(kernels)}); run "
            "them again from one commit on one kernel (`--fresh`), or report with `--mixed`"
        )
    elif is_mixed:
        md.append(
            f"- **mixed** (reported with `--mixed`): commits {', '.join(commits)}; "
            f"kernels {', '.join(kernels)}"
        )
    missing = sorted({m for d in docs for m in d.get("missing", [])})
    if missing:
        md.append(
            f"- **unavailable on this kernel** (points recorded, not run): {', '.join(missing)}"
        )
    errs = [d for d in docs if d.get("status") == "error"]
    if errs:
        md.append(f"- errors: {errs[0]['point']}: {errs[0].get('error', 'flows failed')}")
    md.append("")
    if rep.get("notes"):
        md += [rep["notes"], ""]
    if is_mixed and not mixed:
        rep = {}  # no tables or figures from refused points
    summary: dict[str, Any] = {"scenario": name, "counts": counts, "tables": {}, "figures": []}
    card, summary["scorecard"] = scorecard(recs, axes)  # no records of refused points
    md += card
    for t in rep.get("tables", []):
        tname = t.get("name", t["value"])
        mixed_note = " (mixed commits or kernels)" if is_mixed else ""
        md += [f"## {t.get('title', tname)}{mixed_note}", ""]
        facet = t.get("facet")
        fvals = _facets(select(recs, t.get("select")), t, axes)
        if facet and not fvals:
            md += ["(no results for this table yet)", ""]
        for fv in fvals:
            sub = recs if fv is None else [r for r in recs if _eq(r.get(facet), fv)]
            text, data = table(sub, t, axes, unavailable)
            if fv is not None:
                md += [f"{facet} = **{fmt_axis(fv, facet)}**", ""]
                summary["tables"].setdefault(tname, {})[str(fv)] = data
            else:
                summary["tables"][tname] = data
            md += [text]
    for f in rep.get("figures", []):
        if not ok:
            break
        # points of a time-series figure here as compact records only
        selected = timeseries_points(docs, f) if f["kind"] == "timeseries" else []
        short = sum(compact.is_compact(d) for d in selected)
        if f["kind"] == "timeseries":
            files = fig_timeseries(docs, f, axes, sdir)
        elif f["kind"] == "scatter":
            files = fig_scatter(recs, f, axes, sdir)
        else:
            files = fig_lines_or_bars(recs, f, axes, sdir)
        if not files:
            if short:
                md += [compact_note(f, short, sdir), ""]
            continue  # nothing measured matches the figure's selection
        summary["figures"].append(files)
        md += [
            f"## {f.get('title', files[0])}",
            "",
            f"![{files[0]}]({files[0]}) ([svg]({files[1]}))",
            "",
        ]
        if short:
            md += [
                f"Drawn from {len(selected) - short} of its {len(selected)} points: the other "
                f"{short} are here as compact records only (`points/`, without time series).",
                "",
            ]
    td = throughput_delay(recs, axes, rep.get("figures", [])) if ok else None
    files = fig_scatter(td[0], td[1], td[2], sdir) if td else []
    if files:
        summary["figures"].append(files)
        md += [
            "## Goodput vs TCP's queueing delay",
            "",
            "Pantheon's plot: one dot per run, per scheme the medians with their 95 % CIs; "
            "goodput of the scheme's flows, and their queueing delay: the senders' mean "
            "smoothed RTT (iperf3) above the smallest RTT any flow of any scheme saw on the "
            "same path (a flow that fills the queue in slow start never sees the empty path).",
            "",
            f"![{files[0]}]({files[0]}) ([svg]({files[1]}))",
            "",
        ]
    (sdir / f"{name}.md").write_text("\n".join(md))
    (sdir / "summary.json").write_text(json.dumps(summary, indent=1, default=str) + "\n")
    summary["md"] = f"{name}/{name}.md"
    summary["title"] = resolved.get("title", name)
    summary["ccs"] = sorted({r.get("cc") for r in recs if r.get("cc")} | set(axes.get("cc", [])))
    summary["docs"] = docs
    summary["recs"] = recs
    summary["kernel"] = ", ".join(kernels) or None
    summary["commits"] = commits
    summary["meta"] = ok[0].get("meta", {}) if ok else {}
    summary["status"] = (
        json.loads((sdir / "status.json").read_text()) if (sdir / "status.json").exists() else {}
    )
    summary["wall_s"] = point_wall_s(docs)
    return summary


def compact_note(spec: dict[str, Any], n: int, sdir: Path) -> str:
    """The line of a scenario's page on a time-series figure that could not
    be drawn: its ``n`` points are here as compact records only."""
    name = spec.get("name", spec["y"])
    earlier = (
        f"; `{name}.png` is an earlier drawing, left as it was"
        if (sdir / f"{name}.png").exists()
        else ""
    )
    return (
        f"Figure `{name}` ({spec.get('title', spec['y'])}) not drawn: its {n} points are here "
        "as compact records only (`points/`, without time series; their full JSON in `runs/` "
        f"has them){earlier}."
    )


def _short(v: Any) -> str:
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}={_short(x)}" for k, x in v.items()) + "}"
    return str(v)


def acceptance(sums: dict[str, dict[str, Any]]) -> list[str]:
    md = ["## Acceptance checks", ""]
    gt = sums.get("groundtruth")
    if gt:
        md += [
            "**Ground truth** (scenario `groundtruth`): share of the drops on the data path"
            " that the"
            f" harness attributes to the right place; required >= {GT_THRESHOLD:.0%}.",
            "",
            "| case | runs | link share | queue share | drops counted | UDP lost (e2e) "
            "| counted/UDP | method | verdict |",
            "|---|---:|---:|---:|---:|---:|---:|---|---|",
        ]
        for case in ("link-udp", "link-tcp", "queue-udp", "queue-tcp"):
            rs = [r for r in gt["recs"] if r["_level"] == "point" and r.get("case") == case]
            if not rs:
                continue
            # per-packet ground truth (TCP flows' segments followed through
            # the path) when the points have it, the counters otherwise
            sec = "drops_pp" if cell_values(rs, "drops_pp.link_drops") else "drops"
            method = "per-packet" if sec == "drops_pp" else "counters (netem/qdisc)"
            share_k = f"{sec}.link_share" if case.startswith("link") else f"{sec}.queue_share"
            shares = cell_values(rs, share_k)
            worst = min(shares) if shares else math.nan
            counted = [
                (value(r, f"{sec}.link_drops") or 0) + (value(r, f"{sec}.queue_drops") or 0)
                for r in rs
            ]
            lost = cell_values(rs, "drops.udp_lost")
            ratio = cell_values(rs, "drops.counted_vs_udp")
            verdict = "pass" if shares and worst >= GT_THRESHOLD else "FAIL"
            link_med = statistics.median(cell_values(rs, f"{sec}.link_share") or [math.nan])
            queue_med = statistics.median(cell_values(rs, f"{sec}.queue_share") or [math.nan])
            ratio_med = statistics.median(ratio) if ratio else math.nan
            md.append(
                f"| {case} | {len(rs)} | {link_med:.4f} | {queue_med:.4f} "
                f"| {statistics.median(counted):.0f} | {statistics.median(lost) if lost else '-'} "
                f"| {ratio_med:.3f} | {method} | {verdict} (worst run {worst:.4f}) |"
            )
        md.append("")
    fig = sums.get("fig5_11")
    if fig:
        md += [
            "**Repeatability** (scenario `fig5_11`, PER 1%): goodput of every run within "
            f"±{REPEAT_TOLERANCE:.0%} of the median of its congestion control.",
            "",
            "| cc | runs | goodput median (Mb/s) | min | max | largest deviation | verdict |",
            "|---|---:|---:|---:|---:|---:|---|",
        ]
        for cc in ordered(r.get("cc") for r in fig["recs"]):
            rs = [
                r
                for r in fig["recs"]
                if r["_level"] == "point" and r.get("cc") == cc and _eq(r.get("per"), 0.01)
            ]
            xs = cell_values(rs, "goodput_mbps")
            if not xs:
                continue
            ms = metrics.median_spread(xs)
            verdict = (
                "pass"
                if len(xs) >= 3 and ms["max_rel_dev"] <= REPEAT_TOLERANCE
                else ("FAIL" if len(xs) >= 3 else "too few runs")
            )
            md.append(
                f"| {cc} | {len(xs)} | {ms['median']:.3f} | {ms['min']:.3f} | {ms['max']:.3f} "
                f"| {ms['max_rel_dev'] * 100:.1f}% | {verdict} |"
            )
        md.append("")
    for name in ORACLE_SCENARIOS:
        if name in sums:
            md += oracle_checks(name, sums[name]["recs"])
    bn = sums.get("bottlenecks")
    if bn:
        md += safety_checks(bn["recs"])
    return md


# the scenarios whose goodput-vs-loss figures carry the oracle's line
ORACLE_SCENARIOS = ("fig5_11", "newrenolp", "balde")


def oracle_checks(name: str, recs: list[dict[str, Any]]) -> list[str]:
    """Is the oracle (the upper bound) at least every scheme's goodput at every
    PER?  A scheme counts as above it only when its CI lies above the
    oracle's (their medians alone may swap within the noise)."""
    pts = [r for r in recs if r["_level"] == "point"]
    if not any(r.get("cc") == ORACLE for r in pts):
        return []
    md = [
        f"**Oracle** (scenario `{name}`): goodput of the upper bound against the best "
        "other scheme at each PER (Mb/s, median [95 % CI]).",
        "",
        "| PER | oracle | best other | its goodput | verdict |",
        "|---:|---:|---|---:|---|",
    ]
    above: list[tuple[Any, str]] = []
    for per in sorted({r["per"] for r in pts if isinstance(r.get("per"), int | float)}):
        at = [r for r in pts if _eq(r.get("per"), per)]
        orc = cell_values([r for r in at if r.get("cc") == ORACLE], "goodput_mbps")
        others = {cc: cell_values([r for r in at if r.get("cc") == cc], "goodput_mbps")
                  for cc in ordered(r.get("cc") for r in at) if cc != ORACLE}  # fmt: skip
        others = {cc: xs for cc, xs in others.items() if xs}
        if not orc or not others:
            continue
        best = max(others, key=lambda cc: statistics.median(others[cc]))
        o, b = metrics.median_spread(orc), metrics.median_spread(others[best])
        # every scheme above the oracle with the CIs apart, the best first
        apart = [cc for cc in sorted(others, key=lambda cc: -statistics.median(others[cc]))
                 if _ci_above(metrics.median_spread(others[cc]), o)]  # fmt: skip
        above += [(per, cc) for cc in apart]
        if b["median"] <= o["median"]:
            verdict = "pass"
        elif apart:  # the best whose CI is apart (the best by median may not be)
            top = metrics.median_spread(others[apart[0]])["median"]
            verdict = f"below {apart[0]} ({(top / o['median'] - 1) * 100:.1f} %, CIs apart)"
            if len(apart) > 1:
                verdict += f"; {len(apart) - 1} more above it: {', '.join(apart[1:])}"
        else:
            verdict = f"pass (within the CIs of {best})"
        md.append(
            f"| {fmt_axis(per, 'per')} | {cell_text(o, '.3f')} | {best} "
            f"| {cell_text(b, '.3f')} | {verdict} |"
        )
    md.append("")
    return md + oracle_explained(recs, above)


def _ci_above(a: dict[str, float], b: dict[str, float]) -> bool:
    """Does the CI of ``a`` lie wholly above that of ``b`` (both measured)?"""
    return not math.isnan(a["ci_lo"]) and not math.isnan(b["ci_hi"]) and a["ci_lo"] > b["ci_hi"]


# How a scheme answers congestion where it differs from Reno's halving (the
# oracle's answer): what lets it pass the oracle without more congestion.
BACKOFF = {
    "jersey": "jersey sets its window to its rate estimate times the minimum RTT, not to half",
    "balde": "balde sets its window to its bandwidth estimate times the minimum RTT and ends "
    "slow start on a Vegas signal, before the queue overflows",
    "newrenolp": "newrenolp halves only when its Vegas predictor says the path is congested",
    "diffc": "diffc halves on ECE as Reno does and keeps its window on every loss without ECE",
    "vegas": "vegas keeps 1 to 3 packets queued and slows before losses and marks",
    "cubic": "cubic multiplies its window by 0.7 (Reno: 0.5) and regrows it as a cubic of time",
    "illinois": "illinois backs off by 1/8 to 1/2 with the queueing delay and grows by up to "
    "10 packets per RTT",
    "bbr": "bbr paces at its bandwidth estimate and does not back off on losses or marks",
    "yeah": "yeah backs off by the queue it estimates, not by half",
    "hybla": "hybla grows its window as fast as a 25 ms flow would",
    "westwood": "westwood sets its window to its bandwidth estimate times the minimum RTT",
    "veno": "veno backs off by 1/5 when it takes a loss for random",
}


def oracle_explained(recs: list[dict[str, Any]], above: list[tuple[Any, str]]) -> list[str]:
    """Why a scheme's goodput lies above the oracle's, from what the points
    measured: the congestion each caused at the bottleneck (queue drops and
    CE marks per packet there, per run) and the congestion responses our
    schemes counted.  The oracle is Reno that skips only the medium's losses,
    so it bounds schemes that answer congestion as Reno does; one above it
    caused more congestion, answered none, or answers it more gently."""
    if not above:
        return []

    def runs(cc: str, per: Any) -> list[dict[str, Any]]:
        return [r for r in recs if r["_level"] == "point" and r.get("cc") == cc
                and _eq(r.get("per"), per)]  # fmt: skip

    def responses(cc: str, per: Any) -> list[float]:
        """Per run, the congestion responses of the scheme's flows (loss
        events it took for congestion + ECE it answered), from its counters;
        none for a scheme without counters (the kernel's)."""
        per_run: dict[Any, float] = {}
        for r in recs:
            if r["_level"] == "flow" and r.get("cc") == cc and _eq(r.get("per"), per):
                n = (value(r, "decisions") or 0) + (value(r, "ecn_reactions") or 0)
                got = (value(r, "claimed_congestion") or 0) + (value(r, "ecn_reactions") or 0)
                if n or r["_point"] in per_run:
                    per_run[r["_point"]] = per_run.get(r["_point"], 0.0) + got
        return list(per_run.values())

    def signal(r: dict[str, Any]) -> float | None:
        d, mk = value(r, "bottleneck.congestion_drop_rate"), value(r, "bottleneck.mark_rate")
        return None if d is None and mk is None else (d or 0.0) + (mk or 0.0)

    def pct(xs: list[float]) -> str:
        return f"{statistics.median(xs) * 100:.2f}" if xs else "-"

    md = [
        "Why a scheme lies above the oracle (CIs apart), from the points: the oracle is Reno "
        "that skips only the medium's losses, so it bounds the schemes that answer congestion "
        "as Reno does. Per scheme above it: the congestion it caused at the bottleneck queue "
        "(drops and CE marks, % of the packets there; median of the runs), and the congestion "
        "responses our schemes counted (loss events taken for congestion and ECE answered, per "
        "run; one response can cover several drops or marks of a round trip; - for the "
        "kernel's schemes, which count none):",
        "",
        "| PER | scheme | goodput (Mb/s) | drops (%) | marks (%) | responses | reading |",
        "|---:|---|---:|---:|---:|---:|---|",
    ]
    for per in ordered(p for p, _ in above):
        o_sig = [x for r in runs(ORACLE, per) if (x := signal(r)) is not None]
        for name in [ORACLE, *(cc for p, cc in above if _eq(p, per))]:
            rs = runs(name, per)
            sig = [x for r in rs if (x := signal(r)) is not None]
            resp = responses(name, per)
            drops = cell_values(rs, "bottleneck.congestion_drop_rate")
            reading = (
                "Reno's answer to congestion only" if name == ORACLE
                else oracle_reading(name, sig, o_sig, resp, drops)
            )  # fmt: skip
            gp = cell_values(rs, "goodput_mbps")
            md.append(
                f"| {fmt_axis(per, 'per')} | {name} "
                f"| {statistics.median(gp) if gp else math.nan:.3f} | {pct(drops)} "
                f"| {pct(cell_values(rs, 'bottleneck.mark_rate'))} "
                f"| {f'{statistics.median(resp):.0f}' if resp else '-'} | {reading} |"
            )
    md.append("")
    return md


def oracle_reading(
    cc: str, sig: list[float], o_sig: list[float], resp: list[float], drops: list[float]
) -> str:
    """The reading of one scheme above the oracle: its congestion (drops +
    marks per packet, medians of the runs) against the oracle's, and what it
    answered."""
    if resp and max(resp) == 0 and drops and statistics.median(drops) > 0:
        text = "answered none of its congestion in any run: took every loss for the medium's"
    elif not sig or not o_sig:
        text = "congestion not measured"
    else:
        mine, theirs = statistics.median(sig), statistics.median(o_sig)
        if theirs == 0:
            text = "caused no congestion, nor did the oracle" if mine == 0 else (
                "caused congestion where the oracle caused none")  # fmt: skip
        else:
            ratio = mine / theirs
            band = (
                "more congestion than" if ratio >= 2
                else ("less congestion than" if ratio < 0.5 else "about as much congestion as")
            )  # fmt: skip
            text = f"caused {band} the oracle ({ratio:.1f}x its rate)"
    return f"{text}; {BACKOFF[cc]}" if cc in BACKOFF else text


# The product's safety and fairness criteria on the bottlenecks scenario
# (medians over runs), from the safe-and-fair acceptance: mostly on the
# 20 Mb/s, 40 ms path; the Reno mixes on the thesis fig 5.11 path.
SAFE_PATH = "20M-40ms"
# and a short path, behind drop-tail only: the issue's drop-tail bars there too
SHORT_PATH = "20M-4ms"
SAFE_OURS = ("jersey", "diffc")
MARKING_GWS = ("cw-aq", "cw-pq", "vcrr", "fq_codel-ecn")


@dataclass(frozen=True)
class SafetyRow:
    """A criterion: the median of ``metric`` over the runs of ``sel`` lies in
    [low, high] times the reference scheme's median (or [low, high] itself
    without a reference), for each of ``schemes``."""

    text: str
    sel: dict[str, Any]
    metric: str
    ref: str | None
    low: float
    high: float
    schemes: tuple[str, ...] = SAFE_OURS
    # not a criterion: a comparison beside one, whose verdict is above/below
    reference: bool = False


def _droptail_rows(path: str, name: str) -> list[SafetyRow]:
    """The drop-tail criteria for a lone flow on ``path`` (rows named ``name``)."""
    alone: dict[str, Any] = {"path": path, "mix": "alone"}
    dt0, dt1 = {**alone, "gw": "pfifo", "per": 0}, {**alone, "gw": "pfifo", "per": 0.01}
    return [
        SafetyRow(f"{name}, PER 0, alone: congestion drop rate <= 1.5x cubic's", dt0,
                  "bottleneck.congestion_drop_rate", "cubic", 0.0, 1.5),
        SafetyRow(f"{name}, PER 0, alone: loss-classification accuracy >= 0.9", dt0,
                  "accuracy", None, 0.9, math.inf),
        SafetyRow(f"{name}, PER 1 %, alone: goodput >= 0.9x bbr's", dt1, "goodput_bps",
                  "bbr", 0.9, math.inf),
        SafetyRow(f"{name}, PER 1 %, alone: retransmitted bytes <= 3 % of bytes sent", dt1,
                  "retrans_fraction", None, 0.0, 0.03),
    ]  # fmt: skip


def _safety_rows() -> list[SafetyRow]:
    inf = math.inf
    alone: dict[str, Any] = {"path": SAFE_PATH, "mix": "alone"}
    rows = _droptail_rows(SAFE_PATH, "drop-tail")
    rows += _droptail_rows(SHORT_PATH, "short path (20 Mb/s, 4 ms), drop-tail")
    for gw in ("pfifo", "cw-aq", "cw-pq", "vcrr", "red-ecn", "fq_codel-ecn", "pie-ecn"):
        for path, mix in ((SAFE_PATH, "2+2cubic"), ("fig5.11", "2+2reno")):
            rival = mix.removeprefix("2+2")
            text = f"{gw}, PER 0, {path}, 2 + 2 {rival}: per-flow goodput / {rival}'s in 0.8-1.25"
            sel: dict[str, Any] = {"path": path, "gw": gw, "per": 0, "mix": mix}
            rows.append(SafetyRow(text, sel, "share", None, 0.8, 1.25))
    for gw in MARKING_GWS:
        sel = {**alone, "gw": gw, "per": 0.01}
        rows.append(SafetyRow(f"{gw}, PER 1 %, alone: goodput >= 0.98x bbr's", sel,
                              "goodput_bps", "bbr", 0.98, inf, ("jersey",)))  # fmt: skip
        ceil = f"{gw}, PER 1 %, alone: goodput >= 0.93 of C(1-PER)"
        rows.append(SafetyRow(f"{ceil} payload/wire", sel, "goodput_over_ceiling", None, 0.93,
                              inf, ("jersey",)))  # fmt: skip
        rows.append(SafetyRow(f"{ceil}, headers counted as goodput", sel,
                              "goodput_over_raw_ceiling", None, 0.93, inf,
                              ("jersey", "bbr")))  # fmt: skip
    for gw in MARKING_GWS:
        sel = {**alone, "gw": gw, "per": 0.05}
        rows.append(SafetyRow(f"{gw}, PER 5 %, alone: goodput >= 0.97x bbr's", sel,
                              "goodput_bps", "bbr", 0.97, inf, ("jersey",)))  # fmt: skip
    rows += _vcrr_reference_rows(alone)
    return rows


# vcrr's default gamma: it marks from this fraction of the rate on
VCRR_GAMMA = 0.95


def _vcrr_reference_rows(alone: dict[str, Any]) -> list[SafetyRow]:
    """References beside the lone-flow criteria behind vcrr (not criteria of
    the issue): vcrr's integrator holds the mean input of a sender that
    honours its marks at gamma x the rate, and bbr ignores them.  So jersey
    against gamma x bbr's behind the default, and against bbr's behind
    ``vcrr gamma 1`` (gw label ``vcrr-gamma1``), where the virtual capacity
    is the link's."""
    inf = math.inf
    rows = []
    for per, k in ((0.01, 0.98), (0.05, 0.97)):
        pct = f"PER {per * 100:g} %"
        rows.append(SafetyRow(f"reference: vcrr, {pct}, alone: goodput >= {k}x of "
                              f"{VCRR_GAMMA}x bbr's (its virtual capacity)",
                              {**alone, "gw": "vcrr", "per": per}, "goodput_bps", "bbr",
                              k * VCRR_GAMMA, inf, ("jersey",), True))  # fmt: skip
        rows.append(SafetyRow(f"reference: vcrr gamma 1, {pct}, alone: goodput >= {k}x bbr's",
                              {**alone, "gw": "vcrr-gamma1", "per": per}, "goodput_bps", "bbr",
                              k, inf, ("jersey",), True))  # fmt: skip
    return rows


def safety_checks(recs: list[dict[str, Any]]) -> list[str]:
    """The safety and fairness verdicts of jersey and diffc on ``bottlenecks``."""
    pts = [r for r in recs if r["_level"] == "point"]
    for r in pts:
        if r.get("ceiling_bps"):
            r["goodput_over_ceiling"] = r["goodput_bps"] / r["ceiling_bps"]
        if r.get("ceiling_raw_bps"):
            r["goodput_over_raw_ceiling"] = r["goodput_bps"] / r["ceiling_raw_bps"]

    def runs(sel: dict[str, Any], cc: str, metric: str) -> list[float]:
        return cell_values(select(pts, {**sel, "ours": cc}), metric)

    md = [
        "**Safe and fair** (scenario `bottlenecks`): medians with 95 % CIs; "
        "a reference's median scales the bound.",
        "",
        "| criterion | scheme | runs | median [95 % CI] | bound | verdict |",
        "|---|---|---:|---:|---:|---|",
    ]
    references = False
    for row in _safety_rows():
        lo, hi = row.low, row.high
        if not any(select(pts, row.sel)):
            continue
        scale = 1.0
        if row.ref is not None:
            ref_xs = runs(row.sel, row.ref, row.metric)
            if not ref_xs:
                continue
            scale = statistics.median(ref_xs)
        if math.isinf(hi):
            bound = f">= {lo * scale:.4g}"
        elif lo == 0:
            bound = f"<= {hi * scale:.4g}"
        else:
            bound = f"{lo * scale:.4g} - {hi * scale:.4g}"
        for cc in row.schemes:
            xs = runs(row.sel, cc, row.metric)
            if not xs:
                continue
            ms = metrics.median_spread(xs)
            ok = lo * scale <= ms["median"] <= hi * scale
            verdict = ("above" if ok else "below") if row.reference else ("pass" if ok else "FAIL")
            references |= row.reference
            md.append(
                f"| {row.text} | {cc} | {len(xs)} | {cell_text(ms, '.4g')} | {bound} "
                f"| {verdict} |"
            )
    md.append("")
    if references:
        md += [
            "Rows named *reference* are not criteria: vcrr marks from gamma x its rate "
            f"({VCRR_GAMMA} by default), which holds a sender that honours its marks below what "
            "bbr, which ignores them, takes; they set jersey against the gateway's virtual "
            "capacity, and against bbr behind `vcrr gamma 1`.",
            "",
        ]
    return md


# a kernel's directory of results: a series of testbed/kernels.txt (6.1, 6.12,
# trixie-6.12, 7.3) or a kernel release (6.18.4-...) for a kernel of none
KERNEL_DIR = re.compile(r"([A-Za-z]+-)?\d+\.\d+")
# the report of results in the flat layout next to kernel directories
FLAT_PAGE = "report-flat.md"


def kernel_dirs(out: Path) -> list[Path]:
    """The kernels' directories of a results directory (``OUT/<kernel
    series>/``, as ``python -m testbed run`` writes them): those named like a
    kernel that hold a scenario's points or a report."""
    if not out.is_dir():
        return []
    scs = scenario.names()
    return [
        d
        for d in sorted(out.iterdir())
        if d.is_dir() and d.name not in scs and KERNEL_DIR.match(d.name)
        and ((d / "report.json").exists() or any(compact.has_points(d / n) for n in scs))
    ]  # fmt: skip


def build(out: Path, names: list[str] | None = None, mixed: bool = False) -> Path:
    """Every scenario's page and a report (``mixed``: see
    :func:`build_scenario`): in each kernel's directory of ``out`` and
    ``out/report.md`` linking them (:func:`index`); a directory without
    kernel directories (the flat layout: ``out/<scenario>/runs/``, or one
    kernel's directory) gets its ``out/report.md``.  Returns ``out/report.md``."""
    names = names or scenario.names()
    kdirs = kernel_dirs(out)
    if not kdirs:
        return build_one(out, names, mixed)
    for k in kdirs:
        # a kernel's published report whose points are not here (neither full
        # JSON nor compact records) stays as it is; the index still lists it
        if any(compact.has_points(k / n) for n in names):
            build_one(k, names, mixed)
    flat = [n for n in names if compact.has_points(out / n)]
    if flat:  # points of earlier versions next to the kernels' directories
        build_one(out, flat, mixed, FLAT_PAGE)
    return index(out)


def write_records(out: Path, names: list[str] | None = None) -> tuple[int, int]:
    """(Re)write the compact record ``points/<id>.json`` of every point of
    ``names`` whose full JSON is in ``out`` (as :func:`build` finds them: in
    ``out`` itself and in its kernels' directories), with its metrics
    computed as :func:`load_points` does (:func:`testbed.run.compact.backfill`);
    (records written, already the same)."""
    names = names or scenario.names()
    written = same = 0
    for d in [out, *kernel_dirs(out)]:
        for n in names:
            w, s = compact.backfill(d / n)
            written, same = written + w, same + s
    return written, same


def index(out: Path) -> Path:
    """``out/report.md``: every kernel directory's report with the kernels and
    commits its points come from (from each one's ``report.json``, written by
    :func:`build_one`)."""
    md = [
        "# jersey testbed report",
        "",
        f"Generated {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} by `python -m testbed "
        f"report`: one report per kernel, from `{out.name}/<kernel series>/*/runs/*.json` "
        "or, without them, the compact records in `points/` (the series of "
        "`testbed/kernels.txt`, or the kernel's release).  Each has the "
        "acceptance checks, every scenario's scorecard, tables and figures.",
        "",
        "| kernel series | kernel(s) | commit(s) | accel | scenarios | points ok / unavailable "
        "/ errors | report |",
        "|---|---|---|---|---:|---|---|",
    ]
    every_kernel: set[str] = set()
    every_commit: set[str] = set()
    for k in kernel_dirs(out):
        f = k / "report.json"
        if not f.exists():
            md.append(
                f"| {k.name} | ? | ? | ? | - | - | not built yet: `python -m testbed report "
                f"--out {out.name}` |"
            )
            continue
        info = json.loads(f.read_text())
        every_kernel.update(info["kernels"])
        every_commit.update(info["commits"])
        c = {s: sum(x["counts"].get(s, 0) for x in info["scenarios"].values())
             for s in ("ok", "unavailable", "error", "not yet")}  # fmt: skip
        md.append(
            f"| {k.name} | {', '.join(info['kernels']) or '?'} "
            f"| {', '.join(info['commits']) or '?'} | {info.get('accel') or '?'} "
            f"| {len(info['scenarios'])} | {count_cell(c)} "
            f"| [{k.name}/report.md]({k.name}/report.md) |"
        )
    md.append("")
    md += [
        f"Kernels: {', '.join(sorted(every_kernel)) or '?'}.  "
        f"Commits: {', '.join(sorted(every_commit)) or '?'}.",
        "",
    ]
    flat = [n for n in scenario.names() if compact.has_points(out / n)]
    if (out / FLAT_PAGE).exists():
        md += [
            f"Points in the flat layout of earlier versions (`{out.name}/<scenario>/runs/`, "
            f"kernel not in the path): [{FLAT_PAGE}]({FLAT_PAGE}).",
            "",
        ]
    elif flat:
        md += [
            f"Points in the flat layout of earlier versions: {', '.join(flat)} "
            f"(`python -m testbed report --out {out.name}` reports them in {FLAT_PAGE}).",
            "",
        ]
    md += calibration_index(out)
    path = out / "report.md"
    path.write_text("\n".join(md))
    return path


def build_one(
    out: Path, names: list[str] | None = None, mixed: bool = False, page: str = "report.md"
) -> Path:
    """Every scenario's page and ``out/<page>`` (``mixed``: see
    :func:`build_scenario`) of one directory of scenarios (one kernel's), and
    what :func:`index` says of it in ``out/<page>`` with ``.json``."""
    names = names or scenario.names()
    out.mkdir(parents=True, exist_ok=True)
    sums: dict[str, dict[str, Any]] = {}
    for n in names:
        s = build_scenario(out, n, mixed)
        if s is not None:
            sums[n] = s
    kernels = sorted({k for s in sums.values() for k in (s.get("kernel") or "").split(", ") if k})
    commits = sorted({c for s in sums.values() for c in s.get("commits", [])})
    meta: dict[str, Any] = next((s["meta"] for s in sums.values() if s.get("meta")), {})
    md = [
        "# jersey testbed report",
        "",
        f"Generated {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} from "
        f"`{out.name}/*/runs/*.json` and `{out.name}/*/points/*.json`"
        f" by `python -m testbed report`.  Kernel(s): {', '.join(kernels) or '?'}; "
        f"accel {meta.get('accel', '?')}; commit(s) {', '.join(commits) or '?'}.",
        "",
        "Every number is a real measurement of iperf3 flows on the kernel's TCP stack (values are"
        " medians of repeated runs with a 95 % percentile-bootstrap CI in brackets); each point's"
        " JSON in `<scenario>/runs/` holds every parameter, seed and tool version, its time"
        " series and trace events; its compact record in `<scenario>/points/`, which git"
        " tracks, all of it but those.",
        "",
    ]
    md += acceptance(sums)
    md += ["## Scenarios", ""]
    md += [
        "| scenario | points ok / unavailable / errors | VM time of its points | page |",
        "|---|---|---:|---|",
    ]
    for n, s in sums.items():
        c = s["counts"]
        wall = s.get("wall_s")
        md.append(
            f"| {s['title']} | {count_cell(c)} "
            f"| {f'{wall / 60:.1f} min' if wall else '-'} | [{n}]({s['md']}) |"
        )
    md += [
        "",
        "VM time of its points: the time during which at least one of the scenario's points "
        "present here was running, over every invocation that made them (the union of each "
        "point's interval from its start to its start + `wall_s`, so points run N at a time "
        "count once; the time between invocations does not count); a point without a start "
        "time counts its `wall_s` / the points that ran at once.",
        "",
    ]
    refused = [n for n, s in sums.items() if s["counts"].get("mixed")]
    if refused:
        md += [
            f"Not reported (points from more than one commit or kernel): {', '.join(refused)}.",
            "",
        ]
    not_run = [n for n in names if n not in sums]
    if not_run:
        md += [f"No results yet for: {', '.join(not_run)}.", ""]
    for n, s in sums.items():
        md += [
            f"### {s['title']}",
            "",
            f"Details, tables and parameters: [{n}/{n}.md]({s['md']}).",
            "",
        ]
        ccs = s["ccs"]
        if ccs and n != "groundtruth":
            have = [c for c in COMPARATORS if c in ccs]
            ours = [c for c in OURS if c in ccs]
            bound = "; upper bound oracle" if ORACLE in ccs else ""
            md += [
                f"Schemes: kernel {', '.join(have) or '-'}; ours {', '.join(ours) or '-'}{bound}.",
                "",
            ]
        for files in s["figures"]:
            md += [f"![{files[0]}]({n}/{files[0]})", ""]
    path = out / page
    path.write_text("\n".join(md))
    info = {
        "page": page,
        "kernels": kernels,
        "commits": commits,
        "accel": meta.get("accel"),
        "scenarios": {
            n: {"title": s["title"], "counts": s["counts"], "md": s["md"]} for n, s in sums.items()
        },
        "not_run": not_run,
        "refused": refused,
    }
    path.with_suffix(".json").write_text(json.dumps(info, indent=1) + "\n")
    return path


# -- calibration: points run at once vs one at a time ---------------------------------------


def at_a_time(docs: list[PointRecord], parallel: int) -> str:
    """How many points ran at once, as the points record it (an override or
    Mininet's cap may have run some fewer than the scenario's ``parallel``)."""
    n = Counter(int(d.get("parallel", parallel)) for d in docs)
    if len(n) <= 1:
        k = next(iter(n), parallel)
        return "one point at a time" if k == 1 else f"{k} points at a time"
    return "points at a time: " + ", ".join(
        f"{k} ({c} points)" for k, c in sorted(n.items(), reverse=True)
    )


def point_key(rec: dict[str, Any]) -> str:
    """A record's point without its run (``cc=reno,per=0.01``)."""
    return re.sub(r"(^|,)run=\d+$", "", str(rec["_point"]))


def ratio_ci(
    xn: list[float], x1: list[float], level: float = metrics.CI_LEVEL
) -> tuple[float, float] | None:
    """Percentile-bootstrap confidence interval of median(x1) / median(xn),
    each set of runs resampled on its own (``metrics.CI_RESAMPLES`` times,
    seeded as :func:`testbed.analysis.metrics.median_ci`); None below
    ``metrics.CI_MIN_RUNS`` runs in either, or where xn's medians are 0."""
    if min(len(xn), len(x1)) < metrics.CI_MIN_RUNS:
        return None
    rng = random.Random(0)
    ratios = []
    for _ in range(metrics.CI_RESAMPLES):
        mn = statistics.median(rng.choices(xn, k=len(xn)))
        m1 = statistics.median(rng.choices(x1, k=len(x1)))
        if mn:
            ratios.append(m1 / mn)
    if len(ratios) < metrics.CI_RESAMPLES:
        return None
    ratios.sort()
    lo = ratios[math.floor((1 - level) / 2 * len(ratios))]
    hi = ratios[math.ceil((1 + level) / 2 * len(ratios)) - 1]
    return lo, hi


def calibration_rows(
    parallel: int,
    at_n: list[dict[str, Any]],
    at_1: list[dict[str, Any]],
    metric: str = "goodput_mbps",
) -> tuple[list[list[str]], Counter[str]]:
    """Every point of ``at_n`` (records of points run ``parallel`` at a time)
    and ``at_1`` (the same run one at a time): its key, the two medians of
    ``metric`` with their 95 % CIs, their ratio with its 95 % CI
    (:func:`ratio_ci`) and a verdict: "agree" when that CI holds 1, else
    "differs: lower parallel" (none without a CI: fewer than 3 runs, or not
    both); with the count of each verdict.  (Asking instead whether one
    median lies within the other's CI, with 5 runs each their range, calls
    one comparison in six "differs" between two sets of the same runs.)"""
    a = [r for r in at_n if r["_level"] == "point"]
    b = [r for r in at_1 if r["_level"] == "point"]
    rows: list[list[str]] = []
    verdicts: Counter[str] = Counter()
    for key in ordered(point_key(r) for r in [*a, *b]):
        xn = cell_values([r for r in a if point_key(r) == key], metric)
        x1 = cell_values([r for r in b if point_key(r) == key], metric)
        ci = ratio_ci(xn, x1) if xn and x1 else None
        if not xn or not x1:
            verdict = f"missing at parallel {1 if xn else parallel}"
        elif len(xn) < metrics.CI_MIN_RUNS:
            verdict = f"no CI at parallel {parallel} (n={len(xn)})"
        elif ci is None:
            verdict = f"no CI at parallel 1 (n={len(x1)})"
        elif ci[0] <= 1 <= ci[1]:
            verdict = "agree"
        else:
            verdict = "differs: lower parallel"
        verdicts[verdict.split(" (")[0]] += 1
        cells = [cell_text(metrics.median_spread(xs), ".4g") if xs else "-" for xs in (xn, x1)]
        ratio = "-"
        if xn and x1 and statistics.median(xn):
            ratio = f"{statistics.median(x1) / statistics.median(xn):.3f}"
            if ci is not None:
                ratio += f" [{ci[0]:.3f}, {ci[1]:.3f}]"
        rows.append([key, *cells, ratio, verdict])
    return rows, verdicts


def verdicts_text(verdicts: Counter[str]) -> str:
    return ", ".join(f"{v} {n}" for v, n in verdicts.items()) or "none"


def calibration_table(
    name: str,
    parallel: int,
    at_n: list[dict[str, Any]],
    at_1: list[dict[str, Any]],
    metric: str = "goodput_mbps",
) -> list[str]:
    """Markdown comparing every point of scenario ``name`` run ``parallel``
    at a time (records ``at_n``) with the same points run one at a time
    (``at_1``): :func:`calibration_rows` and the count of each verdict."""
    rows, verdicts = calibration_rows(parallel, at_n, at_1, metric)
    md = [
        f"## {name}: {metric}, parallel {parallel} vs 1",
        "",
        f"| point | parallel {parallel}: median [95 % CI] | parallel 1: median [95 % CI] "
        f"| parallel 1 / {parallel} [95 % CI] | verdict |",
        "|---|---:|---:|---:|---|",
    ]
    md += ["| " + " | ".join(r) + " |" for r in rows]
    md += ["", "Verdicts: " + verdicts_text(verdicts), ""]
    return md


def calibrated(kdir: Path) -> dict[str, int]:
    """The scenarios of a calibration's kernel directory with points both one
    at a time (``kdir/parallel-1/``) and more at once (``kdir/parallel-N/``,
    the largest N): name -> N.  Each ``python -m testbed calibrate`` adds its
    scenarios here, so one page can report calibrations run one by one."""
    n_dirs = sorted(
        (int(d.name.split("-")[1]) for d in kdir.glob("parallel-*")
         if re.fullmatch(r"parallel-\d+", d.name) and d.name != "parallel-1"),
        reverse=True,
    )  # fmt: skip
    plan: dict[str, int] = {}
    for name in scenario.names():
        if not compact.has_points(kdir / "parallel-1" / name):
            continue
        n = next((n for n in n_dirs if compact.has_points(kdir / f"parallel-{n}" / name)), 0)
        if n > 1:
            plan[name] = n
    return plan


def serial_of(name: str) -> list[dict[str, Any]]:
    """The ``when`` of each override of scenario ``name`` that runs its
    points one at a time (what calibrate leaves out)."""
    from testbed.cli import serial_points  # the command that leaves them out

    return serial_points(scenario.load(name), None)


def calibration(
    kdir: Path,
    plan: dict[str, int] | None = None,
    metric: str = "goodput_mbps",
    serial: dict[str, list[dict[str, Any]]] | None = None,
) -> Path:
    """``kdir/calibration.md``: :func:`calibration_table` of every scenario
    calibrated in ``kdir`` (:func:`calibrated`) and of ``plan`` (name -> its
    parallel), from ``kdir/parallel-N/`` and ``kdir/parallel-1/``, after a
    summary of their verdicts; ``serial``: per scenario, the points (``when``
    of an override) that it runs one at a time anyway, left out of both runs
    (by default the scenario file's)."""
    plan = {**calibrated(kdir), **(plan or {})}
    head = [
        "# Calibration: points run at once vs one at a time",
        "",
        f"Kernel directory `{kdir.name}`; generated "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} by `python -m testbed "
        "calibrate`.  Each scenario ran at its `parallel` and with `--set parallel=1`; a point "
        f"agrees when the 95 % CI of its median {metric} one at a time over that at "
        "`parallel` (percentile bootstrap, each set of runs resampled on its own) holds 1.",
        "",
        "| scenario | parallel | kernel | commit | points | verdicts |",
        "|---|---:|---|---|---:|---|",
    ]
    md: list[str] = []
    for name, n in plan.items():
        docs_n = load_points(kdir / f"parallel-{n}", name)
        docs_1 = load_points(kdir / "parallel-1", name)
        commits, kernels = provenance([*docs_n, *docs_1])
        rows, verdicts = calibration_rows(n, records(docs_n), records(docs_1), metric)
        head.append(
            f"| {name} | {n} | {', '.join(kernels) or '?'} | {', '.join(commits) or '?'} "
            f"| {len(rows)} | {verdicts_text(verdicts)} |"
        )
        ran = at_a_time([d for d in docs_n if d.get("status") == "ok"], n)
        md += [f"Scenario `{name}`: kernel {', '.join(kernels) or '?'}, "
               f"commit {', '.join(commits) or '?'}; in `parallel-{n}/`, {ran}.", ""]  # fmt: skip
        whens = (serial or {}).get(name)
        for when in serial_of(name) if whens is None else whens:
            which = ", ".join(f"{k} = {fmt_axis(v, k)}" for k, v in when.items())
            md += [f"Not calibrated: the points of {which}, which the scenario runs one at a "
                   "time anyway.", ""]  # fmt: skip
        md += calibration_table(name, n, records(docs_n), records(docs_1), metric)
    path = kdir / "calibration.md"
    kdir.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join([*head, "", *md]))
    return path


def calibration_index(out: Path) -> list[str]:
    """What ``out/report.md`` says of the calibrations under
    ``out/calibrate/<kernel series>/``: per kernel and scenario, how many
    points agree (goodput), with a link to the kernel's ``calibration.md``
    (written again here); nothing without a calibration."""
    base = out / "calibrate"
    kdirs = [d for d in sorted(base.iterdir()) if KERNEL_DIR.match(d.name)] if base.is_dir() else []
    rows: list[str] = []
    for kdir in kdirs:
        plan = calibrated(kdir)
        if not plan:
            continue
        page = calibration(kdir, plan).relative_to(out)
        for name, n in plan.items():
            docs_n = load_points(kdir / f"parallel-{n}", name)
            docs_1 = load_points(kdir / "parallel-1", name)
            got, verdicts = calibration_rows(n, records(docs_n), records(docs_1))
            rows.append(
                f"| {kdir.name} | {name} | {n} | {len(got)} | {verdicts['agree']} "
                f"| {verdicts['differs: lower parallel']} "
                f"| {len(got) - verdicts['agree'] - verdicts['differs: lower parallel']} "
                f"| [{page}]({page}) |"
            )
    if not rows:
        return []
    return [
        "## Calibration",
        "",
        "Does running a scenario's points `parallel` at a time change them?  Each scenario "
        "(or the part of it named in its command) ran at its `parallel` and one point at a "
        "time (`python -m testbed calibrate`); a point agrees when the 95 % CI of its goodput's "
        "median one at a time over that at `parallel` holds 1; where points differ, the "
        "scenario runs them fewer at a time.",
        "",
        "| kernel series | scenario | parallel | points | agree | differ | no verdict | page |",
        "|---|---|---:|---:|---:|---:|---:|---|",
        *rows,
        "",
    ]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("scenarios", nargs="*")
    ap.add_argument("--out", default=str(TOP / "results"))
    ap.add_argument("--mixed", action="store_true")
    ap.add_argument("--records", action="store_true")
    args = ap.parse_args(argv)
    if args.records:
        write_records(Path(args.out).resolve(), args.scenarios or None)
    print(build(Path(args.out).resolve(), args.scenarios or None, args.mixed))


if __name__ == "__main__":
    main()
