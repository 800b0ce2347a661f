"""The papers' paths: the one source of the testbed's topologies.

Each class is a :class:`Topology`: :meth:`Topology.make` takes the topology's
parameters (the paper's values are the defaults) and returns the links of
:mod:`testbed.net.path` (rates, delays, bottleneck queues, loss per
direction).  Scenario files name a topology and its parameters
(``[topology] name = "fig511"``); experiments and tests ask for the links::

    from testbed.net import topologies
    links = topologies.links("fig511", loss=0.01, gateway={"kind": "cw", "limit": 50})

The netns builder (:class:`testbed.net.path.Path`) and the Mininet backend
(:mod:`testbed.net.mininet_backend`, ``mn --custom mininet/topos.py``) build
the same links; nothing here imports Mininet.

Queues (``gateway`` etc.) are a qdisc kind (pfifo, red_ecn, cw, vcrr,
fq_codel, pie), a table of options (see ``Queue.from_spec``) or a
:class:`Queue`; losses are a probability, a table (``Loss.from_spec``:
random, Gilbert-Elliott by mean and burst or by state durations, bit error
rate) or a :class:`Loss`.
"""

from __future__ import annotations

import inspect
from typing import Any, ClassVar

from testbed.net.path import Link, Loss, Queue

# The sender's own egress never holds a queue (TCP Small Queues), so a wired
# bottleneck that the papers put at the sender's interface sits on a router
# "r" reached over this fast, lossless hop instead.
ACCESS_MBIT = 1000


class Topology:
    """A topology of the papers, as a function of its parameters.

    Subclasses define :meth:`make` (keyword parameters, the paper's values
    as defaults) and may override some defaults in :attr:`defaults`.
    """

    defaults: ClassVar[dict[str, Any]] = {}

    @classmethod
    def make(cls, **params: Any) -> list[Link]:
        raise NotImplementedError(f"{cls.__name__} defines no make()")

    @classmethod
    def parameters(cls) -> dict[str, Any]:
        """The topology's parameters and their defaults."""
        sig = inspect.signature(cls.make)
        params = {
            p.name: p.default
            for p in sig.parameters.values()
            if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)
        }
        return {**params, **cls.defaults}

    @classmethod
    def path_links(cls, **params: Any) -> list[Link]:
        """The links with ``params`` (unknown names are an error)."""
        known = cls.parameters()
        unknown = sorted(set(params) - set(known))
        if unknown:
            raise ValueError(
                f"{cls.__name__}: unknown parameters {unknown}; known: {', '.join(known)}"
            )
        return cls.make(**{**cls.defaults, **params})


def bdp_packets(rate_mbit: float, rtt_ms: float, packet_bytes: int = 1500) -> int:
    """The bandwidth-delay product in packets (at least 2)."""
    return max(2, int(rate_mbit * 1e6 * rtt_ms / 1e3 / 8 / packet_bytes))


def _queue(spec: Any, rate_mbit: float, buffer: int) -> Queue:
    """A queue spec with ``buffer`` packets as its default limit."""
    if isinstance(spec, Queue):
        return spec
    spec = {"kind": spec} if isinstance(spec, str) else dict(spec)
    spec.setdefault("limit", buffer)
    return Queue.from_spec(spec, rate_mbit)


def _loss(spec: Any) -> Loss | None:
    return spec if isinstance(spec, Loss) else Loss.from_spec(spec)


class WiredWireless(Topology):
    """senders --wired-- gw --wireless (lossy)-- rcv.

    ``senders`` sources (``src`` if 1, else ``s1``..``sN``) each reach the
    gateway ``gw`` over their own wired link; the wireless hop carries the
    corruption loss (``loss`` downstream, ``loss_rev`` upstream) after the
    gateway's ``gateway`` queue, and may be asymmetric (``wireless_rev_mbit``).
    """

    @classmethod
    def make(  # type: ignore[override]
        cls,
        wired_mbit: float = 10,
        wired_ms: float = 45,
        wired_buffer: int = 500,
        wireless_mbit: float = 2,
        wireless_ms: float = 1,
        wireless_rev_mbit: float | None = None,
        wireless_buffer: int = 50,
        gateway: Any = "pfifo",
        uplink: Any = "pfifo",
        loss: Any = None,
        loss_rev: Any = None,
        senders: int = 1,
    ) -> list[Link]:
        names = ["src"] if senders == 1 else [f"s{i}" for i in range(1, senders + 1)]
        wired = [
            Link(
                s,
                "gw",
                rate_mbit=wired_mbit,
                delay_ms=wired_ms,
                queue=Queue.pfifo(wired_buffer),
                queue_rev=Queue.pfifo(wired_buffer),
            )
            for s in names
        ]
        rev = wireless_rev_mbit or wireless_mbit
        return [
            *wired,
            Link(
                "gw",
                "rcv",
                rate_mbit=wireless_mbit,
                delay_ms=wireless_ms,
                loss=_loss(loss),
                queue=_queue(gateway, wireless_mbit, wireless_buffer),
                rate_rev_mbit=wireless_rev_mbit,
                loss_rev=_loss(loss_rev),
                queue_rev=_queue(uplink, rev, wireless_buffer),
            ),
        ]


class Fig511(WiredWireless):
    """Thesis fig 5.11 / 8.10: src -10 Mb/s, 45 ms- base station -2 Mb/s, 1 ms, lossy- mobile."""


class Friendliness(WiredWireless):
    """Thesis fig 5.15/5.16: 100 Mb/s 45 ms wired + 20 Mb/s 1 ms wireless."""

    defaults: ClassVar[dict[str, Any]] = {"wired_mbit": 100, "wireless_mbit": 20}


class Staggered(WiredWireless):
    """Thesis fig 8.21: S1, S2, S3 -100 Mb/s- base station -5 Mb/s, 1% PER- D."""

    defaults: ClassVar[dict[str, Any]] = {"senders": 3, "wired_mbit": 100, "wireless_mbit": 5}


class Satellite(Topology):
    """000_/001_ fig 6/7: src -10 Mb/s LAN- ra =64 kb/s, 280 ms satellite= rb -LAN- dst.

    Both gateways (``ra`` towards the satellite, ``rb`` back) use ``gateway``
    (RED with ECN by default); the satellite hop loses packets both ways
    (``loss`` data direction, ``loss_rev`` ACK direction).  The LANs' queues
    hold ``lan_buffer`` packets (default: ``buffer``).
    """

    @classmethod
    def make(  # type: ignore[override]
        cls,
        lan_mbit: float = 10,
        lan_ms: float = 1,
        sat_kbit: float = 64,
        sat_ms: float = 280,
        buffer: int = 50,
        gateway: Any = None,
        loss: Any = None,
        loss_rev: Any = None,
        lan_buffer: int | None = None,
    ) -> list[Link]:
        sat = sat_kbit / 1000
        lan = lan_buffer or buffer
        gw = gateway or {"kind": "red_ecn", "min": 5, "max": 8, "max_p": 0.1, "avpkt": 1000}
        return [
            Link("src", "ra", lan_mbit, lan_ms, queue=Queue.pfifo(lan)),
            Link(
                "ra",
                "rb",
                sat,
                sat_ms,
                loss=_loss(loss),
                loss_rev=_loss(loss_rev),
                queue=_queue(gw, sat, buffer),
                queue_rev=_queue(gw, sat, buffer),
            ),
            Link("rb", "dst", lan_mbit, lan_ms, queue=Queue.pfifo(lan)),
        ]


class ReversePath(Topology):
    """Thesis fig 6.2 / 7.1: src -r1 =core= r2- dst, cross nodes c1 at r1 and c2 at r2.

    Cross traffic c2 -> c1 crosses the core in the direction of the main
    flow's ACKs (r2 -> r1).  ``src_mbit`` is the source's access link (the
    bottleneck of fig 7.1); ``core_mbit``/``core_rev_mbit`` the core's rates.
    """

    @classmethod
    def make(  # type: ignore[override]
        cls,
        src_mbit: float = 100,
        core_mbit: float = 3,
        core_rev_mbit: float | None = None,
        core_ms: float = 20,
        access_mbit: float = 100,
        access_ms: float = 1,
        buffer: int = 20,
        loss: Any = None,
    ) -> list[Link]:
        def q() -> Queue:
            return Queue.pfifo(buffer)

        return [
            Link("src", "r1", src_mbit, access_ms, queue=q(), queue_rev=q()),
            Link(
                "r1",
                "r2",
                core_mbit,
                core_ms,
                loss=_loss(loss),
                queue=q(),
                rate_rev_mbit=core_rev_mbit,
                queue_rev=q(),
            ),
            Link("r2", "dst", access_mbit, access_ms, queue=q(), queue_rev=q()),
            Link("c1", "r1", access_mbit, access_ms, queue=q(), queue_rev=q()),
            Link("c2", "r2", access_mbit, access_ms, queue=q(), queue_rev=q()),
        ]


class Soho(Topology):
    """Thesis fig 7.6: a SOHO network behind an asymmetric lossy wireless hop.

    ``src``, ``c1``, ``c3`` (wired) -- ``r1`` -- ``bs`` (access point)
    ==wireless, ``down_mbit`` / ``up_mbit``, correlated loss== ``ap`` (the
    radio side) -- ``d``, ``c2``, ``c4`` (mobiles).  Cross traffic c1 -> c2
    shares the downlink with src -> d; c4 -> c3 shares the uplink with d's ACKs.
    """

    @classmethod
    def make(  # type: ignore[override]
        cls,
        wired_mbit: float = 10,
        wired_ms: float = 5,
        core_ms: float = 20,
        down_mbit: float = 2,
        up_mbit: float = 0.66,
        wireless_ms: float = 1,
        buffer: int = 50,
        gateway: Any = "pfifo",
        loss: Any = None,
        loss_rev: Any = None,
    ) -> list[Link]:
        def q() -> Queue:
            return Queue.pfifo(buffer)

        wired = [
            Link(n, "r1", wired_mbit, wired_ms, queue=q(), queue_rev=q())
            for n in ("src", "c1", "c3")
        ]
        mobiles = [Link("ap", n, 100, 0.1, queue=q(), queue_rev=q()) for n in ("d", "c2", "c4")]
        return [
            *wired,
            Link("r1", "bs", wired_mbit, core_ms, queue=q(), queue_rev=q()),
            Link(
                "bs",
                "ap",
                down_mbit,
                wireless_ms,
                loss=_loss(loss),
                queue=_queue(gateway, down_mbit, buffer),
                rate_rev_mbit=up_mbit,
                loss_rev=_loss(loss_rev),
                queue_rev=_queue(gateway, up_mbit, buffer),
            ),
            *mobiles,
        ]


class AccessPath(Topology):
    """src -fast- r -wired- STATION -wireless (lossy)- rcv, the wired bottleneck on router r.

    The papers put the wired bottleneck at the sender; here it is the egress
    of a router ``r`` behind a fast lossless access hop (see ACCESS_MBIT).
    The wired link's queue (congestion drops) is on ``r``, the wireless
    link's on the base station; netem's losses on the wireless hop are the
    wireless ground truth.
    """

    station: ClassVar[str] = "bs"

    @classmethod
    def make(  # type: ignore[override]
        cls,
        wired_mbit: float = 10,
        wired_ms: float = 50,
        wired_buffer: int | None = None,
        wireless_mbit: float = 10,
        wireless_ms: float = 0.01,
        wireless_buffer: int | None = None,
        loss: Any = None,
    ) -> list[Link]:
        """Buffers of None: the bandwidth-delay product of the wired link's round trip."""
        bdp = bdp_packets(wired_mbit, 2 * (wired_ms + wireless_ms))
        wired_q = Queue.pfifo(wired_buffer or bdp)
        wireless_q = Queue.pfifo(wireless_buffer or bdp)
        bs = cls.station
        return [
            Link("src", "r", rate_mbit=ACCESS_MBIT, delay_ms=0, queue=Queue.pfifo(1000)),
            Link("r", bs, rate_mbit=wired_mbit, delay_ms=wired_ms, queue=wired_q),
            Link(bs, "rcv", wireless_mbit, wireless_ms, loss=_loss(loss), queue=wireless_q),
        ]


class NewRenoLP(AccessPath):
    """NewReno-LP (`002_...` fig. 1): S -10 Mb/s, 50 ms- N -10 Mb/s, 0.01 ms, lossy- D.

    Both queues hold the bandwidth-delay product (83 packets).
    """

    station: ClassVar[str] = "n"


class Balde(AccessPath):
    """BaLDE (`004_...` fig. 6): S -5 Mb/s, 50 ms- BS -10 Mb/s, 0.01 ms, lossy- D.

    The wired queue holds the bandwidth-delay product (41 packets), the
    wireless one 50.
    """

    station: ClassVar[str] = "bs"
    defaults: ClassVar[dict[str, Any]] = {"wired_mbit": 5, "wireless_buffer": 50}


class Dumbbell(Topology):
    """`001_...` fig. 2: sources - R1 -bottleneck- R2 - destinations (RED's table II).

    src -10 Mb/s, 0.5 ms- r1 -2 Mb/s, 28.5 ms, ``gateway``- r2 -10 Mb/s, 0.5 ms- rcv:
    a round trip of 59 ms.
    """

    @classmethod
    def make(  # type: ignore[override]
        cls,
        edge_mbit: float = 10,
        edge_ms: float = 0.5,
        edge_buffer: int = 1000,
        core_mbit: float = 2,
        core_ms: float = 28.5,
        gateway: Any = "pfifo",
        buffer: int = 100,
    ) -> list[Link]:
        return [
            Link("src", "r1", edge_mbit, edge_ms, queue=Queue.pfifo(edge_buffer)),
            Link("r1", "r2", core_mbit, core_ms, queue=_queue(gateway, core_mbit, buffer)),
            Link("r2", "rcv", edge_mbit, edge_ms, queue=Queue.pfifo(edge_buffer)),
        ]


# The topologies by the name scenario files use.
TOPOLOGIES: dict[str, type[Topology]] = {
    "wired_wireless": WiredWireless,
    "fig511": Fig511,
    "friendliness": Friendliness,
    "staggered": Staggered,
    "satellite": Satellite,
    "reverse_path": ReversePath,
    "soho": Soho,
    "newrenolp": NewRenoLP,
    "balde": Balde,
    "dumbbell": Dumbbell,
}


def names() -> list[str]:
    return sorted(TOPOLOGIES)


def get(name: str) -> type[Topology]:
    """The topology registered as ``name``."""
    if name not in TOPOLOGIES:
        raise KeyError(f"unknown topology {name!r}; known: {', '.join(names())}")
    return TOPOLOGIES[name]


def parameters(name: str) -> dict[str, Any]:
    """A topology's parameters and their defaults (its paper's values)."""
    return dict(get(name).parameters())


def links(name: str, **params: Any) -> list[Link]:
    """The links of topology ``name`` with ``params``."""
    return list(get(name).path_links(**params))
