"""diffc, newrenolp and balde against reno: goodput, loss classification, fairness, RED.

The acceptance experiments of the diffc, newrenolp and balde modules, run in the VM::

    python -m testbed.experiments.diffc_newrenolp_balde \
        --out results/diffc-newrenolp-balde/<kernel>.json --part P [--part P ...]

Parts (each merged into ``--out``, so a kernel's runs can span several VM
invocations of a few minutes each):

* ``nrlp_uniform``: NewReno-LP path (10 Mb/s 50 ms wired + 10 Mb/s wireless,
  queues = BDP), uniform loss 1e-3 ... 5e-2, newrenolp and reno; newrenolp
  trials capture headers for per-loss ground truth (testbed.measure.groundtruth).
* ``nrlp_ge``: the same path with Gilbert-Elliott loss, good 1 s / bad 0.05 s
  (in packets at the link rate), bad-state loss 10 %, 50 %, 100 %.
* ``nrlp_fair``: five newrenolp flows on the error-free path: Jain index.
* ``balde``: BaLDE path (5 Mb/s, 50 ms one way, queue = BDP), uniform loss
  0.1 %, 1 %, 5 %, balde and reno.
* ``satellite``: Diff-C-TCP path (10 Mb/s LANs, 64 kb/s 280 ms hop, RED+ECN
  gateways with the model's max_th), 1000-byte packets, packet loss of BER
  1e-5 and 5e-5 (data and ACK sizes), diffc vs reno with ECN; plus, without
  loss, one diffc and one reno+ECN flow sharing the hop.
* ``red``: the papers' table II replayed on the kernel's ``red ... ecn``
  (min 5, max 15 / 8 / 7, max_p 0.1, w 0.002 -> Wlog 9, RTT 59 ms), with
  Linux's default ECN behaviour (above max_th ECT packets are marked, not
  dropped) and with ``harddrop`` (dropped, as in the papers' RED).

Every trial is repeated ``--runs`` times (default 3); all numbers are per run,
with every parameter, the kernel and module parameters.  ``--summarize
A.json B.json --md summary.md`` (no VM) computes medians and checks them
against the acceptance criteria.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path
from typing import Any, cast

from testbed import modules
from testbed.analysis.metrics import jain
from testbed.measure import groundtruth
from testbed.net import fading, redmodel, topologies
from testbed.net.path import Link, Loss, Queue, per_from_ber
from testbed.run.records import TrialResult
from testbed.run.trial import ECN_SYSCTLS, Trial, environment, run_trials
from testbed.traffic.flows import Flow

# ECN on every connection of the sender, kept when its SYN is lost (without
# it, one of six diffc connections at the satellite path's 33 % loss ran as Reno)
ECN_SENDER = {"src": ECN_SYSCTLS}
NRLP_PERS = (0.001, 0.005, 0.01, 0.02, 0.05)
GE_BAD = (0.1, 0.5, 1.0)
BALDE_PERS = (0.001, 0.01, 0.05)
SAT_BERS = (1e-5, 5e-5)
SAT_DATA_BYTES = 1000  # the papers' packet size (MSS 960 with timestamps)
SAT_MSS = 960
SAT_ACK_BYTES = 52  # IPv4 + TCP + timestamps
# the papers' receiver window (and initial ssthresh) of 30 segments: iperf3's
# -w sets SO_RCVBUF, which Linux doubles, and advertises about half of the
# doubled buffer: "30K" is about 30 segments of 960 bytes.  (The measured
# runs used "60K", about twice that: two sharing flows then overflowed the
# 100-packet RED limit.)
SAT_WINDOW = "30K"
SAT_RED_LIMIT = 100
RED_CASES = (15, 8, 7)


def cpu_busy() -> tuple[float, float]:
    """(busy, total) jiffies of all CPUs, to report how loaded the VM was."""
    vals = [float(v) for v in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
    idle = vals[3] + vals[4]
    return sum(vals) - idle, sum(vals)


def run_part(trials: list[Trial], parallel: int) -> dict[str, Any]:
    b0, t0 = cpu_busy()
    w0 = time.time()
    results = run_trials(trials, parallel=parallel)
    b1, t1 = cpu_busy()
    for r in results:
        if "monitor" in r:
            groundtruth.classify(r)
    return {
        "wall_s": time.time() - w0,
        "cpu_busy": (b1 - b0) / (t1 - t0) if t1 > t0 else None,
        "parallel": parallel,
        "trials": [slim(r) for r in results],
    }


def slim(r: TrialResult) -> TrialResult:
    """Drop what the JSON does not need (raw qdisc dumps); keep every number."""
    for link in cast(list[dict[str, Any]], r.get("links", [])):
        stats = link.pop("queue_stats", None) or {}
        if link.get("queue") == "red":  # early (prob + forced) drops, pdrop (tail), marked
            link["red_stats"] = {
                k: stats[k] for k in ("early", "pdrop", "other", "marked") if k in stats
            }
    return r


# -- the trials of each part ------------------------------------------------------


def nrlp_uniform(runs: int, duration: float) -> list[Trial]:
    out = []
    for run in range(runs):
        for per in NRLP_PERS:
            for cc in ("newrenolp", "reno"):
                out.append(nrlp_trial(f"u{per:g}-{cc}-{run}", Loss.random(per), cc, duration, run))
    return out


def ge_loss(bad: float, good_s: float = 1.0, bad_s: float = 0.05) -> Loss:
    """Gilbert-Elliott with mean state durations in packets at 10 Mb/s (1500 B)."""
    pps = 10e6 / 8 / 1500
    return Loss.gemodel(1 / (good_s * pps), 1 / (bad_s * pps), bad, 0.0)


def nrlp_ge(runs: int, duration: float) -> list[Trial]:
    out = []
    for run in range(runs):
        for bad in GE_BAD:
            for cc in ("newrenolp", "reno"):
                out.append(nrlp_trial(f"ge{bad:g}-{cc}-{run}", ge_loss(bad), cc, duration, run))
    return out


def nrlp_getime(runs: int, duration: float) -> list[Trial]:
    """Time-based Gilbert-Elliott (testbed.net.fading): good 1 s / bad 0.05 s of time.

    newrenolp and reno of a run see the same fading schedule (same seed).
    """
    out = []
    for run in range(runs):
        for bad in GE_BAD:
            fade = fading.Fading(
                2, good_s=1.0, bad_s=0.05, bad_loss=bad, seed=run * 1000 + int(bad * 100)
            )
            for cc in ("newrenolp", "reno"):
                capture = cc == "newrenolp"
                out.append(
                    Trial(
                        f"gt{bad:g}-{cc}-{run}",
                        topologies.links("newrenolp", loss=Loss.random(0.0)),
                        [Flow("src", "rcv", cc, duration)],
                        params={"fading": fade.to_json(), "cc": cc, "run": run, "capture": capture},
                        trace_events=["newrenolp/newrenolp_loss"] if capture else [],
                        monitor=fading.combine(groundtruth.Capture(), fading=fade)
                        if capture
                        else fading.combine(fade),
                    )
                )
    return out


def nrlp_trial(name: str, loss: Loss, cc: str, duration: float, run: int) -> Trial:
    capture = cc == "newrenolp"
    return Trial(
        name,
        topologies.links("newrenolp", loss=loss),
        [Flow("src", "rcv", cc, duration)],
        params={"loss": loss.to_json(), "cc": cc, "run": run, "capture": capture},
        trace_events=["newrenolp/newrenolp_loss"] if capture else [],
        monitor=groundtruth.Capture() if capture else None,
    )


def nrlp_fair(runs: int, duration: float) -> list[Trial]:
    return [
        Trial(
            f"fair-{run}",
            topologies.links("newrenolp"),
            [Flow("src", "rcv", "newrenolp", duration) for _ in range(5)],
            params={"cc": "newrenolp", "flows": 5, "run": run},
        )
        for run in range(runs)
    ]


def balde(runs: int, duration: float) -> list[Trial]:
    out = []
    for run in range(runs):
        for per in BALDE_PERS:
            for cc in ("balde", "reno"):
                out.append(
                    Trial(
                        f"b{per:g}-{cc}-{run}",
                        topologies.links("balde", loss=Loss.random(per)),
                        [Flow("src", "rcv", cc, duration)],
                        params={"per": per, "cc": cc, "run": run},
                        trace_events=["balde/balde_loss"] if cc == "balde" else [],
                    )
                )
    return out


def sat_queue(n_flows: int) -> tuple[Queue, dict[str, Any]]:
    """RED + ECN at the 64 kb/s gateway with the model's max_th for n flows.

    Each flow's window when the queue reaches min_th is its share of the
    bandwidth-delay product plus min_th packets.
    """
    rtt = 2 * (280 + 1 + 1) / 1000
    bdp = 64e3 * rtt / 8 / SAT_DATA_BYTES
    flows = [redmodel.FlowWindow((bdp + 5) / n_flows, rtt) for _ in range(n_flows)]
    model = redmodel.max_th(5, 0.002, 0.1, flows)
    # the hard limit holds both flows' 30-segment windows: a tail drop turns
    # into non-ECT retransmissions, which RED drops while its (slow, 64 s
    # time constant at 8 packets/s) average is above max_th
    args = redmodel.tc_red_args(
        5, model.max_th, 0.1, 0.002, 64, SAT_DATA_BYTES, limit_pkts=SAT_RED_LIMIT
    )
    return Queue("red", tuple(args)), {
        **model.to_json(),
        "windows": [f.window_pkts for f in flows],
        "tc_args": args,
    }


def sat_flow(cc: str, duration: float, dst: str = "dst") -> Flow:
    """1000-byte packets, a 30-segment window, time for a slow lossy link to say goodbye."""
    return Flow("src", dst, cc, duration, mss=SAT_MSS, window=SAT_WINDOW, timeout_s=duration + 240)


def satellite_path(
    queue: Queue, loss: Loss | None = None, loss_rev: Loss | None = None
) -> list[Link]:
    """The satellite topology with ``queue`` (RED + ECN) at both gateways, 1000-packet LANs."""
    return topologies.links(
        "satellite", gateway=queue, loss=loss, loss_rev=loss_rev, lan_buffer=1000
    )


def satellite(runs: int, duration: float) -> list[Trial]:
    out = []
    q1, m1 = sat_queue(1)
    q2, m2 = sat_queue(2)
    for run in range(runs):
        for ber in SAT_BERS:
            fwd = per_from_ber(ber, SAT_DATA_BYTES)
            rev = per_from_ber(ber, SAT_ACK_BYTES)
            for cc in ("diffc", "reno"):
                out.append(
                    Trial(
                        f"sat{ber:g}-{cc}-{run}",
                        satellite_path(q1, Loss.random(fwd), Loss.random(rev)),
                        [sat_flow(cc, duration)],
                        sysctls=ECN_SENDER,
                        params={
                            "ber": ber,
                            "per": fwd,
                            "per_ack": rev,
                            "cc": cc,
                            "run": run,
                            "red_model": m1,
                        },
                        trace_events=["diffc/diffc_loss"] if cc == "diffc" else [],
                    )
                )
        out.append(
            Trial(
                f"satshare-{run}",
                satellite_path(q2),
                [
                    sat_flow("diffc", duration),
                    sat_flow("reno", duration),
                ],
                sysctls=ECN_SENDER,
                params={"ber": 0, "run": run, "red_model": m2},
                trace_events=["diffc/diffc_loss"],
            )
        )
    return out


def red(runs: int, duration: float) -> list[Trial]:
    out = []
    for run in range(runs):
        for max_th in RED_CASES:
            for harddrop in (False, True):
                args = redmodel.tc_red_args(
                    5, max_th, 0.1, 0.002, 2000, SAT_DATA_BYTES, limit_pkts=100, harddrop=harddrop
                )
                mode = "harddrop" if harddrop else "ecn"
                out.append(
                    Trial(
                        f"red{max_th}-{mode}-{run}",
                        # 2 Mb/s with 1000-byte packets: one flow's window is 14.75
                        # packets of bandwidth-delay product plus the queue, about
                        # the 19 of the model
                        topologies.links("dumbbell", gateway=Queue("red", tuple(args))),
                        [sat_flow("reno", duration, dst="rcv")],
                        sysctls=ECN_SENDER,
                        params={
                            "min_th": 5,
                            "max_th": max_th,
                            "max_p": 0.1,
                            "w": 0.002,
                            "mode": mode,
                            "run": run,
                            "tc_args": args,
                        },
                    )
                )
    return out


PARTS = {
    # name: (trials(runs, duration), default duration, parallel)
    "nrlp_uniform": (nrlp_uniform, 30.0, 4),
    "nrlp_ge": (nrlp_ge, 30.0, 5),
    "nrlp_getime": (nrlp_getime, 30.0, 5),
    "nrlp_fair": (nrlp_fair, 60.0, 3),
    "balde": (balde, 30.0, 5),
    "satellite": (satellite, 200.0, 33),
    "red": (red, 60.0, 33),
}


def select(trials: list[Trial], args: argparse.Namespace) -> list[Trial]:
    """Runs first_run .. first_run + runs - 1, and only names containing a --only string."""
    out = []
    for t in trials:
        run = int(t.name.rsplit("-", 1)[1]) + args.first_run
        t.name = f"{t.name.rsplit('-', 1)[0]}-{run}"
        t.params["run"] = run
        if not args.only or any(s in t.name for s in args.only):
            out.append(t)
    return out


def main_run(args: argparse.Namespace) -> int:
    out = Path(args.out)
    doc: dict[str, Any] = json.loads(out.read_text()) if out.exists() else {}
    doc.setdefault("parts", {})
    params = modules.load("tcp_diffc", needs_ecn=0, classify="paper")
    params_lp = modules.load("tcp_newrenolp", rtt=args.newrenolp_rtt)
    suffix = "" if args.newrenolp_rtt == "latest" else f".rtt_{args.newrenolp_rtt}"
    env = environment()
    if doc.get("environment", {}).get("kernel") not in (None, env["kernel"]):
        raise SystemExit(f"{out} holds results of another kernel")
    doc["environment"] = env
    trials: list[Trial] = []
    parallel = 0
    for part in args.part:
        fn, dur, par = PARTS[part]
        trials += select(fn(args.runs, args.duration or dur), args)
        parallel = max(parallel, par)
    res = run_part(trials, args.parallel or parallel)
    for part in args.part:
        fn, dur, par = PARTS[part]
        names = {t.name for t in select(fn(args.runs, args.duration or dur), args)}
        key = part + suffix if part.startswith("nrlp") else part
        old = [t for t in doc["parts"].get(key, {}).get("trials", []) if t["name"] not in names]
        doc["parts"][key] = {
            "environment": env,
            "diffc_params": params,
            "newrenolp_params": params_lp,
            "runs": args.runs,
            "duration_s": args.duration or dur,
            "wall_s": res["wall_s"],
            "cpu_busy": res["cpu_busy"],
            "parallel": res["parallel"],
            "trials": old + [t for t in res["trials"] if t["name"] in names],
        }
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=1))
    print(
        f"{', '.join(args.part)}: {len(trials)} trials in {res['wall_s']:.0f} s, "
        f"cpu busy {res['cpu_busy']:.2f}"
    )
    return 0


# -- summary ------------------------------------------------------------------------


def goodput(t: dict[str, Any], i: int = 0) -> float:
    f = t["flows"][i]
    return float(f.get("goodput_bps", 0.0))


def med(xs: list[float]) -> float | None:
    return statistics.median(xs) if xs else None


def by_prefix(part: dict[str, Any], prefix: str) -> list[dict[str, Any]]:
    return [t for t in part["trials"] if t["name"].rsplit("-", 1)[0] == prefix]


def diffc_had_ecn(t: dict[str, Any]) -> bool | None:
    """Whether every loss decision of a diffc trial had ECN (None: no decision)."""
    flags = [e.get("ecn") for e in t.get("trace", []) if e.get("event") == "diffc_loss"]
    return all(f == 1 for f in flags) if flags else None


def summarize_kernel(doc: dict[str, Any]) -> dict[str, Any]:
    """Medians over runs and the acceptance checks of one kernel's results."""
    parts = doc.get("parts", {})
    s: dict[str, Any] = {"kernel": doc["environment"]["kernel"], "checks": []}

    def check(name: str, value: float | None, ok: bool, criterion: str) -> None:
        s["checks"].append({"name": name, "value": value, "pass": bool(ok), "criterion": criterion})

    variants: list[tuple[str, tuple[float, ...], str]]
    variants = [(k, NRLP_PERS, "u") for k in parts if k.split(".")[0] == "nrlp_uniform"]
    variants += [(k, GE_BAD, "ge") for k in parts if k.split(".")[0] == "nrlp_ge"]
    variants += [(k, GE_BAD, "gt") for k in parts if k.split(".")[0] == "nrlp_getime"]
    for part, points, label in sorted(variants):
        base = part.split(".")[0]
        rows: list[dict[str, Any]] = []
        for x in points:
            lp = by_prefix(parts[part], f"{label}{x:g}-newrenolp")
            if not lp and part != base:  # a variant (<part>.rtt_min) measures some points
                continue
            # reno does not depend on newrenolp's parameters: a variant's
            # reno trials are its base part's
            rn = by_prefix(parts[part], f"{label}{x:g}-reno") or by_prefix(
                parts.get(base, {"trials": []}), f"{label}{x:g}-reno"
            )
            accs = [t["groundtruth"]["accuracy"] for t in lp if t["groundtruth"]["accuracy"]]
            g_lp = med([goodput(t) for t in lp])
            g_rn = med([goodput(t) for t in rn])
            row: dict[str, Any] = {
                "point": x,
                "accuracy_runs": accs,
                "accuracy": med(accs),
                "judged_runs": [t["groundtruth"]["judged"] for t in lp],
                "truth_counts_runs": [t["groundtruth"]["truth_counts"] for t in lp],
                "confusion_runs": [t["groundtruth"]["confusion"] for t in lp],
                "newrenolp_bps_runs": [goodput(t) for t in lp],
                "reno_bps_runs": [goodput(t) for t in rn],
                "newrenolp_bps": g_lp,
                "reno_bps": g_rn,
                "ratio": g_lp / g_rn if g_lp and g_rn else None,
            }
            rows.append(row)
            tag = f"{part} {'PER' if label == 'u' else 'bad-state PER'} {x:g}"
            acc = row["accuracy"]
            check(f"{tag}: accuracy", acc, acc is not None and acc >= 0.7, ">= 0.70")
            ratio = row["ratio"]
            check(f"{tag}: newrenolp/reno", ratio, ratio is not None and ratio >= 1.0, ">= 1.0")
            if label == "u" and x == 0.01:
                check(f"{tag}: newrenolp/reno at 1%", ratio, (ratio or 0) >= 1.3, ">= 1.3")
        s.setdefault("nrlp", {})[part] = rows
    if "nrlp_fair" in parts:
        jains = [
            jain([float(f.get("goodput_bps", 0)) for f in t["flows"]])
            for t in parts["nrlp_fair"]["trials"]
        ]
        s["nrlp_fair"] = {"jain_runs": jains, "jain": med(jains)}
        check("nrlp_fair: Jain of 5 newrenolp", med(jains), (med(jains) or 0) >= 0.98, ">= 0.98")
    if "balde" in parts:
        rows = []
        for per in BALDE_PERS:
            b = [goodput(t) for t in by_prefix(parts["balde"], f"b{per:g}-balde")]
            r = [goodput(t) for t in by_prefix(parts["balde"], f"b{per:g}-reno")]
            mb, mr = med(b), med(r)
            rows.append(
                {
                    "per": per,
                    "balde_bps_runs": b,
                    "reno_bps_runs": r,
                    "balde_bps": mb,
                    "reno_bps": mr,
                    "ratio": mb / mr if mb and mr else None,
                }
            )
            if per == 0.01:
                ratio = rows[-1]["ratio"]
                check("balde PER 0.01: balde/reno", ratio, (ratio or 0) >= 1.5, ">= 1.5")
        s["balde"] = rows
    if "satellite" in parts:
        sat = parts["satellite"]
        rows = []
        for ber in SAT_BERS:
            dt = by_prefix(sat, f"sat{ber:g}-diffc")
            d = [goodput(t) for t in dt]
            r = [goodput(t) for t in by_prefix(sat, f"sat{ber:g}-reno")]
            md, mr = med(d), med(r)
            rows.append(
                {
                    "ber": ber,
                    "diffc_bps_runs": d,
                    # ECN negotiated (diffc's tracepoint): without it diffc is Reno
                    "diffc_ecn_runs": [diffc_had_ecn(t) for t in dt],
                    "reno_ecn_bps_runs": r,
                    "diffc_bps": md,
                    "reno_ecn_bps": mr,
                    "ratio": md / mr if md and mr else None,
                }
            )
            if ber == 5e-5:
                ratio = rows[-1]["ratio"]
                check("satellite BER 5e-5: diffc/reno+ECN", ratio, (ratio or 0) >= 3, ">= 3")
        shares = [
            goodput(t, 0) / goodput(t, 1) if goodput(t, 1) else None
            for t in by_prefix(sat, "satshare")
        ]
        ms = med([x for x in shares if x is not None])
        s["satellite"] = {"rows": rows, "share_ratio_runs": shares, "share_ratio": ms}
        check(
            "satellite no loss: diffc/reno+ECN sharing",
            ms,
            ms is not None and 0.67 <= ms <= 1.5,
            "0.67-1.5",
        )
    if "red" in parts:
        rows = []
        for max_th in RED_CASES:
            for mode in ("ecn", "harddrop"):
                ts = by_prefix(parts["red"], f"red{max_th}-{mode}")
                q = [next(x for x in t["links"] if x["link"] == "r1->r2") for t in ts]
                rows.append(
                    {
                        "max_th": max_th,
                        "mode": mode,
                        "drops_runs": [x["queue_drops"] for x in q],
                        "marked_runs": [x["queue_marked"] for x in q],
                        "goodput_bps_runs": [goodput(t) for t in ts],
                    }
                )
        s["red"] = rows
    return s


def fmt(x: float | None, scale: float = 1.0, digits: int = 2) -> str:
    return "-" if x is None else f"{x / scale:.{digits}f}"


def markdown(summaries: list[dict[str, Any]]) -> str:
    lines = ["# Acceptance of diffc, newrenolp and balde", ""]
    lines.append(
        "Medians of the runs; per-run numbers and every parameter are in the "
        "per-kernel JSON next to this file."
    )
    for s in summaries:
        lines += [
            "",
            f"## {s['kernel']}",
            "",
            "| check | median | criterion | result |",
            "|---|---:|---|---|",
        ]
        for c in s["checks"]:
            ok = "pass" if c["pass"] else "**FAIL**"
            lines.append(f"| {c['name']} | {fmt(c['value'], digits=3)} | {c['criterion']} | {ok} |")
        for part, rows in s.get("nrlp", {}).items():
            title = "PER" if part.startswith("nrlp_uniform") else "bad-state PER"
            if rows:
                lines += [
                    "",
                    f"{part} ({title}; goodput in Mb/s):",
                    "",
                    f"| {title} | accuracy | newrenolp | reno | ratio |",
                    "|---:|---:|---:|---:|---:|",
                ]
                for r in rows:
                    lines.append(
                        f"| {r['point']:g} | {fmt(r['accuracy'], digits=3)} | "
                        f"{fmt(r['newrenolp_bps'], 1e6)} | {fmt(r['reno_bps'], 1e6)} | "
                        f"{fmt(r['ratio'])} |"
                    )
        if "balde" in s:
            lines += ["", "| balde PER | balde Mb/s | reno Mb/s | ratio |", "|---:|---:|---:|---:|"]
            for r in s["balde"]:
                lines.append(
                    f"| {r['per']:g} | {fmt(r['balde_bps'], 1e6)} | "
                    f"{fmt(r['reno_bps'], 1e6)} | {fmt(r['ratio'])} |"
                )
        if "satellite" in s:
            lines += [
                "",
                "| satellite BER | diffc kb/s | reno+ECN kb/s | ratio |",
                "|---:|---:|---:|---:|",
            ]
            for r in s["satellite"]["rows"]:
                lines.append(
                    f"| {r['ber']:g} | {fmt(r['diffc_bps'], 1e3, 1)} | "
                    f"{fmt(r['reno_ecn_bps'], 1e3, 1)} | {fmt(r['ratio'])} |"
                )
        if "red" in s:
            lines += [
                "",
                "| RED max_th | mode | queue drops (runs) | marks (runs) |",
                "|---:|---|---|---|",
            ]
            for r in s["red"]:
                lines.append(
                    f"| {r['max_th']} | {r['mode']} | {r['drops_runs']} | " f"{r['marked_runs']} |"
                )
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", help="per-kernel JSON to create or update")
    ap.add_argument("--part", action="append", choices=sorted(PARTS))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument(
        "--first-run", type=int, default=0, help="number runs from here (add runs to a JSON)"
    )
    ap.add_argument("--only", action="append", help="only trials whose name contains this")
    ap.add_argument(
        "--newrenolp-rtt",
        default="latest",
        choices=("latest", "min"),
        help="newrenolp's rtt parameter; min stores the nrlp parts as <part>.rtt_min",
    )
    ap.add_argument("--duration", type=float, help="seconds per flow (default: per part)")
    ap.add_argument("--parallel", type=int, help="trials at a time (default: per part)")
    ap.add_argument("--summarize", nargs="+", metavar="JSON")
    ap.add_argument("--md", help="Markdown summary to write (with --summarize)")
    args = ap.parse_args()
    if args.summarize:
        sums = [summarize_kernel(json.loads(Path(p).read_text())) for p in args.summarize]
        text = markdown(sums)
        if args.md:
            Path(args.md).write_text(text)
            Path(args.md).with_suffix(".json").write_text(json.dumps(sums, indent=1))
        print(text)
        return 0
    if not args.out or not args.part:
        ap.error("--out and --part are needed to run experiments")
    return main_run(args)


if __name__ == "__main__":
    raise SystemExit(main())
