"""The testbed/vm contract: exit status, our modules loaded, teardown."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from testbed import vm
from tests.conftest import SLOW_KERNELS, TOP, VM, run_in_vm

pytestmark = pytest.mark.vm


def qemu_pids(pattern: str) -> set[str]:
    out = subprocess.run(["pgrep", "-f", pattern], capture_output=True, text=True)
    return set(out.stdout.split())


def test_accel_override(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JERSEY_ACCEL", "tcg")
    assert vm.accel() == ("tcg", "forced by JERSEY_ACCEL")


def test_missing_command_is_an_error() -> None:
    proc = subprocess.run([str(VM), "--kernel", "6.1"], capture_output=True, text=True)
    assert proc.returncode == 2
    assert "missing command" in proc.stderr


def test_unknown_kernel_names_the_fix() -> None:
    proc = subprocess.run(
        [str(VM), "--kernel", "4.9", "--", "true"], capture_output=True, text=True
    )
    assert proc.returncode != 0
    assert "make deps" in proc.stderr


# the newer kernel (both with JERSEY_FULL_MATRIX=1): each kernel's shared boot
# checks that it runs the kernel asked for (test_cc_vm.py, test_vm_e2e.py)
@pytest.mark.parametrize("kernel", SLOW_KERNELS)
def test_runs_as_root_on_the_kernel_with_our_modules_and_returns_status(kernel: str) -> None:
    abi = vm.resolve_abi(kernel)
    script = (
        f'test "$(uname -r)" = {abi} && test "$(id -u)" = 0 && '
        f"test -w {TOP} && pwd && "
        # every module we built is loaded, but jersey is not selected
        f'for ko in {TOP}/build/{abi}/*/*.ko; do n=$(basename "$ko" .ko); '
        'grep -q "^$n " /proc/modules || { echo "not loaded: $n"; exit 1; }; done; '
        'test "$(sysctl -n net.ipv4.tcp_congestion_control)" != jersey && '
        "modprobe sch_netem && exit 42"
    )
    rc, wall, log = run_in_vm(kernel, ["sh", "-c", script], timeout=300)
    print(f"{kernel}: {wall:.1f} s")
    assert rc == 42, log[-3000:]
    assert "accel tcg" in log or "accel kvm" in log


def test_timeout_tears_the_vm_down() -> None:
    # an unusual memory size tells this test's QEMU from any other VM
    mark = "qemu-system.* -m 1999M "
    t0 = time.monotonic()
    proc = subprocess.Popen(
        [str(VM), "--kernel", "6.1", "--memory", "1999M", "--timeout", "15", "--", "sleep", "600"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    seen = False
    while proc.poll() is None:
        seen = seen or bool(qemu_pids(mark))
        time.sleep(0.5)
    assert seen, "the VM never started"
    assert proc.returncode == 124
    assert time.monotonic() - t0 < 90
    time.sleep(1)
    assert qemu_pids(mark) == set()


def test_output_redirected_to_a_file_survives_a_child_that_truncates_it(tmp_path) -> None:
    # QEMU opens /proc/self/fd/1 with O_TRUNC; `testbed/vm ... >> log` must keep the log
    log = tmp_path / "log"
    log.write_text("earlier\n")
    child = "echo from-guest > /proc/self/fd/1; echo err > /proc/self/fd/2"
    code = (
        "import sys; from testbed import vm; "
        f"sys.exit(vm.run_guarded(['sh', '-c', {child!r}], 30))"
    )
    with log.open("a") as out:
        rc = subprocess.run(
            [sys.executable, "-c", code], cwd=TOP, stdout=out, stderr=out, timeout=60
        ).returncode
    lines = log.read_text().splitlines()
    assert rc == 0
    assert lines[0] == "earlier" and sorted(lines[1:]) == ["err", "from-guest"]


def test_a_dead_or_stuck_guest_shows_its_last_kernel_errors(tmp_path, capsys) -> None:
    kept = tmp_path / "vm-6.12-test-kernel.log"
    lines = [f"line {i}" for i in range(100)] + ["Out of memory: Killed process 1 (init)"]
    kept.write_text("\n".join(lines) + "\n")
    vm.kernel_log(kept, vm.GUEST_DIED)
    err = capsys.readouterr().err
    assert "Out of memory: Killed process 1" in err and "line 59" not in err
    assert "panic or reset" in err
    kept.write_text("watchdog: BUG: soft lockup - CPU#1 stuck for 22s!\n")
    vm.kernel_log(kept, vm.TIMED_OUT)
    assert "soft lockup" in capsys.readouterr().err
    vm.kernel_log(kept, 0)  # a command's own status: kept, not shown
    vm.kernel_log(kept, 1)
    assert capsys.readouterr().err == ""


def test_the_guest_kernel_log_is_written_by_qemu(monkeypatch) -> None:
    monkeypatch.setattr(vm.shutil, "which", lambda *a, **k: "/usr/bin/vng")
    monkeypatch.setattr(vm.Path, "exists", lambda self: True)
    klog = vm.Path("/w/build/vm-6.1-kernel.log")
    argv = vm.vng_argv("6.1", "tcg", ["true"], 2, "2G", klog=klog)
    assert "--qemu-opts=" + vm.KLOG_QEMU.format(klog) in argv
    assert "path=/w/build/vm-6.1-kernel.log " in vm.KLOG_QEMU.format(klog)
    assert argv[argv.index(vm.KLOG_ARGS) - 1] == "--append"
    assert "klog" not in " ".join(vm.vng_argv("6.1", "tcg", ["true"], 2, "2G"))
    for bad in ("/a b/k.log", "/a,b/k.log"):
        with pytest.raises(SystemExit, match="spaces or commas"):
            vm.vng_argv("6.1", "tcg", ["true"], 2, "2G", klog=vm.Path(bad))


def test_a_long_command_runs_from_a_file(tmp_path: vm.Path) -> None:
    """--exec rides on the kernel command line (cut at 2048 bytes): a long
    command goes to a file the guest runs with sh, with its words intact."""
    short = ["echo", "hi"]
    assert vm.short_command(short, tmp_path / "c.sh") == (short, None)
    long = ["printf", "%s\\n", *[f"/a path/with 'quotes' {i}" for i in range(60)]]
    cmd, script = vm.short_command(long, tmp_path / "c.sh")
    assert script is not None and cmd == ["sh", str(script)]
    assert len(vm.shlex.join(cmd)) < vm.EXEC_MAX
    out = vm.subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == long[2:]
