"""Scenario files: experiments declared as data (``scenarios/NAME.toml``).

A scenario names a topology of :mod:`testbed.net.topologies` and its parameters,
the flows and cross traffic, what to sweep, what to monitor and how to
report.  Every point of the sweep (the cartesian product of the ``[sweep]``
axes, times ``runs``) becomes one trial.  Strings ``"${name}"`` anywhere
below ``topology``, ``flows``, ``traffic``, ``modules``, ``sysctls``,
``monitor`` and ``metrics`` are replaced, per point, by the value of a
sweep axis, of ``[vars]``, or of ``run``/``duration_s``/``seed``; a table
value of an axis is reached with dots (``"${mix.m}"``).  A string that is
exactly one ``${...}`` keeps the value's type.

``exclude = [{axis = value, ...}, ...]`` drops the combinations of the
sweep that match every pair of an entry.  ``[profiles.NAME]`` tables are
deep-merged over the file for
``--profile NAME`` (``quick``: the short validation mode; ``demo``: make
demo).  See README.md, "Experiment harness", for the full format, and
scenarios/*.toml for examples.
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import json
import re
import tomllib
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from testbed import TOP
from testbed.net import topologies
from testbed.net.path import Link
from testbed.traffic.flows import Flow

SCENARIO_DIR = TOP / "scenarios"

# For the time estimate (Scenario.estimate_s), measured under TCG: CPU
# seconds a point costs besides its flows, and what a wave adds to them.
OVERHEAD_S = 1.0
WAVE_S = 5.0


class ScenarioError(ValueError):
    """A scenario file that cannot be used; the message says where and why."""


# -- schema -------------------------------------------------------------------

# the type(s) a key's value may have
KeyType = type | tuple[type, ...]

TOP_KEYS: dict[str, KeyType] = {
    "name": str,
    "title": str,
    "paper": str,
    "description": str,
    "duration_s": (int, float),
    "runs": int,
    "parallel": int,
    "sync": bool,
    "seed": int,
    "sample_s": (int, float),
    "topology": dict,
    "sweep": dict,
    "vars": dict,
    "flows": list,
    "traffic": list,
    "modules": dict,
    "sysctls": dict,
    "monitor": dict,
    "metrics": dict,
    "report": dict,
    "profiles": dict,
    "overrides": list,
    "exclude": list,
}
REQUIRED = ("name", "title", "duration_s", "topology", "flows")
FLOW_KEYS: dict[str, KeyType] = {
    "src": str,
    "dst": str,
    "cc": str,
    "start_s": (int, float),
    "duration_s": (int, float),
    "count": int,
    "label": str,
    "mss": int,
    "timeout_s": (int, float),
}
TRAFFIC_KEYS: dict[str, dict[str, KeyType]] = {
    "udp_cbr": {
        "src": str,
        "dst": str,
        "rate_kbit": (int, float),
        "start_s": (int, float),
        "duration_s": (int, float),
        "size": int,
        "label": str,
    },
    "udp_onoff": {
        "src": str,
        "dst": str,
        "rate_kbit": (int, float),
        "sources": int,
        "on_mean_s": (int, float),
        "off_mean_s": (int, float),
        "min_on_s": (int, float),
        "start_s": (int, float),
        "end_s": (int, float),
        "size": int,
        "label": str,
    },
    "udp_schedule": {
        "src": str,
        "dst": str,
        "bursts": list,
        "size": int,
        "label": str,
    },
    "tcp_onoff": {
        "src": str,
        "dst": str,
        "cc": str,
        "on_mean_s": (int, float),
        "off_mean_s": (int, float),
        "start_s": (int, float),
        "end_s": (int, float),
        "label": str,
    },
}
MONITOR_KEYS: dict[str, KeyType] = {
    "queues": list,
    "air": list,
    "ping": (bool, list),
    "ss": bool,
    "trace": list,
    "groundtruth": bool,
    "fading": dict,
}
METRICS_KEYS: dict[str, KeyType] = {
    "bottleneck": str,
    "window_s": list,
    "main": list,
    "share": list,  # [group a, group b]: a's mean per-flow goodput over b's
}
REPORT_KEYS: dict[str, KeyType] = {"figures": list, "tables": list, "notes": str}
FIGURE_KEYS: dict[str, KeyType] = {
    "kind": str,
    "x": str,
    "y": str,
    "series": str,
    "facet": str,
    "select": dict,
    "xscale": str,
    "yscale": str,
    "title": str,
    "xlabel": str,
    "ylabel": str,
    "ceiling": bool,
    "name": str,
    "ymin": (int, float),
    "ymax": (int, float),
}
TABLE_KEYS: dict[str, KeyType] = {
    "rows": str,
    "cols": str,
    "value": str,
    "facet": str,
    "select": dict,
    "title": str,
    "fmt": str,
    "name": str,
    "spread": bool,
}
FIGURE_KINDS = ("lines", "bars", "timeseries", "scatter")


def _typename(t: KeyType) -> str:
    ts = t if isinstance(t, tuple) else (t,)
    names = {
        int: "an integer",
        float: "a number",
        str: "a string",
        dict: "a table",
        list: "an array",
        bool: "true/false",
    }
    return " or ".join(dict.fromkeys(names.get(x, x.__name__) for x in ts))


def _check_table(
    where: str,
    table: Any,
    keys: dict[str, KeyType],
    required: tuple[str, ...] = (),
) -> None:
    if not isinstance(table, dict):
        raise ScenarioError(f"{where}: expected a table, got {table!r}")
    for k in required:
        if k not in table:
            raise ScenarioError(f"{where}: missing required key '{k}'")
    for k, v in table.items():
        if k not in keys:
            raise ScenarioError(f"{where}: unknown key '{k}' (known: {', '.join(sorted(keys))})")
        if _is_ref(v):
            continue  # checked after substitution
        t = keys[k]
        ts = t if isinstance(t, tuple) else (t,)
        if isinstance(v, bool) and bool not in ts:
            raise ScenarioError(f"{where}.{k}: expected {_typename(t)}, got {v!r}")
        if not isinstance(v, ts):
            raise ScenarioError(f"{where}.{k}: expected {_typename(t)}, got {v!r}")


_REF = re.compile(r"\$\{([A-Za-z_][\w.]*)\}")


def _is_ref(v: Any) -> bool:
    return isinstance(v, str) and _REF.search(v) is not None


def _lookup(name: str, env: dict[str, Any], where: str) -> Any:
    head, *rest = name.split(".")
    if head not in env:
        raise ScenarioError(f"{where}: '${{{name}}}': no sweep axis or var named '{head}'")
    v = env[head]
    for part in rest:
        if not isinstance(v, dict) or part not in v:
            raise ScenarioError(f"{where}: '${{{name}}}': '{part}' not found in {v!r}")
        v = v[part]
    return v


def substitute(obj: Any, env: dict[str, Any], where: str = "") -> Any:
    """Replace ``${name}`` references in strings (recursively) by values from ``env``."""
    if isinstance(obj, dict):
        return {k: substitute(v, env, f"{where}.{k}" if where else k) for k, v in obj.items()}
    if isinstance(obj, list):
        return [substitute(v, env, f"{where}[{i}]") for i, v in enumerate(obj)]
    if isinstance(obj, str):
        m = _REF.fullmatch(obj)
        if m:
            return copy.deepcopy(_lookup(m[1], env, where))
        return _REF.sub(lambda m: _fmt(_lookup(m[1], env, where)), obj)
    return obj


def _fmt(v: Any) -> str:
    if isinstance(v, dict) and "label" in v:
        return str(v["label"])
    return f"{v:g}" if isinstance(v, float) else str(v)


def deep_merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    """Tables merge recursively; anything else in ``over`` replaces ``base``."""
    out = dict(base)
    for k, v in over.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = deep_merge(out[k], v)
        else:
            out[k] = copy.deepcopy(v)
    return out


def display(v: Any) -> Any:
    """The value of a sweep axis as shown in ids, tables and plots."""
    if isinstance(v, dict):
        if "label" not in v:
            raise ScenarioError(f"sweep value {v!r}: a table needs a 'label'")
        return v["label"]
    return v


def slug(v: Any) -> str:
    s = _fmt(v) if not isinstance(v, str) else v
    return re.sub(r"[^A-Za-z0-9.+_-]+", "-", s).strip("-") or "x"


# -- points -------------------------------------------------------------------


@dataclass
class Point:
    """One trial of a scenario: a set of axis values and a run number."""

    scenario: str
    values: dict[str, Any]  # axis -> displayed value
    run: int
    spec: dict[str, Any]  # the scenario with every reference replaced
    seed: int
    axes: dict[str, Any] = field(default_factory=dict)  # axis -> raw value
    # cross traffic schedules depend on the run only: within a run, every
    # scheme and condition faces the same on/off pattern
    traffic_seed: int = 0
    # at most this many points at a time while this one runs (an override's
    # ``parallel``; None: the scenario's); not part of the identity
    parallel: int | None = None

    def concurrency(self, parallel: int) -> int:
        """How many points may run at once with this one, under a scenario
        that runs ``parallel`` at a time."""
        return max(1, min(parallel, self.parallel or parallel))

    @property
    def id(self) -> str:
        parts = [f"{k}={slug(v)}" for k, v in self.values.items()]
        return ",".join([*parts, f"run={self.run}"])

    @property
    def identity(self) -> str:
        """A hash of everything that makes this trial what it is: the fully
        resolved spec (topology, flows, traffic, duration, module parameters,
        sysctls, monitors, after profile and ``--set`` overrides), its seeds and
        its run.  A result is reused only for a point of the same identity."""
        what = {"spec": self.spec, "seed": self.seed, "traffic": self.traffic_seed, "run": self.run}
        text = json.dumps(what, sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    @property
    def key(self) -> tuple[tuple[str, Any], ...]:
        """The point without its run: runs of the same key are repetitions."""
        return tuple(self.values.items())

    def links(self) -> list[Link]:
        topo = dict(self.spec["topology"])
        name = topo.pop("name")
        try:
            return topologies.links(name, **topo)
        except (ValueError, KeyError, TypeError) as e:
            raise ScenarioError(f"{self.scenario} [{self.id}]: topology: {e}") from e

    def flows(self) -> list[Flow]:
        duration = float(self.spec["duration_s"])
        out: list[Flow] = []
        for i, f in enumerate(self.spec["flows"]):
            count = int(f.get("count", 1))
            start = float(f.get("start_s", 0))
            base = f.get("label") or f["cc"]
            for j in range(count):
                label = base if count == 1 else f"{base}#{j + 1}"
                out.append(
                    Flow(
                        src=f["src"],
                        dst=f["dst"],
                        cc=f["cc"],
                        duration_s=float(f.get("duration_s", duration - start)),
                        start_s=start,
                        label=label,
                        group=base,
                        mss=f.get("mss"),
                        timeout_s=float(f["timeout_s"]) if "timeout_s" in f else None,
                        index=i,
                    )
                )
        return out

    def modules(self) -> dict[str, dict[str, Any]]:
        return copy.deepcopy(self.spec.get("modules", {}))

    def ccs(self) -> list[str]:
        """Every congestion control the point needs (flows and TCP cross traffic)."""
        ccs = [f.cc for f in self.flows()]
        ccs += [
            t.get("cc", "reno") for t in self.spec.get("traffic", []) if t["kind"] == "tcp_onoff"
        ]
        return list(dict.fromkeys(ccs))


@dataclass
class Scenario:
    name: str
    path: Path
    raw: dict[str, Any]

    @property
    def title(self) -> str:
        return str(self.raw["title"])

    def profiles(self) -> list[str]:
        return sorted(self.raw.get("profiles", {}))

    # overrides (``--set``) applied after any profile, e.g. {"runs": 1}
    overrides: dict[str, Any] = field(default_factory=dict)

    def resolved(self, profile: str | None = None) -> dict[str, Any]:
        """The scenario with a profile's overrides merged in (none or "full": the file),
        then :attr:`overrides`."""
        data = {k: v for k, v in self.raw.items() if k != "profiles"}
        if profile and profile != "full":
            profiles = self.raw.get("profiles", {})
            if profile not in profiles:
                raise ScenarioError(
                    f"{self.path.name}: no [profiles.{profile}] (has: {', '.join(profiles)})"
                )
            data = deep_merge(data, profiles[profile])
        if self.overrides:
            data = deep_merge(data, self.overrides)
        return data

    def points(self, profile: str | None = None) -> list[Point]:
        data = self.resolved(profile)
        where = self.path.name + (f" (profile {profile})" if profile else "")
        _validate(data, where, declared_sweep(self.raw))
        sweep: dict[str, list[Any]] = data.get("sweep", {})
        axes = list(sweep)
        runs = int(data.get("runs", 1))
        base_seed = int(data.get("seed", 1))
        body_keys = ("topology", "flows", "traffic", "modules", "sysctls", "monitor", "metrics")
        base = {k: data[k] for k in body_keys if k in data}
        base["duration_s"] = data["duration_s"]
        base["sample_s"] = data.get("sample_s", 0.5)
        out = []
        for run in range(runs):
            for combo in itertools.product(*(sweep[a] for a in axes)):
                values = {a: display(v) for a, v in zip(axes, combo, strict=True)}
                if any(
                    all(_same(values.get(k), v) for k, v in ex.items())
                    for ex in data.get("exclude", [])
                ):
                    continue
                body, limit = base, None
                for o in data.get("overrides", []):
                    if all(_same(values.get(k), v) for k, v in o["when"].items()):
                        body = deep_merge(body, o["set"])
                        if "parallel" in o["set"]:  # the smallest of those that match
                            limit = min(limit or o["set"]["parallel"], o["set"]["parallel"])
                body = {k: v for k, v in body.items() if k != "parallel"}
                ident = ",".join(f"{a}={slug(v)}" for a, v in values.items())
                seed = zlib.crc32(f"{self.name}/{ident}/run={run}/{base_seed}".encode())
                env = {
                    **data.get("vars", {}),
                    **dict(zip(axes, combo, strict=True)),
                    "run": run,
                    "duration_s": data["duration_s"],
                    "seed": seed,
                }
                spec = substitute(body, env, where)
                tseed = zlib.crc32(f"{self.name}/traffic/run={run}/{base_seed}".encode())
                point = Point(
                    self.name,
                    values,
                    run,
                    spec,
                    seed,
                    dict(zip(axes, combo, strict=True)),
                    tseed,
                    limit,
                )
                _validate_point(point, where)
                out.append(point)
        return out

    def estimate_s(self, profile: str | None = None) -> float:
        """Rough wall time of the scenario under TCG with 2 vCPUs.

        Points run ``parallel`` at a time (or fewer, where an override
        says so, in a group of their own): each wave lasts the flows'
        duration plus a few seconds, and every point costs CPU time for
        setting up and tearing down its namespaces and processes (measured:
        about 0.25 s per namespace, 0.1 s per flow, 0.5 s per captured flow,
        on top of 1 s), which the two vCPUs work through between the flows.
        """
        data = self.resolved(profile)
        pts = self.points(profile)
        if not pts:
            return 0.0
        par = max(1, int(data.get("parallel", 1)))
        waves, flow_time = 0, 0.0
        for n, group in by_concurrency(pts, par):
            durations = [float(pt.spec["duration_s"]) for pt in group]
            waves += -(-len(durations) // n)
            flow_time += max(max(durations), sum(durations) / n)
        p = pts[0]
        links = p.links()
        spaces = len({n for lk in links for n in (lk.a, lk.b)}) + len(links)
        flows = max(len(pt.flows()) for pt in pts[:20]) + len(p.spec.get("traffic", []))
        capture = 0.5 * flows if p.spec.get("monitor", {}).get("groundtruth") else 0.0
        per_point = OVERHEAD_S + 0.25 * spaces + 0.1 * flows + capture
        return flow_time + waves * WAVE_S + len(pts) * per_point


def by_concurrency(points: list[Point], parallel: int) -> list[tuple[int, list[Point]]]:
    """Points in groups that run ``n`` at a time (:meth:`Point.concurrency`
    under a scenario of ``parallel``), in the order of their first point; the
    order of points within a group is kept."""
    groups: dict[int, list[Point]] = {}
    for p in points:
        groups.setdefault(p.concurrency(parallel), []).append(p)
    return list(groups.items())


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, int | float) and isinstance(b, int | float):
        return abs(a - b) <= 1e-12 * max(1.0, abs(a), abs(b))
    return str(a) == str(b)


OVERRIDE_KEYS = {
    "duration_s", "topology", "flows", "traffic", "modules", "sysctls", "monitor", "parallel",
}  # fmt: skip


def declared_sweep(raw: dict[str, Any]) -> dict[str, list[Any]]:
    """Every value of each sweep axis that a scenario file names, in its
    ``[sweep]`` or a profile's."""
    out: dict[str, list[Any]] = {}
    profiles = raw.get("profiles", {})
    for sweep in [raw.get("sweep", {}), *(p.get("sweep", {}) for p in profiles.values()
                                          if isinstance(p, dict))]:  # fmt: skip
        for axis, values in sweep.items():
            out.setdefault(axis, []).extend(values if isinstance(values, list) else [values])
    return out


def _validate(data: dict[str, Any], where: str, declared: dict[str, Any] | None = None) -> None:
    """Check a resolved scenario.  ``declared``: the sweep values the file
    names (:func:`declared_sweep`); an override's or exclusion's value may be
    one that a profile or ``--set`` left out of the sweep (it then matches
    nothing)."""
    for k in REQUIRED:
        if k not in data:
            raise ScenarioError(f"{where}: missing required key '{k}'")
    _check_table(where, data, TOP_KEYS)
    if data["duration_s"] <= 0:
        raise ScenarioError(f"{where}: duration_s must be positive")
    for key in ("runs", "parallel"):
        if key in data and data[key] < 1:
            raise ScenarioError(f"{where}: {key} must be at least 1")
    topo = data["topology"]
    if "name" not in topo:
        raise ScenarioError(f"{where}: [topology] needs 'name' (one of {topologies.names()})")
    if topo["name"] not in topologies.names():
        raise ScenarioError(
            f"{where}: unknown topology '{topo['name']}' (known: {', '.join(topologies.names())})"
        )
    known = topologies.parameters(topo["name"])
    for k in topo:
        if k != "name" and k not in known:
            raise ScenarioError(
                f"{where}: [topology] {topo['name']} has no parameter '{k}' "
                f"(known: {', '.join(known)})"
            )
    for axis, values in data.get("sweep", {}).items():
        if not isinstance(values, list) or not values:
            raise ScenarioError(f"{where}: sweep.{axis}: expected a non-empty array of values")
        for v in values:
            if isinstance(v, dict) and "label" not in v:
                raise ScenarioError(f"{where}: sweep.{axis}: table value {v!r} needs a 'label'")
        labels = [display(v) for v in values]
        if len(set(map(str, labels))) != len(labels):
            raise ScenarioError(f"{where}: sweep.{axis}: duplicate values {labels}")
    reserved = {"run", "duration_s", "seed"}
    clash = reserved & (set(data.get("sweep", {})) | set(data.get("vars", {})))
    if clash:
        raise ScenarioError(f"{where}: sweep/vars may not be named {sorted(clash)}")
    if not data["flows"]:
        raise ScenarioError(f"{where}: [[flows]] is empty")
    sweep = data.get("sweep", {})

    def check_value(w: str, k: str, v: Any) -> None:
        if k not in sweep:
            raise ScenarioError(f"{w}: '{k}' is not a sweep axis")
        values = [*sweep[k], *(declared or {}).get(k, [])]
        if not any(_same(display(x), v) for x in values):
            raise ScenarioError(f"{w}: {k} = {v!r} is not one of its values")

    for i, o in enumerate(data.get("overrides", [])):
        w = f"{where}: overrides[{i}]"
        if not isinstance(o, dict) or set(o) != {"when", "set"}:
            raise ScenarioError(f"{w}: expected a table with 'when' and 'set'")
        for k, v in o["when"].items():
            check_value(f"{w}.when", k, v)
        bad = set(o["set"]) - OVERRIDE_KEYS
        if bad:
            raise ScenarioError(f"{w}.set: cannot override {sorted(bad)}")
        par = o["set"].get("parallel", 1)
        if not isinstance(par, int) or isinstance(par, bool) or par < 1:
            raise ScenarioError(f"{w}.set: parallel must be an integer of at least 1")
    for i, ex in enumerate(data.get("exclude", [])):
        w = f"{where}: exclude[{i}]"
        if not isinstance(ex, dict) or not ex:
            raise ScenarioError(f"{w}: expected a table of sweep axis = value")
        for k, v in ex.items():
            check_value(w, k, v)
    for i, f in enumerate(data["flows"]):
        _check_table(f"{where}: flows[{i}]", f, FLOW_KEYS, ("src", "dst", "cc"))
    for i, t in enumerate(data.get("traffic", [])):
        w = f"{where}: traffic[{i}]"
        if not isinstance(t, dict) or t.get("kind") not in TRAFFIC_KEYS:
            raise ScenarioError(f"{w}: 'kind' must be one of {', '.join(TRAFFIC_KEYS)}")
        _check_table(w, {k: v for k, v in t.items() if k != "kind"}, TRAFFIC_KEYS[t["kind"]])
        for k in ("src", "dst"):
            if k not in t:
                raise ScenarioError(f"{w}: missing required key '{k}'")
    if "monitor" in data:
        _check_table(f"{where}: [monitor]", data["monitor"], MONITOR_KEYS)
    if "metrics" in data:
        _check_table(f"{where}: [metrics]", data["metrics"], METRICS_KEYS)
    report = data.get("report", {})
    _check_table(f"{where}: [report]", report, REPORT_KEYS)
    names = set(data.get("sweep", {})) | {"run", "group", "flow", "t"}
    for i, fig in enumerate(report.get("figures", [])):
        w = f"{where}: report.figures[{i}]"
        _check_table(w, fig, FIGURE_KEYS, ("kind", "y"))
        if fig["kind"] not in FIGURE_KINDS:
            raise ScenarioError(f"{w}: kind must be one of {', '.join(FIGURE_KINDS)}")
        # a scatter's x is a metric (e.g. rtt.qdelay_p95_ms), its series an axis
        for k in ("series", "facet") if fig["kind"] == "scatter" else ("x", "series", "facet"):
            if k in fig and fig[k] not in names:
                raise ScenarioError(f"{w}: {k} '{fig[k]}' is not a sweep axis or group/flow")
        if fig["kind"] != "timeseries" and "x" not in fig:
            raise ScenarioError(f"{w}: a '{fig['kind']}' figure needs 'x'")
        if fig["kind"] == "scatter" and "series" not in fig:
            raise ScenarioError(f"{w}: a 'scatter' figure needs 'series' (the schemes)")
    for i, tab in enumerate(report.get("tables", [])):
        w = f"{where}: report.tables[{i}]"
        _check_table(w, tab, TABLE_KEYS, ("rows", "value"))
        for k in ("rows", "cols", "facet"):
            if k in tab and tab[k] not in names:
                raise ScenarioError(f"{w}: {k} '{tab[k]}' is not a sweep axis or group/flow")


def _validate_point(point: Point, where: str) -> None:
    spec = point.spec
    w = f"{where} [{point.id}]"
    links = point.links()
    nodes = {n for link in links for n in (link.a, link.b)}
    for i, f in enumerate(spec["flows"]):
        _check_table(f"{w}: flows[{i}]", f, FLOW_KEYS, ("src", "dst", "cc"))
        for k in ("src", "dst"):
            if f[k] not in nodes:
                raise ScenarioError(
                    f"{w}: flows[{i}].{k}: no node '{f[k]}' (nodes: {', '.join(sorted(nodes))})"
                )
        if f.get("count", 1) < 0:
            raise ScenarioError(f"{w}: flows[{i}].count must not be negative")
        start = f.get("start_s", 0)
        if start >= spec["duration_s"] and "duration_s" not in f:
            raise ScenarioError(f"{w}: flows[{i}] starts after the scenario ends")
    for i, t in enumerate(spec.get("traffic", [])):
        for k in ("src", "dst"):
            if t[k] not in nodes:
                raise ScenarioError(f"{w}: traffic[{i}].{k}: no node '{t[k]}'")
        if t["kind"] == "udp_schedule":
            for b in t["bursts"]:
                if not (isinstance(b, list) and len(b) == 3):
                    raise ScenarioError(
                        f"{w}: traffic[{i}].bursts: expected [start_s, duration_s, rate_kbit], "
                        f"got {b!r}"
                    )
    mon = spec.get("monitor", {})
    for d in [*mon.get("queues", []), *mon.get("air", [])]:
        if not any(d in (f"{link.a}->{link.b}", f"{link.b}->{link.a}") for link in links):
            raise ScenarioError(f"{w}: monitor: no link direction '{d}'")
    bott = spec.get("metrics", {}).get("bottleneck")
    if bott and not any(bott in (f"{lk.a}->{lk.b}", f"{lk.b}->{lk.a}") for lk in links):
        raise ScenarioError(f"{w}: metrics.bottleneck: no link direction '{bott}'")
    for name, params in spec.get("modules", {}).items():
        if not isinstance(params, dict):
            raise ScenarioError(f"{w}: modules.{name}: expected a table of parameters")


def parse_set(items: list[str]) -> dict[str, Any]:
    """``["runs=1", "sweep.cc=reno,bbr", "topology.loss=0.01"]`` -> nested overrides.

    Values are TOML (``1``, ``0.01``, ``"x"``, ``[1, 2]``, ``{kind = "cw"}``);
    a bare comma-separated list is an array; anything else is a string.  A
    sweep axis takes one value as a one-value array (``sweep.cc=reno``).
    """
    out: dict[str, Any] = {}
    for item in items:
        key, sep, text = item.partition("=")
        if not sep or not key:
            raise ScenarioError(f"--set {item!r}: expected KEY=VALUE")
        val: Any
        try:
            val = tomllib.loads(f"v = {text}")["v"]
        except tomllib.TOMLDecodeError:
            val = [parse_set([f"v={x}"])["v"] for x in text.split(",")] if "," in text else text
        node = out
        *path, last = key.split(".")
        if path == ["sweep"] and not isinstance(val, list):
            val = [val]
        for part in path:
            node = node.setdefault(part, {})
        node[last] = val
    return out


def load(name: str | Path, overrides: dict[str, Any] | None = None) -> Scenario:
    """A scenario by name (``scenarios/NAME.toml``) or path; checks its syntax and schema."""
    path = Path(name)
    if path.suffix != ".toml":
        path = SCENARIO_DIR / f"{name}.toml"
    if not path.exists():
        known = ", ".join(names())
        raise ScenarioError(f"no scenario file {path} (known: {known})")
    try:
        raw = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as e:
        raise ScenarioError(f"{path.name}: TOML syntax: {e}") from e
    if raw.get("name") != path.stem:
        raise ScenarioError(f"{path.name}: name = {raw.get('name')!r} must be {path.stem!r}")
    sc = Scenario(path.stem, path, raw, overrides or {})
    declared = declared_sweep(raw)
    _validate(sc.resolved(), path.name, declared)
    for prof, over in raw.get("profiles", {}).items():
        if not isinstance(over, dict):
            raise ScenarioError(f"{path.name}: profiles.{prof}: expected a table")
        _validate(sc.resolved(prof), f"{path.name} (profile {prof})", declared)
    return sc


def names() -> list[str]:
    return sorted(p.stem for p in SCENARIO_DIR.glob("*.toml"))
