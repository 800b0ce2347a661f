"""What building a topology costs with the netns builder and with Mininet.

``python -m testbed.experiments.build_cost [--repeat 3] [--out FILE]`` (as root on the
target kernel, e.g. through testbed/vm) builds and tears down the fig 5.11
path and the SOHO network (9 nodes, 8 links) with each backend, one at a
time and 4 at once, and prints (and writes) the wall times.  README.md's
choice of backend for ``make bench`` rests on these numbers.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path as FsPath
from typing import Any

from testbed.net import topologies
from testbed.net.mininet_backend import MininetPath
from testbed.net.path import Path


def once(cls: type[Path], topo: str) -> dict[str, float]:
    links = topologies.links(topo)
    t0 = time.monotonic()
    path = cls(links).build()
    t1 = time.monotonic()
    path.destroy()
    return {"build_s": t1 - t0, "destroy_s": time.monotonic() - t1}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", default="")
    args = ap.parse_args()
    out: dict[str, Any] = {}
    for topo in ("fig511", "soho"):
        for cls in (Path, MininetPath):
            key = f"{topo}/{cls.backend}"
            serial = [once(cls, topo) for _ in range(args.repeat)]
            with ThreadPoolExecutor(4) as ex:
                t0 = time.monotonic()
                list(ex.map(once, [cls] * 4, [topo] * 4))
                four = time.monotonic() - t0
            out[key] = {
                "build_s_median": statistics.median(r["build_s"] for r in serial),
                "destroy_s_median": statistics.median(r["destroy_s"] for r in serial),
                "four_at_once_s": four,
                "runs": serial,
            }
            print(
                f"{key:20s} build {out[key]['build_s_median']:.2f} s, destroy "
                f"{out[key]['destroy_s_median']:.2f} s, 4 at once {four:.2f} s",
                flush=True,
            )
    if args.out:
        FsPath(args.out).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
