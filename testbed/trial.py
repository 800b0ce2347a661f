"""A trial: build a path, run flows on it, collect ground truth and results.

Trials are plain data (:class:`Trial`) so that a scenario is a list of them.
:func:`run_trials` runs independent trials concurrently (each on its own
namespaces) to amortise one VM boot over many measurements.
"""

from __future__ import annotations

import contextlib
import os
import platform
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any

from testbed import modules
from testbed.flows import Flow, run_flows
from testbed.netpath import Link, Path
from testbed.trace import Tracer, host_of


@dataclass
class Trial:
    name: str
    links: list[Link]
    flows: list[Flow]
    # per node sysctls, e.g. {"src": {"net.ipv4.tcp_ecn": "1"}}
    sysctls: dict[str, dict[str, str]] = field(default_factory=dict)
    params: dict[str, Any] = field(default_factory=dict)
    # tracepoints to record, e.g. ["jersey/jersey_loss"]; events land in
    # the result's "trace", matched to this trial by address
    trace_events: list[str] = field(default_factory=list)
    # optional: called with the built path, entered just before the flows
    # start and left when they end (e.g. packet captures,
    # testbed.groundtruth.Capture); the dict it yields, filled in by then,
    # becomes the result's "monitor"
    monitor: Callable[[Path, Trial], AbstractContextManager[dict[str, Any]]] | None = None


def counters_delta(before: dict[str, int], after: dict[str, int]) -> dict[str, int]:
    return {k: after[k] - before.get(k, 0) for k in after if after[k] != before.get(k, 0)}


def link_ground_truth(path: Path, trial: Trial) -> list[dict[str, Any]]:
    """Per link direction: queue (congestion) drops/marks and air (wireless) drops."""
    out = []
    for link in trial.links:
        for reverse in (False, True):
            q = path.queue_stats(link, reverse)
            air = path.air_stats(link, reverse)
            passed, lost = int(air.get("packets", 0)), int(air.get("drops", 0))
            out.append(
                {
                    "link": f"{link.b}->{link.a}" if reverse else f"{link.a}->{link.b}",
                    "queue": q.get("kind"),
                    "queue_packets": int(q.get("packets", 0)),
                    "queue_drops": int(q.get("drops", 0)),
                    "queue_marked": int(q.get("marked", 0)),
                    "queue_overlimits": int(q.get("overlimits", 0)),
                    "queue_stats": q,
                    "air_packets": passed,
                    "air_drops": lost,
                    "air_drop_ratio": lost / (passed + lost) if passed + lost else 0.0,
                }
            )
    return out


def run_trial(trial: Trial) -> dict[str, Any]:
    t0 = time.time()
    phases: dict[str, float] = {}
    with Path(trial.links, trial.sysctls) as path:
        phases["setup_s"] = time.time() - t0
        inodes = path.netns_inodes()
        ends = sorted({f.src for f in trial.flows} | {f.dst for f in trial.flows})
        before = {n: path.nstat(n) for n in ends}
        t1 = time.time()
        monitor = trial.monitor(path, trial) if trial.monitor else contextlib.nullcontext({})
        with monitor as monitored:
            flows = run_flows(path, trial.flows)
        phases["flows_s"] = time.time() - t1
        after = {n: path.nstat(n) for n in ends}
        links = link_ground_truth(path, trial)
    result: dict[str, Any] = {
        "name": trial.name,
        "path_id": path.id,
        "netns_inodes": inodes,
        "params": trial.params,
        "links_config": [link.to_json() for link in trial.links],
        "sysctls": trial.sysctls,
        "flows": flows,
        "links": links,
        "nstat": {n: counters_delta(before[n], after[n]) for n in ends},
        "kernel": platform.release(),
        "started": t0,
        "wall_s": time.time() - t0,
        "phases": phases,
    }
    if trial.monitor:
        result["monitor"] = monitored
    return result


def run_trials(trials: list[Trial], parallel: int | None = None) -> list[dict[str, Any]]:
    """Run trials concurrently, ``parallel`` at a time (default: all).

    Requested tracepoints are recorded for the whole batch and each event is
    given to the trial whose path owns its source address.
    """
    workers = parallel or max(1, len(trials))
    events = sorted({e for t in trials for e in t.trace_events})
    tracer = Tracer(events) if events else None
    with tracer or contextlib.nullcontext(), ThreadPoolExecutor(max_workers=workers) as ex:
        results = list(ex.map(run_trial, trials))
    if tracer is not None:
        recorded = tracer.read()
        for trial, result in zip(trials, results, strict=True):
            if trial.trace_events:
                result["trace"] = [e for e in recorded if belongs(e, result)]
    return results


def belongs(event: dict[str, Any], result: dict[str, Any]) -> bool:
    """Is a trace event one of this trial's?

    Socket events carry their address (each path has 10.<path id>.0.0/16),
    qdisc events the inode of their network namespace.
    """
    if "netns" in event:
        return event["netns"] in result.get("netns_inodes", {}).values()
    return host_of(str(event.get("src", ""))).startswith(f"10.{result['path_id']}.")


def environment() -> dict[str, Any]:
    """What every result records about where it was measured."""
    return {
        "kernel": platform.release(),
        "host": platform.node(),
        "cpus": os.cpu_count(),
        "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "module_params": modules.snapshot(),
    }
