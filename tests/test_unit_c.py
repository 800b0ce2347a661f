"""Runs the userspace C unit tests of the arithmetic headers (tests/unit)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

UNIT = Path(__file__).parent / "unit"
SOURCES = sorted(UNIT.glob("test_*.c"))


@pytest.fixture(scope="session")
def built() -> None:
    subprocess.run(["make", "-s", "-C", str(UNIT), "all"], check=True)


@pytest.mark.parametrize("src", SOURCES, ids=[s.stem for s in SOURCES])
def test_c_unit(built: None, src: Path) -> None:
    proc = subprocess.run(
        [str(UNIT / "build" / src.stem)], capture_output=True, text=True, timeout=300
    )
    print(proc.stdout)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert " passed, 0 failed" in proc.stdout
