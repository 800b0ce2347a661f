"""make install / uninstall / dkms-src, build error paths and the README guide, without a VM.

Everything here writes only below pytest's temporary directories (DESTDIR,
INSTALL_MOD_PATH, BUILDDIR, PREFIX and SYSTEM_TC all point there), so it is
safe on a development machine.  What needs a kernel (autoload, depmod on the
real tree, DKMS) is tests/test_install_vm.py.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from testbed import kernels, vm
from tests.conftest import KERNELS, TOP
from tests.install_guide import README, blocks, kbuild_modules, section
from tests.install_walkthrough import Walkthrough

TC_MARK = b"Usage: ... vcrr"
ABIS = {k: vm.resolve_abi(k) for k in KERNELS}
# every pinned kernel, those built in Debian 13's system (build/trixie) too
ALL_ABIS = {k: vm.resolve_abi(k) for k in kernels.names()}


def kdir(abi: str) -> tuple[str, str]:
    """(root, build tree in that root) of a kernel, as scripts/kdir says: root
    is / or Debian 13's system build/trixie, where the build must run."""
    out = subprocess.run(
        [str(TOP / "scripts" / "kdir"), abi], capture_output=True, text=True, check=True
    ).stdout.split()
    return out[2], out[1]


def make(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["make", "--no-print-directory", "-C", str(TOP), *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
    )


def compressed_suffix(abi: str) -> str:
    """The suffix modules_install gives modules of this kernel (its .config decides)."""
    root, tree = kdir(abi)
    config = (Path(root) / tree.lstrip("/") / ".config").read_text()
    for opt, suffix in (("XZ", ".xz"), ("GZIP", ".gz"), ("ZSTD", ".zst")):
        if f"CONFIG_MODULE_COMPRESS_{opt}=y" in config:
            return suffix
    return ""


def installed(root: Path, abi: str) -> dict[str, Path]:
    """module name -> its file below root's extra/jersey/ for abi."""
    base = root / "lib" / "modules" / abi / "extra" / "jersey"
    return {p.name.split(".ko")[0]: p for p in base.rglob("*.ko*")}


# -- the README's install guide -------------------------------------------------


def test_guide_blocks_are_marked_runnable_and_hooked() -> None:
    guide = blocks()
    tested = [b.name for b in guide if b.tested]
    untested = [b.name for b in guide if not b.tested]
    # the only block not run in the VM is the Fedora one
    assert len(untested) == 1 and "Fedora" in untested[0]
    # the acceptance criteria are checked after these blocks
    for name in ("install", "ecn", "per-app", "system-wide", "gateway", "gateway-cw", "observe"):
        assert name in tested
    for name in ("trace", "tc-replace", "tc-restore", "uninstall", "dkms", "dkms-remove"):
        assert name in tested
    order = [tested.index(n) for n in ("install", "ecn", "per-app", "gateway-cw", "tc-replace")]
    assert order == sorted(order)
    assert tested.index("tc-restore") < tested.index("uninstall") < tested.index("dkms")
    assert section().count("```sh") == len(guide)
    for b in guide:
        subprocess.run(["bash", "-n", "-c", b.code], check=True)  # valid shell


def test_guide_parser_rejects_unmarked_blocks() -> None:
    good = README.read_text()
    bad = good.replace("<!-- install-guide: ecn -->\n", "")
    with pytest.raises(ValueError, match="needs an install-guide marker"):
        blocks(bad)


def test_every_hook_has_its_block() -> None:
    names = {b.name for b in blocks()}
    hooks = {n[6:].replace("_", "-") for n in dir(Walkthrough) if n.startswith("after_")}
    assert hooks <= names, hooks - names


def test_readme_keeps_the_other_sections() -> None:
    text = README.read_text()
    for heading in ("## On a fresh machine", "## Building", "## Running on a kernel", "## Tests"):
        assert heading in text
    assert text.index("## Building") < text.index("## Installing on a host or a gateway")


# -- make install / uninstall into staging trees ----------------------------------


def test_make_install_destdir_every_kernel(tmp_path: Path) -> None:
    """Debian 13's kernels are built and installed with their own kbuild and
    compiler in build/trixie, then staged like the others."""
    dest = tmp_path / "stage"
    r = make("install", f"KVER={' '.join(ALL_ABIS)}", f"DESTDIR={dest}")
    assert r.returncode == 0, r.stderr[-3000:]
    mods = [name for _d, name in kbuild_modules()]
    for abi in ALL_ABIS.values():
        files = installed(dest, abi)
        assert sorted(files) == sorted(mods)
        assert "tcp_oracle" not in files  # the testbed's module, built by make, never installed
        for d, name in kbuild_modules():
            f = files[name]
            assert f.relative_to(dest / "lib/modules" / abi / "extra/jersey") == Path(
                d, f"{name}.ko{compressed_suffix(abi)}"
            )
            info = subprocess.run(
                ["modinfo", "-F", "vermagic", str(f)], capture_output=True, text=True, check=True
            )
            assert info.stdout.split()[0] == abi
        # staging: no depmod output, the target runs depmod
        assert not list((dest / "lib/modules" / abi).glob("modules.*"))
        assert f"run 'depmod -a {abi}' on the target" in r.stdout
    tc = dest / "usr/local/sbin/tc"
    assert tc.exists() and os.access(tc, os.X_OK) and TC_MARK in tc.read_bytes()
    assert not (dest / "usr/sbin").exists()
    # stripped of debug info, BTF kept (6.12's headers have vmlinux BTF)
    sections = subprocess.run(
        ["readelf", "-S", str(installed(dest, ABIS["6.1"])["tcp_jersey"])],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert ".debug_info" not in sections

    r = make("uninstall", f"DESTDIR={dest}")
    assert r.returncode == 0, r.stderr
    for abi in ALL_ABIS.values():
        assert not (dest / "lib/modules" / abi / "extra").exists()
    assert not tc.exists()


def test_make_install_mod_path_runs_depmod_there(tmp_path: Path) -> None:
    root = tmp_path / "root"
    abi = ABIS["6.1"]
    r = make("install", "KVER=6.1", f"INSTALL_MOD_PATH={root}", "TC_INSTALL=none")
    assert r.returncode == 0, r.stderr[-3000:]
    dep = (root / "lib/modules" / abi / "modules.dep").read_text()
    alias = (root / "lib/modules" / abi / "modules.alias").read_text()
    for d, name in kbuild_modules():
        assert f"extra/jersey/{d}/{name}.ko:" in dep
    assert "alias tcp_jersey tcp_jersey" in alias
    assert not (root / "usr").exists()  # TC_INSTALL=none

    r = make("uninstall", "KVER=6.1", f"INSTALL_MOD_PATH={root}")
    assert r.returncode == 0, r.stderr
    dep = (root / "lib/modules" / abi / "modules.dep").read_text()
    assert "jersey" not in dep  # depmod forgot them


def test_tc_beside_refuses_to_overwrite_a_foreign_tc(tmp_path: Path) -> None:
    dest = tmp_path / "stage"
    (dest / "usr/local/sbin").mkdir(parents=True)
    shutil.copy("/usr/sbin/tc", dest / "usr/local/sbin/tc")  # not ours
    r = make("install-tc", f"DESTDIR={dest}")
    assert r.returncode != 0
    assert "is not jersey's tc" in r.stderr and "TC_INSTALL=replace" in r.stderr
    assert TC_MARK not in (dest / "usr/local/sbin/tc").read_bytes()
    r = make("uninstall-tc", f"DESTDIR={dest}")  # leaves a foreign tc alone
    assert (dest / "usr/local/sbin/tc").exists()


def test_tc_prefix_and_bad_option(tmp_path: Path) -> None:
    dest = tmp_path / "stage"
    r = make("install-tc", f"DESTDIR={dest}", "PREFIX=/opt/jersey")
    assert r.returncode == 0, r.stderr
    assert TC_MARK in (dest / "opt/jersey/sbin/tc").read_bytes()
    r = make("install-tc", f"DESTDIR={dest}", "TC_INSTALL=over")
    assert r.returncode != 0 and "use beside, replace or none" in r.stderr


def test_tc_replace_keeps_and_restores_the_system_tc(tmp_path: Path) -> None:
    """The non-dpkg path (a copy beside it); the dpkg-divert path runs in the VM."""
    system = tmp_path / "sys" / "tc"
    system.parent.mkdir()
    shutil.copy("/usr/sbin/tc", system)
    original = system.read_bytes()
    env = {"SYSTEM_TC": str(system), "PREFIX": str(tmp_path / "prefix")}
    r = make("install-tc", "TC_INSTALL=replace", env=env)
    assert r.returncode == 0, r.stderr
    assert TC_MARK in system.read_bytes()
    assert (system.parent / "tc.jersey-orig").read_bytes() == original
    r = make("install-tc", "TC_INSTALL=replace", env=env)  # again: keeps the original
    assert (system.parent / "tc.jersey-orig").read_bytes() == original
    r = make("uninstall-tc", env=env)
    assert r.returncode == 0, r.stderr
    assert system.read_bytes() == original
    assert not (system.parent / "tc.jersey-orig").exists()


# -- build error paths ---------------------------------------------------------------


def test_missing_headers_names_the_package(tmp_path: Path) -> None:
    r = make("KVER=5.99.0-nowhere-amd64", f"BUILDDIR={tmp_path}")
    assert r.returncode != 0
    assert "no kernel build tree for Linux 5.99.0-nowhere-amd64" in r.stderr
    assert "apt-get install linux-headers-5.99.0-nowhere-amd64" in r.stderr
    assert "dnf install kernel-devel-5.99.0-nowhere-amd64" in r.stderr
    r = make("install", "KVER=5.99.0-nowhere-amd64", f"DESTDIR={tmp_path}/stage")
    assert r.returncode != 0 and "apt-get install linux-headers-5.99.0" in r.stderr
    assert not (tmp_path / "stage").exists()  # nothing installed


def test_kdir_that_is_no_kernel_tree(tmp_path: Path) -> None:
    r = make(f"KDIR={tmp_path}/nothing", f"BUILDDIR={tmp_path}")
    assert r.returncode != 0
    assert f"KDIR={tmp_path}/nothing is not a kernel build tree" in r.stderr
    assert "linux-headers-" in r.stderr


@pytest.mark.skipif(Path("/proc/modules").exists(), reason="the running kernel can load modules")
def test_install_without_module_support_asks_for_a_kernel() -> None:
    r = make("install")
    assert r.returncode != 0
    assert "cannot load modules" in r.stderr and "KVER=" in r.stderr


def test_make_defaults_to_the_running_kernel_when_it_can_load_modules() -> None:
    def kvers(*args: str) -> str:
        r = make(*args, "--eval", "jersey-kvers: ; @echo $(KVERS)", "jersey-kvers")
        return r.stdout.strip()

    pinned = " ".join(kernels.names())  # testbed/kernels.txt
    assert pinned.startswith("6.1 6.12 ") and "7.3" in pinned.split()
    assert kvers() == ("host" if Path("/proc/modules").exists() else pinned)
    assert kvers("KDIR=/somewhere") == "kdir"
    assert kvers("KVER=6.12") == "6.12"


def test_old_kernel_is_refused_at_build_time(tmp_path: Path) -> None:
    """A 6.1 build tree that says LINUX_VERSION_CODE 5.10: both compat.h #error out."""
    real = Path(f"/usr/src/linux-headers-{ABIS['6.1']}")
    fake = tmp_path / "linux-5.10"
    subprocess.run(["cp", "-as", str(real), str(fake)], check=True)  # a tree of symlinks
    for link in real.rglob("*"):  # cp copies the tree's own (relative) links as they are
        if link.is_symlink():
            (fake / link.relative_to(real)).unlink()
            (fake / link.relative_to(real)).symlink_to(link.resolve())
    version = fake / "include/generated/uapi/linux/version.h"
    version.unlink()
    version.write_text(
        f"#define LINUX_VERSION_CODE {(5 << 16) + (10 << 8) + 200}\n"
        "#define KERNEL_VERSION(a,b,c) (((a) << 16) + ((b) << 8) + ((c) > 255 ? 255 : (c)))\n"
    )
    r = make("-k", f"KDIR={fake}", f"BUILDDIR={tmp_path}/out")
    assert r.returncode != 0
    assert '#error "jersey modules need Linux >= 6.1"' in r.stderr
    assert '#error "jersey qdiscs need Linux >= 6.1"' in r.stderr
    assert not list((tmp_path / "out").rglob("*.ko"))


# -- DKMS ------------------------------------------------------------------------------


def dkms_conf(src: Path, kernelver: str = "6.1.0-1-amd64") -> dict[str, str]:
    """Source dkms.conf as dkms does (bash, kernel_source_dir and dkms_tree set)."""
    script = (
        f"kernelver={kernelver}; kernel_source_dir=/lib/modules/$kernelver/build; "
        f"dkms_tree=/var/lib/dkms; . {src}/dkms.conf; "
        "for v in PACKAGE_NAME PACKAGE_VERSION AUTOINSTALL BUILD_EXCLUSIVE_KERNEL; do "
        'echo "$v=${!v}"; done; '
        'echo "BUILT_MODULE_NAME=${BUILT_MODULE_NAME[*]}"; '
        'echo "BUILT_MODULE_LOCATION=${BUILT_MODULE_LOCATION[*]}"; '
        'echo "DEST_MODULE_LOCATION=${DEST_MODULE_LOCATION[*]}"; echo "MAKE=${MAKE[0]}"'
    )
    out = subprocess.run(
        ["bash", "-c", script], capture_output=True, text=True, check=True, cwd="/"
    ).stdout
    return dict(line.split("=", 1) for line in out.splitlines())


def test_dkms_conf_reads_the_module_list_from_kbuild(tmp_path: Path) -> None:
    conf = dkms_conf(TOP)
    mods = kbuild_modules()
    assert conf["PACKAGE_NAME"] == "jersey"
    assert conf["PACKAGE_VERSION"] == (TOP / "VERSION").read_text().strip()
    assert conf["AUTOINSTALL"] == "yes"
    assert conf["BUILT_MODULE_NAME"].split() == [m for _d, m in mods]
    assert conf["BUILT_MODULE_LOCATION"].split() == [f"{d}/" for d, _m in mods]
    assert set(conf["DEST_MODULE_LOCATION"].split()) == {"/updates/dkms"}
    assert "-C /lib/modules/6.1.0-1-amd64/build M=/var/lib/dkms/jersey/" in conf["MAKE"]

    # a colleague adds modules (continuation line included): picked up as is
    tree = tmp_path / "src"
    shutil.copytree(TOP / "kmod", tree / "kmod")
    shutil.copytree(TOP / "qdisc", tree / "qdisc")
    for f in ("Kbuild", "VERSION", "dkms.conf"):
        shutil.copy(TOP / f, tree / f)
    with (tree / "kmod" / "Kbuild").open("a") as f:
        f.write("obj-m += tcp_diffc.o \\\n\ttcp_newrenolp.o\nobj-m += tcp_balde.o\n")
    names = dkms_conf(tree)["BUILT_MODULE_NAME"].split()
    new = ["tcp_diffc", "tcp_newrenolp", "tcp_balde"]
    kmod = [m for d, m in mods if d == "kmod"]
    assert names == kmod + new + [m for d, m in mods if d != "kmod"]
    assert [m for _d, m in kbuild_modules(tree)] == names


@pytest.mark.parametrize(("werror", "want"), [("1", True), ("0", False)])
def test_warnings_are_errors_in_our_builds_only(tmp_path: Path, werror: str, want: bool) -> None:
    """make (and make check) compile with -Werror; make install (WERROR=0) does not."""
    r = make(f"BUILDDIR={tmp_path}", "KVER=6.1", f"WERROR={werror}", "V=1")
    assert r.returncode == 0, r.stderr[-3000:]
    cc_lines = [ln for ln in r.stdout.splitlines() if "tcp_jersey.c" in ln and " -c " in ln]
    assert cc_lines, r.stdout[-2000:]
    assert all(("-Werror" in ln.split()) is want for ln in cc_lines)
    assert "WERROR=0" in (TOP / "scripts" / "install.sh").read_text()


def test_dkms_build_exclusive_kernel_is_what_ci_builds() -> None:
    """DKMS builds for the series from the oldest to the newest of
    testbed/kernels.txt (what make all-kernels and the VM tests cover), no other."""
    regex = dkms_conf(TOP)["BUILD_EXCLUSIVE_KERNEL"]
    series = sorted({tuple(map(int, abi.split(".")[:2])) for abi in ALL_ABIS.values()})
    (lo_major, lo_minor), (hi_major, hi_minor) = series[0], series[-1]
    assert (lo_major, lo_minor) == (6, 1), series  # compat.h's #error below 6.1
    cases = [(abi, True) for abi in ALL_ABIS.values()] + [
        ("6.1.0-1-amd64", True),
        ("6.10.3", True),
        ("7.0.1-arch1", True),
        (f"{hi_major}.{hi_minor}.99-1-amd64", True),
        (f"{hi_major}.{hi_minor + 1}.0-1-amd64", False),  # the next series: not built by CI
        (f"{hi_major + 1}.0.1", False),
        (f"{lo_major}.{lo_minor - 1}.12-amd64", False),
        ("5.10.0-30-amd64", False),
        ("4.19.0-27-amd64", False),
    ]
    for kernel, ok in cases:
        assert bool(re.search(regex, kernel)) is ok, kernel  # dkms uses bash =~


def test_dkms_src_copies_only_the_sources_and_they_build(tmp_path: Path) -> None:
    r = make("dkms-src", f"DESTDIR={tmp_path}")
    assert r.returncode == 0, r.stderr
    ver = (TOP / "VERSION").read_text().strip()
    src = tmp_path / "usr/src" / f"jersey-{ver}"
    files = sorted(str(p.relative_to(src)) for p in src.rglob("*") if p.is_file())
    want = ["Kbuild", "VERSION", "dkms.conf"]
    for d in ("kmod", "qdisc"):
        want += [f"{d}/{p.name}" for p in (TOP / d).iterdir() if p.suffix in (".c", ".h")]
        want.append(f"{d}/Kbuild")
    assert files == sorted(want)
    # a warning a newer compiler adds must not break a user's kernel upgrade
    for f in ("Kbuild", "kmod/Kbuild", "qdisc/Kbuild", "dkms.conf"):
        assert "-Werror" not in (src / f).read_text(), f
    # what dkms runs (its default make command) builds every module, on every
    # kernel (Debian 13's in their system, with their compiler, as dkms would there)
    for abi in ALL_ABIS.values():
        root, tree = kdir(abi)
        build = tmp_path / f"build-{abi}"
        shutil.copytree(src, build)
        env = [str(TOP / "scripts" / "debian-env"), "run", "--bind", str(tmp_path), root]
        p = subprocess.run(
            [*env, "make", "-C", tree, f"M={build}", "modules"], capture_output=True, text=True
        )
        assert p.returncode == 0, p.stderr[-3000:]
        for d, name in kbuild_modules(build):
            assert (build / d / f"{name}.ko").exists()


# -- testbed/vm --bare -------------------------------------------------------------------


def test_vm_bare_reaches_guest_init() -> None:
    assert vm.guest_argv(["true"], bare=True) == [str(vm.GUEST_INIT), "--bare", "true"]
    assert vm.guest_argv(["true"], bare=False) == [str(vm.GUEST_INIT), "true"]
    argv = vm.vng_argv(ABIS["6.1"], "tcg", ["echo", "x"], 2, "2G", bare=True)
    assert argv[argv.index("--exec") + 1] == f"{vm.GUEST_INIT} --bare echo x"


def _vm_args(**kw: object) -> object:
    import argparse

    base = {"host": False, "kernel": "6.12", "no_build": True, "cpus": 2, "memory": "2G"}
    return argparse.Namespace(**{**base, "verbose": False, "bare": False, "timeout": 60, **kw})


def test_a_guest_hung_in_its_boot_is_torn_down_early(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # a guest that never runs guest-init.sh (it creates the started file
    # first) is torn down BOOT_WITHIN after the start, not at the run's timeout
    monkeypatch.setattr(vm, "BOOT_WITHIN", 2.0)
    started = tmp_path / "started"
    t0 = time.monotonic()
    assert vm.run_guarded(["sleep", "60"], 30, started) == vm.NEVER_CAME_UP
    assert "did not come up within 2 s" in capsys.readouterr().err
    assert time.monotonic() - t0 < 10
    # one that came up runs on past BOOT_WITHIN to its command's end
    t0 = time.monotonic()
    rc = vm.run_guarded(["sh", "-c", f"touch {started}; sleep 4; exit 7"], 30, started)
    assert rc == 7 and time.monotonic() - t0 >= 4
    # and the run's timeout still holds
    assert vm.run_guarded(["sh", "-c", f"touch {started}; sleep 60"], 3, started) == vm.TIMED_OUT


def test_a_guest_that_never_came_up_is_not_reported_as_dead(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the watchdog's status is its own, and its kernel log tail says so, not "panic or reset"
    assert vm.NEVER_CAME_UP not in (0, vm.GUEST_DIED, vm.TIMED_OUT)
    kept = tmp_path / "vm-6.12-test-kernel.log"
    kept.write_text("rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:\n")
    vm.kernel_log(kept, vm.NEVER_CAME_UP)
    err = capsys.readouterr().err
    assert f"exit {vm.NEVER_CAME_UP}: the guest never came up" in err
    assert "rcu_preempt detected stalls" in err
    assert "panic or reset" not in err
    vm.kernel_log(kept, vm.GUEST_DIED)
    err = capsys.readouterr().err
    assert "panic or reset" in err and "never came up" not in err


def _wait_for(cond: Callable[[], bool], within: float = 5.0) -> bool:
    deadline = time.monotonic() + within
    while not cond():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def test_the_host_cpu_line_is_copied_for_the_guest_while_it_runs(tmp_path: Path) -> None:
    from testbed.measure.monitors import cpu_times

    stat = tmp_path / "stat"
    stat.write_text("cpu  100 0 50 800 50 0 0 7 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\n")
    out = tmp_path / "share" / "host-stat"
    with vm.HostStatSampler(out, stat, every=0.05):
        # there from the start, in the form the guest's reader takes
        cpu, stamp = out.read_text().splitlines()
        assert cpu == "cpu  100 0 50 800 50 0 0 7 0 0"
        assert stamp.startswith("time ") and abs(float(stamp[5:]) - time.time()) < 5
        assert cpu_times(str(out)) == [100, 0, 50, 800, 50, 0, 0, 7]
        stat.write_text("cpu  160 0 90 870 60 5 5 10 0 0\n")
        assert _wait_for(lambda: out.read_text().startswith("cpu  160 "))
    assert list(tmp_path.joinpath("share").iterdir()) == []  # the copy and its temporary gone
    # a host file that can no longer be read leaves no stale copy behind
    with vm.HostStatSampler(out, stat, every=0.05):
        stat.unlink()
        assert _wait_for(lambda: not out.exists())


def test_the_copy_carries_the_vms_own_cpu_time_once_it_runs(tmp_path: Path) -> None:
    """testbed/vm adds the CPU time of the VM's session (QEMU's) to the copy,
    from which a trial tells the VM's share of the host from the rest."""
    from testbed.measure.monitors import vm_ticks

    proc = tmp_path / "proc"
    # pid, session, utime, stime, and the children it reaped (cutime, cstime)
    for pid, sid, ticks in ((10, 7, "300 50 0 0"), (11, 7, "20 5 1 2"), (12, 9, "900 90 8 1")):
        d = proc / str(pid)
        d.mkdir(parents=True)
        # a comm with a space and a parenthesis, as a process may name itself
        head = f"{pid} (qemu (x) y) S 1 {sid} {sid} 0 -1 4194560 0 0 0 0"
        (d / "stat").write_text(f"{head} {ticks} 20 0 3 0 100 0 0\n")
    (proc / "self").mkdir()
    assert vm.process_ticks(7, proc) == (378, 1377)
    assert vm.process_ticks(9, proc) == (999, 1377)
    stat = tmp_path / "stat"
    stat.write_text("cpu  100 0 50 800 50 0 0 7 0 0\n")
    out = tmp_path / "share" / "host-stat"
    with vm.HostStatSampler(out, stat, every=0.05, proc=proc) as sampler:
        assert vm_ticks(str(out)) is None  # before the VM runs
        sampler.watch(7)
        assert out.read_text().splitlines()[1] == "vm 378 1377"
        assert vm_ticks(str(out)) == (378, 1377)


def test_vm_boots_again_only_when_the_guest_never_came_up(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[list[str]] = []

    copies: list[Path] = []

    def fake(outcomes: list[tuple[int, bool]]):  # (exit status, guest started)
        def run_guarded(
            argv: list[str],
            timeout: float,
            started: Path | None = None,
            on_start: Callable[[int], None] | None = None,
        ) -> int:
            rc, up = outcomes[len(calls)]
            calls.append(argv)
            cmd = argv[argv.index("--exec") + 1].split()
            # the guest is told where the host's CPU times are, and they are there
            copies.append(Path(cmd[cmd.index("--host-stat") + 1]))
            assert copies[-1].read_text().startswith("cpu ")
            # with the VM's CPU time, once its session is known (here: ours)
            assert on_start is not None
            on_start(os.getsid(0))
            assert "\nvm " in copies[-1].read_text()
            if up:
                Path(cmd[cmd.index("--started") + 1]).touch()
            return rc

        return run_guarded

    monkeypatch.setattr(vm, "accel", lambda: ("tcg", "test"))
    # a boot that died before the guest ran anything is retried
    monkeypatch.setattr(vm, "run_guarded", fake([(255, False), (0, True)]))
    assert vm.run(_vm_args(), ["true"]) == 0 and len(calls) == 2
    assert copies[0] == copies[1] and not copies[0].exists()  # one copy for all boots, then gone
    # a command that ran and failed is not run again
    calls.clear()
    monkeypatch.setattr(vm, "run_guarded", fake([(255, True), (0, True)]))
    assert vm.run(_vm_args(), ["false"]) == 255 and len(calls) == 1
    # nor is a timeout, and the retries are bounded
    calls.clear()
    monkeypatch.setattr(vm, "run_guarded", fake([(124, False)]))
    assert vm.run(_vm_args(), ["sleep", "99"]) == 124 and len(calls) == 1
    calls.clear()
    monkeypatch.setattr(vm, "run_guarded", fake([(255, False)] * vm.BOOT_ATTEMPTS))
    assert vm.run(_vm_args(), ["true"]) == 255 and len(calls) == vm.BOOT_ATTEMPTS
    # boots the watchdog tore down are retried too, and the last one's status is its own
    calls.clear()
    hung = fake([(vm.NEVER_CAME_UP, False)] * vm.BOOT_ATTEMPTS)
    monkeypatch.setattr(vm, "run_guarded", hung)
    assert vm.run(_vm_args(), ["true"]) == vm.NEVER_CAME_UP and len(calls) == vm.BOOT_ATTEMPTS
