"""Paths of the papers' scenarios, as functions returning links."""

from __future__ import annotations

from testbed.netpath import Link, Loss, Queue

# Thesis ch. 8: 500-packet wired buffers, 50-packet wireless buffer.
WIRED_BUFFER = 500
WIRELESS_BUFFER = 50


def fig511(loss: Loss | None = None, queue: Queue | None = None) -> list[Link]:
    """Thesis fig 5.11: source -10 Mb/s, 45 ms- gateway -2 Mb/s, 1 ms, lossy- receiver."""
    return [
        Link("src", "gw", rate_mbit=10, delay_ms=45, queue=Queue.pfifo(WIRED_BUFFER)),
        Link(
            "gw",
            "rcv",
            rate_mbit=2,
            delay_ms=1,
            loss=loss,
            queue=queue or Queue.pfifo(WIRELESS_BUFFER),
        ),
    ]


def ge_for_mean(mean: float, burst: float = 2.0, bad_loss: float = 0.5) -> Loss:
    """A Gilbert-Elliott model with the given mean loss.

    Bad states last ``burst`` packets on average (r = 1/burst), lose
    ``bad_loss`` of their packets; the good state loses a tenth of ``mean``.
    """
    r = 1 / burst
    good = mean / 10
    # mean = (r*good + p*bad) / (p + r)  =>  p = r*(mean - good) / (bad - mean)
    p = r * (mean - good) / (bad_loss - mean)
    return Loss.gemodel(p, r, bad_loss, good)


# The sender's own egress never holds a queue (TCP Small Queues), so a wired
# bottleneck that the papers put at the sender's interface sits on a router
# "r" reached over this fast, lossless hop instead.
ACCESS_MBIT = 1000


def bdp_packets(rate_mbit: float, rtt_ms: float, packet_bytes: int = 1500) -> int:
    """The bandwidth-delay product in packets (at least 2)."""
    return max(2, int(rate_mbit * 1e6 * rtt_ms / 1e3 / 8 / packet_bytes))


def newrenolp_path(loss: Loss | None = None) -> list[Link]:
    """NewReno-LP (`002_...` fig. 1): S -10 Mb/s, 50 ms- N -10 Mb/s, 0.01 ms, lossy- D.

    Queues hold the bandwidth-delay product (83 packets).  The wired link's
    queue (congestion drops) is on router ``r``, the wireless link's on ``n``;
    netem's losses on n -> rcv are the wireless ground truth.
    """
    q = Queue.pfifo(bdp_packets(10, 2 * (50 + 0.01)))
    return [
        Link("src", "r", rate_mbit=ACCESS_MBIT, delay_ms=0, queue=Queue.pfifo(1000)),
        Link("r", "n", rate_mbit=10, delay_ms=50, queue=q),
        Link("n", "rcv", rate_mbit=10, delay_ms=0.01, loss=loss, queue=q),
    ]


def balde_path(loss: Loss | None = None) -> list[Link]:
    """BaLDE (`004_...` fig. 6): 5 Mb/s bottleneck, 50 ms one way, queue = BDP (41).

    S -fast- r -5 Mb/s, 50 ms- bs -10 Mb/s, 0.01 ms, lossy- D.
    """
    return [
        Link("src", "r", rate_mbit=ACCESS_MBIT, delay_ms=0, queue=Queue.pfifo(1000)),
        Link("r", "bs", rate_mbit=5, delay_ms=50, queue=Queue.pfifo(bdp_packets(5, 100))),
        Link("bs", "rcv", rate_mbit=10, delay_ms=0.01, loss=loss, queue=Queue.pfifo(50)),
    ]


def satellite_path(
    queue: Queue, loss: Loss | None = None, loss_rev: Loss | None = None
) -> list[Link]:
    """Diff-C-TCP (`001_...` fig. 7): 10 Mb/s LANs joined by a 64 kb/s, 280 ms hop.

    src -10 Mb/s, 1 ms- A -64 kb/s, 280 ms, lossy both ways- B -10 Mb/s, 1 ms- rcv;
    ``queue`` (RED + ECN) is the gateway queue at A and at B.
    """
    return [
        Link("src", "a", rate_mbit=10, delay_ms=1, queue=Queue.pfifo(1000)),
        Link(
            "a",
            "b",
            rate_mbit=0.064,
            delay_ms=280,
            loss=loss,
            queue=queue,
            loss_rev=loss_rev,
            queue_rev=queue,
        ),
        Link("b", "rcv", rate_mbit=10, delay_ms=1, queue=Queue.pfifo(1000)),
    ]


def per_from_ber(ber: float, packet_bytes: int) -> float:
    """Packet error rate of ``packet_bytes`` packets at bit error rate ``ber``."""
    return 1 - (1 - ber) ** (8 * packet_bytes)
