"""``python -m testbed``: the command line without a VM (list, help, errors)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from testbed.run import scenario
from tests.conftest import TOP


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "testbed", *args],
        cwd=TOP,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_list_shows_every_scenario_and_profile() -> None:
    proc = cli("list")
    assert proc.returncode == 0, proc.stderr
    for name in scenario.names():
        assert f"  {name} " in proc.stdout
    assert "profiles" in proc.stdout
    for profile in ("full", "quick", "demo"):
        assert f"  {profile} " in proc.stdout


@pytest.mark.parametrize("command", ["run", "report", "demo", "list", "calibrate"])
def test_every_command_has_help(command: str) -> None:
    proc = cli(command, "--help")
    assert proc.returncode == 0 and proc.stdout.startswith("usage: python -m testbed"), proc
    if command in ("run", "demo"):
        for option in ("--kernel", "--host", "--out", "--profile" if command == "run" else ""):
            assert option in proc.stdout


BAD = """
name = "bad"
title = "t"
duration_s = 5
[topology]
name = "fig511"
los = 0.1
[[flows]]
src = "src"
dst = "rcv"
cc = "reno"
"""


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["run", "no_such_scenario"], "no scenario file"),
        (["run", "BAD"], "bad.toml: [topology] fig511 has no parameter 'los'"),
        (["run", "--profile", "nope", "fig5_11"], "no [profiles.nope]"),
        (["run", "--set", "runs=0", "fig5_11"], "runs must be at least 1"),
        (["report", "--out", "/nonexistent", "fig5_11"], "no results directory"),
        (["demo", "--set", "sweep.per=[]"], "non-empty array"),
        (["run", "--budget", "0", "fig5_11"], "--budget 0: minutes, more than 0"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(BAD)
    proc = cli(*[str(bad) if a == "BAD" else a for a in args])
    assert proc.returncode == 2, proc
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and message in lines[0], proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["calibrate"], "name at least one scenario"),
        (["calibrate", "no_such_scenario"], "no scenario file"),
        (["calibrate", "--profile", "nope", "fig5_11"], "no [profiles.nope]"),
        (["calibrate", "--set", "parallel=2", "fig5_11"], "parallel is what calibrate varies"),
        (["calibrate", "--set", "runs=0", "fig5_11"], "runs must be at least 1"),
    ],
)
def test_calibrate_fails_cleanly_before_any_vm(args: list[str], message: str) -> None:
    proc = cli(*args)
    assert proc.returncode == 2, proc
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and message in lines[0], proc.stderr
    assert "Traceback" not in proc.stderr


def test_calibrate_help_says_what_it_compares() -> None:
    proc = cli("calibrate", "--help")
    assert proc.returncode == 0, proc
    text = " ".join(proc.stdout.split())
    for what in ("parallel-1/", "parallel-N/", "calibration.md", "agree", "--metric", "--kernel"):
        assert what in text, what


def test_calibrate_plan_and_kernel_directories(tmp_path: Path) -> None:
    from argparse import Namespace

    from testbed import cli as tcli

    scs = [scenario.load("fig5_11"), scenario.load("bottlenecks")]
    assert tcli.calibrate_plan(scs, None) == {"fig5_11": 12, "bottlenecks": 4}
    assert tcli.calibrate_plan(scs, "quick") == {"fig5_11": 6, "bottlenecks": 4}
    one = [scenario.load("fig5_11", scenario.parse_set(["parallel=1"]))]
    assert tcli.calibrate_plan(one, None) == {}
    # bottlenecks runs a lone flow on its 20 Mb/s paths one at a time: calibrate
    # leaves those points out, and keeps the file's own exclusions
    assert tcli.serial_points(scs[1], "accept") == [
        {"path": "20M-40ms", "mix": "alone"},
        {"path": "20M-4ms", "mix": "alone"},
    ]
    assert tcli.calibrate_sets(scs[0], None, tcli.serial_points(scs[0], None)) == []
    sets = tcli.calibrate_sets(scs[1], "accept", tcli.serial_points(scs[1], "accept"))
    left = scenario.load("bottlenecks", scenario.parse_set(sets)).points("accept")
    everything = scs[1].points("accept")
    assert len(left) == sum(p.concurrency(4) == 2 for p in everything) > 0
    assert all(p.values["mix"] != "alone" and p.values["per"] != 0.05 for p in left)
    # results go under the kernel's series of testbed/kernels.txt
    assert tcli.kernel_series("6.12") == "6.12"
    assert tcli.kernel_series("6.12.95+deb12-amd64") == "6.12"
    assert tcli.kernel_series("6.1.0-56-amd64") == "6.1"
    assert tcli.kernel_series("6.12.95+deb13-amd64") == "trixie-6.12"
    assert tcli.kernel_series("5.10.0-30-amd64") == "5.10.0-30-amd64"  # no series: itself
    args = Namespace(host=False, kernel="6.1")
    assert tcli.kernel_out(args, tmp_path) == tmp_path / "6.1"
    host = Namespace(host=True, kernel="6.12")
    assert tcli.kernel_out(host, tmp_path).name == scenario.slug(
        tcli.kernel_series(os.uname().release)
    )


def test_set_takes_one_value_for_a_sweep_axis() -> None:
    over = scenario.parse_set(["sweep.cc=reno", "sweep.per=0,0.01", "runs=1"])
    assert over == {"sweep": {"cc": ["reno"], "per": [0, 0.01]}, "runs": 1}
    pts = scenario.load("fig5_11", over).points()
    assert {p.values["cc"] for p in pts} == {"reno"} and len(pts) == 2


def test_run_writes_into_the_kernels_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from testbed import cli as tcli
    from testbed.net import path

    calls: list[tuple[list[str], Path, list[str]]] = []

    def in_vm(
        args: Any, names: list[str], out: Path, timeout_s: float, deadline: float | None
    ) -> int:
        calls.append((names, out, list(args.set)))
        deadlines.append(deadline)
        return 0

    deadlines: list[float | None] = []

    monkeypatch.setattr(tcli, "in_vm", in_vm)
    monkeypatch.setattr(tcli, "host_can_load_modules", lambda: False)
    monkeypatch.setattr(path, "tc_knows", lambda kind, tc: True)  # cw: make tc
    assert tcli.main(["run", "--out", str(tmp_path), "--kernel", "6.1", "fig5_11"]) == 0
    assert calls == [(["fig5_11"], tmp_path / "6.1", [])]
    assert (tmp_path / "6.1" / "report.md").exists() and (tmp_path / "report.md").exists()
    # --budget: the time after which the guest's harness starts no point
    t0 = time.time()
    assert tcli.main(["run", "--out", str(tmp_path), "--budget", "90", "fig5_11"]) == 0
    assert deadlines[0] is None and t0 + 5400 <= (deadlines[1] or 0) <= time.time() + 5400
    # calibrate: each scenario at its parallel, then all at 1, under calibrate/<kernel>/
    calls.clear()
    cli_args = ["calibrate", "--out", str(tmp_path), "--kernel", "6.12", "--profile", "quick"]
    assert tcli.main([*cli_args, "fig5_11", "satellite", "coexistence"]) == 0
    kdir = tmp_path / "calibrate" / "6.12"
    assert calls == [
        (["fig5_11"], kdir / "parallel-6", []),
        (["coexistence"], kdir / "parallel-5", []),
        (["satellite"], kdir / "parallel-4", []),
        (["fig5_11", "satellite", "coexistence"], kdir / "parallel-1", ["parallel=1"]),
    ]
    assert (kdir / "calibration.md").read_text().startswith("# Calibration")


def test_run_refuses_an_out_the_vm_does_not_share(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The guest writes back only into the repository: an --out elsewhere would
    lose every point (it did: an A/B under /tmp ended with an empty report)."""
    import argparse

    from testbed import cli as tcli

    def no_vm(*a: Any, **k: Any) -> Any:
        raise AssertionError("a VM was started")

    monkeypatch.setattr(tcli.subprocess, "run", no_vm)
    args = argparse.Namespace(host=False)
    with pytest.raises(tcli.UsageError, match="outside .* the points would be lost"):
        tcli.in_vm(args, ["fig5_11"], tmp_path / "6.12", 60)
    # and before --fresh deletes the earlier results there
    kept = tmp_path / "6.12" / "fig5_11" / "runs" / "p.json"
    kept.parent.mkdir(parents=True)
    kept.write_text("{}")
    monkeypatch.setattr(tcli, "check_scenarios", lambda args, names: [scenario.load(names[0])])
    args = argparse.Namespace(host=False, here=False, fresh=True, profile=None)
    with pytest.raises(tcli.UsageError, match="outside"):
        tcli.run_scenarios(args, ["fig5_11"], tmp_path / "6.12")
    assert kept.exists()


def test_run_refuses_a_tc_without_our_qdiscs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Behind cw or vcrr every point would fail with "Unknown qdisc": say so up front."""
    from testbed import cli as tcli
    from testbed.net import path

    system = tmp_path / "tc"  # answers like iproute2's own tc
    system.write_text(
        '#!/bin/sh\necho "Unknown qdisc \\"$6\\", hence option \\"help\\" is unparsable" >&2\n'
        "exit 1\n"
    )
    patched = tmp_path / "tc-patched"  # prints the usage of any qdisc
    patched.write_text('#!/bin/sh\necho "Usage: ... $6 rate RATE" >&2\nexit 1\n')
    for f in (system, patched):
        f.chmod(0o755)
    assert not path.tc_knows("vcrr", str(system)) and path.tc_knows("vcrr", str(patched))
    assert not path.tc_knows("vcrr", str(tmp_path / "absent"))

    monkeypatch.setattr(tcli, "in_vm", lambda *a: 0)
    monkeypatch.setattr(tcli, "host_can_load_modules", lambda: False)
    monkeypatch.setattr(path, "TC", str(system))
    run = ["run", "--out", str(tmp_path / "o"), "--kernel", "6.1", "--profile", "quick"]
    assert tcli.main([*run, "fig5_11"]) == tcli.USAGE_ERROR  # behind cw
    assert "gateways use cw, which" in capsys.readouterr().err
    gw = 'sweep.gw=[{ label = "v", q = "vcrr" }]'
    assert tcli.main([*run, "--set", gw, "bottlenecks"]) == tcli.USAGE_ERROR
    err = capsys.readouterr().err
    assert f"use vcrr, which {system} does not know" in err and "make tc" in err
    assert not (tmp_path / "o").exists()  # refused before anything ran
    # drop-tail only: the system's tc will do
    assert tcli.main([*run, "--set", 'sweep.gw=[{ label = "p", q = "pfifo" }]', "bottlenecks"]) == 0
    monkeypatch.setattr(path, "TC", str(patched))
    assert tcli.main([*run, "fig5_11"]) == 0


@pytest.mark.parametrize(
    ("statuses", "boots", "rc"),
    [([255, 255, 0], 3, 0), ([255, 255, 255], 3, 255), ([1], 1, 1), ([124], 1, 124)],
)
def test_a_guest_that_died_is_booted_again_and_its_kernel_log_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, statuses: list[int], boots: int, rc: int
) -> None:
    """Exit 255 (the guest's kernel panicked or reset) boots the guest again,
    at most 3 boots, each death's kernel log kept under the scenario;
    another status (a failure, the timeout) is returned at once."""
    import argparse

    from testbed import cli as tcli
    from testbed import vm

    monkeypatch.setattr(tcli, "TOP", tmp_path)
    monkeypatch.setattr(vm, "TOP", tmp_path)  # build/vm-<abi>-kernel.log
    monkeypatch.setattr(tcli, "git_meta", dict)
    monkeypatch.setattr(vm, "accel", lambda: ("tcg", "test"))
    monkeypatch.setattr(vm, "resolve_abi", lambda kernel: f"abi-of-{kernel}")
    (tmp_path / "build").mkdir()
    klog = tmp_path / "build" / "vm-abi-of-6.12-kernel.log"
    runs: list[list[str]] = []

    def run(argv: list[str], **kw: Any) -> subprocess.CompletedProcess[str]:
        runs.append(argv)
        klog.write_text(f"[  418.5] Oops: double fault (boot {len(runs)})\n")
        return subprocess.CompletedProcess(argv, statuses[len(runs) - 1])

    monkeypatch.setattr(tcli.subprocess, "run", run)
    args = argparse.Namespace(
        host=False, kernel="6.12", backend="netns", profile="quick", only="", set=[]
    )
    out = tmp_path / "results" / "6.12"
    # with a budget the guest's harness gets its deadline, and the VM's
    # timeout leaves the points under way then 15 minutes to finish
    deadline = time.time() + 300
    assert tcli.in_vm(args, ["fig5_11"], out, 6000, deadline) == rc
    at = runs[0].index("--deadline")
    assert runs[0][at + 1] == f"{deadline:.0f}" and runs[0][at + 2] == "fig5_11"
    assert 0 < int(runs[0][runs[0].index("--timeout") + 1]) <= 300 + tcli.BOOT_S + 900
    assert len(runs) == boots and all(r == runs[0] for r in runs)  # the same batch resumed
    kept = sorted((out / "fig5_11" / "guest-deaths").glob("*.log"))
    died = statuses.count(255)
    assert len(kept) == died
    assert [k.read_text() for k in kept] == [
        f"[  418.5] Oops: double fault (boot {n})\n" for n in range(1, died + 1)
    ]
