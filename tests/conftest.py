"""Shared fixtures: run a command on a Debian kernel through testbed/vm."""

from __future__ import annotations

import functools
import json
import os
import re
import shlex
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from testbed import kernels, vm

TOP = Path(__file__).resolve().parent.parent
VM = TOP / "testbed" / "vm"
# the testbed's Python (make deps), for the commands run in the guest
PY = str(TOP / ".venv" / "bin" / "python")
# The pinned Debian kernels come from testbed/kernels.txt.  KERNELS (tests
# column "all": 6.1, 6.12) get every VM test; NEW_KERNELS ("modules": 7.3) one
# boot of the module tests (tests/test_kernels_vm.py).  A test of our modules
# that belongs on every kernel we ship for (the scripted-peer tests, say)
# parametrizes over MODULE_KERNELS, so that a line added to kernels.txt
# extends it.  JERSEY_KERNELS="7.3" runs the KERNELS tests on other series.
KERNELS = tuple(os.environ.get("JERSEY_KERNELS", "").split()) or kernels.names("all")
NEW_KERNELS = tuple(k for k in kernels.names("modules") if k not in KERNELS)
MODULE_KERNELS = KERNELS + NEW_KERNELS
# Tests whose kernel-specific part other tests already cover on both kernels
# (the install walkthrough's two in-guest builds, the harness's Python on
# Mininet) run on the newer kernel only, to keep ``make check`` within CI's
# 30 minutes under TCG; JERSEY_FULL_MATRIX=1 runs them on both.
FULL_MATRIX = os.environ.get("JERSEY_FULL_MATRIX") == "1"
SLOW_KERNELS = KERNELS if FULL_MATRIX else KERNELS[-1:]
# Module load/unload cycles under traffic: the acceptance's 100 in the full
# matrix, 10 in make check (30 took 57-61 s a module and kernel when the
# host stole CPU, and make check's CI came within 4 minutes of its 90;
# the slab bound still catches a leak of 200 KB a cycle, refcounts any).
# The README's DKMS blocks (dkms build + install in the guest, 4 minutes
# under TCG) run in the full matrix; make check builds the DKMS source tree
# for both kernels on the host (tests/test_install.py).
MOD_CYCLES = 100 if FULL_MATRIX else 10
RESULTS = TOP / "results" / "tests"


def run_in_vm(kernel: str, argv: list[str], timeout: float = 900) -> tuple[int, float, str]:
    """Run argv in the VM; returns (exit status, wall seconds, combined output)."""
    t0 = time.monotonic()
    proc = subprocess.run(
        [str(VM), "--kernel", kernel, "--timeout", str(timeout), "--", *argv],
        capture_output=True,
        text=True,
        cwd=TOP,
    )
    return proc.returncode, time.monotonic() - t0, proc.stdout + proc.stderr


# Random netlink option sets per qdisc in tests/test_qdisc_netlink_vm.py.
NLFUZZ_SETS = int(os.environ.get("JERSEY_NLFUZZ_SETS", "1000"))
# The scripted-peer tests (tests/test_scripted_vm.py): every script on
# KERNELS; on NEW_KERNELS those of the modules users select (jersey, diffc),
# whose glue compat.h adapts to each kernel (the others share it).
SCRIPTED = TOP / "tests" / "scripted"
SCRIPTED_NEW_KERNELS = ("jersey", "diffc")


def scripts(kernel: str) -> tuple[str, ...]:
    """The scripted-peer scripts run on ``kernel`` (paths)."""
    found = sorted(SCRIPTED.glob("*/*.pkt"))
    if kernel not in KERNELS:
        found = [s for s in found if s.parent.name in SCRIPTED_NEW_KERNELS]
    return tuple(str(s) for s in found)


# The marking qdiscs' load/unload cycles (tests/test_qdisc_marking_vm.py):
# module and the qdisc it attaches.
QDISC_CYCLES = {"sch_cw": "cw limit 50 thresh 5", "sch_vcrr": "vcrr rate 10mbit limit 50"}


# Guest programs (module, result name, arguments) that share one boot on
# each of KERNELS, run one after the other in this order when the first of
# them is asked for: a boot and its setup cost 25-40 s under TCG.  e2e goes
# first, so that its record of the module parameters comes before the
# scripted peer and cc_modules set their own (the scripted peer restores
# what it sets; cc_modules leaves diffc loaded with classify=paper); the
# netlink fuzz last (it reads only the kernel log written after its own start).
# Asking for one runs them all (test_cc_vm.py, test_vm_e2e.py,
# test_scripted_vm.py, test_qdisc_marking_vm.py, test_jersey_vm.py and
# test_qdisc_netlink_vm.py read their documents).
SHARED_BOOT: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("tests.guest.e2e", "e2e", ()),
    *((("tests.scripted.peer", "scripted", scripts(KERNELS[0])),) if KERNELS else ()),
    ("tests.guest.cc_modules", "cc", ()),
    # tests/test_qdisc_marking_vm.py
    ("tests.guest.qdisc_marking", "qdisc-check", ()),
    *(
        (
            "tests.guest.modcycle",
            f"qdisc-cycle-{m}",
            ("--module", m, "--qdisc", q, "--cycles", str(MOD_CYCLES)),
        )
        for m, q in QDISC_CYCLES.items()
    ),
    # tests/test_jersey_vm.py: its parameter checks reload tcp_jersey with
    # the defaults that qdisc_marking changed; the acceptance run loads it
    # with the paper's
    ("tests.guest.jersey_module", "jersey-check", ()),
    (
        "tests.guest.modcycle",
        "jersey-cycle",
        ("--module", "tcp_jersey", "--cc", "jersey", "--cycles", str(MOD_CYCLES)),
    ),
    ("testbed.experiments.jersey_loss_differentiation", "jersey-accept", ("--runs", "1")),
    ("tests.guest.qdisc_nlfuzz", "qdisc-nlfuzz", ("--sets", str(NLFUZZ_SETS))),
)
# On NEW_KERNELS one boot runs the scripted peer (jersey's and diffc's
# scripts) and the netlink fuzz: a boot and its setup cost 25-40 s.
SHARED_BOOT_NEW: tuple[tuple[str, str, tuple[str, ...]], ...] = tuple(
    e for e in SHARED_BOOT if e[1] == "qdisc-nlfuzz"
)
# the shared boot's programs took 633-810 s on 6.12 under TCG (2026-11-27,
# 2026-11-29), the longest (the scripted peer) 210 s; a slow day is 1.6 times
# that.  Each program is stopped after PROGRAM_TIMEOUT (exit 124: its tests
# fail, the others still run), the boot after SHARED_BOOT_TIMEOUT: a program
# or a guest that hangs costs make check minutes, not its whole budget.
PROGRAM_TIMEOUT = 600
SHARED_BOOT_TIMEOUT = 1800


def shared_boot(kernel: str) -> tuple[tuple[str, str, tuple[str, ...]], ...]:
    """The programs that share one boot on ``kernel`` (module, name, arguments)."""
    if kernel in KERNELS:
        return SHARED_BOOT
    if kernel in NEW_KERNELS:
        return (("tests.scripted.peer", "scripted", scripts(kernel)), *SHARED_BOOT_NEW)
    return ()


def _out(kernel: str, name: str) -> Path:
    out = RESULTS / f"{name}-{kernel}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    return out


@functools.cache
def _shared_boot(kernel: str) -> tuple[dict[str, int], float, str]:
    """Run every program of shared_boot(kernel) in one VM; (exit status by
    name, wall s, output)."""
    programs = shared_boot(kernel)
    script = ['echo "shared-boot: start at $(cut -d" " -f1 /proc/uptime)"']
    stop = ["timeout", "-k", "10", str(PROGRAM_TIMEOUT)]
    for module, name, args in programs:
        out = _out(kernel, name)
        out.unlink(missing_ok=True)
        argv = shlex.join([*stop, PY, "-m", module, "--out", str(out), *args])
        up = '$(cut -d" " -f1 /proc/uptime)'
        script.append(f'{argv}; rc=$?; echo "shared-boot: {name} exit $rc at {up}"')
    rc, wall, log = run_in_vm(kernel, ["sh", "-c", "\n".join(script)], SHARED_BOOT_TIMEOUT)
    done = re.findall(r"^shared-boot: (\S+) (?:exit (\d+) )?at ([\d.]+)$", log, re.M)
    status = {name: int(code) for name, code, _t in done if code}
    # where the boot's time went (make check's budget): seconds per program
    ends = [float(t) for _n, _c, t in done]
    seconds = {done[i][0]: round(ends[i] - ends[i - 1], 1) for i in range(1, len(done))}
    _out(kernel, "shared-boot").write_text(json.dumps({"wall_s": wall, "seconds": seconds}))
    return {name: status.get(name, rc or 1) for _m, name, _a in programs}, wall, log


def vm_json(kernel: str, module: str, name: str, *args: str, any_status: bool = False
            ) -> dict[str, Any]:  # fmt: skip
    """Run ``python -m module --out FILE args`` in the VM (in the shared boot
    if it is one of shared_boot(kernel)) and load FILE; a non-zero exit
    status fails unless ``any_status`` (FILE says what failed)."""
    out = _out(kernel, name)
    if (module, name, args) in shared_boot(kernel):
        status, wall, log = _shared_boot(kernel)
        rc = status[name]
    else:
        out.unlink(missing_ok=True)
        rc, wall, log = run_in_vm(kernel, [PY, "-m", module, "--out", str(out), *args])
    if (rc != 0 and not any_status) or not out.exists():
        # timeout(1) and testbed/vm both exit with 124 (vm.TIMED_OUT)
        why = {
            vm.TIMED_OUT: f" (stopped after {PROGRAM_TIMEOUT} s or the VM's timeout)",
            vm.NEVER_CAME_UP: f" (the guest never came up in {vm.BOOT_ATTEMPTS} boots)",
        }.get(rc, "")
        pytest.fail(f"{module} in VM ({kernel}) exit {rc}{why}:\n{log[-4000:]}")
    doc = json.loads(out.read_text())
    doc["vm_wall_s"] = wall
    out.write_text(json.dumps(doc, indent=1))
    return doc


def shared_json(kernel: str, name: str) -> dict[str, Any]:
    """The document of the shared_boot(kernel) program ``name`` on
    ``kernel``, whatever its exit status: the tests read what failed from it."""
    module, _name, args = next(e for e in shared_boot(kernel) if e[1] == name)
    return vm_json(kernel, module, name, *args, any_status=True)


def trial_flow(doc: dict[str, Any], trial: str) -> dict[str, Any]:
    """The first flow of ``trial`` in a vm_json document; it must not have failed."""
    f = doc["trials"][trial]["flows"][0]
    assert "error" not in f, f
    return f
