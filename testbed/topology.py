"""The topology classes of ``mininet/topos.py``, for the harness and Python users.

``mininet/`` is deliberately not a Python package (it would shadow Debian's
``mininet``), so its file is loaded by path::

    from testbed import topology
    links = topology.links("fig511", loss=0.01)   # netpath links, no network needed
    Topo = topology.get("fig511")                 # the Mininet Topo class
"""

from __future__ import annotations

import functools
import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from testbed.netpath import Link

FILE = Path(__file__).resolve().parent.parent / "mininet" / "topos.py"


@functools.cache
def module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("jersey_mininet_topos", FILE)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def names() -> list[str]:
    return sorted(module().topos)


def get(name: str) -> Any:
    """The topology class registered as ``name`` in mininet/topos.py."""
    topos = module().topos
    if name not in topos:
        raise KeyError(f"unknown topology {name!r}; known: {', '.join(sorted(topos))}")
    return topos[name]


def parameters(name: str) -> dict[str, Any]:
    """A topology's parameters and their defaults (its paper's values)."""
    return dict(get(name).parameters())


def links(name: str, **params: Any) -> list[Link]:
    """The netpath links of topology ``name`` with ``params``."""
    return list(get(name).path_links(**params))
