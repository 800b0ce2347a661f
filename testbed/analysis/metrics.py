"""Metrics of a trial, computed from what it measured (pure functions, no VM).

Everything here reads a point result as written by :mod:`testbed.run.harness`
(iperf3 summaries, qdisc/netem counters, sampled time series, tracepoint
events) and derives the numbers the report shows:

* goodput (application bytes received / receiver time) and throughput
  (sender's bytes incl. retransmitted segments / time) per flow, per group
  of flows and in total (a group's goodput: its bytes over the span its
  flows' data covered, from when each flow's data began); Jain's index
  ``(sum x)^2 / (n sum x^2)``; the ceiling ``C (1 - PER) payload / wire``
  of the bottleneck;
* congestion drop rate (bottleneck queue drops / packets offered to it) and
  wireless drop rate (netem drops / packets on the air);
* queue length and queueing delay (backlog bytes / rate) percentiles, the
  measured marking probability (marks / packets per sampling interval);
* RTT percentiles and jitter (mean |RTT_k - RTT_k-1|, RFC 3550's D without
  smoothing) from ping; srtt/cwnd/rate estimate from ``ss``;
* loss-classification accuracy of each flow's sender: its per-loss
  decisions (our tracepoints ``<cc>_loss``, ``cause=``) matched against the
  ground truth -- per packet when the trial has it (``groundtruth``),
  otherwise from the counters, which settle the truth only when a flow's
  forward path saw drops of one kind (all at the air, or all at queues).
"""

from __future__ import annotations

import itertools
import math
import random
import statistics
from collections import deque
from collections.abc import Mapping, Sequence
from typing import Any

import numpy

from testbed.run.records import FlowResult, PointRecord, qdisc_marks

# cause= values of the loss tracepoints, by what they claim
WIRELESS_CAUSES = {"wireless", "rto_wireless", "corruption", "hold", "held"}
CONGESTION_CAUSES = {"congestion", "rto_congestion", "halve", "halved", "reset", "drain"}
NOT_A_LOSS = {"ecn", "ece", "cwr"}
NOT_A_LOSS_KINDS = {"ece", "ecn", "tlp", "local"}  # local: our own qdisc refused a packet


def jain(xs: list[float]) -> float:
    """Jain's fairness index (sum x)^2 / (n sum x^2): 1 when every x is the same
    (all zero too), NaN for no x at all."""
    if not xs:
        return math.nan
    sq = sum(x * x for x in xs)
    return (sum(xs) ** 2) / (len(xs) * sq) if sq > 0 else 1.0


# What a full-sized segment carries and what the shaper counts on the
# testbed's links: the payload (the MSS, timestamps on) and, around it, the
# TCP header with its 12-byte timestamp option, the IP and Ethernet headers.
HEADER_BYTES = 20 + 12 + 20 + 14
MSS_DEFAULT = 1448


def ceiling(capacity_bps: float, per: float, mss: int | None = MSS_DEFAULT) -> float:
    """The goodput ceiling of a lossy link: C (1 - PER) payload / wire bytes,
    i.e. what full-sized segments of ``mss`` payload bytes deliver when a
    fraction PER of them is lost (1448 / 1514 of C (1 - PER) for iperf3's
    default segments); ``mss=None``: the papers' C (1 - PER), headers
    counted as goodput."""
    if mss is None:
        return capacity_bps * (1 - per)
    return capacity_bps * (1 - per) * mss / (mss + HEADER_BYTES)


def percentile(xs: list[float], p: float) -> float:
    """Linear-interpolation percentile (numpy's default), ``p`` in [0, 100]; NaN for no x."""
    return float(numpy.percentile(xs, p)) if xs else math.nan


def summary(xs: list[float], prefix: str) -> dict[str, float]:
    """mean, p50, p95, p99, max of ``xs`` as ``{prefix}_mean`` etc. (empty: nothing)."""
    if not xs:
        return {}
    return {
        f"{prefix}_mean": statistics.fmean(xs),
        f"{prefix}_p50": percentile(xs, 50),
        f"{prefix}_p95": percentile(xs, 95),
        f"{prefix}_p99": percentile(xs, 99),
        f"{prefix}_max": max(xs),
    }


def jitter(rtts: list[float]) -> float:
    """Mean absolute difference of consecutive samples (RFC 3550's D, unsmoothed)."""
    if len(rtts) < 2:
        return math.nan
    return statistics.fmean(abs(b - a) for a, b in itertools.pairwise(rtts))


def classify(ev: dict[str, Any] | str) -> str | None:
    """What a loss tracepoint event claims: "wireless", "congestion", None (not a
    loss: an ECN reaction, a tail-loss probe, or local congestion: our own
    qdisc refused a packet) or "unknown".

    Every loss tracepoint prints ``kind=`` (dupack, rto, ece, tlp, local);
    jersey, newrenolp and balde ``cause=``; diffc ``action=`` (hold: the loss
    was taken for corruption; halve/reset: for congestion).
    """
    if isinstance(ev, str):
        ev = {"cause": ev}
    if str(ev.get("kind", "")).lower() in NOT_A_LOSS_KINDS:
        return None
    c = str(ev.get("cause") or ev.get("action") or "").lower()
    if c in NOT_A_LOSS:
        return None
    if c in WIRELESS_CAUSES or "wireless" in c or "corrupt" in c:
        return "wireless"
    if c in CONGESTION_CAUSES or "congest" in c:
        return "congestion"
    return "unknown"


def route(links: list[dict[str, Any]], src: str, dst: str) -> list[str]:
    """Link directions ``"a->b"`` on the shortest path from src to dst."""
    adj: dict[str, list[str]] = {}
    for lk in links:
        adj.setdefault(lk["a"], []).append(lk["b"])
        adj.setdefault(lk["b"], []).append(lk["a"])
    prev: dict[str, str] = {src: src}
    todo = deque([src])
    while todo:
        cur = todo.popleft()
        for nxt in adj.get(cur, []):
            if nxt not in prev:
                prev[nxt] = cur
                todo.append(nxt)
    if dst not in prev:
        return []
    hops = []
    node = dst
    while node != src:
        hops.append(f"{prev[node]}->{node}")
        node = prev[node]
    return hops[::-1]


def counter_truth(ground: Sequence[Mapping[str, Any]], dirs: list[str]) -> dict[str, Any]:
    """Drops on a flow's forward path by place, from the qdisc/netem counters."""
    link = queue = 0
    for g in ground:
        if g["link"] in dirs:
            link += int(g.get("air_drops", 0))
            queue += int(g.get("queue_drops", 0))
    if link and not queue:
        kind = "wireless"
    elif queue and not link:
        kind = "congestion"
    elif link or queue:
        kind = "mixed"
    else:
        kind = "none"
    return {"link_drops": link, "queue_drops": queue, "kind": kind}


def decisions_of(events: list[dict[str, Any]], dest: str) -> list[dict[str, Any]]:
    """Loss decisions (``*_loss`` events) of the sender socket whose peer is ``dest``."""
    return [
        e for e in events if str(e.get("event", "")).endswith("_loss") and e.get("dest") == dest
    ]


def accuracy(decisions: list[dict[str, Any]], truth: dict[str, Any]) -> dict[str, Any]:
    """Classification accuracy of loss decisions.

    ``truth`` is either per-packet (``{"per_decision": ["wireless"|
    "congestion"|None, ...]}`` aligned with ``decisions``) or from counters
    (:func:`counter_truth`).  Returns counts, ``accuracy`` (None when the
    truth does not settle it) and ``misprediction`` (decisions called
    wireless that were congestion, over decisions called wireless).
    """
    claimed = [classify(d) for d in decisions]
    losses = [c for c in claimed if c is not None]
    out: dict[str, Any] = {
        "decisions": len(losses),
        "claimed_wireless": losses.count("wireless"),
        "claimed_congestion": losses.count("congestion"),
        "ecn_reactions": claimed.count(None),
        "accuracy": None,
        "misprediction": None,
        "method": None,
    }
    if "per_decision" in truth:
        pairs = [(c, t) for c, t in zip(claimed, truth["per_decision"], strict=False) if c and t]
        out["method"] = "per-packet"
        out["truth"] = truth.get("kind")
        out["matched"] = len(pairs)
        if pairs:
            out["accuracy"] = sum(c == t for c, t in pairs) / len(pairs)
            said_w = [t for c, t in pairs if c == "wireless"]
            if said_w:
                out["misprediction"] = said_w.count("congestion") / len(said_w)
        return out
    out["method"] = "counters"
    out["truth"] = truth.get("kind")
    if truth.get("kind") in ("wireless", "congestion") and losses:
        out["accuracy"] = losses.count(truth["kind"]) / len(losses)
        if out["claimed_wireless"]:
            out["misprediction"] = 0.0 if truth["kind"] == "wireless" else 1.0
    return out


def arrivals(a: dict[str, Any], b: dict[str, Any]) -> int:
    """Packets that reached a qdisc between its samples ``a`` and ``b``.

    A qdisc counts ``packets`` at dequeue: arrivals are the packets sent,
    plus the growth of the backlog, plus the drops.
    """
    return int(
        b.get("packets", 0) - a.get("packets", 0)
        + b.get("qlen", 0) - a.get("qlen", 0)
        + b.get("drops", 0) - a.get("drops", 0)
    )  # fmt: skip


def mark_probability(samples: list[dict[str, Any]]) -> list[list[float]]:
    """[[t, marks/arrivals]] per sampling interval, from cumulative qdisc
    counters (marks are counted at enqueue, see :func:`arrivals`)."""
    out = []
    for a, b in itertools.pairwise(samples):
        now = qdisc_marks(b)
        if now is None:
            continue
        arrived = arrivals(a, b)
        if arrived > 0:
            out.append([b["t"], (now - (qdisc_marks(a) or 0)) / arrived])
    return out


def queue_metrics(samples: list[dict[str, Any]], rate_bps: float) -> dict[str, float]:
    """Queue length (packets), queueing delay (ms) and marking over a trial's samples."""
    if not samples:
        return {}
    qlen = [float(s.get("qlen", 0)) for s in samples]
    delay = [float(s.get("backlog", 0)) * 8 / rate_bps * 1e3 for s in samples] if rate_bps else []
    out = {**summary(qlen, "qlen"), **summary(delay, "qdelay_ms")}
    marks = [p for _, p in mark_probability(samples)]
    if marks:
        out["mark_prob_mean"] = statistics.fmean(marks)
    if any("prob" in s for s in samples):
        out["prob_mean"] = statistics.fmean(float(s.get("prob", 0)) for s in samples)
    return out


def data_start(flow: FlowResult) -> float:
    """When a flow's data began, in trial time: its iperf3 intervals count from
    there.  Not its launch (``started_s``): the client connects first, and a
    SYN lost at a full drop-tail queue waits a retransmission timeout (1 s)
    before the -t timer starts.  The client exits right after its data ends,
    so its exit less its duration (``finished_s - seconds``) is the start,
    late by the results exchange (a queue's delay or more on the congested
    path).  Best: ``data_start_s``, when the receiver's intervals began, taken
    from the times its interval lines were printed; points measured before
    that was recorded have the exit less the duration, older ones the launch."""
    if flow.get("data_start_s") is not None:
        return float(flow["data_start_s"])
    started = float(flow.get("started_s", flow.get("start_s", 0.0)))
    finished, seconds = flow.get("finished_s"), flow.get("seconds")
    if finished is None or not seconds:
        return started
    return max(started, float(finished) - float(seconds))


def aggregate_goodput(flows: list[FlowResult]) -> float:
    """Application bits the flows delivered together per second of the time
    they ran together: their bytes over the span from the first one's data
    start to the last one's end.  Not the sum of their rates, each over its
    own span: flows that started a second apart (a SYN lost at a full queue)
    summed to more than the link carries.  One flow: its goodput."""
    starts = [data_start(f) for f in flows]
    ends = [s + float(f.get("seconds") or 0) for s, f in zip(starts, flows, strict=True)]
    span = max(ends, default=0.0) - min(starts, default=0.0)
    if len(flows) == 1 or span <= 0 or any("bytes_received" not in f for f in flows):
        return sum(f["goodput_bps"] for f in flows)
    return sum(int(f["bytes_received"]) for f in flows) * 8 / span


def _group_stats(flows: list[FlowResult]) -> dict[str, Any]:
    ok = [f for f in flows if "error" not in f]
    gp = [f["goodput_bps"] for f in ok]
    tp = [f.get("throughput_bps", f["goodput_bps"]) for f in ok]
    sent = sum(int(f.get("bytes_sent") or 0) for f in ok)
    rexmit = sum(int(f.get("retransmits") or 0) * int(f.get("mss") or 1448) for f in ok)
    return {
        "flows": len(flows),
        "errors": len(flows) - len(ok),
        "goodput_bps": aggregate_goodput(ok),
        "goodput_mean_bps": statistics.fmean(gp) if gp else math.nan,
        "throughput_bps": sum(tp),
        "throughput_mean_bps": statistics.fmean(tp) if tp else math.nan,
        "jain": jain(gp),
        # retransmitted bytes over bytes sent (iperf3's retransmitted segments)
        "retrans_fraction": rexmit / sent if sent else math.nan,
    }


def window_goodput(flow: FlowResult, lo: float, hi: float, start: float) -> float | None:
    """Mean receiver rate of a flow over trial time [lo, hi] from its interval reports."""
    xs = [bps for end, bps in flow.get("intervals", []) if lo < start + end <= hi]
    return statistics.fmean(xs) if xs else None


def link_config(result: PointRecord, direction: str) -> tuple[float, float]:
    """(rate bit/s, mean loss) of a link direction ``"a->b"``.

    A direction under a ``fading`` monitor (netem at loss 0, switched on a
    timer) has the channel's mean loss.
    """
    fade = (result.get("monitor") or {}).get("fading") or {}
    for i, lk in enumerate(result.get("links_config", [])):
        for reverse, name in enumerate((f"{lk['a']}->{lk['b']}", f"{lk['b']}->{lk['a']}")):
            if direction != name:
                continue
            rate = lk["rate_rev_mbit" if reverse else "rate_mbit"] * 1e6
            if fade.get("link_index") == i and bool(fade.get("reverse")) == bool(reverse):
                return rate, float(fade["mean_loss"])
            return rate, (lk["loss_rev" if reverse else "loss"] or {}).get("mean", 0.0)
    raise KeyError(direction)


# measured goodput may exceed the capacity by this much (clock and interval edges)
CAPACITY_SLACK = 1.02


def impossible(m: Mapping[str, Any], capacity_bps: float) -> str | None:
    """Why a trial's goodput (in total, or in the metrics window) cannot be
    real: above the bottleneck's capacity.  None when it can."""
    if not capacity_bps:
        return None
    for what, bps in (
        ("goodput", m.get("goodput_bps")),
        ("window goodput", (m.get("window") or {}).get("goodput_bps")),
    ):
        if bps is not None and bps > capacity_bps * CAPACITY_SLACK:
            return (
                f"{what} {bps / 1e6:.3f} Mb/s above the bottleneck's capacity "
                f"{capacity_bps / 1e6:.3f} Mb/s"
            )
    return None


# a point whose run saw the host's CPU stolen this much or more, or the host
# run other processes for this much of its CPU, measured the host's
# contention, not only its path (testbed/vm: under TCG the guest's clock and
# packets slow with it; 2.7-9.2 % steal cost fairness points 20-37 % of their
# goodput, a test suite run nice'd on the host, 46-53 % of its CPU, took a
# 20-flow friendliness point from 13.5-15.1 to 7.3-9.5 Mb/s): it is an
# error, which the next run of its command repeats.  host_other reads 1 % on
# an idle host (6 of 6 such points).
HOST_STEAL_MAX = 0.01
HOST_OTHER_MAX = 0.05


def contended(m: Mapping[str, Any]) -> str | None:
    """Why a trial's numbers measured a contended host (its host steal,
    :data:`HOST_STEAL_MAX`, or what else it ran, :data:`HOST_OTHER_MAX`), or
    None (not recorded: not in a VM of testbed/vm, or a point from before
    the host's CPU was read)."""
    steal, other = m.get("host_steal"), m.get("host_other")
    again = "the next run of the same command repeats this point"
    if steal is not None and steal >= HOST_STEAL_MAX:
        return (
            f"host CPU steal {steal:.1%} over the run (at most {HOST_STEAL_MAX:.0%}): "
            f"the host was contended; {again}"
        )
    if other is not None and other >= HOST_OTHER_MAX:
        return (
            f"the host ran other processes for {other:.1%} of its CPU over the run (at most "
            f"{HOST_OTHER_MAX:.0%}), which slowed the guest; {again}"
        )
    return None


def point_metrics(result: PointRecord) -> dict[str, Any]:
    """Every metric of one trial (see the module docstring)."""
    spec = result.get("spec", {})
    mcfg = spec.get("metrics", {})
    flows = result.get("flows", [])
    out: dict[str, Any] = {**_group_stats(flows)}
    # groups of flows ([[flows]] entries) and each flow
    groups: dict[str, list[FlowResult]] = {}
    for f in flows:
        groups.setdefault(f.get("group") or f["cc"], []).append(f)
    out["groups"] = {g: _group_stats(fs) for g, fs in groups.items()}
    win = mcfg.get("window_s")
    if win:
        lo, hi = float(win[0]), float(win[1])
        wg = [window_goodput(f, lo, hi, data_start(f)) for f in flows]
        vals = [x for x in wg if x is not None]
        out["window"] = {
            "from_s": lo,
            "to_s": hi,
            "goodput_bps": sum(vals),
            "jain": jain(vals),
            "per_flow_bps": wg,
        }
    # one group's mean per-flow goodput over another's (in the window, if any)
    share = mcfg.get("share")
    if share and all(g in groups for g in share):

        def mean(g: str) -> float:
            if "window" in out:
                xs = [x for f, x in zip(flows, out["window"]["per_flow_bps"], strict=True)
                      if (f.get("group") or f["cc"]) == g and x is not None]  # fmt: skip
                return statistics.fmean(xs) if xs else math.nan
            return float(out["groups"][g]["goodput_mean_bps"])

        a, b = mean(share[0]), mean(share[1])
        out["share"] = a / b if b > 0 else math.nan
    # the machine's load while the flows ran (TCG: a busy guest delays
    # packets), and the host's under testbed/vm, whose steal slows the guest
    # while the guest's own stays 0 (only newer points have it)
    if "cpu" in result:
        cpu = result["cpu"]
        out["cpu_busy"] = cpu.get("busy")
        out["cpu_steal"] = cpu.get("steal")
        out |= {k: cpu[k] for k in ("host_busy", "host_steal", "host_vm", "host_other") if k in cpu}
    # bottleneck: ceiling, congestion and wireless drop rates
    bott = mcfg.get("bottleneck")
    ground = result.get("links", [])
    if bott:
        rate, per = link_config(result, bott)
        out["capacity_bps"] = rate
        out["loss_mean"] = per
        mss = next((int(m) for f in flows if (m := f.get("mss"))), MSS_DEFAULT)
        out["ceiling_bps"] = ceiling(rate, per, mss)
        # the papers' ceiling, without headers (the safety criteria use it)
        out["ceiling_raw_bps"] = ceiling(rate, per, None)
        out["goodput_norm"] = out["goodput_bps"] / rate if rate else math.nan
        over = impossible(out, rate)
        if over:
            out["impossible"] = over
        for g in ground:
            if g["link"] == bott:
                offered = g["queue_packets"] + g["queue_drops"]
                # from the qdisc's record where kept: points written before
                # qdisc_marks() read fq_codel's and PIE's ecn_mark as 0
                marked = qdisc_marks(g.get("queue_stats") or {}) or g["queue_marked"]
                aired = g["air_packets"] + g["air_drops"]
                out["bottleneck"] = {
                    "queue_drops": g["queue_drops"],
                    "queue_marked": marked,
                    "queue_packets": g["queue_packets"],
                    "air_drops": g["air_drops"],
                    "air_packets": g["air_packets"],
                    "congestion_drop_rate": g["queue_drops"] / offered if offered else 0.0,
                    "mark_rate": marked / offered if offered else 0.0,
                    "wireless_drop_rate": g["air_drops"] / aired if aired else 0.0,
                }
    # drops on the data paths (of flows and cross traffic), by place
    dirs_all: list[str] = []
    ends = [(f["src"], f["dst"]) for f in flows]
    ends += [(t["src"], t["dst"]) for t in result.get("traffic", [])]
    for src, dst in ends:
        for d in route(result.get("links_config", []), src, dst):
            if d not in dirs_all:
                dirs_all.append(d)
    place = counter_truth(ground, dirs_all)
    total = place["link_drops"] + place["queue_drops"]
    udp = [t for t in result.get("traffic", []) if t.get("kind") == "udp"]
    udp_lost = sum(int(t.get("lost_packets") or 0) for t in udp)
    fates = (result.get("monitor") or {}).get("fate_counts") or {}
    if fates:
        pp_link = sum(v for k, v in fates.items() if k.startswith("air:"))
        pp_queue = sum(v for k, v in fates.items() if k.startswith("queue:"))
        pp = pp_link + pp_queue
        out["drops_pp"] = {
            "link_drops": pp_link,
            "queue_drops": pp_queue,
            "delivered": fates.get("delivered", 0),
            "link_share": pp_link / pp if pp else math.nan,
            "queue_share": pp_queue / pp if pp else math.nan,
        }
    out["drops"] = {
        "link_drops": place["link_drops"],
        "queue_drops": place["queue_drops"],
        "link_share": place["link_drops"] / total if total else math.nan,
        "queue_share": place["queue_drops"] / total if total else math.nan,
        "udp_lost": udp_lost if udp else None,
        "udp_packets": sum(int(t.get("packets") or 0) for t in udp) if udp else None,
        # with UDP alone on the paths, every counted drop is a lost datagram
        "counted_vs_udp": total / udp_lost if udp and udp_lost and not flows else None,
    }
    # per flow: classification against ground truth
    events = result.get("trace", [])
    totals = {"decisions": 0, "correct": 0.0, "settled": 0}
    per_flow = []
    for f in flows:
        dest = f.get("dest", "")
        decisions = decisions_of(events, dest) if dest else []
        dirs = route(result.get("links_config", []), f["src"], f["dst"])
        truth: dict[str, Any] = counter_truth(ground, dirs)
        matched = [d.get("truth") for d in decisions]
        if any(t in ("wireless", "congestion") for t in matched):
            truth = {
                **truth,
                "per_decision": [t if t in ("wireless", "congestion") else None for t in matched],
            }
        acc = accuracy(decisions, truth)
        if "per_decision" in truth:
            acc["unmatched"] = sum(t not in ("wireless", "congestion") for t in matched)
        rec = {
            "label": f.get("label") or f["cc"],
            "group": f.get("group") or f["cc"],
            "cc": f["cc"],
            "goodput_bps": f.get("goodput_bps"),
            "throughput_bps": f.get("throughput_bps"),
            "retransmits": f.get("retransmits"),
            "forward_path": dirs,
            **{k: v for k, v in truth.items() if k in ("link_drops", "queue_drops")},
            **acc,
        }
        segs = (f.get("bytes_sent") or 0) / (f.get("mss") or 1448) + (f.get("retransmits") or 0)
        if segs and acc["decisions"]:
            rec["wireless_per_measured"] = acc["claimed_wireless"] / segs
        per_flow.append(rec)
        if acc["accuracy"] is not None:
            totals["decisions"] += acc["decisions"]
            totals["correct"] += acc["accuracy"] * acc["decisions"]
            totals["settled"] += 1
    out["flows"] = per_flow
    out["accuracy"] = totals["correct"] / totals["decisions"] if totals["decisions"] else None
    held = [
        (r["misprediction"], r["claimed_wireless"])
        for r in per_flow
        if r["misprediction"] is not None
    ]
    n_held = sum(w for _, w in held)
    out["misprediction"] = sum(m * w for m, w in held) / n_held if n_held else None
    out["decisions"] = sum(r["decisions"] for r in per_flow)
    for g, fs in out["groups"].items():
        recs = [r for r in per_flow if r["group"] == g and r["accuracy"] is not None]
        n = sum(r["decisions"] for r in recs)
        fs["accuracy"] = sum(r["accuracy"] * r["decisions"] for r in recs) / n if n else None
        fs["decisions"] = sum(r["decisions"] for r in per_flow if r["group"] == g)
    # monitors
    mon = result.get("samples", {})
    queues = {}
    for name, samples in mon.get("queues", {}).items():
        try:
            rate, _ = link_config(result, name)
        except KeyError:
            rate = 0.0
        queues[name] = queue_metrics(samples, rate)
    if queues:
        out["queue"] = queues
    rtts = {}
    for name, p in mon.get("ping", {}).items():
        xs = [r for _, r in p.get("rtt", [])]
        rtts[name] = {**summary(xs, "rtt_ms"), "jitter_ms": jitter(xs)}
        if xs:
            # queueing delay: above the smallest RTT of the run (the path's)
            base = min(xs)
            q = [x - base for x in xs]
            rtts[name]["qdelay_p50_ms"] = percentile(q, 50)
            rtts[name]["qdelay_p95_ms"] = percentile(q, 95)
        if p.get("sent"):
            rtts[name]["ping_loss"] = 1 - p.get("received", 0) / p["sent"]
    if rtts:
        out["rtt"] = rtts
    ss = mon.get("ss", {})
    if ss:
        out["ss"] = {}
        for peer, samples in ss.items():
            srtt = [s["srtt_ms"] for s in samples if "srtt_ms" in s]
            out["ss"][peer] = {
                **summary(srtt, "srtt_ms"),
                **summary([s["cwnd"] for s in samples if "cwnd" in s], "cwnd"),
                "srtt_jitter_ms": jitter(srtt),
            }
    # cross traffic
    traffic = result.get("traffic", [])
    if traffic:
        dur = float(spec.get("duration_s") or 1)
        udp = [t for t in traffic if t.get("kind") == "udp"]
        offered = sum(t.get("bytes", 0) for t in udp) * 8 / dur
        sent = sum(t.get("packets") or 0 for t in udp)
        lost = sum(t.get("lost_packets") or 0 for t in udp)
        out["cross_offered_bps"] = offered
        out["cross_delivered_bps"] = offered * (1 - lost / sent) if sent else 0.0
        out["cross"] = {
            t["label"]: {
                "bytes": t.get("bytes", 0),
                "rate_bps": t.get("bytes", 0) * 8 / dur,
                "lost_packets": t.get("lost_packets"),
                "packets": t.get("packets"),
            }
            for t in traffic
        }
    return out


CI_LEVEL = 0.95
CI_MIN_RUNS = 3
CI_RESAMPLES = 4000


def median_ci(xs: Sequence[float], level: float = CI_LEVEL) -> tuple[float, float] | None:
    """Percentile-bootstrap confidence interval of the median of repeated runs.

    ``CI_RESAMPLES`` resamples with replacement, the median of each, and the
    ``(1 - level) / 2`` and ``(1 + level) / 2`` quantiles of those medians.
    The generator is seeded, so one set of runs always gives the same
    interval.  None below ``CI_MIN_RUNS`` runs (no interval is claimed from
    one or two).  With five runs the 95 % interval is their range: the
    bootstrap median falls on the smallest run with probability 5.8 %.
    """
    if len(xs) < CI_MIN_RUNS:
        return None
    rng = random.Random(0)
    meds = sorted(statistics.median(rng.choices(xs, k=len(xs))) for _ in range(CI_RESAMPLES))
    lo = meds[math.floor((1 - level) / 2 * CI_RESAMPLES)]
    hi = meds[math.ceil((1 + level) / 2 * CI_RESAMPLES) - 1]
    return lo, hi


def median_spread(xs: list[float]) -> dict[str, float]:
    """Median of repeated runs, its 95 % CI (NaN below 3 runs) and the largest
    relative deviation from it."""
    med = statistics.median(xs)
    dev = max(abs(x - med) for x in xs) / med if med else math.nan
    ci = median_ci(xs)
    return {
        "median": med,
        "ci_lo": ci[0] if ci else math.nan,
        "ci_hi": ci[1] if ci else math.nan,
        "min": min(xs),
        "max": max(xs),
        "max_rel_dev": dev,
        "runs": len(xs),
    }
