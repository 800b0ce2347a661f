"""Paths of the papers' scenarios, as functions returning links."""

from __future__ import annotations

from testbed.netpath import Link, Loss, Queue

# The testbed's ECN policy for senders: request ECN (RFC 3168), and keep
# requesting it when the SYN is retransmitted.  Linux's default
# tcp_ecn_fallback=1 sends a retransmitted SYN without ECN, so on a lossy
# path a lost SYN silently leaves the whole connection without ECN.
ECN_SYSCTLS = {"net.ipv4.tcp_ecn": "1", "net.ipv4.tcp_ecn_fallback": "0"}
ECN_SENDER_SYSCTLS = {"src": ECN_SYSCTLS}

# Thesis ch. 8: 500-packet wired buffers, 50-packet wireless buffer.
WIRED_BUFFER = 500
WIRELESS_BUFFER = 50


def fig511(loss: Loss | None = None, queue: Queue | None = None, sources: int = 1) -> list[Link]:
    """Thesis fig 5.11: source -10 Mb/s, 45 ms- gateway -2 Mb/s, 1 ms, lossy- receiver.

    ``sources`` > 1 adds senders ``src2``, ``src3``, ... on wired links like
    the first one's (their own namespaces, so their sysctls can differ).
    """
    wired = [
        Link(f"src{i + 1}" if i else "src", "gw", 10, 45, queue=Queue.pfifo(WIRED_BUFFER))
        for i in range(sources)
    ]
    return [
        *wired,
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
