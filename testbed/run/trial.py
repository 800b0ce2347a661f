"""A trial: build a path, run flows on it, collect ground truth and results.

Trials are plain data (:class:`Trial`) so that a scenario is a list of them.
:func:`run_trials` runs independent trials concurrently (each on its own
namespaces) to amortise one VM boot over many measurements.  A trial may
also carry cross traffic (:mod:`testbed.traffic.cross`), time-series monitors
(:mod:`testbed.measure.monitors`) and run on Mininet instead of bare namespaces.
"""

from __future__ import annotations

import contextlib
import os
import platform
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path as FsPath
from typing import Any

from testbed import hold_netstamp, modules
from testbed.measure.monitors import CpuMeter, Pinger, QdiscSampler, SsSampler
from testbed.measure.trace import TraceStream
from testbed.net.path import Link, Path, direction
from testbed.run.records import LinkCounters, TrialResult, qdisc_marks
from testbed.traffic.cross import Source, TrafficRunner
from testbed.traffic.flows import Flow, FlowRunner

# The testbed's ECN policy for senders: request ECN (RFC 3168), and keep
# requesting it when the SYN is retransmitted.  Linux's default
# tcp_ecn_fallback=1 sends a retransmitted SYN without ECN, so on a lossy
# path a lost SYN silently leaves the whole connection without ECN.
ECN_SYSCTLS = {"net.ipv4.tcp_ecn": "1", "net.ipv4.tcp_ecn_fallback": "0"}

# clients start this long after the servers are up and monitors armed
LEAD_S = 0.3
# a batch of trials still running this long after its flows and cross
# traffic should have ended (iperf3 timeouts included) is reported as stuck
STUCK_GRACE_S = 120.0


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
    # cross traffic sources (testbed.traffic.cross.sources)
    traffic: list[Source] = field(default_factory=list)
    # time series to sample (result's "samples"): {"queues": ["gw->rcv"],
    # "air": [...], "ping": [["src", "rcv"]], "ss": True, "sample_s": 0.5}
    samplers: dict[str, Any] = field(default_factory=dict)
    backend: str = "netns"  # or "mininet"
    # the trial lasts at least this long after the flows start (cross
    # traffic may outlast the flows; a trial may have no TCP flow at all)
    duration_s: float = 0.0
    # trials sharing a barrier start their flows together, once all are set
    # up (so that no set-up competes for the CPU with a measurement)
    start_barrier: threading.Barrier | None = None
    # optional: called with the built path, entered just before the flows
    # start and left when they end (e.g. packet captures,
    # testbed.measure.groundtruth.Capture); the dict it yields, filled in by then,
    # becomes the result's "monitor"
    monitor: Callable[[Path, Trial], AbstractContextManager[dict[str, Any]]] | None = None


def counters_delta(before: dict[str, int], after: dict[str, int]) -> dict[str, int]:
    return {k: after[k] - before.get(k, 0) for k in after if after[k] != before.get(k, 0)}


def link_ground_truth(path: Path, trial: Trial) -> list[LinkCounters]:
    """Per link direction: queue (congestion) drops/marks and air (wireless) drops."""
    stats = path.all_qdisc_stats()  # one tc per namespace

    def pick(ns: str, dev: str, match: str) -> dict[str, Any]:
        for q in stats.get((ns, dev), []):
            if match in (q.get("handle"), q.get("kind")):
                return q
        raise RuntimeError(f"no {match} qdisc on {ns}/{dev}")

    out: list[LinkCounters] = []
    for link in trial.links:
        for reverse in (False, True):
            q = pick(path.ns(link.b if reverse else link.a), path.dev(link), "10:")
            air = pick(path.air(link), "pa" if reverse else "pb", "netem")
            passed, lost = int(air.get("packets", 0)), int(air.get("drops", 0))
            out.append(
                {
                    "link": f"{link.b}->{link.a}" if reverse else f"{link.a}->{link.b}",
                    "queue": q.get("kind"),
                    "queue_packets": int(q.get("packets", 0)),
                    "queue_drops": int(q.get("drops", 0)),
                    "queue_marked": qdisc_marks(q) or 0,
                    "queue_overlimits": int(q.get("overlimits", 0)),
                    "queue_stats": q,
                    "air_packets": passed,
                    "air_drops": lost,
                    "air_drop_ratio": lost / (passed + lost) if passed + lost else 0.0,
                }
            )
    return out


def _direction(path: Path, name: str) -> tuple[Link, bool]:
    """The link and reverse flag of a direction ``"a->b"``."""
    i, reverse = direction(path.links, name)
    return path.links[i], reverse


def _samplers(path: Path, trial: Trial, runner: FlowRunner) -> list[Any]:
    mon = trial.samplers
    if not mon:
        return []
    every = float(mon.get("sample_s", 0.5))
    targets = []
    for name in mon.get("queues", []):
        link, rev = _direction(path, name)
        node = link.b if rev else link.a
        targets.append((name, path.ns(node), path.dev(link), "10:"))
    for name in mon.get("air", []):
        link, rev = _direction(path, name)
        targets.append((f"air:{name}", path.air(link), "pa" if rev else "pb", "netem"))
    out: list[Any] = []
    if targets:
        out.append(("queues", QdiscSampler(targets, every)))
    pings = mon.get("ping", [])
    if pings is True:  # along every distinct main-flow path
        pings = list(dict.fromkeys((f.src, f.dst) for f in trial.flows))
    for src, dst in pings or []:
        out.append(("ping", Pinger(path, src, dst, every)))
    if mon.get("ss"):
        for node in dict.fromkeys(f.src for f in trial.flows):
            ports = [p for f, p in zip(trial.flows, runner.ports, strict=True) if f.src == node]
            out.append(("ss", SsSampler(path, node, ports, every)))
    return out


def drain(path: Path, flows: list[Flow], ports: list[int], timeout: float = 20.0) -> float:
    """Wait until the flows' sender sockets have nothing left to send or to be
    acknowledged: after iperf3 stops, the kernel still sends what its sockets
    hold, and a capture stopped earlier would take that tail for drops.
    Returns the seconds waited."""
    t0 = time.monotonic()
    by_node: dict[str, list[int]] = {}
    for f, p in zip(flows, ports, strict=True):
        by_node.setdefault(f.src, []).append(p)
    states = ["state", "established", "state", "fin-wait-1", "state", "closing"]
    while time.monotonic() - t0 < timeout:
        busy = False
        for node, ps in by_node.items():
            argv = ["ss", "-N", path.ns(node), "-tnH", *states]
            argv.append(f"( dport >= :{min(ps)} and dport <= :{max(ps)} )")
            if subprocess.run(argv, capture_output=True, text=True).stdout.strip():
                busy = True
                break
        if not busy:
            break
        time.sleep(0.2)
    return time.monotonic() - t0


def run_trial(trial: Trial, tracer: TraceStream | None = None) -> TrialResult:
    t_start = time.time()
    phases: dict[str, float] = {}
    path_cls: type[Path] = Path
    if trial.backend == "mininet":
        from testbed.net.mininet_backend import MininetPath  # only when chosen

        path_cls = MininetPath
    elif trial.backend != "netns":
        raise ValueError(f"unknown backend {trial.backend}")
    with path_cls(trial.links, trial.sysctls) as path:
        if tracer is not None:
            tracer.drop(path.id)
        phases["setup_s"] = time.time() - t_start
        runner = FlowRunner(path, trial.flows)
        traffic = TrafficRunner(path, trial.traffic)
        runner.start_servers()
        traffic.start_servers()
        samplers = _samplers(path, trial, runner)
        inodes = path.netns_inodes()
        if tracer is not None:
            tracer.watch_netns(path.id, inodes.values())
        # senders and receivers: ECN counters (TCPDeliveredCE) are the receiver's
        ends = sorted({f.src for f in trial.flows} | {f.dst for f in trial.flows})
        before = {n: path.nstat(n) for n in ends}
        t1 = time.time()
        if trial.start_barrier is not None:
            trial.start_barrier.wait(timeout=600)
        monitor = trial.monitor(path, trial) if trial.monitor else contextlib.nullcontext({})
        cpu_meter = CpuMeter()
        cpu_meter.start()
        with monitor as monitored:
            t0 = time.monotonic() + LEAD_S
            for _, m in samplers:
                m.start(t0)
            traffic.start(t0)
            runner.start_clients(t0)
            flows = runner.join()
            rest = t0 + trial.duration_s - time.monotonic()
            if rest > 0:
                time.sleep(rest)
            if trial.monitor:
                phases["drain_s"] = drain(path, trial.flows, runner.ports)
                # libpcap hands packets over in blocks retired after 1 s:
                # wait that long so that the captures hold the flows' last
                # packets when they stop (else they look dropped)
                time.sleep(1.2)
        cpu = cpu_meter.stop()
        cross = traffic.stop()
        phases["flows_s"] = time.time() - t1
        mon: dict[str, Any] = {}
        for kind, m in samplers:
            got = m.stop()
            if kind == "queues":
                mon["queues"] = {k: v for k, v in got.items() if not k.startswith("air:")}
                air = {k[4:]: v for k, v in got.items() if k.startswith("air:")}
                if air:
                    mon["air"] = air
            elif kind == "ping":
                mon.setdefault("ping", {})[m.name] = got
            else:
                mon.setdefault("ss", {}).update(got)
        after = {n: path.nstat(n) for n in ends}
        links = link_ground_truth(path, trial)
        for i, f in enumerate(flows):
            f["dest"] = runner.dest(i)
        trace = None
        if tracer is not None:
            trace = tracer.take(path.id)
            for ev in trace:
                # tracefs runs on CLOCK_MONOTONIC (TraceStream): keep the raw
                # time, and the time since the flows started
                ev["t_mono"] = float(ev["t"])
                ev["t"] = round(float(ev["t"]) - t0, 6)
    result: TrialResult = {
        "name": trial.name,
        "path_id": path.id,
        "netns_inodes": inodes,
        "backend": path.backend,
        "params": trial.params,
        "links_config": [link.to_json() for link in trial.links],
        "sysctls": trial.sysctls,
        "flows": flows,
        "links": links,
        "nstat": {n: counters_delta(before[n], after[n]) for n in ends},
        "kernel": platform.release(),
        "started": t_start,
        "wall_s": time.time() - t_start,
        "phases": phases,
        # the machine's CPU over the flows (every trial running then
        # included) and, in testbed/vm's guest, the host's
        "cpu": {**cpu, "cpus": os.cpu_count() or 0},
    }
    if trial.traffic:
        result["traffic"] = cross
    if mon:
        result["samples"] = mon
    if trial.monitor:
        result["monitor"] = monitored
    if trace is not None:
        result["trace"] = trace
    return result


def expected_s(trial: Trial) -> float:
    """How long a trial's flows may take, their iperf3 timeouts included."""
    return LEAD_S + max([trial.duration_s] + [f.start_s + f.wait_s() for f in trial.flows])


def sysrq(keys: str) -> None:
    """Have the kernel log its tasks (``w``: blocked, ``l``: running on each
    CPU) at full console level; the VM keeps its kernel log on the host."""
    printk = FsPath("/proc/sys/kernel/printk")
    try:
        level = printk.read_text().split()[0]
        printk.write_text("8")
        for key in keys:
            FsPath("/proc/sysrq-trigger").write_text(key)
        printk.write_text(level)
    except OSError as e:
        print(f"trial: sysrq {keys}: {e}", file=sys.stderr)


def report_stuck(running: list[str], waited: float) -> None:
    """Say what a batch that outlived its time is doing: every Python
    thread's stack, the processes and the kernel's view of its tasks."""
    print(
        f"trial: {len(running)} trial(s) still running after {waited:.0f} s: {', '.join(running)}",
        file=sys.stderr,
        flush=True,
    )
    names = {t.ident: t.name for t in threading.enumerate()}
    for ident, frame in sys._current_frames().items():
        print(f"thread {names.get(ident, ident)}:", file=sys.stderr)
        traceback.print_stack(frame, file=sys.stderr)
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        ps = ["ps", "-eo", "pid,ppid,stat,wchan:32,etime,pcpu,args"]
        sys.stderr.write(subprocess.run(ps, capture_output=True, text=True, timeout=30).stdout)
    sysrq("wl")
    sys.stderr.flush()


def run_trials(trials: list[Trial], parallel: int | None = None) -> list[TrialResult]:
    """Run trials concurrently, ``parallel`` at a time (default: all).

    Requested tracepoints are recorded for the whole batch and each event is
    given to the trial whose path owns its source address.  A batch still
    running :data:`STUCK_GRACE_S` after the time its trials may take is
    reported on stderr (:func:`report_stuck`), once, and then waited for.
    """
    workers = parallel or max(1, len(trials))
    events = sorted({e for t in trials for e in t.trace_events})
    rounds = -(-len(trials) // workers)
    limit = rounds * max(expected_s(t) for t in trials) + STUCK_GRACE_S if trials else 0.0
    t0 = time.monotonic()
    with TraceStream(events) as tracer, ThreadPoolExecutor(max_workers=workers) as ex:
        futures: dict[Future[TrialResult], str] = {
            ex.submit(run_trial, t, tracer if t.trace_events else None): t.name for t in trials
        }

        def watch() -> None:
            running = [name for f, name in futures.items() if not f.done()]
            if running:
                report_stuck(running, time.monotonic() - t0)

        watchdog = threading.Timer(limit, watch)
        watchdog.daemon = True
        watchdog.start()
        try:
            return [f.result() for f in futures]
        finally:
            watchdog.cancel()
            watchdog.join()  # a report under way is finished before the batch returns


def environment() -> dict[str, Any]:
    """What every result records about where it was measured."""
    return {
        "kernel": platform.release(),
        "host": platform.node(),
        "cpus": os.cpu_count(),
        "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "module_params": modules.snapshot(),
        # the VM's receive timestamps held on (a TCG panic otherwise)
        "netstamp_held": hold_netstamp.held(),
    }
