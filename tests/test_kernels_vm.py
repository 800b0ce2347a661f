"""Our modules on the newly added Debian kernels (Debian 13's 7.3): one VM boot each.

For every kernel of testbed/kernels.txt whose tests column is ``modules``
(conftest.NEW_KERNELS), one ``testbed/vm --bare`` boot runs
tests/guest/kernel_check.py: the modules installed the way a Debian 13 user gets
them (built and installed with the kernel's own compiler, gcc-14, in the
Debian 13 system make deps made, staged with ``make install DESTDIR=`` here,
copied into place and ``depmod`` in the guest; with JERSEY_FULL_MATRIX=1
``make install`` itself runs in the guest, 3.5 minutes longer), autoload by
name (sysctl, ``iperf3 -C``, ``tc qdisc add``), a short transfer per module
with its loss tracepoint, load/unload cycles, ``make uninstall``.  The full VM
suite stays on KERNELS (6.1, 6.12); ``JERSEY_KERNELS=7.3`` runs it on 7.3.
The JSON of each run is kept in results/tests/kernel-<kernel>.json.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import time
from typing import Any

import pytest

from tests.conftest import FULL_MATRIX, MOD_CYCLES, NEW_KERNELS, PY, RESULTS, TOP, VM

pytestmark = pytest.mark.vm


@pytest.fixture(scope="module", params=NEW_KERNELS)
def run(request: pytest.FixtureRequest) -> dict[str, Any]:
    kernel = request.param
    # the guest cannot fetch iproute2's source: make install must find tc built
    subprocess.run(["make", "-s", "--no-print-directory", "tc"], cwd=TOP, check=True)
    out = RESULTS / f"kernel-{kernel}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.unlink(missing_ok=True)
    args = ["--out", str(out), "--cycles", str(MOD_CYCLES if FULL_MATRIX else 5)]
    t0 = time.monotonic()
    if not FULL_MATRIX:
        stage = TOP / "build" / "stage" / kernel
        shutil.rmtree(stage, ignore_errors=True)
        subprocess.run(
            ["make", "-s", "--no-print-directory", "install", f"KVER={kernel}", f"DESTDIR={stage}"],
            cwd=TOP, check=True, stdout=subprocess.DEVNULL,
        )  # fmt: skip
        args += ["--staged", str(stage)]
    proc = subprocess.run(
        [str(VM), "--bare", "--kernel", kernel, "--timeout", "900", "--",
         PY, "-m", "tests.guest.kernel_check", *args],
        capture_output=True, text=True, cwd=TOP,
    )  # fmt: skip
    wall = time.monotonic() - t0
    log = proc.stdout + proc.stderr
    (RESULTS / f"kernel-{kernel}.log").write_text(log)
    if not out.exists():
        pytest.fail(f"kernel_check on {kernel}: no result (exit {proc.returncode}):\n{log[-4000:]}")
    doc = json.loads(out.read_text())
    doc["vm_wall_s"] = round(wall, 1)
    # testbed/vm's own measure, without the wait for the machine's VM lock
    booted = re.findall(r"exit \d+ after ([\d.]+) s wall", log)
    doc["vm_boot_and_run_s"] = float(booted[-1]) if booted else None
    out.write_text(json.dumps(doc, indent=1))
    print(
        f"\n{kernel}: {doc['kernel']}, {doc['vm_boot_and_run_s']} s in the VM ({wall:.0f} s with"
        f" staging and the wait for the VM lock), modules by {doc.get('compiler')}"
    )
    print(f"  installed: {doc.get('install')}; ECN defaults {doc.get('ecn_sysctls')}")
    for step, seconds in doc["steps"].items():
        print(f"  {seconds:6.1f} s  {step}")
    for name, t in doc.get("transfers", {}).items():
        print(f"  {name:12s} {(t['goodput_bps'] or 0) / 1e6:5.2f} Mb/s  {t['decisions']}")
    return {**doc, "rc": proc.returncode, "log": log}


def failed(doc: dict[str, Any], prefix: str = "") -> list[dict[str, Any]]:
    return [c for c in doc["checks"] if not c["ok"] and c["what"].startswith(prefix)]


def test_every_check_in_the_guest_passed(run: dict[str, Any]) -> None:
    assert not failed(run), failed(run)
    assert run["ok"] and run["rc"] == 0, run["log"][-3000:]


def test_built_with_the_kernels_compiler(run: dict[str, Any]) -> None:
    assert run["compiler"] and "gcc-14" in run["kernel_compiler"], run["kernel_compiler"]
    assert all(c.endswith(" 14.2.0") or " 14." in c for c in run["compiler"]), run["compiler"]


def test_make_install_then_autoload_by_name(run: dict[str, Any]) -> None:
    names = [c["what"] for c in run["checks"] if c["ok"]]
    for m in ("tcp_jersey", "tcp_diffc", "tcp_newrenolp", "tcp_balde", "sch_cw", "sch_vcrr"):
        assert f"{m} installed in extra/jersey/ and known to depmod" in names
    for cc in ("jersey", "diffc", "newrenolp", "balde"):
        sysctl = f"sysctl net.ipv4.tcp_congestion_control={cc} loaded"
        assert any(n.startswith(sysctl) for n in names)
        assert any(n.startswith(f"iperf3 -C {cc} loaded") for n in names)
    for kind in ("cw", "vcrr"):
        assert f"tc qdisc add ... {kind} loaded sch_{kind}" in names
    assert "every module autoloaded" in names
    assert not failed(run, "make uninstall") and not failed(run, "depmod forgot")


def test_a_short_transfer_per_module(run: dict[str, Any]) -> None:
    t = run["transfers"]
    for name in ("jersey", "diffc", "reno", "jersey_vcrr", "newrenolp", "balde"):
        assert t[name]["error"] is None and t[name]["goodput_bps"] > 0.5e6, (name, t[name])
        assert t[name]["cc_used"] == t[name]["cc"], (name, t[name])


def test_loss_differentiation_sees_ecn(run: dict[str, Any]) -> None:
    """compat_tcp_ecn_ok() on this kernel: ECN is negotiated (jersey does not
    fall back to jersey-noecn, test_a_short_transfer_per_module), jersey holds
    its window through random losses (jersey-noecn would take every loss for
    congestion) and answers the marking gateway's CE, diffc's decisions carry
    ecn=1.  The CW gateway marks from a queue of 2 packets, so that the flow
    meets marks and the safe mode's rule for a marking path applies (a queue
    counts above half the base RTT); behind CW's default threshold (16
    packets, 97 ms on the 2 Mb/s hop) a 10 s run could see no mark, and then
    the standing-queue rule called 7 of 16 and 8 of 10 losses congestion (7.3,
    two runs).  Goodput against reno is a benchmark, not asserted here."""
    t = run["transfers"]
    for name in ("jersey", "jersey_vcrr"):
        d = t[name]["decisions"]  # "ecn": reactions to ECE, not loss decisions
        assert d.get("wireless", 0) + d.get("rto_wireless", 0) >= 3, (name, t[name])
    assert t["jersey_vcrr"]["gateway_marked"] > 0, t["jersey_vcrr"]
    assert t["jersey_vcrr"]["decisions"].get("ecn", 0) >= 1, t["jersey_vcrr"]
    assert t["diffc"]["diffc_ecn"] == [1], t["diffc"]


def test_load_unload_cycles(run: dict[str, Any]) -> None:
    for mod, m in run["modcycle"].items():
        assert m["rc"] == 0 and m["ok"], (mod, m)
        assert (
            m["busy"]["connected"] and m["busy"]["rmmod_rc"] != 0 and m["busy"]["still_loaded"]
        ), (mod, m["busy"])
        assert m["cycles"]["bytes_received"] == m["cycles"]["count"] * m["cycles"]["bytes_each"]
        assert m["dmesg_bad"] == [], (mod, m["dmesg_bad"])
