"""RED's zero-loss maximum threshold (eq. 8 of `000_...`/`001_...`) and the tc command.

Bai & Atiquzzaman model the RED queue of an ECN gateway fed by ``m`` TCP
flows in congestion avoidance.  Each flow's first mark comes, on average,
after ``beta_i = 1 / (p W_i)`` window increases (marks are Poisson with rate
``p W_i / r_i``, a window grows by one per RTT ``r_i``, so the RTT cancels),
and RED's average then reaches at most::

    Qmax = min_th + sum_i (beta_i + w)                                  (8)

which they propose as ``max_th``.  ``p`` is RED's marking probability at that
average, ``p = max_p (Qmax - min_th) / (max_th_ref - min_th)``, with the RED
configuration the model starts from (``max_th_ref``, the recommended
``3 min_th``).  Substituting gives a quadratic in ``x = Qmax - min_th``::

    x^2 - m w x - (max_th_ref - min_th) / max_p * sum_i 1 / W_i = 0

solved here exactly (its positive root).  A fixed ``p`` can be given instead.

The papers do not state ``m`` and ``W_i`` for their table; one flow with a
window of 19 packets, fitted to their case 1 (7.3), predicts their cases 2
and 3 (6.7, 9.6) within 0.12 (tests/test_redmodel.py).

``python -m testbed.net.redmodel --min-th 5 --w 0.002 --max-p 0.1 --flow 19:0.059``
prints the model's ``max_th`` and the matching ``tc qdisc ... red ... ecn``
command as JSON.  Linux's RED takes its averaging weight as ``2^-Wlog``,
which tc derives from ``burst``; :func:`burst_for_weight` picks the burst
that gives the ``Wlog`` nearest to ``w``.
"""

from __future__ import annotations

import argparse
import json
import math
from dataclasses import dataclass
from typing import Any

from testbed.net.path import red_args


@dataclass(frozen=True)
class FlowWindow:
    """A flow at the gateway: its window (packets) and RTT (seconds)."""

    window_pkts: float
    rtt_s: float = 0.0  # cancels out of (8); kept for the record

    def __post_init__(self) -> None:
        if self.window_pkts <= 0:
            raise ValueError(f"window {self.window_pkts} must be positive")


@dataclass(frozen=True)
class ModelResult:
    max_th: float  # packets: (8), the suggested max_th
    p: float  # RED marking probability at that average
    betas: tuple[float, ...]  # per flow, window increases before the first mark

    def to_json(self) -> dict[str, Any]:
        return {"max_th": self.max_th, "p": self.p, "betas": list(self.betas)}


def max_th(
    min_th: float,
    w: float,
    max_p: float,
    flows: list[FlowWindow],
    max_th_ref: float | None = None,
    p: float | None = None,
) -> ModelResult:
    """Eq. (8): the maximum average queue, i.e. the zero-loss ``max_th`` (packets).

    With ``p`` None, ``p`` is RED's probability at that average under the
    reference configuration ``max_th_ref`` (default ``3 min_th``).
    """
    if not flows:
        raise ValueError("need at least one flow")
    if not 0 < max_p <= 1 or not 0 < w < 1 or min_th < 0:
        raise ValueError(f"bad RED parameters min_th={min_th} w={w} max_p={max_p}")
    m = len(flows)
    inv_w = sum(1 / f.window_pkts for f in flows)
    if p is None:
        ref = 3 * min_th if max_th_ref is None else max_th_ref
        if ref <= min_th:
            raise ValueError(f"max_th_ref {ref} must exceed min_th {min_th}")
        c = (ref - min_th) / max_p * inv_w
        x = (m * w + math.sqrt((m * w) ** 2 + 4 * c)) / 2
        p = max_p * x / (ref - min_th)
    elif not 0 < p <= 1:
        raise ValueError(f"marking probability {p} not in (0, 1]")
    betas = tuple(1 / (p * f.window_pkts) for f in flows)
    return ModelResult(min_th + sum(b + w for b in betas), p, betas)


def red_wlog(burst: int, min_pkts: float) -> int:
    """Wlog that tc computes from ``burst`` (iproute2's tc_red_eval_ewma)."""
    a = burst + 1 - min_pkts
    if a < 1:
        raise ValueError(f"burst {burst} too small for min {min_pkts}")
    weight = 0.5
    for wlog in range(1, 32):
        if a <= (1 - (1 - weight) ** burst) / weight:
            return wlog
        weight /= 2
    raise ValueError(f"no Wlog for burst {burst}")


def burst_for_weight(w: float, min_pkts: float) -> int:
    """The smallest burst (packets) for which tc's Wlog gives 2^-Wlog nearest to ``w``."""
    want = round(-math.log2(w))
    for burst in range(max(1, math.ceil(min_pkts)), 100000):
        wlog = red_wlog(burst, min_pkts)
        if wlog == want:
            return burst
        if wlog > want:
            break
    raise ValueError(f"no burst gives Wlog {want} (w={w}) with min {min_pkts}")


def tc_red_args(
    min_th: float,
    max_th_pkts: float,
    max_p: float,
    w: float,
    bandwidth_kbit: float,
    avpkt: int = 1000,
    limit_pkts: int = 100,
    harddrop: bool = False,
) -> list[str]:
    """Arguments of ``tc qdisc add ... red`` (thresholds in packets of ``avpkt`` bytes)."""
    args = red_args(
        int(limit_pkts * avpkt),
        round(min_th * avpkt),
        round(max_th_pkts * avpkt),
        avpkt,
        burst_for_weight(w, min_th),
        max_p,
        f"{bandwidth_kbit:g}kbit",
    )
    if harddrop:
        args.append("harddrop")
    return args


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--min-th", type=float, required=True, help="packets")
    ap.add_argument("--w", type=float, default=0.002, help="RED averaging weight")
    ap.add_argument("--max-p", type=float, required=True)
    ap.add_argument(
        "--flow",
        action="append",
        required=True,
        metavar="W[:RTT]",
        help="a flow's window (packets) and RTT (s); repeat per flow",
    )
    ap.add_argument("--max-th-ref", type=float, help="reference max_th (default 3 min_th)")
    ap.add_argument("--p", type=float, help="use this marking probability instead")
    ap.add_argument("--dev", default="DEV")
    ap.add_argument("--parent", default="root")
    ap.add_argument("--bandwidth-kbit", type=float, default=10000)
    ap.add_argument("--avpkt", type=int, default=1000)
    ap.add_argument("--limit-pkts", type=int, default=100)
    args = ap.parse_args(argv)
    flows = []
    for spec in args.flow:
        win, _, rtt = spec.partition(":")
        flows.append(FlowWindow(float(win), float(rtt or 0)))
    res = max_th(args.min_th, args.w, args.max_p, flows, args.max_th_ref, args.p)
    red = tc_red_args(
        args.min_th,
        res.max_th,
        args.max_p,
        args.w,
        args.bandwidth_kbit,
        args.avpkt,
        args.limit_pkts,
    )
    where = "root" if args.parent == "root" else f"parent {args.parent}"
    doc = {
        **res.to_json(),
        "inputs": {
            "min_th": args.min_th,
            "w": args.w,
            "max_p": args.max_p,
            "flows": [{"window_pkts": f.window_pkts, "rtt_s": f.rtt_s} for f in flows],
            "max_th_ref": args.max_th_ref,
        },
        "wlog": red_wlog(burst_for_weight(args.w, args.min_th), args.min_th),
        "tc": f"tc qdisc add dev {args.dev} {where} red {' '.join(red)}",
    }
    print(json.dumps(doc, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
