"""Run a command as root on a Debian kernel with our modules loaded.

``testbed/vm [--kernel 6.1|6.12|7.3] [--host] [--bare] [--timeout S] -- CMD...``

Without ``--host``, boots the chosen Debian kernel in QEMU through virtme-ng
with the host's root filesystem shared read-only over 9p (writable overlays
on top) and the repository mounted read-write at the same path.  Inside, our
freshly built modules (``build/<abi>/{kmod,qdisc}/*.ko``) are loaded, but not
selected, and the kernel's own modules are available to ``modprobe``.  The
exit status is CMD's (124 at the timeout, 255 when QEMU ended without it,
123 when the guest never came up).  The VM is always torn down: on exit, on
timeout and on SIGINT/SIGTERM, the whole process group (virtme-ng and QEMU)
is killed.

With ``--host``, the same happens on the running kernel, without a VM; it
needs a kernel that can load modules and its build tree.

With ``--bare``, our modules are built but not loaded (a fresh machine, e.g.
to test ``make install`` and autoloading); everything else is the same: the
kernel's own modules are preloaded and every available congestion control is
allowed in network namespaces.

While the guest runs, the host's aggregate ``cpu`` line of /proc/stat, and
the CPU time of the VM's own processes (QEMU and virtme-ng), are copied once
a second into ``build/`` (:class:`HostStatSampler`), where the guest's trials
read them to record the host's CPU steal and what else the host ran next to
their own load.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import os
import shlex
import shutil
import signal
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from testbed import kernels

TOP = Path(__file__).resolve().parent.parent
GUEST_INIT = TOP / "testbed" / "guest-init.sh"
KERNELS = ("6.1", "6.12")
DEFAULT_KERNEL = os.environ.get("JERSEY_KERNEL", "6.12")
# udev autoloads these for emulated hardware we do not use; skipping them
# saves seconds per boot under TCG.
BLACKLIST = (
    "ahci,libahci,sr_mod,cdrom,sg,kvm_amd,kvm_intel,kvm,ccp,i2c_i801,lpc_ich,"
    "iTCO_wdt,iTCO_vendor_support,pcspkr,joydev,evdev,serio_raw,button,"
    "intel_rapl_msr,intel_rapl_common,ata_piix,ata_generic,floppy"
)
BOOT_ARGS = f"tsc=reliable modprobe.blacklist={BLACKLIST}"
# The guest kernel's warnings and errors (console log level 5) also go to a
# virtio console (hvc0) that QEMU writes to a host file,
# build/vm-<abi>-kernel.log: written by the kernel itself, it keeps what a
# guest whose user space is stuck or dead can no longer save (soft lockups,
# RCU stalls, panics).  virtme-ng's own serial console goes to /dev/null.
KLOG_ARGS = "console=hvc0 loglevel=5"
KLOG_QEMU = (
    "-chardev file,id=klog,path={} -device virtio-serial-pci -device virtconsole,chardev=klog"
)

# virtme-ng's status when QEMU ended without the guest reporting one (the
# guest kernel panicked or reset, e.g. after the OOM killer took its init)
GUEST_DIED = 255
TIMED_OUT = 124
# the boot watchdog's: the guest never reached CMD (guest-init.sh never ran)
# within BOOT_WITHIN s of QEMU's start, in any of its BOOT_ATTEMPTS boots
NEVER_CAME_UP = 123
KMSG_TAIL = 40


def log(msg: str) -> None:
    print(f"vm: {msg}", file=sys.stderr, flush=True)


def resolve_abi(kernel: str) -> str:
    """The ABI (``uname -r``) of the installed Debian kernel of a series (6.1, 7.3, ...)."""
    out = subprocess.run([str(TOP / "testbed" / "kver"), kernel], capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"vm: {out.stderr.strip()}")
    return out.stdout.strip()


def accel() -> tuple[str, str]:
    """Choose KVM when it is really usable, TCG otherwise; say why."""
    forced = os.environ.get("JERSEY_ACCEL")
    if forced in ("kvm", "tcg"):
        return forced, "forced by JERSEY_ACCEL"
    if not os.access("/dev/kvm", os.R_OK | os.W_OK):
        return "tcg", "no usable /dev/kvm"
    flags = Path("/proc/cpuinfo").read_text().split()
    if "vmx" not in flags and "svm" not in flags:
        return "tcg", "/dev/kvm exists but the CPU has no vmx/svm"
    return "kvm", "/dev/kvm usable"


def build(kernel: str) -> None:
    proc = subprocess.run(
        ["make", "-s", "--no-print-directory", "-C", str(TOP), f"KVER={kernel}", "modules"],
        stdout=subprocess.DEVNULL,
    )
    if proc.returncode != 0:
        raise SystemExit(f"vm: building modules for {kernel} failed")


def kill_group(proc: subprocess.Popen[bytes]) -> None:
    """Terminate virtme-ng and its QEMU, then make sure nothing is left."""
    for sig, wait in ((signal.SIGTERM, 5.0), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            continue
        # the leader is gone; sweep the rest of its group
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        return


def regular_file(fd: int) -> bool:
    try:
        return stat.S_ISREG(os.fstat(fd).st_mode)
    except OSError:
        return False


def pump(src: int, dst: int) -> None:
    """Copy a child's pipe to our file descriptor until the pipe closes."""
    while chunk := os.read(src, 65536):
        os.write(dst, chunk)
    os.close(src)


def wait_guarded(proc: subprocess.Popen[bytes], timeout: float, started: Path | None) -> int:
    """proc's exit status; TIMED_OUT after ``timeout`` s, NEVER_CAME_UP when
    ``started`` is given and does not exist ``BOOT_WITHIN`` s after the start
    (the guest hung in its boot: boot() boots again)."""
    t0 = time.monotonic()
    deadline = t0 + timeout
    while True:
        now = time.monotonic()
        if now >= deadline:
            log(f"timeout after {timeout:.0f} s; tearing the VM down")
            return TIMED_OUT
        if started is not None and started.exists():
            started = None  # it came up: only the timeout is left
        elif started is not None and now - t0 >= BOOT_WITHIN:
            log(f"the guest did not come up within {BOOT_WITHIN:.0f} s; tearing the VM down")
            return NEVER_CAME_UP
        step = deadline - now if started is None else min(1.0, deadline - now)
        with contextlib.suppress(subprocess.TimeoutExpired):
            return proc.wait(timeout=step)


def run_guarded(
    argv: list[str],
    timeout: float,
    started: Path | None = None,
    on_start: Callable[[int], None] | None = None,
) -> int:
    """argv in a session of its own (whose id, its pid, goes to @on_start),
    guarded (:func:`wait_guarded`), its output pumped, then killed."""
    env = dict(os.environ, PATH=f"{TOP / '.venv' / 'bin'}:{os.environ.get('PATH', '')}")
    # QEMU opens the guest's stdout and stderr as /proc/self/fd/{1,2} with
    # O_TRUNC: redirected to a file (`testbed/vm ... >> log`), that file
    # would be emptied at every boot.  Such outputs get a pipe instead.
    piped = [fd for fd in (1, 2) if regular_file(fd)]
    ends = {fd: os.pipe() for fd in piped}
    proc = subprocess.Popen(
        argv,
        start_new_session=True,
        env=env,
        stdout=ends[1][1] if 1 in ends else None,
        stderr=ends[2][1] if 2 in ends else None,
    )
    if on_start is not None:
        on_start(proc.pid)
    pumps = []
    for fd, (r, w) in ends.items():
        os.close(w)
        pumps.append(threading.Thread(target=pump, args=(r, fd), daemon=True))
        pumps[-1].start()

    def on_signal(signum: int, _frame: object) -> None:
        kill_group(proc)
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    try:
        return wait_guarded(proc, timeout, started)
    finally:
        kill_group(proc)
        for t in pumps:
            t.join(timeout=5.0)


# virtme-ng passes --exec on the kernel command line (base64: 4/3 longer),
# which x86 cuts at 2048 bytes: the guest then never runs the command and
# idles until the timeout (seen with the 47 script paths of the
# scripted-peer tests).  A longer command is written to a file in build/
# that the guest runs with sh.  The limit leaves room for guest-init.sh's
# own arguments in front of it (three paths: --started, --host-stat).
EXEC_MAX = 768


def short_command(cmd: list[str], path: Path) -> tuple[list[str], Path | None]:
    """cmd, or ``sh FILE`` running it when it is too long for --exec."""
    line = shlex.join(cmd)
    if len(line) <= EXEC_MAX:
        return cmd, None
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"exec {line}\n")
    return ["sh", str(path)], path


def guest_argv(
    cmd: list[str], bare: bool, started: Path | None = None, host_stat: Path | None = None
) -> list[str]:
    """The command line run on the target kernel: guest-init.sh, then CMD."""
    mark = ["--started", str(started)] if started else []
    host = ["--host-stat", str(host_stat)] if host_stat else []
    return [str(GUEST_INIT), *mark, *host, *(["--bare"] if bare else []), *cmd]


def vng_argv(
    abi: str,
    acc: str,
    cmd: list[str],
    cpus: int,
    memory: str,
    verbose: bool = False,
    bare: bool = False,
    started: Path | None = None,
    klog: Path | None = None,
    host_stat: Path | None = None,
) -> list[str]:
    vng = shutil.which("vng", path=f"{TOP / '.venv' / 'bin'}:{os.environ.get('PATH', '')}")
    if vng is None:
        raise SystemExit("vm: virtme-ng (vng) not found; run 'make deps'")
    # /boot for the host's kernels, build/kernel-<abi>/ for those of another
    # Debian release that make deps unpacked there (testbed/kernels.txt)
    kernel = kernels.image(abi)
    if kernel is None:
        raise SystemExit(
            f"vm: /boot/vmlinuz-{abi} missing; run 'make deps' (installs linux-image-{abi})"
        )
    argv = [vng, "--run", str(kernel), "--cpus", str(cpus), "--memory", memory]
    argv += ["--rwdir", str(TOP), "--append", BOOT_ARGS]
    if klog is not None:
        # virtme-ng splits QEMU options on spaces, QEMU its own on commas
        if any(c.isspace() or c == "," for c in str(klog)):
            raise SystemExit(f"vm: the kernel log path {klog} must not contain spaces or commas")
        argv += ["--append", KLOG_ARGS, f"--qemu-opts={KLOG_QEMU.format(klog)}"]
    if acc == "tcg":
        argv.append("--disable-kvm")
    if verbose:
        argv.append("--verbose")
    argv += ["--exec", shlex.join(guest_argv(cmd, bare, started, host_stat))]
    return argv


# Under TCG the guest's /proc/stat never shows steal, while the hypervisor
# under this machine takes the host's CPU from it (2-45 % seen; README):
# the host's own /proc/stat is copied this often for the guest to read.
HOST_STAT_EVERY = 1.0


def process_ticks(sid: int, proc: Path = Path("/proc")) -> tuple[int, int]:
    """The CPU time (clock ticks, /proc/stat's unit) of the processes of
    session @sid (the VM's: run_guarded starts virtme-ng and so QEMU in a
    session of their own) and of every process, each with the time of the
    children it reaped (so that what a short-lived process used stays
    counted, in its parent's, once it is gone).  Both count precisely what
    ran, unlike /proc/stat's busy ticks (3-7 % less than QEMU's alone here)."""
    vm = every = 0
    for d in proc.iterdir():
        if not d.name.isdigit():
            continue
        try:
            text = (d / "stat").read_text()
        except OSError:  # gone since the listing
            continue
        # after "pid (comm) ": state ppid pgrp session ... utime stime
        # cutime cstime (fields 3-17)
        fields = text[text.rindex(")") + 2 :].split()
        ticks = sum(int(x) for x in fields[11:15])
        every += ticks
        if int(fields[3]) == sid:
            vm += ticks
    return vm, every


class HostStatSampler:
    """While entered, copies the first line of ``stat`` (the host's aggregate
    ``cpu`` line), once the VM runs (:meth:`watch`) its processes' CPU time
    (:func:`process_ticks`), and the time to ``out`` every ``every`` s, as
    ``cpu ...``, ``vm <ticks> <ticks of all processes>`` and ``time <unix
    time>``, replacing the file
    atomically; removes it on exit.  ``out`` lies in the guest's read-write
    share (build/), and guest-init.sh --host-stat names it to the guest's
    programs (testbed.measure.monitors.CpuMeter reads it)."""

    def __init__(
        self,
        out: Path,
        stat: Path = Path("/proc/stat"),
        every: float = HOST_STAT_EVERY,
        proc: Path = Path("/proc"),
    ) -> None:
        self.out = out
        self.stat = stat
        self.every = every
        self.proc = proc
        self.session: int | None = None
        self._tmp = out.with_name(f"{out.name}.tmp")
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()  # one writer of the temporary file

    def watch(self, sid: int) -> None:
        """From now on, copy the CPU time of session @sid (a VM booted again
        has a new one: its QEMU's ticks start again, within the trials' runs
        never, as a boot attempt that got as far as a trial is not retried)."""
        self.session = sid
        self.sample()

    def sample(self) -> None:
        with self._lock:
            with self.stat.open() as f:
                line = f.readline().rstrip("\n")
            sid = self.session
            vm = "" if sid is None else "vm {} {}\n".format(*process_ticks(sid, self.proc))
            self._tmp.write_text(f"{line}\n{vm}time {time.time():.3f}\n")
            os.replace(self._tmp, self.out)

    def _loop(self) -> None:
        while not self._stop.wait(self.every):
            try:
                self.sample()
            except OSError as e:
                # no copy rather than a stale one, which would make the
                # guest measure the host over part of its interval
                log(f"no more copies of the host's CPU times ({e})")
                self.out.unlink(missing_ok=True)
                return

    def __enter__(self) -> HostStatSampler:
        self.out.parent.mkdir(parents=True, exist_ok=True)
        self.sample()  # there before the guest can look
        self._thread = threading.Thread(target=self._loop, name="host-stat", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self.out.unlink(missing_ok=True)
        self._tmp.unlink(missing_ok=True)


LOCK = Path(os.environ.get("JERSEY_VM_LOCK", "/run/lock/jersey-vm.lock"))
BOOT_ATTEMPTS = 3
# A guest that has not run guest-init.sh this long after QEMU started hung in
# its boot (25-60 s under TCG): it is torn down and booted again, instead of
# idling until the run's timeout (once make check's 6.12 shared boot ran to
# its 45-minute timeout, for a reason its truncated log did not keep).
BOOT_WITHIN = 180.0


@contextlib.contextmanager
def machine_lock(enabled: bool) -> Iterator[None]:
    """One VM (or --host run) at a time on this machine.

    Under TCG two guests share the host's cores, which slows both and
    distorts what they measure; later invocations wait for the lock
    (``--no-lock`` or ``JERSEY_VM_LOCK=none`` opt out).
    """
    if not enabled:
        yield
        return
    LOCK.parent.mkdir(parents=True, exist_ok=True)
    with LOCK.open("a") as fd:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            log(f"waiting for another testbed run to finish (lock {LOCK})")
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="testbed/vm",
        description="Run CMD as root on a Debian kernel (in QEMU) with jersey's modules loaded.",
    )
    ap.add_argument(
        "--kernel",
        default=DEFAULT_KERNEL,
        help="a name of testbed/kernels.txt (6.1, 6.12, 7.3, ...) or a full ABI name",
    )
    ap.add_argument("--host", action="store_true", help="run on the host kernel, no VM")
    ap.add_argument("--timeout", type=float, default=1800, help="seconds before teardown")
    ap.add_argument("--cpus", type=int, default=2)
    ap.add_argument("--memory", default="2G")
    ap.add_argument("--no-build", action="store_true", help="do not rebuild the modules first")
    ap.add_argument(
        "--bare",
        action="store_true",
        help="do not load our modules (a fresh machine); kernel modules and setup as usual",
    )
    ap.add_argument(
        "--no-lock", action="store_true", help="do not wait for other testbed runs on this machine"
    )
    ap.add_argument(
        "--verbose", action="store_true", help="show the guest kernel's console on stderr"
    )
    ap.add_argument("cmd", nargs=argparse.REMAINDER, help="-- CMD [ARGS...]")
    args = ap.parse_args(argv)
    cmd = args.cmd[1:] if args.cmd[:1] == ["--"] else args.cmd
    if not cmd:
        ap.error("missing command: testbed/vm [options] -- CMD...")
    if os.geteuid() != 0:
        raise SystemExit("vm: must run as root")

    with machine_lock(not args.no_lock and os.environ.get("JERSEY_VM_LOCK") != "none"):
        return run(args, cmd)


def kernel_log_path(abi: str) -> Path:
    """build/vm-<abi>-kernel.log: the guest kernel's warnings and errors of
    the last boot of ``abi`` (KLOG_ARGS)."""
    return TOP / "build" / f"vm-{abi}-kernel.log"


def kernel_log(kept: Path, rc: int) -> None:
    """If the guest died, never came up or was torn down at the timeout, show
    the tail of its kernel's warnings and errors, kept in ``kept``."""
    if rc not in (GUEST_DIED, NEVER_CAME_UP, TIMED_OUT) or not kept.exists():
        return
    lines = kept.read_text(errors="replace").splitlines()
    if rc == GUEST_DIED:
        log(f"exit {rc}: QEMU ended without the guest's exit status (panic or reset?)")
    elif rc == NEVER_CAME_UP:
        log(f"exit {rc}: the guest never came up (hung in its boot; torn down by the watchdog)")
    if lines:
        log(f"the guest kernel's last warnings and errors ({kept}):")
        for line in lines[-KMSG_TAIL:]:
            print(f"  {line}", file=sys.stderr)
    else:
        log(f"no kernel warning or error in {kept}")


def run(args: argparse.Namespace, cmd: list[str]) -> int:
    if args.host:
        if not Path("/proc/modules").exists():
            raise SystemExit(
                "vm: --host needs a kernel with loadable-module support; this one has none"
            )
        if not args.no_build:
            build("host")
        log(f"host kernel {os.uname().release}, no VM")
        return run_guarded(guest_argv(cmd, args.bare), args.timeout)

    abi = resolve_abi(args.kernel)
    if not args.no_build:
        build(abi)
    acc, why = accel()
    log(f"kernel {abi}, accel {acc} ({why}){', bare: our modules not loaded' if args.bare else ''}")
    # the guest creates this file before anything else: without it, the
    # guest never reached our command (seen rarely on 6.12 under TCG: exit
    # 255 a few seconds into the boot, nothing on the console), and the boot
    # is retried; a command that ran is never run twice
    started = TOP / "build" / f".vm-started-{os.getpid()}"
    klog = kernel_log_path(abi)
    host_stat = TOP / "build" / f".vm-host-stat-{os.getpid()}"
    cmd, script = short_command(cmd, TOP / "build" / f".vm-command-{os.getpid()}.sh")
    try:
        with HostStatSampler(host_stat) as sampler:
            return boot(args, abi, acc, cmd, started, klog, host_stat, sampler.watch)
    finally:
        if script is not None:
            script.unlink(missing_ok=True)


def boot(args: argparse.Namespace, abi: str, acc: str, cmd: list[str], started: Path,
         klog: Path, host_stat: Path | None = None,
         on_start: Callable[[int], None] | None = None) -> int:  # fmt: skip
    """Boot the guest and run cmd, again when the guest did not come up
    (@on_start: :func:`run_guarded`'s, at every boot)."""
    for attempt in range(1, BOOT_ATTEMPTS + 1):
        started.unlink(missing_ok=True)
        t0 = time.monotonic()
        argv = vng_argv(
            abi, acc, cmd, args.cpus, args.memory, args.verbose, args.bare, started, klog, host_stat
        )
        rc = run_guarded(argv, args.timeout, started, on_start)
        wall = time.monotonic() - t0
        came_up = started.exists()
        started.unlink(missing_ok=True)
        kernel_log(klog, rc)
        if rc == 0 or came_up or rc == TIMED_OUT or attempt == BOOT_ATTEMPTS:
            break
        log(f"the guest did not come up (exit {rc} after {wall:.1f} s); booting again")
    log(f"exit {rc} after {wall:.1f} s wall (boot + command)")
    return rc


if __name__ == "__main__":
    sys.exit(main())
