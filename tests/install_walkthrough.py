"""Run the README's install guide verbatim in a fresh guest and check what it did.

Runs *inside* a throwaway VM booted with ``testbed/vm --bare`` (none of our
modules loaded), as ``python -m tests.install_walkthrough --out FILE``; it
refuses to run anywhere else, because the guide installs into /lib/modules,
/usr/local, /usr/src and /etc.  tests/test_install_vm.py boots it on both
kernels and reads FILE.

The test environment the README describes:

* this machine (the initial network namespace) is both the host and the
  gateway; ``wlan0`` is a veth to the namespace ``mobile`` (10.77.2.2 =
  ``$SERVER``, running ``iperf3 -s``, the kernel's default ``tcp_ecn=2``);
* the namespace ``lan`` (10.77.1.2, routed through this gateway, ``tcp_ecn=1``
  as its ECN section says) sends traffic across ``wlan0`` so that the
  gateway's qdisc builds a queue (a sender's own qdisc never does, TSQ);
* the blocks run with root's standard ``PATH`` (/usr/local/sbin first, as on
  Debian) from the top of the checkout, each with ``bash -e``.

After each block the hooks below check the acceptance criteria of the install guide
(autoload by name, connections using jersey with ECN, qdisc autoload and
marking, uninstall and depmod forgetting, DKMS).  The walkthrough stops at the
first failed check.

To keep ``depmod`` affordable here (it reads every module of the kernel, about
400 MB over 9p under TCG: 30-60 s per run, and the guide runs it four times),
the kernel's ``drivers/`` and ``sound/`` module trees are hidden under empty
tmpfs mounts first, as on a minimal (cloud) kernel; the network modules the
guide uses (``net/``) stay, and everything it needs from ``drivers/`` (veth)
is loaded already.  ``--full-module-tree`` keeps them.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shlex
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.guest import shell
from tests.guest.shell import CheckFailed
from tests.install_guide import TOP, Block, blocks, kbuild_modules

ABI = os.uname().release
MODDIR = Path("/lib/modules") / ABI
SERVER = "10.77.2.2"
LAN_HOST = "10.77.1.2"
ENV = {**shell.ENV, "SERVER": SERVER}
MODULES = [name for _d, name in kbuild_modules()]
TC_MARK = b"Usage: ... vcrr"  # only the patched tc has it (scripts/install.sh)
SYSTEM_TC = Path("/usr/sbin/tc")


def sh(cmd: str, ns: str | None = None, check: bool = True, timeout: float = 120) -> str:
    """Run a shell command (in network namespace ns) with $SERVER set."""
    return shell.sh(cmd, ns, check, timeout, ENV)


def ok(cmd: str) -> bool:
    return shell.ok(cmd, ENV)


def loaded() -> set[str]:
    return shell.loaded(MODULES)


def is_our_tc(path: Path) -> bool:
    return path.is_file() and TC_MARK in path.read_bytes()


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


class Walkthrough:
    def __init__(self) -> None:
        self.steps: list[dict[str, Any]] = []
        self.checks: list[dict[str, Any]] = []
        self.system_tc_sha = sha(SYSTEM_TC)

    # -- bookkeeping -------------------------------------------------------
    def check(self, what: str, cond: bool, detail: str = "") -> None:
        self.checks.append({"what": what, "ok": bool(cond), "detail": detail[-2000:]})
        print(f"{'ok  ' if cond else 'FAIL'} {what}", flush=True)
        if not cond:
            raise CheckFailed(f"{what}: {detail[-2000:]}")

    def step(self, name: str, fn: Callable[[], Any]) -> Any:
        t0 = time.monotonic()
        print(f"== {name}", flush=True)
        entry: dict[str, Any] = {"name": name}
        self.steps.append(entry)
        try:
            return fn()
        finally:
            entry["seconds"] = round(time.monotonic() - t0, 1)

    # -- the environment ---------------------------------------------------
    def hide_driver_modules(self) -> None:
        for sub in ("drivers", "sound"):
            d = MODDIR / "kernel" / sub
            if d.is_dir():
                sh(f"mount -t tmpfs -o mode=0755,size=1m jersey-test-hidden {d}")

    def fresh(self) -> None:
        self.check("none of our modules is loaded (testbed/vm --bare)", not loaded(), str(loaded()))
        for m in MODULES:
            self.check(f"modprobe does not know {m} yet", not ok(f"modprobe -n -q {m}"))
        self.check("tc is the system's", sh("command -v tc").strip() == str(SYSTEM_TC))
        self.check("the system's tc has no cw/vcrr", not is_our_tc(SYSTEM_TC))

    def topology(self) -> None:
        sh(
            f"""
            ip netns add mobile; ip netns add lan
            ip link add wlan0 type veth peer name eth0 netns mobile
            ip link add lan0 type veth peer name eth0 netns lan
            ip addr add 10.77.2.1/24 dev wlan0; ip link set wlan0 up
            ip addr add 10.77.1.1/24 dev lan0; ip link set lan0 up
            ip -n mobile addr add {SERVER}/24 dev eth0; ip -n mobile link set eth0 up
            ip -n mobile link set lo up; ip -n mobile route add default via 10.77.2.1
            ip -n lan addr add {LAN_HOST}/24 dev eth0; ip -n lan link set eth0 up
            ip -n lan link set lo up; ip -n lan route add default via 10.77.1.1
            ip netns exec lan sysctl -qw net.ipv4.tcp_ecn=1
            ip netns exec mobile iperf3 -s -D --pidfile /run/jersey-iperf3.pid
            sleep 1
            """
        )
        self.check("SERVER reachable", ok(f"ping -c1 -W2 {SERVER}"))

    # -- running a README block ---------------------------------------------
    def run_block(self, b: Block) -> str:
        """Run a README block; its stdout."""
        p = subprocess.run(
            ["bash", "-e", "-c", b.code],
            env=ENV,
            cwd=TOP,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        out = p.stdout + p.stderr
        self.steps[-1].update(rc=p.returncode, output=out[-6000:])
        print(out[-3000:], flush=True)
        self.check(f"README block '{b.name}' exits 0", p.returncode == 0, out)
        # what the block printed for the user to read; warnings on stderr
        # (make's "Clock skew detected" when the guest's clock lags the
        # host's files) are not its last line
        return p.stdout

    def lan_traffic(self, seconds: int = 3) -> None:
        """A jersey flow from the lan namespace through the gateway's wlan0."""
        out = sh(f"iperf3 -c {SERVER} -C jersey -t {seconds} -J", ns="lan", timeout=60)
        res = json.loads(out)
        bps = res["end"]["sum_received"]["bits_per_second"]
        self.check(f"lan -> SERVER through wlan0: {bps / 1e6:.2f} Mbit/s", 2e6 < bps < 10.5e6, out)
        self.server_idle()

    def server_idle(self) -> None:
        """Wait until iperf3's server has closed the last test's connections:
        a client that comes sooner is refused ("the server is busy running a
        test"), and the next README block's flow would not exist."""
        for _ in range(100):
            if not sh("ss -Htn state established '( sport = :5201 )'", ns="mobile").strip():
                return
            time.sleep(0.1)

    def qdisc_stats(self, kind: str) -> dict[str, Any]:
        qs = json.loads(sh("tc -s -j qdisc show dev wlan0"))
        found = [q for q in qs if q.get("kind") == kind]
        self.check(f"{kind} on wlan0", bool(found), json.dumps(qs))
        return found[0]

    # -- hooks: what each README block must have done -------------------------
    def after_install(self, out: str) -> None:
        for d, m in kbuild_modules():
            path = sh(f"modinfo -n {m}").strip()
            want = f"{MODDIR}/extra/jersey/{d}/{m}.ko"
            self.check(f"{m} installed in extra/jersey/{d}/", path.startswith(want), path)
            self.check(f"depmod knows {m}", ok(f"modprobe -n -q {m}"))
        self.check("make install loads nothing", not loaded(), str(loaded()))
        last = out.strip().splitlines()[-1]
        self.check("tc in PATH is /usr/local/sbin/tc", last == "/usr/local/sbin/tc", last)
        self.check("/usr/local/sbin/tc is the patched tc", is_our_tc(Path("/usr/local/sbin/tc")))
        self.check("/usr/sbin/tc untouched", sha(SYSTEM_TC) == self.system_tc_sha)

    def after_per_app(self, out: str) -> None:
        self.check("setsockopt(TCP_CONGESTION) autoloaded tcp_jersey", "tcp_jersey" in loaded())
        param = Path("/sys/module/tcp_jersey/parameters/needs_ecn").read_text().strip()
        self.check("modprobe.d option applied at autoload: needs_ecn=N", param == "N", param)
        last = out.strip().splitlines()[-1]
        self.check("getsockopt(TCP_CONGESTION) says jersey", last == "jersey", last)
        refused = not ok(f"runuser -u nobody -- iperf3 -c {SERVER} -C jersey -t 1")
        self.check("unprivileged: jersey not allowed yet", refused)

    def after_system_wide(self, _out: str) -> None:
        cc = sh("sysctl -n net.ipv4.tcp_congestion_control").strip()
        self.check("default congestion control is jersey", cc == "jersey", cc)

    def after_gateway(self, out: str) -> None:
        self.check("tc qdisc add vcrr autoloaded sch_vcrr", "sch_vcrr" in loaded())
        self.check("vcrr under htb", "qdisc vcrr 10: parent 1:1" in out, out)
        self.lan_traffic()
        q = self.qdisc_stats("vcrr")
        self.check(f"vcrr marked ECT packets ({q.get('marked')})", q.get("marked", 0) > 0, str(q))

    def after_gateway_cw(self, out: str) -> None:
        self.check("tc qdisc replace ... cw autoloaded sch_cw", "sch_cw" in loaded())
        self.check("cw under htb", re.search(r"qdisc cw \w+: parent 1:1 ", out) is not None, out)
        self.lan_traffic()
        q = self.qdisc_stats("cw")
        self.check(f"cw marked ECT packets ({q.get('marked')})", q.get("marked", 0) > 0, str(q))

    def after_observe(self, out: str) -> None:
        conn = [line for line in out.splitlines() if re.search(r"\bjersey\b", line)]
        self.check("ss: the connections use jersey", len(conn) >= 2, out)  # iperf3: 2
        ecn = all(re.search(r"\becn\b", line) for line in conn)
        self.check("ss: ECN negotiated (needs_ecn=0 + tcp_ecn=1, receiver tcp_ecn=2)", ecn, out)
        self.check("ss: jersey's ARE and rtt_min", "bbr:(bw:" in out, out)
        self.check("tc -s qdisc: marks shown", "marked" in out, out)

    def after_trace(self, out: str) -> None:
        found = "jersey_sample" in out or "jersey_loss" in out
        self.check("tracepoints: jersey events recorded", found, out)

    def after_uninstall(self, out: str) -> None:
        self.check("make uninstall unloaded every module", not loaded(), str(loaded()) + out)
        self.check("extra/jersey removed", not (MODDIR / "extra" / "jersey").exists())
        dep = (MODDIR / "modules.dep").read_text() + (MODDIR / "modules.alias").read_text()
        for m in MODULES:
            self.check(f"depmod forgot {m}", not ok(f"modprobe -n -q {m}") and m not in dep)
        self.check("the system's tc is tc again", sh("command -v tc").strip() == str(SYSTEM_TC))

    def after_tc_replace(self, out: str) -> None:
        self.check("/usr/sbin/tc is the patched tc", is_our_tc(SYSTEM_TC))
        self.check("/usr/sbin/tc decodes cw's options", "thresh 10p mode pq" in out, out)
        div = sh("dpkg-divert --list '*bin/tc'")
        self.check("the system's tc is diverted", "local diversion" in div, div)
        kept = [Path(p) for p in ("/usr/sbin/tc.distrib", "/sbin/tc.distrib") if Path(p).exists()]
        self.check("the system's tc kept", bool(kept) and sha(kept[0]) == self.system_tc_sha)

    def after_tc_restore(self, _out: str) -> None:
        self.check("/usr/sbin/tc restored", sha(SYSTEM_TC) == self.system_tc_sha)
        self.check("/usr/local/sbin/tc removed", not Path("/usr/local/sbin/tc").exists())
        self.check("no diversion left", "local diversion" not in sh("dpkg-divert --list '*bin/tc'"))

    def after_dkms(self, out: str) -> None:
        ver = (TOP / "VERSION").read_text().strip()
        self.check("dkms status: installed", f"jersey/{ver}, {ABI}, x86_64: installed" in out, out)
        for m in MODULES:
            path = sh(f"modinfo -n {m}").strip()
            self.check(f"{m} from updates/dkms", path.startswith(f"{MODDIR}/updates/dkms/"), path)
        # every congestion control by name (jersey last: it stays the default)
        ccs = [m.removeprefix("tcp_") for m in MODULES if m.startswith("tcp_")]
        for cc in sorted(ccs, key=lambda c: c == "jersey"):
            sh(f"sysctl -w net.ipv4.tcp_congestion_control={cc}")
        sh("ip link add jt0 type veth peer name jt1")
        tc = TOP / "build" / "tc"  # the guide uninstalled ours from PATH
        sh(f"{tc} qdisc add dev jt0 root vcrr rate 1mbit && {tc} qdisc replace dev jt0 root cw")
        self.check("DKMS's modules autoload", loaded() == set(MODULES), str(loaded()))
        sh("ip link del jt0; sysctl -w net.ipv4.tcp_congestion_control=cubic")
        sh("rmmod " + " ".join(MODULES))

    def after_dkms_remove(self, _out: str) -> None:
        for m in MODULES:
            self.check(f"dkms remove: modprobe forgot {m}", not ok(f"modprobe -n -q {m}"))
        self.check("/usr/src/jersey-* removed", not list(Path("/usr/src").glob("jersey-*")))

    # -- the whole thing --------------------------------------------------------
    def run(self, full_tree: bool, skip: frozenset[str] = frozenset()) -> None:
        guide = blocks()
        hooks: dict[str, Callable[[str], None]] = {
            "install": self.after_install,
            "per-app": self.after_per_app,
            "system-wide": self.after_system_wide,
            "gateway": self.after_gateway,
            "gateway-cw": self.after_gateway_cw,
            "observe": self.after_observe,
            "trace": self.after_trace,
            "uninstall": self.after_uninstall,
            "tc-replace": self.after_tc_replace,
            "tc-restore": self.after_tc_restore,
            "dkms": self.after_dkms,
            "dkms-remove": self.after_dkms_remove,
        }
        unknown = set(hooks) - {b.name for b in guide}
        self.check("every hooked README block exists", not unknown, str(unknown))
        self.step("fresh guest", self.fresh)
        if not full_tree:
            self.step("hide drivers/ and sound/ modules", self.hide_driver_modules)
        self.step("test environment: wlan0, SERVER, lan", self.topology)
        for b in guide:
            if not b.tested or b.name in skip:
                self.steps.append({"name": b.name, "skipped": True})
                continue

            def one(b: Block = b) -> None:
                out = self.run_block(b)
                if b.name in hooks:
                    hooks[b.name](out)

            self.step(f"README: {b.name}", one)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--full-module-tree", action="store_true")
    ap.add_argument(
        "--skip",
        default="",
        help="comma-separated README blocks not to run (e.g. dkms,dkms-remove)",
    )
    args = ap.parse_args()
    if not shell.in_throwaway_vm("install_walkthrough"):
        return 2
    w = Walkthrough()
    t0 = time.monotonic()
    error = ""
    try:
        w.run(args.full_module_tree, frozenset(filter(None, args.skip.split(","))))
    except (CheckFailed, subprocess.TimeoutExpired, OSError, ValueError) as e:
        error = str(e)
        print(f"install_walkthrough: {error[-3000:]}", file=sys.stderr)
    doc = {
        "kernel": ABI,
        "ok": not error,
        "error": error[-4000:],
        "seconds": round(time.monotonic() - t0, 1),
        "full_module_tree": args.full_module_tree,
        "skipped_blocks": args.skip,
        "steps": w.steps,
        "checks": w.checks,
        "argv": shlex.join(sys.argv),
    }
    args.out.write_text(json.dumps(doc, indent=1))
    return 0 if not error else 1


if __name__ == "__main__":
    sys.exit(main())
