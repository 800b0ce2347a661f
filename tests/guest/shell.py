"""Shell helpers of the guest halves that use a system as a user would
(tests/install_walkthrough.py, tests/guest/kernel_check.py): commands run
by bash with root's standard PATH, from the checkout."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

TOP = Path(__file__).resolve().parents[2]
PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
ENV = {"PATH": PATH, "HOME": "/root", "LANG": "C.UTF-8", "TERM": "dumb"}


class CheckFailed(RuntimeError):
    """A command that had to succeed did not."""


def in_throwaway_vm(name: str) -> bool:
    """Is this a testbed/vm guest (whose system these scripts may change)?
    If not, say so on stderr as @name."""
    if "virtme" in Path("/proc/cmdline").read_text():
        return True
    print(f"{name}: only in a throwaway VM (testbed/vm --bare)", file=sys.stderr)
    return False


def sh(cmd: str, ns: str | None = None, check: bool = True, timeout: float = 300,
       env: dict[str, str] = ENV) -> str:  # fmt: skip
    """Run a shell command (in network namespace ns); its stdout+stderr."""
    argv = ["bash", "-c", cmd] if ns is None else ["ip", "netns", "exec", ns, "bash", "-c", cmd]
    p = subprocess.run(
        argv, env=env, cwd=TOP, capture_output=True, text=True, timeout=timeout, check=False
    )
    if check and p.returncode != 0:
        raise CheckFailed(f"`{cmd}` exit {p.returncode}: {(p.stdout + p.stderr)[-1500:]}")
    return p.stdout + p.stderr


def ok(cmd: str, env: dict[str, str] = ENV) -> bool:
    return subprocess.run(["bash", "-c", cmd], env=env, capture_output=True).returncode == 0


def loaded(modules: list[str]) -> set[str]:
    """Which of these modules are loaded."""
    names = {line.split()[0] for line in Path("/proc/modules").read_text().splitlines()}
    return names & set(modules)
