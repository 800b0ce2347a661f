"""The records a run writes: a trial's result and the per-point JSON, as typed dicts.

A trial (:func:`testbed.run.trial.run_trial`) returns a :class:`TrialResult`;
the harness adds what the point was (scenario, values, seeds, versions) and
its :mod:`metrics <testbed.analysis.metrics>` and writes it as a
:class:`PointRecord`, ``OUT/<scenario>/runs/<point id>.json``, and its
compact record (:mod:`testbed.run.compact`: without trace events and time
series), ``OUT/<scenario>/points/<point id>.json``, which the report reads
back.  Every key is optional to the type checker (``total=False``):
a point that failed or whose congestion control was unavailable has only a
few of them, and results written by older versions may lack newer ones.
"""

from __future__ import annotations

from typing import Any, TypedDict


class FlowResult(TypedDict, total=False):
    """One iperf3 flow (:class:`testbed.traffic.flows.Flow` and what iperf3 reported)."""

    # the flow as asked for
    src: str
    dst: str
    cc: str
    duration_s: float
    start_s: float
    label: str
    group: str
    mss: int
    window: str
    udp_mbit: float
    # what it measured (TCP)
    error: str
    goodput_bps: float
    throughput_bps: float
    bytes_received: int
    bytes_sent: int
    seconds: float
    retransmits: int | None
    cc_used: str
    max_snd_cwnd: int | None
    mean_rtt_us: int | None
    min_rtt_us: int | None
    max_rtt_us: int | None
    intervals: list[list[float]]  # [[end time s, receiver bit/s], ...]
    # (UDP)
    sent_bps: float
    packets: int | None
    lost_packets: int | None
    # where and when
    started_s: float  # the client's launch
    finished_s: float  # the client's exit
    data_start_s: float  # when the receiver's intervals began (its printed lines)
    port: int
    dest: str  # addr:port of the receiver, the sender socket's peer


def qdisc_marks(q: dict[str, Any]) -> int | None:
    """The ECN marks in one ``tc -s -j`` qdisc record (or a sample of it):
    RED, CW and VCRR say ``marked``, fq_codel and PIE ``ecn_mark`` (at the top
    level or in ``xstats``); None for a qdisc that does not mark (pfifo)."""
    xs = q.get("xstats") or {}
    for k in ("marked", "ecn_mark"):
        for where in (q, xs):
            if k in where:
                return int(where[k])
    return None


class LinkCounters(TypedDict):
    """One link direction's drops: its queue's (congestion) and its air's (wireless)."""

    link: str  # "a->b"
    queue: str | None  # the qdisc kind
    queue_packets: int
    queue_drops: int
    queue_marked: int
    queue_overlimits: int
    queue_stats: dict[str, Any]  # tc -s -j of the queue
    air_packets: int
    air_drops: int
    air_drop_ratio: float


class TrialResult(TypedDict, total=False):
    """What :func:`testbed.run.trial.run_trial` measured."""

    name: str
    path_id: int
    netns_inodes: dict[str, int]
    backend: str
    params: dict[str, Any]
    links_config: list[dict[str, Any]]  # Link.to_json() of every link
    sysctls: dict[str, dict[str, str]]
    flows: list[FlowResult]
    links: list[LinkCounters]
    nstat: dict[str, dict[str, int]]  # per end node, counters that changed
    kernel: str
    started: float
    wall_s: float
    phases: dict[str, float]
    # busy and steal fractions of the machine's CPU over the flows, cpus; in
    # testbed/vm's guest also the host's: host_busy, host_steal (newer points)
    cpu: dict[str, float]
    traffic: list[dict[str, Any]]  # cross traffic sources and their runs
    samples: dict[str, Any]  # time series of the monitors: queues, air, ping, ss
    monitor: dict[str, Any]  # a trial monitor's document (captures, fading)
    trace: list[dict[str, Any]]  # tracepoint events
    groundtruth: dict[str, Any]  # testbed.measure.groundtruth.classify, when captures ran


class Seeds(TypedDict, total=False):
    point: int
    traffic: int
    scenario: int
    netem: None
    sources: list[int]


class PointRecord(TrialResult, total=False):
    """One point of a scenario: ``OUT/<scenario>/runs/<point id>.json``, or
    its compact record ``OUT/<scenario>/points/<point id>.json``."""

    scenario: str
    title: str
    point: str  # the point id, e.g. "cc=reno,per=0.01,run=0"
    identity: str  # hash of the resolved spec, seeds and run (Point.identity)
    values: dict[str, Any]  # the sweep's values (display form)
    run: int
    profile: str
    parallel: int
    sync: bool
    spec: dict[str, Any]  # the point's scenario data, substituted
    seeds: Seeds
    notes: dict[str, str]
    versions: dict[str, str]
    meta: dict[str, Any]  # git commit, accelerator
    environment: dict[str, Any]
    trace_events: list[str]
    status: str  # "ok", "error" or "unavailable"
    error: str
    traceback: str
    missing: list[str]  # the congestion controls the kernel lacked
    metrics: dict[str, Any]  # testbed.analysis.metrics.point_metrics
    compact: list[str]  # a compact record: the keys it left out (testbed.run.compact)


class ScenarioStatus(TypedDict):
    """``OUT/<scenario>/status.json``: how a scenario's run went."""

    scenario: str
    profile: str
    points: int
    ok: int
    skipped: int
    unavailable: int
    error: int
    deferred: int  # not started: ``run --budget`` was spent
    parallel: int
    backend: str
    wall_s: float
    finished: str
