"""The list of external programs (testbed/programs.txt) is complete and installed.

Host-only.  ``make deps`` installs the packages of the list; these tests check
that (a) after it every listed program is on root's PATH (or in .venv/bin) and
every listed Debian package is installed, and (b) every program the code
starts, as found by reading the sources (tests/program_scan.py), is listed.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from testbed import programs
from tests import program_scan

TOP = Path(__file__).resolve().parent.parent


def unlisted(found: dict[str, list[str]], listed: set[str]) -> dict[str, list[str]]:
    return {p: sorted(set(files)) for p, files in sorted(found.items()) if p not in listed}


@pytest.fixture(scope="module")
def found() -> dict[str, list[str]]:
    return program_scan.scan(TOP)


def test_every_program_the_code_starts_is_listed(found: dict[str, list[str]]) -> None:
    missing = unlisted(found, set(programs.listed()))
    assert not missing, (
        "programs the code starts but testbed/programs.txt does not list "
        f"(add them with their Debian package): {missing}"
    )


def test_the_guard_sees_a_removed_entry(found: dict[str, list[str]]) -> None:
    """Taking any program the code starts off the list makes the check above fail."""
    listed = set(programs.listed())
    for name in ("ping", "iperf3", "tcpdump", "ethtool", "mn", "nstat", "dkms", "vng"):
        assert name in found, f"the scan no longer finds {name}"
        assert name in unlisted(found, listed - {name})


def test_every_listed_program_is_installed() -> None:
    """After ``make deps``: each program on PATH, each Debian package installed."""
    absent = [f"{p.name} ({p.package})" for p in programs.listed().values()
              if programs.which(p.name) is None]  # fmt: skip
    assert not absent, f"not found after make deps: {absent}"
    pkgs = sorted({p.package for p in programs.listed().values() if not p.from_pypi})
    status = subprocess.run(
        ["dpkg-query", "-W", "-f=${Package} ${Status}\n", *pkgs],
        capture_output=True, text=True,
    ).stdout  # fmt: skip
    installed = {line.split()[0] for line in status.splitlines() if "ok installed" in line}
    assert set(pkgs) <= installed, f"not installed: {sorted(set(pkgs) - installed)}"


def test_pypi_programs_come_from_requirements() -> None:
    reqs = (TOP / "testbed" / "requirements.txt").read_text()
    for p in programs.listed().values():
        if p.from_pypi:
            assert f"{p.package[5:]}==" in reqs, p


def test_deps_installs_the_listed_packages() -> None:
    """deps.sh takes its package list from programs.txt (not a second copy)."""
    deps = (TOP / "testbed" / "deps.sh").read_text()
    assert '"$here/programs.txt"' in deps
    awk = deps.split("mapfile -t program_pkgs < <(", 1)[1].split(")\n", 1)[0]
    out = subprocess.run(
        ["bash", "-c", awk.replace('"$here/programs.txt"', str(TOP / "testbed" / "programs.txt"))],
        capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    want = {p.package for p in programs.listed().values() if not p.from_pypi}
    assert set(out) == want


def test_require_names_the_package(monkeypatch: pytest.MonkeyPatch) -> None:
    programs.require("sh")
    monkeypatch.setattr(programs, "which", lambda name: None if name == "ping" else "/x")
    want = r"^monitor: missing program ping \(package iputils-ping\); run 'make deps'$"
    with pytest.raises(programs.MissingProgram, match=want):
        programs.require("sh", "ping", what="monitor")
    monkeypatch.undo()
    with pytest.raises(programs.MissingProgram, match="not in programs.txt"):
        programs.require("no-such-program-jersey")


# The scanner itself, on small inputs.


def test_shell_command_positions() -> None:
    script = """
set -eu
IP=${IP:-/usr/sbin/ip}
top=$(cd "$(dirname "$0")/.." && pwd)
helper() { grep -q x "$1"; }
tools=(qemu-system-x86 iperf3 notacommand)
case "$1" in
host) uname -r ;;
--force | -f) exec "$top/x" ;;
esac
for m in a b; do modprobe -q "$m" || true; done
v="$(sysctl -n net.ipv4.tcp_ecn)"
$IP netns exec "$ns" ping -c 1 10.0.0.1 > /dev/null 2>&1
echo done | tee log
timeout 5 env A=1 tcpdump -i x
runuser -u nobody -- iperf3 -c x
python3 - <<'PY'
import os
notashellword
PY
later() { true; }
testbed/vm -- mn --test pingall
helper
later
"""
    assert program_scan.shell_programs(script) >= {
        "dirname", "grep", "uname", "modprobe", "sysctl", "ip", "ping", "tee", "timeout",
        "env", "tcpdump", "runuser", "iperf3", "python3", "mn",
    }  # fmt: skip
    got = program_scan.shell_programs(script)
    for word in ("host", "notacommand", "qemu-system-x86", "import", "notashellword",
                 "helper", "later", "a", "echo", "cd", "pwd", "m"):  # fmt: skip
        assert word not in got


def test_deps_installs_what_the_tc_build_needs() -> None:
    """build-tc.sh's own dependency list (iproute2's Makefile runs bison and
    flex, which no scan of our sources finds) is installed by make deps."""
    build_tc = (TOP / "iproute2-patch" / "build-tc.sh").read_text()
    need = set(build_tc.split('DEPS_PKGS="', 1)[1].split('"', 1)[0].split())
    deps = (TOP / "testbed" / "deps.sh").read_text()
    extra = deps.split("tools=(", 1)[1].split("\n\n", 1)[0]
    extra_pkgs = {w.strip("()") for line in extra.splitlines() for w in line.split("#")[0].split()}
    if "build-essential" in extra_pkgs:  # it depends on these
        extra_pkgs |= {"gcc", "make", "libc6-dev", "dpkg-dev"}
    listed = {p.package for p in programs.listed().values() if not p.from_pypi}
    assert {"bison", "flex", "libmnl-dev"} <= need
    assert need <= listed | extra_pkgs, sorted(need - listed - extra_pkgs)


def test_python_argv_and_shell_strings() -> None:
    source = """
import subprocess, shutil
IP = "/usr/sbin/ip" if True else "ip"
def offload_cmd(dev):
    return f"ethtool -K {dev} tso off"
def f(ns, path):
    subprocess.run([IP, "netns", "exec", ns, "iperf3", "-s"])
    argv = ["ss", "-N", ns, "-tin"]
    script = f"cd /x && nstat -a; {path}/y --z"
    subprocess.run(["sh", "-c", script])
    sh("sysctl", "-w", "a=b", ns=ns)
    node.cmd("brctl addbr br0")
    shutil.which("vng")
    subprocess.run([*vm, "--", "dmesg"])
    print("ping is not run here")
"""
    got = program_scan.python_programs(source)
    assert got >= {"ip", "iperf3", "ethtool", "ss", "sh", "nstat", "sysctl", "brctl", "vng",
                   "dmesg"}  # fmt: skip
    assert "ping" not in got and "print" not in got


def test_a_monitor_without_its_program_fails_the_point(monkeypatch: pytest.MonkeyPatch) -> None:
    """[monitor] ping without ping: an error naming the package, not an empty series."""
    from testbed.measure import monitors as monitor

    class FakePath:
        def ns(self, node: str) -> str:
            return f"j1-{node}"

        def ip_of(self, node: str) -> str:
            return "10.1.0.2"

    monkeypatch.setattr(programs, "which", lambda name: None if name == "ping" else "/x")
    with pytest.raises(programs.MissingProgram, match=r"\[monitor\] ping: .*iputils-ping"):
        monitor.Pinger(FakePath(), "src", "rcv", 0.2)  # type: ignore[arg-type]
    monkeypatch.setattr(programs, "which", lambda name: None if name == "ss" else "/x")
    with pytest.raises(programs.MissingProgram, match=r"\[monitor\] ss: .*iproute2"):
        monitor.SsSampler(FakePath(), "src", [5201], 0.2)  # type: ignore[arg-type]


def test_scan_reads_what_git_keeps(tmp_path: Path) -> None:
    """A script git ignores (a run's scratch under out/) is not scanned; a new one is;
    a function a script sources from another is no program, one it never defines is."""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text("out/\n")
    (tmp_path / "lib.sh").write_text("helper() {\n\tiperf3 -c x\n}\n")
    (tmp_path / "use.sh").write_text("#!/bin/bash\n. lib/lib.sh\nhelper a b\n")
    (tmp_path / "bare.sh").write_text("#!/bin/bash\nhelper a b\n")
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "scratch.sh").write_text("#!/bin/bash\nnot-a-listed-tool x\n")
    found = program_scan.scan(tmp_path)
    assert found["iperf3"] == ["lib.sh"]
    assert found["helper"] == ["bare.sh"]
    assert "not-a-listed-tool" not in found
