"""Tables, plots and ``report.md`` from the per-point JSON of a sweep (runs on the host).

``python -m testbed report [--out results] [SCENARIO...]`` reads
``OUT/<scenario>/runs/*.json`` (written by :mod:`testbed.run.harness`),
recomputes every point's metrics (:mod:`testbed.analysis.metrics`), and writes per
scenario ``OUT/<scenario>/<scenario>.md`` (its tables), ``summary.json``
(the same numbers as data) and the figures its file asks for
(``<name>.png`` and ``.svg``), then ``OUT/report.md`` linking them all,
with the acceptance checks (ground-truth validation, repeatability).

Values are medians over runs with a 95 % percentile-bootstrap confidence
interval (``median [lo, hi]``, :func:`testbed.analysis.metrics.median_ci`);
a cell from fewer than 3 runs says ``(n=1)`` or ``(n=2)`` instead, and
figures draw the same interval as error bars, none below 3 runs.  Metric names
are keys of the point metrics (dotted for nested ones, e.g.
``drops.link_share``); a ``_mbps``/``_kbps`` suffix converts a ``_bps``
metric.  A cell is empty when no run produced the value.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from testbed import TOP
from testbed.analysis import metrics
from testbed.run import scenario
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
    """Every point JSON of a scenario (any status), metrics recomputed for ok ones."""
    docs: list[PointRecord] = []
    for f in sorted((out / name / "runs").glob("*.json")):
        try:
            doc = json.loads(f.read_text())
        except json.JSONDecodeError:
            continue
        if doc.get("status") == "ok":
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
    """Long format: one record per point (group "all"), per flow group and per flow."""
    out = []
    for doc in docs:
        if doc.get("status") != "ok":
            continue
        m = doc["metrics"]
        base = {**doc["values"], "run": doc["run"], "_point": doc["point"]}
        top = {k: v for k, v in m.items() if k not in ("groups", "flows")}
        # the sweep's values win over metrics of the same name
        out.append({**flatten(top), **base, "_level": "point", "group": "all"})
        for g, gm in m.get("groups", {}).items():
            out.append({**flatten(gm), **base, "_level": "group", "group": g})
        for fm in m.get("flows", []):
            out.append(
                {**flatten(fm), **base, "_level": "flow", "group": fm["group"], "flow": fm["label"]}
            )
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


def _style(i: int, name: str) -> dict[str, Any]:
    if name == ORACLE:
        return {"marker": "*", "linewidth": 2.0, "linestyle": ":", "color": "black",
                "markersize": 7}  # fmt: skip
    ours = name.split("#")[0].split("-")[0] in OURS
    return {
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


def fig_lines_or_bars(
    recs: list[dict[str, Any]], spec: dict[str, Any], axes: dict[str, list[Any]], sdir: Path
) -> list[str]:
    plt = _plt()
    x_k, s_k, y = spec["x"], spec.get("series"), spec["y"]
    lvl = level_of(x_k, s_k, spec.get("facet"))
    recs = [r for r in select(recs, spec.get("select")) if r["_level"] == lvl]
    if not recs:
        return []
    facets = _facets(recs, spec, axes)
    fig, axs = plt.subplots(1, len(facets), figsize=(6.4 * len(facets), 4.2), squeeze=False)
    for ax, fv in zip(axs[0], facets, strict=True):
        frecs = [r for r in recs if fv is None or _eq(r.get(spec["facet"]), fv)]
        xs = ordered((r.get(x_k) for r in frecs), axes.get(x_k))
        series = ordered((r.get(s_k) for r in frecs), axes.get(s_k)) if s_k else [None]
        numeric = spec["kind"] == "lines" and all(isinstance(x, int | float) for x in xs)
        if numeric:
            xs = sorted(xs)
        width = 0.8 / max(1, len(series))
        for i, sv in enumerate(series):
            pts = []
            for j, xv in enumerate(xs):
                sub = [
                    r for r in frecs if _eq(r.get(x_k), xv) and (s_k is None or _eq(r.get(s_k), sv))
                ]
                vals = cell_values(sub, y)
                if vals:
                    pts.append((xv if numeric else j, *error_bar(vals)))
            if not pts:
                continue
            if sv is None:
                label = y
            elif isinstance(sv, int | float):
                label = f"{s_k} {fmt_axis(sv, s_k)}"
            else:
                label = str(sv)
            px, py, lo, hi = zip(*pts, strict=True)
            if spec["kind"] == "lines":
                st = _style(i, label)
                ax.errorbar(px, py, yerr=[lo, hi], label=label, capsize=2, **st)
            else:
                off = [p - 0.4 + width * (i + 0.5) for p in px]
                ax.bar(off, py, width=width, yerr=[lo, hi], label=label, capsize=2)
        if spec.get("ceiling"):
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
        if numeric:
            scale = spec.get("xscale", "linear")
            if scale == "symlog":
                pos = [x for x in xs if x > 0]
                ax.set_xscale("symlog", linthresh=min(pos) if pos else 1e-5)
            elif scale != "linear":
                ax.set_xscale(scale)
            ax.set_xticks(xs)
            ax.set_xticklabels([fmt_axis(x, x_k) for x in xs], rotation=30)
        else:
            ax.set_xticks(range(len(xs)))
            ax.set_xticklabels([fmt_axis(x, x_k) for x in xs], rotation=30 if len(xs) > 5 else 0)
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
        ax.set_title(title, fontsize=9)
        ax.legend(ncol=2 if len(series) > 6 else 1)
    fig.tight_layout()
    return _save(fig, sdir, spec.get("name", spec["y"]))


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
    fig, axs = plt.subplots(1, len(facets), figsize=(4.8 * len(facets), 4.2), squeeze=False)
    drawn = False
    for ax, fv in zip(axs[0], facets, strict=True):
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
            color = f"C{i % 10}"
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
        if fv is not None:
            title = f"{title}\n{spec['facet']} = {fmt_axis(fv, spec['facet'])}"
        ax.set_title(title, fontsize=9)
        ax.legend()
    if not drawn:
        plt.close(fig)
        return []
    fig.tight_layout()
    return _save(fig, sdir, spec.get("name", f"{y}_vs_{x}"))


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
            start = f.get("started_s", f.get("start_s", 0))
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


def fig_timeseries(
    docs: list[PointRecord], spec: dict[str, Any], axes: dict[str, list[Any]], sdir: Path
) -> list[str]:
    plt = _plt()
    sel = {"run": 0, **spec.get("select", {})}
    pts = [
        d
        for d in docs
        if d.get("status") == "ok"
        and all(_eq({**d["values"], "run": d["run"]}.get(k), v) for k, v in sel.items())
    ]
    if not pts:
        return []
    s_k: str = spec.get("series", "flow")
    f_k: str = spec.get("facet") or ""
    facets = ordered((d["values"].get(f_k) for d in pts), axes.get(f_k)) if f_k else [None]
    fig, axs = plt.subplots(
        len(facets), 1, figsize=(7.5, 2.6 * len(facets) + 0.8), squeeze=False, sharex=True
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


def axes_of(resolved: dict[str, Any]) -> dict[str, list[Any]]:
    return {a: [scenario.display(v) for v in vs] for a, vs in resolved.get("sweep", {}).items()}


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
    axes = axes_of(resolved)
    recs = records(docs)
    unavailable: dict[tuple[tuple[str, str], ...], list[str]] = {}
    for d in docs:
        if d.get("status") == "unavailable":
            key = tuple((k, str(v)) for k, v in d["values"].items())
            unavailable[key] = d.get("missing", [])
    rep = resolved.get("report", {})
    states = ("ok", "unavailable", "error", "mixed")
    counts = {s: sum(d.get("status") == s for d in docs) for s in states}
    ok = [d for d in docs if d.get("status") == "ok"]
    env = ok[0].get("environment", {}) if ok else {}
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
        f"- {resolved.get('duration_s')} s per point, {resolved.get('runs', 1)} runs, "
        f"{resolved.get('parallel', 1)} points at a time; profile {meta.get('profile', 'full')}",
        f"- points: {counts['ok']} ok, {counts['unavailable']} unavailable, "
        f"{counts['error']} errors",
        f"- kernel {', '.join(kernels) or '?'}, "
        f"backend {ok[0].get('backend', '?') if ok else '?'}, "
        f"accel {ok[0].get('meta', {}).get('accel', '?') if ok else '?'}, "
        f"commit {', '.join(commits) or '?'}",
        f"- module parameters: `{json.dumps(env.get('module_params', {}))}`",
        f"- tools: {', '.join(f'{k} {v}' for k, v in vers.items())}",
    ]
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
        if f["kind"] == "timeseries":
            files = fig_timeseries(docs, f, axes, sdir)
        elif f["kind"] == "scatter":
            files = fig_scatter(recs, f, axes, sdir)
        else:
            files = fig_lines_or_bars(recs, f, axes, sdir)
        if not files:
            continue  # nothing measured matches the figure's selection
        summary["figures"].append(files)
        md += [
            f"## {f.get('title', files[0])}",
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
    return summary


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
        if b["median"] <= o["median"]:
            verdict = "pass"
        elif not math.isnan(b["ci_lo"]) and not math.isnan(o["ci_hi"]) and b["ci_lo"] > o["ci_hi"]:
            verdict = f"below {best} ({(b['median'] / o['median'] - 1) * 100:.1f} %, CIs apart)"
        else:
            verdict = f"pass (within the CIs of {best})"
        md.append(
            f"| {fmt_axis(per, 'per')} | {cell_text(o, '.3f')} | {best} "
            f"| {cell_text(b, '.3f')} | {verdict} |"
        )
    md.append("")
    return md


# The product's safety and fairness criteria on the bottlenecks scenario
# (medians over runs), from the safe-and-fair acceptance: mostly on the
# 20 Mb/s, 40 ms path; the Reno mixes on the thesis fig 5.11 path.
SAFE_PATH = "20M-40ms"
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


def _safety_rows() -> list[SafetyRow]:
    inf = math.inf
    alone: dict[str, Any] = {"path": SAFE_PATH, "mix": "alone"}
    dt0, dt1 = {**alone, "gw": "pfifo", "per": 0}, {**alone, "gw": "pfifo", "per": 0.01}
    rows = [
        SafetyRow("drop-tail, PER 0, alone: congestion drop rate <= 1.5x cubic's", dt0,
                  "bottleneck.congestion_drop_rate", "cubic", 0.0, 1.5),
        SafetyRow("drop-tail, PER 0, alone: loss-classification accuracy >= 0.9", dt0,
                  "accuracy", None, 0.9, inf),
        SafetyRow("drop-tail, PER 1 %, alone: goodput >= 0.9x bbr's", dt1, "goodput_bps",
                  "bbr", 0.9, inf),
        SafetyRow("drop-tail, PER 1 %, alone: retransmitted bytes <= 3 % of bytes sent", dt1,
                  "retrans_fraction", None, 0.0, 0.03),
    ]  # fmt: skip
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
        rows.append(SafetyRow(f"{gw}, PER 1 %, alone: goodput >= 0.93 of C(1-PER)", sel,
                              "goodput_over_ceiling", None, 0.93, inf, ("jersey",)))  # fmt: skip
    for gw in MARKING_GWS:
        sel = {**alone, "gw": gw, "per": 0.05}
        rows.append(SafetyRow(f"{gw}, PER 5 %, alone: goodput >= 0.97x bbr's", sel,
                              "goodput_bps", "bbr", 0.97, inf, ("jersey",)))  # fmt: skip
    return rows


def safety_checks(recs: list[dict[str, Any]]) -> list[str]:
    """The safety and fairness verdicts of jersey and diffc on ``bottlenecks``."""
    pts = [r for r in recs if r["_level"] == "point"]
    for r in pts:
        if r.get("ceiling_raw_bps"):
            r["goodput_over_ceiling"] = r["goodput_bps"] / r["ceiling_raw_bps"]

    def runs(sel: dict[str, Any], cc: str, metric: str) -> list[float]:
        return cell_values(select(pts, {**sel, "ours": cc}), metric)

    md = [
        "**Safe and fair** (scenario `bottlenecks`): medians with 95 % CIs; "
        "a reference's median scales the bound.",
        "",
        "| criterion | scheme | runs | median [95 % CI] | bound | verdict |",
        "|---|---|---:|---:|---:|---|",
    ]
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
            md.append(
                f"| {row.text} | {cc} | {len(xs)} | {cell_text(ms, '.4g')} | {bound} "
                f"| {'pass' if ok else 'FAIL'} |"
            )
    md.append("")
    return md


def build(out: Path, names: list[str] | None = None, mixed: bool = False) -> Path:
    """Every scenario's page and ``out/report.md`` (``mixed``: see
    :func:`build_scenario`)."""
    names = names or scenario.names()
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
        f"`{out.name}/*/runs/*.json`"
        f" by `python -m testbed report`.  Kernel(s): {', '.join(kernels) or '?'}; "
        f"accel {meta.get('accel', '?')}; commit(s) {', '.join(commits) or '?'}.",
        "",
        "Every number is a real measurement of iperf3 flows on the kernel's TCP stack (values are"
        " medians of repeated runs with a 95 % percentile-bootstrap CI in brackets); each point's"
        " JSON in `<scenario>/runs/` holds every parameter, seed and tool version.",
        "",
    ]
    md += acceptance(sums)
    md += ["## Scenarios", ""]
    md += ["| scenario | points ok / unavailable / errors | wall | page |", "|---|---|---:|---|"]
    for n, s in sums.items():
        c = s["counts"]
        wall = s["status"].get("wall_s")
        md.append(
            f"| {s['title']} | {c['ok']} / {c['unavailable']} / {c['error']} "
            f"| {f'{wall / 60:.1f} min' if wall else '-'} | [{n}]({s['md']}) |"
        )
    md.append("")
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
    path = out / "report.md"
    path.write_text("\n".join(md))
    return path


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("scenarios", nargs="*")
    ap.add_argument("--out", default=str(TOP / "results"))
    ap.add_argument("--mixed", action="store_true")
    args = ap.parse_args(argv)
    print(build(Path(args.out).resolve(), args.scenarios or None, args.mixed))


if __name__ == "__main__":
    main()
