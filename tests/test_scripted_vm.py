"""Scripted-peer tests of the congestion-control modules' reactions, on every kernel.

On 6.1 and 6.12 every script of tests/scripted/<module>/ (see
tests/scripted/peer.py for the language) runs in the shared boot of its kernel
(conftest.SHARED_BOOT); on the newest, 7.3 (testbed/kernels.txt), jersey's and
diffc's run in the boot that 7.3's netlink fuzz shares (conftest.shared_boot()).
Each script is then one test here, failing with the step that did not hold
and the packet log.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import KERNELS, MODULE_KERNELS, SCRIPTED, scripts, vm_json
from tests.scripted.peer import parse

SCRIPTS = sorted(SCRIPTED.glob("*/*.pkt"))
MODULES = ("jersey", "diffc", "newrenolp", "balde")
# (kernel, script relative to tests/scripted) for every script each kernel runs
CASES = [(k, Path(s).relative_to(SCRIPTED).as_posix()) for k in MODULE_KERNELS for s in scripts(k)]


def test_every_script_parses() -> None:
    for s in SCRIPTS:
        parse(s.read_text())


def test_each_module_has_its_scripts() -> None:
    for m in MODULES:
        assert len([s for s in SCRIPTS if s.parent.name == m]) >= 8, m


def test_newer_kernels_run_the_scripts_of_jersey_and_diffc() -> None:
    for k in MODULE_KERNELS:
        ran = {Path(s).parent.name for s in scripts(k)}
        assert ran == (set(MODULES) if k in KERNELS else {"jersey", "diffc"}), (k, ran)


@pytest.fixture(scope="module")
def scripted(request: pytest.FixtureRequest) -> dict[str, Any]:
    """Every script of one kernel in its VM (on KERNELS, in the shared boot)."""
    kernel = request.param
    doc = vm_json(kernel, "tests.scripted.peer", "scripted", *scripts(kernel), any_status=True)
    print(f"kernel {kernel}: {len(scripts(kernel))} scripts, VM {doc['vm_wall_s']:.0f} s")
    return {Path(r["script"]).relative_to(SCRIPTED).as_posix(): r for r in doc["results"]}


@pytest.mark.vm
@pytest.mark.parametrize(("scripted", "script"), CASES, indirect=["scripted"], scope="module",
                         ids=[f"{k}-{s}" for k, s in CASES])  # fmt: skip
def test_script(scripted: dict[str, Any], script: str) -> None:
    res = scripted[script]
    assert res["status"] == "ok", res["error"] + "\n" + "\n".join(res["log"][-40:])
    if res.get("failed_before"):  # a script passed on a rerun: the summary says so
        warnings.warn(f"{script} passed after {len(res['failed_before'])} failed runs: "
                      + " | ".join(res["failed_before"]), stacklevel=1)  # fmt: skip


def test_the_fast_parser_reads_what_scapy_builds() -> None:
    from scapy.layers.inet import IP, TCP

    from tests.scripted.peer import Wire

    pkt = IP(src="192.0.2.1", dst="192.0.2.2", tos=2) / TCP(
        sport=40000, dport=8080, seq=123456, flags="PAC",
        options=[("NOP", None), ("NOP", None), ("Timestamp", (777, 555))],
    ) / (b"x" * 1000)  # fmt: skip
    w = Wire.parse(bytes(pkt))
    assert w is not None
    assert (w.tos, w.sport, w.seq, w.payload, w.tsval) == (2, 40000, 123456, 1000, 777)
    assert set(w.flags) == {"P", "A", "C"}
    assert Wire.parse(bytes(IP(src="192.0.2.1", dst="192.0.2.2") / b"udp?")) is None
