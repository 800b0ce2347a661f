"""Scripted-peer tests of the congestion-control modules' reactions, on both kernels.

One VM boot per kernel (6.1, 6.12 and the newest, 7.3: testbed/kernels.txt)
runs every script of tests/scripted/<module>/ (see tests/scripted/peer.py for
the language); each script is then one test here, failing with the step that
did not hold and the packet log.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import MODULE_KERNELS, PY, RESULTS, TOP, run_in_vm
from tests.scripted.peer import parse

SCRIPTS = sorted((TOP / "tests" / "scripted").glob("*/*.pkt"))
MODULES = ("jersey", "diffc", "newrenolp", "balde")


def test_every_script_parses() -> None:
    for s in SCRIPTS:
        parse(s.read_text())


def test_each_module_has_its_scripts() -> None:
    for m in MODULES:
        assert len([s for s in SCRIPTS if s.parent.name == m]) >= 8, m


@pytest.fixture(scope="module", params=MODULE_KERNELS)
def scripted(request: pytest.FixtureRequest) -> dict[str, Any]:
    kernel = request.param
    out = RESULTS / f"scripted-{kernel}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.unlink(missing_ok=True)
    argv = [PY, "-m", "tests.scripted.peer", "--out", str(out)]
    rc, wall, log = run_in_vm(kernel, argv + [str(s) for s in SCRIPTS], timeout=600)
    if not out.exists():
        pytest.fail(f"scripted peer in VM ({kernel}) exit {rc}:\n{log[-4000:]}")
    doc = json.loads(out.read_text())
    print(f"kernel {kernel}: {len(SCRIPTS)} scripts, VM {wall:.0f} s")
    return {Path(r["script"]).relative_to(TOP / "tests" / "scripted").as_posix(): r
            for r in doc["results"]}  # fmt: skip


@pytest.mark.vm
@pytest.mark.parametrize("script", [s.relative_to(TOP / "tests" / "scripted").as_posix()
                                    for s in SCRIPTS])  # fmt: skip
def test_script(scripted: dict[str, Any], script: str) -> None:
    res = scripted[script]
    assert res["status"] == "ok", res["error"] + "\n" + "\n".join(res["log"][-40:])
    if res.get("failed_before"):  # a timed script passed on a rerun: the summary says so
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
