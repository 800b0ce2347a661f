"""The papers' topologies for ``mn --custom`` (Mininet's command line).

The topologies themselves are :mod:`testbed.net.topologies`; this file only
offers them to Mininet, built by :mod:`testbed.net.mininet_backend` (routers
as hosts with forwarding, one Linux bridge per link medium, no Open vSwitch,
no controller, the same tc lines as the netns builder).  As root, on a kernel
with netem (e.g. in testbed/vm)::

    mn --custom mininet/topos.py --topo fig511,loss=0.01 --switch lxbr --controller none
    mn --custom mininet/topos.py --topo scenario,fig5_11,point=3 --switch lxbr \\
       --controller none --test pingall

``scenario,NAME[,point=N][,profile=P]`` is the topology of one point of
``scenarios/NAME.toml``.
"""

from __future__ import annotations

import inspect
import os
import sys
from typing import Any

try:
    _HERE = os.path.dirname(os.path.abspath(__file__))
except NameError:  # exec'd by ``mn --custom``, which defines no __file__
    _frame = inspect.currentframe()
    assert _frame is not None
    _HERE = os.path.dirname(os.path.abspath(_frame.f_code.co_filename))
if os.path.dirname(_HERE) not in sys.path:
    sys.path.insert(0, os.path.dirname(_HERE))

from testbed.net import topologies
from testbed.net.mininet_backend import LinkTopo, topo_class


class ScenarioTopo(LinkTopo):
    """The topology of one point of a scenario file: ``--topo scenario,NAME[,point=N]``."""

    def build(  # type: ignore[override]
        self, name: str, point: int = 0, profile: str = "", **params: Any
    ) -> None:
        from testbed.run import scenario

        sc = scenario.load(name)
        pts = sc.points(profile or None)
        super().build(links=pts[int(point)].links(), **params)


# ``mn --custom`` reads this dictionary: --topo NAME[,args]
topos: dict[str, type[LinkTopo]] = {
    **{name: topo_class(cls) for name, cls in topologies.TOPOLOGIES.items()},
    "scenario": ScenarioTopo,
}
