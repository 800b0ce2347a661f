"""Run scenarios on the target kernel (in the VM, or on a host that loads modules).

:class:`Runner` (``python -m testbed run --here``, which ``python -m testbed
run`` starts in the VM) runs every point of each scenario (see
:mod:`testbed.run.scenario`) and writes one JSON per point to
``DIR/<scenario>/runs/<point id>.json`` with all parameters, seeds,
versions and results, and its compact record (:mod:`testbed.run.compact`:
without trace events and time series; tracked by git where ``runs/`` is
not) to ``DIR/<scenario>/points/<point id>.json``.  A point whose JSON (or,
without it, compact record) exists with status "ok" is skipped, so an
interrupted sweep resumes where it stopped, in a fresh clone too (only
points of the same identity, kernel and commit count: after a code change
the same command measures every point again); points whose
congestion control the kernel lacks are recorded as "unavailable" (and
retried next time).  Points run ``parallel`` at a time (from the scenario
file; an override's ``parallel`` runs its points fewer at a time, in a group
of their own); points that need different module parameters run in separate
groups, the modules reloaded in between.  Progress goes to stderr.

The testbed's ECN policy: every node has ``net.ipv4.tcp_ecn=1`` and
``net.ipv4.tcp_ecn_fallback=0`` (with the default fallback a lost SYN makes
Linux retry it without ECN, and on a lossy path a few connections would run
without loss differentiation) unless the scenario says otherwise, and our
ECN-based modules are loaded with ``needs_ecn=0`` (RFC 3168 negotiation,
which Linux receivers accept; with the modules' default the SYN is ECT and
receivers decline ECN unless their listener's CC needs it).  Both are recorded in every result.
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import replace
from pathlib import Path
from typing import Any

from testbed import TOP, modules
from testbed.analysis import metrics
from testbed.measure.trace import TraceStream
from testbed.net.fading import Fading, combine
from testbed.net.path import IP, TC, Link, Loss, direction
from testbed.programs import require
from testbed.run import compact, scenario
from testbed.run.records import PointRecord, ScenarioStatus
from testbed.run.trial import ECN_SYSCTLS, Trial, environment, run_trial
from testbed.traffic.cross import sources

AVAILABLE = Path("/proc/sys/net/ipv4/tcp_available_congestion_control")
TRACEFS_EVENTS = Path("/sys/kernel/tracing/events")
# testbed policy (see module docstring), overridable per scenario
DEFAULT_SYSCTLS = {"*": ECN_SYSCTLS}
ECN_MODULE_PARAMS = {"needs_ecn": 0}
# the kernel's CCs that set TCP_CONG_NEEDS_ECN (ECT SYN): their receivers'
# default CC is set to the same, so that the listener accepts ECN
LISTENER_NEEDS_ECN = {"dctcp"}
NETEM_SEED_NOTE = (
    "netem draws losses from the kernel PRNG: Debian 6.1 has no seed attribute and "
    "iproute2 6.1's tc cannot set the one 6.12 has, so losses are not reproducible "
    "sample paths; runs are independent samples (hence medians)"
)


def log(msg: str) -> None:
    print(f"harness: {msg}", file=sys.stderr, flush=True)


# -- congestion controls and modules ----------------------------------------------


def available_ccs() -> set[str]:
    return set(AVAILABLE.read_text().split()) if AVAILABLE.exists() else set()


def ensure_cc(cc: str) -> bool:
    """Make ``cc`` available if the kernel or our build has it; True if it is."""
    if cc in available_ccs():
        return True
    try:
        modules.load(f"tcp_{cc}")
    except (FileNotFoundError, RuntimeError):
        subprocess.run(["modprobe", "-q", f"tcp_{cc}"], capture_output=True)
    if cc in available_ccs():
        allowed = Path("/proc/sys/net/ipv4/tcp_allowed_congestion_control")
        allowed.write_text(" ".join(sorted(available_ccs())))
        return True
    return False


def ours(cc: str) -> bool:
    """Is ``cc`` one of our modules (built for this kernel)?"""
    return f"tcp_{cc}" in modules.ours()


def module_params(point: scenario.Point) -> dict[str, dict[str, str]]:
    """Parameters of our modules for a point: the ECN policy (every module of
    ours that has ``needs_ecn``), then the scenario's ``[modules]``."""
    out: dict[str, dict[str, str]] = {}
    for mod in modules.ours():
        if "needs_ecn" in module_param_names(mod):
            out[mod] = {k: str(v) for k, v in ECN_MODULE_PARAMS.items()}
    for mod, params in point.modules().items():
        out.setdefault(mod, {}).update({k: str(v) for k, v in params.items()})
    return out


def compatible(a: dict[str, dict[str, str]], b: dict[str, dict[str, str]]) -> bool:
    """Can points needing ``a`` and ``b`` run with the same modules loaded?"""
    return all(a[m] == b[m] for m in set(a) & set(b))


def group_by_modules(
    points: list[scenario.Point], params: dict[str, dict[str, dict[str, str]]]
) -> list[tuple[dict[str, dict[str, str]], list[scenario.Point]]]:
    """Points in as few groups as possible whose module parameters agree."""
    groups: list[tuple[dict[str, dict[str, str]], list[scenario.Point]]] = []
    for p in points:
        mp = params[p.id]
        for gp, members in groups:
            if compatible(gp, mp):
                gp.update(mp)
                members.append(p)
                break
        else:
            groups.append((dict(mp), [p]))
    return groups


_param_names: dict[str, set[str]] = {}


def module_param_names(module: str) -> set[str]:
    if module not in _param_names:
        try:
            ko = modules.ko_path(module)
            out = subprocess.run(["modinfo", "-F", "parm", str(ko)], capture_output=True, text=True)
            _param_names[module] = {ln.split(":")[0] for ln in out.stdout.splitlines() if ln}
        except FileNotFoundError:
            _param_names[module] = set()
    return _param_names[module]


# a connection of the previous points may still be closing over a lossy link
# (a FIN in RTO backoff at BER 1e-4 holds its module for minutes)
UNLOAD_WAIT_S = 600.0


def apply_modules(params: dict[str, dict[str, str]]) -> dict[str, dict[str, str]]:
    """(Re)load our modules with ``params``; returns what the kernel reports."""
    out = {}
    for mod, values in sorted(params.items()):
        if mod in modules.ours():
            out[mod] = modules.load(mod, unload_wait_s=UNLOAD_WAIT_S, **values)
        else:  # a kernel module: runtime-writable parameters only
            subprocess.run(["modprobe", "-q", mod], capture_output=True)
            for k, v in values.items():
                (Path("/sys/module") / mod / "parameters" / k).write_text(str(v))
            out[mod] = modules.params(mod)
    return out


def loss_events(ccs: list[str], extra: list[str]) -> list[str]:
    """Tracepoints to record: ``<cc>/<cc>_loss`` of our CCs that define it, plus extras."""
    events = []
    for cc in ccs:
        if (TRACEFS_EVENTS / cc / f"{cc}_loss").is_dir():
            events.append(f"{cc}/{cc}_loss")
    events += [e.replace(":", "/") for e in extra]
    return list(dict.fromkeys(events))


# -- versions -------------------------------------------------------------------


def _first_line(argv: list[str]) -> str:
    try:
        p = subprocess.run(argv, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return "unavailable"
    return (p.stdout or p.stderr).strip().splitlines()[0] if (p.stdout or p.stderr) else ""


def versions() -> dict[str, str]:
    out = {
        "kernel": platform.release(),
        "python": platform.python_version(),
        "iperf3": _first_line(["iperf3", "--version"]),
        "tc": f"{TC}: {_first_line([TC, '-V'])}",
        "ip": _first_line(["ip", "-V"]),
        "ping": _first_line(["ping", "-V"]),
        "ss": _first_line(["ss", "-V"]),
    }
    try:
        from mininet.net import VERSION

        out["mininet"] = VERSION
    except ImportError:
        out["mininet"] = "unavailable"
    return out


# -- points -----------------------------------------------------------------------


def point_file(out: Path, point: scenario.Point) -> Path:
    """A point's full JSON."""
    return out / point.scenario / compact.RUNS / f"{point.id}.json"


def record_file(out: Path, point: scenario.Point) -> Path:
    """A point's compact record (:mod:`testbed.run.compact`)."""
    return out / point.scenario / compact.POINTS / f"{point.id}.json"


def same_code(doc_meta: Mapping[str, Any], meta: Mapping[str, Any]) -> bool:
    """Was a result measured with the code about to run: the same commit, and
    neither tree had uncommitted changes (which the commit does not pin)?
    Without a commit to compare with (a run outside a checkout) only the
    identity counts."""
    if not meta.get("commit"):
        return True
    return bool(
        doc_meta.get("commit") == meta["commit"]
        and doc_meta.get("dirty") == "no"
        and meta.get("dirty") == "no"
    )


def done(
    path: Path,
    point: scenario.Point,
    kernel: str | None = None,
    meta: Mapping[str, Any] | None = None,
    at_once: int | None = None,
) -> bool:
    """Has this point a finished result (status ok) of the same identity
    (:attr:`testbed.run.scenario.Point.identity`) on this kernel, measured
    with this code (:func:`same_code`, @meta: the run's git commit) and, if
    @at_once is given, that many points at a time?  A result of another spec,
    duration, module parameters, overrides, kernel, commit or concurrency is
    run again (and replaced).  Concurrency is not part of the identity (it
    should not change a result: the calibration checks that it does not), so
    a point's pages and its calibration compare points of one identity."""
    if not path.exists():
        return False
    try:
        doc = json.loads(path.read_text())
    except (json.JSONDecodeError, OSError):
        return False
    return bool(
        doc.get("status") == "ok"
        and doc.get("identity") == point.identity
        and doc.get("versions", {}).get("kernel") == (kernel or platform.release())
        and same_code(doc.get("meta") or {}, meta or {})
        and (at_once is None or doc.get("parallel") == at_once)
    )


def point_done(
    out: Path,
    point: scenario.Point,
    kernel: str | None = None,
    meta: Mapping[str, Any] | None = None,
    at_once: int | None = None,
) -> bool:
    """Is ``point`` :func:`done` in ``out``: by its full JSON, or where that
    is missing (a fresh clone: ``runs/`` is not tracked) by its compact
    record?"""
    path = point_file(out, point)
    if not path.exists():
        path = record_file(out, point)
    return done(path, point, kernel, meta, at_once)


def write_json(path: Path, doc: Mapping[str, object]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(doc, indent=1, default=str))
    os.replace(tmp, path)


def write_point(out: Path, point: scenario.Point, doc: Mapping[str, object]) -> None:
    """A point's full JSON, then its compact record (made from the JSON as
    written, as the report reads it back; one that cannot be made is said,
    not fatal: ``report --records`` makes it from the full JSON later)."""
    write_json(point_file(out, point), doc)
    try:
        compact.write(record_file(out, point), json.loads(json.dumps(doc, default=str)))
    except Exception as e:  # a point measured must not stop the sweep
        log(f"[{point.scenario}] {point.id}: no compact record: {type(e).__name__}: {e}")


class Captures:
    """A trial monitor: :class:`testbed.measure.groundtruth.Capture` of every main flow.

    Each flow's data segments are captured (headers only) before every place
    on its route that can drop them; the merged document has the per-sender-
    port transmissions and fates that :func:`testbed.measure.groundtruth.classify`
    matches to the loss decisions, ``fate_counts`` summed over the flows and
    each flow's capture points and statistics under ``flows``.
    """

    def __init__(self, indices: list[int], buffer_kb: int = 8192):
        self.indices = indices
        self.buffer_kb = buffer_kb

    def __call__(
        self, path: Any, trial: Trial
    ) -> contextlib.AbstractContextManager[dict[str, Any]]:
        return self._run(path, trial)

    @contextlib.contextmanager
    def _run(self, path: Any, trial: Trial) -> Iterator[dict[str, Any]]:
        from testbed.measure.groundtruth import Capture

        out: dict[str, Any] = {}
        docs: list[dict[str, Any]] = []
        with contextlib.ExitStack() as stack:
            for i in self.indices:
                docs.append(stack.enter_context(Capture(i, buffer_kb=self.buffer_kb)(path, trial)))
            out["offset"] = docs[0]["offset"] if docs else 0.0
            yield out
        tx: dict[str, list[Any]] = {}
        fates: dict[str, int] = {}
        flows = {}
        for i, d in zip(self.indices, docs, strict=True):
            tx.update(d.get("transmissions", {}))
            for k, v in d.get("fate_counts", {}).items():
                fates[k] = fates.get(k, 0) + v
            flows[str(i)] = {
                k: d.get(k) for k in ("route", "droppers", "points", "capture_stats", "fate_counts")
            }
        out.update(transmissions=tx, fate_counts=fates, flows=flows)


def node_sysctls(nodes: list[str], table: dict[str, dict[str, Any]]) -> dict[str, dict[str, str]]:
    """Per-node sysctls from a scenario table whose ``"*"`` entry applies to every node."""
    out: dict[str, dict[str, str]] = {}
    for node in nodes:
        merged = {**table.get("*", {}), **table.get(node, {})}
        if merged:
            out[node] = {k: str(v) for k, v in merged.items()}
    return out


# kernel memory the captures of all points running at once may take
CAPTURE_BUDGET_KB = 400 * 1024


def capture_buffer_kb(parallel: int, flows: int) -> int:
    """tcpdump's -B for each capture point (about 4 per flow) within the budget."""
    return max(512, min(8192, CAPTURE_BUDGET_KB // max(1, parallel * flows * 4)))


def fading_of(spec: dict[str, Any], links: list[Link], seed: int) -> tuple[list[Link], Fading]:
    """``[monitor] fading``: the papers' Gilbert-Elliott channel in time on one link.

    ``{link = "gw->rcv", good_s = 1, bad_s = 0.05, bad_loss = 1, good_loss = 0}``
    (:class:`testbed.net.fading.Fading`: netem's loss switched on a timer, the
    same schedule for every point of a run).  The link gets ``loss random 0``
    under the monitor so that the ground truth counts its air as a dropper.
    """
    spec = dict(spec)
    where = str(spec.pop("link", ""))
    allowed = {"good_s", "bad_s", "bad_loss", "good_loss"}
    if not set(spec) <= allowed:
        raise ValueError(f"monitor.fading: unknown keys {sorted(set(spec) - allowed)}")
    try:
        i, reverse = direction(links, where)
    except KeyError:
        raise ValueError(f"monitor.fading: no link {where!r} (write it as 'a->b')") from None
    link = links[i]
    if (link.loss_rev if reverse else link.loss) is not None:
        raise ValueError(f"monitor.fading: {where} has its own loss model")
    zero = Loss.random(0)
    links = list(links)
    links[i] = replace(link, loss_rev=zero) if reverse else replace(link, loss=zero)
    fade = Fading(i, **{k: float(v) for k, v in spec.items()}, seed=seed, reverse=reverse)
    return links, fade


def no_monitor(path: Any, trial: Trial) -> contextlib.AbstractContextManager[dict[str, Any]]:
    return contextlib.nullcontext({})


def trial_of(point: scenario.Point, backend: str, parallel: int = 1) -> Trial:
    spec = point.spec
    links = point.links()
    nodes = list(dict.fromkeys(n for link in links for n in (link.a, link.b)))
    mon = dict(spec.get("monitor", {}))
    mon.setdefault("sample_s", spec.get("sample_s", 0.5))
    flows = point.flows()
    table = scenario.deep_merge(DEFAULT_SYSCTLS, spec.get("sysctls", {}))
    for f in flows:
        if f.cc in LISTENER_NEEDS_ECN:
            # the receiver accepts an ECT SYN only if its listener's CC needs ECN
            table = scenario.deep_merge(table, {f.dst: {"net.ipv4.tcp_congestion_control": f.cc}})
    capture: Any = None
    if mon.get("groundtruth") and flows:
        kb = capture_buffer_kb(parallel, len(flows))
        capture = Captures(list(range(len(flows))), buffer_kb=kb)
    if "fading" in mon:
        links, fade = fading_of(mon["fading"], links, point.traffic_seed)
        capture = combine(capture or no_monitor, fading=fade)
    return Trial(
        name=f"{point.scenario}/{point.id}",
        links=links,
        flows=flows,
        sysctls=node_sysctls(nodes, table),
        params={"values": point.values, "run": point.run},
        trace_events=[],  # set by the runner
        traffic=sources(spec.get("traffic", []), float(spec["duration_s"]), point.traffic_seed),
        samplers={k: v for k, v in mon.items() if k not in ("trace", "groundtruth", "fading")},
        backend=backend,
        monitor=capture,
        duration_s=float(spec["duration_s"]),
    )


class Runner:
    def __init__(
        self,
        out: Path,
        profile: str | None,
        backend: str,
        meta: dict[str, Any],
        only: list[str] | None = None,
        deadline: float | None = None,
    ):
        self.out = out
        self.profile = profile
        self.backend = backend
        self.meta = meta
        self.only = only
        # no point starts after this time (epoch seconds; ``run --budget``):
        # those left wait, without a result, for the next run of the command
        self.deadline = deadline
        self.waves: dict[threading.Barrier, bool] = {}  # a wave's barrier: deferred?
        self.versions = versions()
        self.lock = threading.Lock()

    def spent(self) -> bool:
        """Is the time to start points over (``run --budget``)?"""
        return self.deadline is not None and time.time() >= self.deadline

    def deferred(self, barrier: threading.Barrier | None) -> bool:
        """Is a point about to start left for a later run (``run --budget``)?
        The points of one wave (``sync``, one barrier) are all left or all
        run: the first of them to ask decides for its wave."""
        with self.lock:
            if barrier is None:
                return self.spent()
            return self.waves.setdefault(barrier, self.spent())

    def record(self, point: scenario.Point, sc: scenario.Scenario) -> PointRecord:
        data = sc.resolved(self.profile)
        return {
            "scenario": point.scenario,
            "title": sc.title,
            "point": point.id,
            "identity": point.identity,
            "values": point.values,
            "run": point.run,
            "profile": self.profile or "full",
            "backend": self.backend,
            "parallel": point.concurrency(self.parallel(data)),
            "sync": bool(data.get("sync", False)),
            "spec": point.spec,
            "seeds": {
                "point": point.seed,
                "traffic": point.traffic_seed,
                "scenario": data.get("seed", 1),
                "netem": None,
            },
            "notes": {"netem_seed": NETEM_SEED_NOTE},
            "versions": self.versions,
            "meta": self.meta,
        }

    def parallel(self, data: Mapping[str, Any]) -> int:
        """How many points of a scenario run at once (a point's override may
        lower it: :meth:`testbed.run.scenario.Point.concurrency`)."""
        parallel = int(data.get("parallel", 1))
        if self.backend == "mininet":
            parallel = min(parallel, int(os.environ.get("JERSEY_MININET_PARALLEL", "2")))
        return parallel

    def run_scenario(self, sc: scenario.Scenario) -> ScenarioStatus:
        t_start = time.monotonic()
        data = sc.resolved(self.profile)
        points = sc.points(self.profile)
        if self.only:
            points = [p for p in points if any(o in p.id for o in self.only)]
        parallel = self.parallel(data)
        sdir = self.out / sc.name
        sdir.mkdir(parents=True, exist_ok=True)
        write_json(
            sdir / "scenario.json",
            {
                "name": sc.name,
                "title": sc.title,
                "file": str(sc.path.relative_to(TOP) if sc.path.is_relative_to(TOP) else sc.path),
                "profile": self.profile or "full",
                "resolved": data,
                "points": [p.id for p in points],
            },
        )
        counts = {"ok": 0, "skipped": 0, "unavailable": 0, "error": 0, "deferred": 0}
        todo: list[scenario.Point] = []
        for p in points:
            if point_done(self.out, p, meta=self.meta, at_once=p.concurrency(parallel)):
                counts["skipped"] += 1
            else:
                todo.append(p)
        log(
            f"[{sc.name}] {len(points)} points, {counts['skipped']} already done, "
            f"{len(todo)} to run, {parallel} at a time{' in waves' if data.get('sync') else ''}, "
            f"~{sc.estimate_s(self.profile) / 60:.0f} min for all"
        )
        # CC availability, then groups by module parameters
        runnable: list[scenario.Point] = []
        params_of: dict[str, dict[str, dict[str, str]]] = {}
        for p in todo:
            missing = [cc for cc in p.ccs() if not ensure_cc(cc)]
            if missing:
                doc = self.record(p, sc)
                doc["status"], doc["missing"] = "unavailable", missing
                write_point(self.out, p, doc)
                counts["unavailable"] += 1
                continue
            params_of[p.id] = module_params(p)
            runnable.append(p)
        if counts["unavailable"]:
            miss = sorted({cc for p in todo for cc in p.ccs() if cc not in available_ccs()})
            log(f"[{sc.name}] unavailable on this kernel: {', '.join(miss)}")
        groups = group_by_modules(runnable, params_of)
        if len(groups) > 1:
            log(f"[{sc.name}] {len(groups)} groups of module parameters, run one after another")
        fewer = sum(p.concurrency(parallel) < parallel for p in runnable)
        if fewer:
            log(f"[{sc.name}] {fewer} points run fewer at a time (overrides), in their own groups")
        n_run = len(runnable)
        finished = 0
        t_run = time.monotonic()
        # a point's share of the wall time: one slot of its group's pool
        work = {p.id: 1.0 / p.concurrency(parallel) for p in runnable}
        work_all, work_done = sum(work.values()), 0.0
        for gparams, pts in groups:
            if self.spent():  # no module reload, no tracing for points that do not start
                counts["deferred"] += len(pts)
                continue
            loaded = apply_modules(gparams)
            ccs = sorted({cc for p in pts for cc in p.ccs()})
            extra = [e for p in pts[:1] for e in p.spec.get("monitor", {}).get("trace", [])]
            events = loss_events(ccs, extra)
            env = {**environment(), "module_params": modules.snapshot(), "loaded": loaded}
            with TraceStream(events) as tracer:
                for n, batch in scenario.by_concurrency(pts, parallel):
                    if self.spent():
                        counts["deferred"] += len(batch)
                        continue
                    barriers: dict[str, threading.Barrier] = {}
                    if data.get("sync"):
                        # waves: every point of a wave set up before any starts its flows
                        for i in range(0, len(batch), n):
                            wave = batch[i : i + n]
                            b = threading.Barrier(len(wave))
                            barriers.update({p.id: b for p in wave})
                    with ThreadPoolExecutor(n) as ex:
                        futs = {
                            ex.submit(
                                self.start_point, sc, p, tracer, events, env, barriers.get(p.id)
                            ): p
                            for p in batch
                        }
                        for fut in as_completed(futs):
                            p = futs[fut]
                            point_status, line = fut.result()
                            counts[point_status] += 1
                            if point_status == "deferred":
                                continue  # counted once, in the scenario's last line
                            finished += 1
                            work_done += work[p.id]
                            el = time.monotonic() - t_run
                            eta = el / work_done * max(0.0, work_all - work_done)
                            log(
                                f"[{sc.name}] {finished}/{n_run} {p.id}: {line} "
                                f"({el:.0f} s elapsed, ~{eta:.0f} s left)"
                            )
        status: ScenarioStatus = {
            "scenario": sc.name,
            "profile": self.profile or "full",
            "points": len(points),
            "ok": counts["ok"],
            "skipped": counts["skipped"],
            "unavailable": counts["unavailable"],
            "error": counts["error"],
            "deferred": counts["deferred"],
            "parallel": parallel,
            "backend": self.backend,
            "wall_s": time.monotonic() - t_start,
            "finished": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
        write_json(sdir / "status.json", status)
        log(f"[{sc.name}] done: {counts} in {status['wall_s']:.0f} s")
        return status

    def start_point(
        self,
        sc: scenario.Scenario,
        p: scenario.Point,
        tracer: TraceStream,
        events: list[str],
        env: dict[str, Any],
        barrier: threading.Barrier | None = None,
    ) -> tuple[str, str]:
        """:meth:`run_point`, unless the budget is spent (:meth:`deferred`):
        then nothing is written, and the point waits for the next run."""
        if self.deferred(barrier):
            return "deferred", "not started: the budget is spent"
        return self.run_point(sc, p, tracer, events, env, barrier)

    def run_point(
        self,
        sc: scenario.Scenario,
        p: scenario.Point,
        tracer: TraceStream,
        events: list[str],
        env: dict[str, Any],
        barrier: threading.Barrier | None = None,
    ) -> tuple[str, str]:
        doc = self.record(p, sc)
        doc["environment"] = env
        doc["trace_events"] = events
        try:
            trial = trial_of(p, self.backend, int(doc["parallel"]))
            trial.trace_events = events
            trial.start_barrier = barrier
            doc["seeds"]["sources"] = [s.seed for s in trial.traffic if s.seed is not None]
            result = run_trial(trial, tracer if events else None)
            if "transmissions" in (result.get("monitor") or {}):  # packet captures ran
                from testbed.measure.groundtruth import classify

                for ev in result.get("trace", []):
                    # decisions without their own timestamp (jersey's): the
                    # event's, on the same CLOCK_MONOTONIC, in microseconds
                    if "snd_una" in ev and not ev.get("now"):
                        ev["now"] = int(ev["t_mono"] * 1e6)
                classify(result)  # per-decision truth into the trace events
            doc = {**doc, **result}
            doc["spec"] = p.spec
            doc["metrics"] = metrics.point_metrics(doc)
            doc["status"], errors = point_status(doc["flows"], doc.get("traffic") or [])
            m = doc["metrics"]
            # goodput above capacity: a bug to find, not a number to plot; a
            # contended host: its load measured, not only the path
            refused = m.get("impossible") or metrics.contended(m)
            if refused:
                doc["status"], doc["error"] = "error", refused
            line = f"goodput {m['goodput_bps'] / 1e6:.3f} Mb/s"
            if m.get("accuracy") is not None:
                line += f", accuracy {m['accuracy']:.2f}"
            if m.get("cpu_busy") is not None:
                line += f", cpu {m['cpu_busy']:.0%}"
            if m.get("host_steal") is not None:
                line += f", host steal {m['host_steal']:.0%}"
            if m.get("host_other") is not None:
                line += f", host other {m['host_other']:.0%}"
            if errors:
                line += f", {len(errors)} flow errors: {errors[0]}"
            if refused:
                line += f", ERROR {refused}"
        except Exception as e:  # a failed point must not stop the sweep
            if barrier is not None:
                barrier.abort()  # nor keep the rest of its wave waiting
            doc["status"] = "error"
            doc["error"] = f"{type(e).__name__}: {e}"
            doc["traceback"] = traceback.format_exc()
            line = f"ERROR {doc['error']}"
        write_point(self.out, p, doc)
        return doc["status"], line


def point_status(
    flows: Sequence[Mapping[str, Any]], traffic: Sequence[Mapping[str, Any]]
) -> tuple[str, list[str]]:
    """A trial's status and its errors: "error" when everything it measured
    failed, every flow or, in a point without flows, every run of its cross
    traffic (a UDP iperf3 that could not reach its server measured nothing)."""
    runs: Sequence[Mapping[str, Any]] = flows or [r for src in traffic for r in src.get("runs", [])]
    errors = [str(r["error"]) for r in runs if "error" in r]
    return ("error" if errors and len(errors) == len(runs) else "ok"), errors


def run_here(
    names: list[str],
    out: Path,
    profile: str | None,
    backend: str,
    meta: dict[str, Any],
    only: list[str] | None,
    overrides: dict[str, Any],
    deadline: float | None = None,
) -> int:
    """Every point of the scenarios ``names`` on the running kernel (as root);
    0 if no point failed.  After ``deadline`` (epoch seconds) no point starts:
    a scenario not begun is left as it is, the points left of one under way
    are counted as deferred, and the same command later runs them."""
    require(IP, TC, "ethtool", "nstat", "iperf3", what="harness")
    scs = [scenario.load(n, overrides) for n in names]
    runner = Runner(out, profile, backend, meta, only, deadline)
    total = sum(s.estimate_s(profile) for s in scs)
    log(f"{len(scs)} scenarios, estimated {total / 60:.0f} min; kernel {platform.release()}")
    statuses: list[ScenarioStatus] = []
    for s in scs:
        if runner.spent():
            log(f"[{s.name}] not started: the budget is spent")
            continue
        statuses.append(runner.run_scenario(s))
    failed = sum(s["error"] for s in statuses)
    left = sum(s["deferred"] for s in statuses) + len(scs) - len(statuses)
    log(f"all done: {sum(s['ok'] for s in statuses)} ok, {failed} errors")
    if left:
        log(
            f"the budget is spent: {sum(s['deferred'] for s in statuses)} points and "
            f"{len(scs) - len(statuses)} scenarios not started; the same command runs them"
        )
    return 0 if failed == 0 else 1
