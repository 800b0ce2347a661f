"""The Mininet backend: topologies of netpath links as Mininet networks.

Imported only when Mininet is chosen (``--backend mininet``, ``mn --custom
mininet/topos.py``, :mod:`testbed.experiments.build_cost`).

A :class:`LinkTopo` turns a list of :class:`testbed.net.path.Link` into a
Mininet topology with exactly the netns builder's shape (see netpath.py):

* every end node is a :class:`Router` host (its own network namespace,
  ``ip_forward=1``, static routes to every subnet, per-node sysctls);
* every link is ``[a] --veth--> [airN] --veth--> [b]`` where ``airN`` is an
  :class:`AirBridge`, a Linux bridge (no Open vSwitch, no controller) in its
  own namespace;
* the devices are configured by :class:`PathIntf` with the tc lines of
  :func:`testbed.net.path.link_tc_cmds` (htb + bottleneck queue on the ends,
  netem delay + corruption loss on the air ports), the same lines the netns
  builder feeds to ``tc -batch``, and the same addresses
  (10.<path id>.<link>.<1|2>) and routes.

:class:`MininetPath` is a :class:`testbed.net.path.Path` built by Mininet: it
attaches a named network namespace (``ip netns attach``) to every Mininet
node, so flows, monitors and statistics run unchanged on either backend.

:func:`topo_class` makes the Mininet topology class of each of the papers'
topologies (:mod:`testbed.net.topologies`); ``mininet/topos.py`` offers them
to ``mn --custom``.
"""

from __future__ import annotations

import subprocess
import time
from typing import Any, ClassVar

from mininet.link import Intf
from mininet.link import Link as MnLink
from mininet.log import setLogLevel
from mininet.net import Mininet
from mininet.node import Node, Switch
from mininet.topo import Topo
from testbed.net.path import (
    AIR_BRIDGE_CMDS,
    IP,
    TC,
    Link,
    Path,
    _free_id,
    link_tc_cmds,
    node_addr,
    offload_cmd,
    route_cmds,
)
from testbed.net.topologies import Topology


def _run(node: Node, cmd: str) -> str:
    """Run ``cmd`` in a Mininet node's shell; raise with its output if it fails."""
    out = node.cmd(f"{cmd}; echo __rc=$?")
    body, _, rc = out.rpartition("__rc=")
    if rc.strip() != "0":
        raise RuntimeError(f"{node.name}: {cmd}: exit {rc.strip()}: {body.strip()}")
    return body


class PathIntf(Intf):
    """An interface configured from the path plan: address, no offloads, tc lines."""

    def config(
        self, addr: str | None = None, tc: tuple[str, ...] | list[str] = (), **params: Any
    ) -> dict[str, Any]:
        r = super().config(**params)
        if addr:
            _run(self.node, f"{IP} addr add {addr} dev {self.name}")
            ip, _, plen = addr.partition("/")
            self.ip, self.prefixLen = ip, int(plen)  # what Mininet's IP() reports
        _run(self.node, offload_cmd(self.name))
        for line in tc:
            _run(self.node, f"{TC} {line}")
        return r


class Router(Node):
    """A host that forwards: ip_forward, static routes and sysctls from the plan."""

    def config(
        self,
        sysctls: dict[str, str] | None = None,
        routes: tuple[str, ...] | list[str] = (),
        **params: Any,
    ) -> dict[str, Any]:
        r = super().config(**params)
        for key, value in {"net.ipv4.ip_forward": "1", **(sysctls or {})}.items():
            _run(self, f"sysctl -qw {key}={value}")
        for route in routes:
            _run(self, f"{IP} {route}")
        return r


class AirBridge(Switch):
    """The medium of a link: a Linux bridge joining ports pa and pb, in its own namespace."""

    def __init__(self, name: str, **params: Any) -> None:
        # Mininet passes its own inNamespace (False for switches) unless the
        # topology gives one; the topologies here always ask for a namespace
        params.setdefault("inNamespace", True)
        super().__init__(name, **params)

    def start(self, _controllers: list[Any]) -> None:
        for line in AIR_BRIDGE_CMDS:
            _run(self, f"{IP} {line}")

    def stop(self, deleteIntfs: bool = True) -> None:
        self.cmd(f"{IP} link del br0")
        super().stop(deleteIntfs)


def add_path(
    topo: Topo,
    links: list[Link],
    path_id: int = 1,
    sysctls: dict[str, dict[str, str]] | None = None,
) -> None:
    """Add ``links`` to a Mininet topology: routers, air bridges and configured veths."""
    nodes: list[str] = []
    for i, link in enumerate(links):
        link.index = i
        for n in (link.a, link.b):
            if n not in nodes:
                nodes.append(n)
    routes = route_cmds(path_id, nodes, links)
    for node in nodes:
        topo.addHost(
            node,
            cls=Router,
            ip=None,
            sysctls=dict((sysctls or {}).get(node, {})),
            routes=routes[node],
        )
    for link in links:
        air = f"air{link.index}"
        dev = Path.dev(link)
        cmds = link_tc_cmds(link)
        topo.addSwitch(air, cls=AirBridge, dpid=f"{link.index + 1:x}", inNamespace=True)
        topo.addLink(
            link.a,
            air,
            cls=MnLink,
            intf=PathIntf,
            intfName1=dev,
            intfName2="pa",
            params1={"addr": f"{node_addr(path_id, link, link.a)}/24", "tc": cmds["a"]},
            params2={"tc": cmds["pa"]},
        )
        topo.addLink(
            air,
            link.b,
            cls=MnLink,
            intf=PathIntf,
            intfName1="pb",
            intfName2=dev,
            params1={"tc": cmds["pb"]},
            params2={"addr": f"{node_addr(path_id, link, link.b)}/24", "tc": cmds["b"]},
        )


class LinkTopo(Topo):
    """A Mininet topology given by netpath links.

    ``LinkTopo(links=[...])`` takes an explicit list of links; the classes
    :func:`topo_class` makes take a topology's parameters instead.
    """

    topology: ClassVar[type[Topology] | None] = None

    def build(
        self,
        links: list[Link] | None = None,
        path_id: int = 1,
        sysctls: dict[str, dict[str, str]] | None = None,
        **params: Any,
    ) -> None:
        if links is None:
            if self.topology is None:
                raise TypeError("LinkTopo: no links and no topology")
            links = self.topology.path_links(**params)
        elif params:
            raise TypeError(f"LinkTopo: parameters {sorted(params)} given with explicit links")
        self.link_list = links
        add_path(self, links, path_id, sysctls)


def topo_class(topology: type[Topology]) -> type[LinkTopo]:
    """The Mininet topology class of one of :mod:`testbed.net.topologies`:
    ``topo_class(topologies.get("fig511"))(loss=0.01)``."""
    return type(topology.__name__, (LinkTopo,), {"topology": topology, "__doc__": topology.__doc__})


class MininetPath(Path):
    """A :class:`Path` built by Mininet instead of ``ip netns``/``ip -batch``.

    Same nodes, devices, addresses, routes and qdiscs; every Mininet node's
    namespace is also given the netns builder's name (``ip netns attach``),
    so everything that runs on a Path runs unchanged.
    """

    backend = "mininet"

    def build(self) -> MininetPath:
        t0 = time.monotonic()
        # Mininet.init() would raise rlimits and root-namespace sysctls
        # (tcp_rmem/wmem, ...): keep the kernel as the netns backend sees it.
        Mininet.inited = True
        setLogLevel("warning")
        topo = LinkTopo(links=self.links, path_id=self.id, sysctls=self.sysctls)
        self.net = Mininet(
            topo=topo,
            controller=None,
            build=False,
            autoSetMacs=False,
            autoStaticArp=False,
            waitConnected=False,
        )
        self._built = True
        try:
            self.net.build()
            self.net.start()
            names = [(self.ns(n), self.net[n]) for n in self.nodes]
            names += [(self.air(link), self.net[f"air{link.index}"]) for link in self.links]
            for name, node in names:
                subprocess.run([IP, "netns", "attach", name, str(node.pid)], check=True)
        except BaseException:
            self.destroy()
            raise
        self.build_s = time.monotonic() - t0
        return self

    def destroy(self) -> None:
        if not self._built:
            return
        names = [self.ns(n) for n in self.nodes] + [self.air(link) for link in self.links]
        for name in names:
            subprocess.run([IP, "netns", "del", name], capture_output=True)
        self.net.stop()
        self._built = False
        _free_id(self.id)
