"""Our kernel modules on the target kernel: (re)load with parameters, report them.

Runs as root on the target kernel (in the VM or on the host), where
testbed/guest-init.sh has already loaded every module we built with its
default parameters.  An experiment that needs other parameters reloads the
module before it opens any connection::

    from testbed import modules
    modules.load("tcp_jersey", needs_ecn=0)

and records :func:`snapshot` with its results.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

TOP = Path(__file__).resolve().parent.parent
SYS_MODULE = Path("/sys/module")
# the modules we build, and the directory of each
SUBDIRS = ("kmod", "qdisc", "testbed/oracle")


def ko_path(module: str, release: str | None = None) -> Path:
    """build/<abi>/{kmod,qdisc,testbed/oracle}/<module>.ko for the running (or given) kernel."""
    build = TOP / "build" / (release or os.uname().release)
    for sub in SUBDIRS:
        ko = build / sub / f"{module}.ko"
        if ko.exists():
            return ko
    raise FileNotFoundError(f"{module}.ko not built for {release or os.uname().release}")


def ours(release: str | None = None) -> list[str]:
    """Names of the modules we built for the running (or given) kernel."""
    build = TOP / "build" / (release or os.uname().release)
    return sorted(ko.stem for sub in SUBDIRS for ko in (build / sub).glob("*.ko"))


def loaded(module: str) -> bool:
    return (SYS_MODULE / module / "initstate").exists()


def params(module: str) -> dict[str, str]:
    """Current parameter values of a loaded module (empty if none or not loaded)."""
    d = SYS_MODULE / module / "parameters"
    if not d.is_dir():
        return {}
    return {p.name: p.read_text().strip() for p in sorted(d.iterdir())}


def unload(module: str, wait_s: float = 10.0) -> None:
    """rmmod, retrying while sockets that used it wind down."""
    start = time.monotonic()
    while loaded(module):
        proc = subprocess.run(["rmmod", module], capture_output=True, text=True)
        if proc.returncode == 0:
            return
        waited = time.monotonic() - start
        if waited > wait_s:
            raise RuntimeError(f"rmmod {module}: {proc.stderr.strip()}")
        time.sleep(0.05 if waited < 5 else 1.0)


def load(module: str, unload_wait_s: float = 10.0, **values: object) -> dict[str, str]:
    """(Re)load our ``module`` with the given parameters; returns them as the kernel reports.

    A module that is already loaded with exactly these values is left alone;
    otherwise it is unloaded first, waiting up to ``unload_wait_s`` for the
    sockets that still use it to close.
    """
    want = {k: str(v) for k, v in values.items()}
    if loaded(module):
        have = params(module)
        if all(_same(have.get(k), v) for k, v in want.items()):
            return have
        unload(module, unload_wait_s)
    argv = ["insmod", str(ko_path(module))] + [f"{k}={v}" for k, v in want.items()]
    proc = subprocess.run(argv, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)}: {proc.stderr.strip()}")
    allow_all_ccs()
    return params(module)


def allow_all_ccs() -> None:
    """Allow every registered congestion control in network namespaces again.

    A re-registered congestion control is restricted (only the initial
    namespace may make it its default), which undoes what testbed/guest-init.sh
    set up.  Worse, on Debian 6.1/6.12 a refused ``sysctl
    net.ipv4.tcp_congestion_control`` in another namespace leaks a reference
    to the module (tcp_set_default_congestion_control() takes it before the
    permission check), which then can never be unloaded.
    """
    sysctl = Path("/proc/sys/net/ipv4")
    avail = (sysctl / "tcp_available_congestion_control").read_text().strip()
    (sysctl / "tcp_allowed_congestion_control").write_text(avail)


def _same(have: str | None, want: str) -> bool:
    """Compare a sysfs value with a requested one (bools read back as Y/N)."""
    if have is None:
        return False
    norm = {"1": "Y", "0": "N", "y": "Y", "n": "N", "true": "Y", "false": "N"}
    if have in ("Y", "N"):
        return have == norm.get(want.lower(), want)
    return have == want


def snapshot() -> dict[str, dict[str, str]]:
    """Parameters of every one of our modules that is loaded, for the record."""
    return {m: params(m) for m in ours() if loaded(m)}
