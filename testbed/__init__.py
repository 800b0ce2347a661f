"""jersey testbed: experiments on real kernels, from scenario files to reports.

The data flow, one package per stage:

* :mod:`testbed.run`: a scenario file (``scenarios/NAME.toml``) expands into
  points; each point is a trial (a path, flows, monitors) run on the target
  kernel by the harness, which writes one JSON per point;
* :mod:`testbed.net`: the paths (links, queues, loss), the papers'
  topologies, the netns and Mininet builders;
* :mod:`testbed.traffic`: iperf3 flows and cross traffic;
* :mod:`testbed.measure`: monitors, tracepoints, per-packet ground truth;
* :mod:`testbed.analysis`: metrics of each point, tables, plots, report.md;
* :mod:`testbed.experiments`: the acceptance experiments of the modules.

``python -m testbed`` (:mod:`testbed.cli`) is the command line; ``testbed/vm``
(:mod:`testbed.vm`) runs a command on a Debian kernel in QEMU.
"""

from pathlib import Path

# the top of the repository
TOP = Path(__file__).resolve().parent.parent
