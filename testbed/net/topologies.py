"""The papers' topologies as Mininet topologies (also the harness's topology source).

Each class is a small :class:`testbed.mn.LinkTopo`: its ``links()`` takes
the topology's parameters (the paper's values are the defaults) and returns
netpath links; Mininet builds them with routers as hosts with forwarding,
one Linux bridge per link medium (no Open vSwitch, no controller), htb +
bottleneck queue at each sender-side device and netem delay/loss on the
medium, per direction.  The scenario files in ``scenarios/`` name a class
and its parameters, and the harness builds the same links with the netns
builder or Mininet.

From the command line (as root, on a kernel with netem, e.g. in testbed/vm)::

    mn --custom mininet/topos.py --topo fig511,loss=0.01 --switch lxbr --controller none
    mn --custom mininet/topos.py --topo scenario,fig5_11,point=3 --switch lxbr \\
       --controller none --test pingall

From Python::

    from testbed import topology
    from mininet.net import Mininet
    net = Mininet(topo=topology.get("fig511")(loss=0.01), controller=None)

Queues (``gateway`` etc.) are a qdisc kind (pfifo, red_ecn, cw, vcrr,
fq_codel, pie) or a table of options (see ``netpath.Queue.from_spec``);
losses are a probability or a table (``netpath.Loss.from_spec``: random,
Gilbert-Elliott by mean and burst or by state durations, bit error rate).
"""

from __future__ import annotations

import inspect
import os
import sys
from typing import Any, ClassVar

try:
    _HERE = os.path.dirname(os.path.abspath(__file__))
except NameError:  # exec'd by ``mn --custom``, which defines no __file__
    _frame = inspect.currentframe()
    assert _frame is not None
    _HERE = os.path.dirname(os.path.abspath(_frame.f_code.co_filename))
if os.path.dirname(_HERE) not in sys.path:
    sys.path.insert(0, os.path.dirname(_HERE))

from testbed.mn import LinkTopo
from testbed.netpath import Link, Loss, Queue


def _queue(spec: Any, rate_mbit: float, buffer: int) -> Queue:
    """A queue spec with ``buffer`` packets as its default limit."""
    if isinstance(spec, Queue):
        return spec
    spec = {"kind": spec} if isinstance(spec, str) else dict(spec)
    spec.setdefault("limit", buffer)
    return Queue.from_spec(spec, rate_mbit)


def _loss(spec: Any) -> Loss | None:
    return spec if isinstance(spec, Loss) else Loss.from_spec(spec)


class WiredWireless(LinkTopo):
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


class Satellite(LinkTopo):
    """000_/001_ fig 6/7: src -10 Mb/s LAN- ra =64 kb/s, 280 ms satellite= rb -LAN- dst.

    Both gateways (``ra`` towards the satellite, ``rb`` back) use ``gateway``
    (RED with ECN by default); the satellite hop loses packets both ways
    (``loss`` data direction, ``loss_rev`` ACK direction).
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
    ) -> list[Link]:
        sat = sat_kbit / 1000
        gw = gateway or {"kind": "red_ecn", "min": 5, "max": 8, "max_p": 0.1, "avpkt": 1000}
        return [
            Link("src", "ra", lan_mbit, lan_ms, queue=Queue.pfifo(buffer)),
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
            Link("rb", "dst", lan_mbit, lan_ms, queue=Queue.pfifo(buffer)),
        ]


class ReversePath(LinkTopo):
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


class Soho(LinkTopo):
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


class ScenarioTopo(LinkTopo):
    """The topology of one point of a scenario file: ``--topo scenario,NAME[,point=N]``."""

    def build(  # type: ignore[override]
        self, name: str, point: int = 0, profile: str = "", **params: Any
    ) -> None:
        from testbed import scenario

        sc = scenario.load(name)
        pts = sc.points(profile or None)
        super().build(links=pts[int(point)].links(), **params)


# ``mn --custom`` reads this dictionary: --topo NAME[,args]
topos = {
    "wired_wireless": WiredWireless,
    "fig511": Fig511,
    "friendliness": Friendliness,
    "staggered": Staggered,
    "satellite": Satellite,
    "reverse_path": ReversePath,
    "soho": Soho,
    "scenario": ScenarioTopo,
}
