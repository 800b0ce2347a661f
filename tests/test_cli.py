"""``python -m testbed``: the command line without a VM (list, help, errors)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

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


def test_calibrate_says_it_is_not_implemented() -> None:
    proc = cli("calibrate")
    assert proc.returncode == 2 and "not implemented" in proc.stderr


def test_set_takes_one_value_for_a_sweep_axis() -> None:
    over = scenario.parse_set(["sweep.cc=reno", "sweep.per=0,0.01", "runs=1"])
    assert over == {"sweep": {"cc": ["reno"], "per": [0, 0.01]}, "runs": 1}
    pts = scenario.load("fig5_11", over).points()
    assert {p.values["cc"] for p in pts} == {"reno"} and len(pts) == 2
