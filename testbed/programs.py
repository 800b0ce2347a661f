"""The external programs jersey runs (``testbed/programs.txt``), found on PATH.

:func:`require` is how a part of the testbed that starts a program says so
before it starts: a missing program then fails with its name and the package
that provides it, instead of an empty measurement.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from functools import cache
from pathlib import Path

LIST = Path(__file__).resolve().parent / "programs.txt"
VENV_BIN = Path(__file__).resolve().parent.parent / ".venv" / "bin"
# root's PATH on Debian: the sbin directories come first
SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


@dataclass(frozen=True)
class Program:
    name: str
    package: str  # a Debian package, or "pypi:NAME" (installed into .venv)
    purpose: str

    @property
    def from_pypi(self) -> bool:
        return self.package.startswith("pypi:")


class MissingProgram(RuntimeError):
    """A program the testbed needs is not installed."""


@cache
def listed() -> dict[str, Program]:
    """The list, by program name."""
    out: dict[str, Program] = {}
    for n, line in enumerate(LIST.read_text().splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split(None, 2)
        if len(parts) < 3:
            raise ValueError(f"{LIST}:{n}: want 'program package purpose', got {line!r}")
        name, package, purpose = parts
        if name in out:
            raise ValueError(f"{LIST}:{n}: {name} listed twice")
        out[name] = Program(name, package, purpose)
    return out


def search_path() -> str:
    """PATH, the venv's bin and root's system directories."""
    return os.pathsep.join([os.environ.get("PATH", ""), str(VENV_BIN), SYSTEM_PATH])


def which(name: str) -> str | None:
    return shutil.which(name, path=search_path())


def require(*names: str, what: str = "") -> None:
    """Raise :class:`MissingProgram` naming the packages of the programs
    among ``names`` that are not installed; ``what`` says who needs them."""
    missing = [n for n in names if which(n) is None]
    if not missing:
        return
    progs = listed()
    hints = []
    for n in missing:
        p = progs.get(n)
        hints.append(f"{n} (package {p.package})" if p else f"{n} (not in {LIST.name})")
    who = f"{what}: " if what else ""
    raise MissingProgram(f"{who}missing program {', '.join(hints)}; run 'make deps'")
