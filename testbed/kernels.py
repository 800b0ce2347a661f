"""The pinned Debian kernels of testbed/kernels.txt, seen from Python.

scripts/kernels reads the list (one parser, shared with the Makefile,
scripts/kdir and make deps); this module asks it, and finds the image that
testbed/vm boots: the host's /boot/vmlinuz-<abi> for a kernel installed on this
machine (6.1, 6.12), or the one make deps unpacked from Debian's packages into
build/kernel-<abi>/ for a kernel of another release (Debian 13's 7.3), whose
modules virtme-ng then takes from the same tree.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

TOP = Path(__file__).resolve().parent.parent
SCRIPT = TOP / "scripts" / "kernels"


def names(*tests: str) -> tuple[str, ...]:
    """The series' names, in the list's order; only those whose tests column
    is one of ``tests`` (all, modules, build) if given."""
    out = subprocess.run([str(SCRIPT), "names", *tests], capture_output=True, text=True, check=True)
    return tuple(out.stdout.split())


def image(abi: str) -> Path | None:
    """The kernel image of ``abi`` that testbed/vm boots, or None."""
    unpacked = TOP / "build" / f"kernel-{abi}"
    for path in (
        Path(f"/boot/vmlinuz-{abi}"),
        unpacked / "usr" / "lib" / "modules" / abi / "vmlinuz",  # Debian 13's 7.x packages
        unpacked / "boot" / f"vmlinuz-{abi}",
    ):
        if path.exists():
            return path
    return None
