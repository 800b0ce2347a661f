"""Our modules on a newly added Debian kernel, the way a user gets them (one VM boot).

``python -m tests.guest.kernel_check --out FILE [--staged DIR] [--duration 10] [--cycles 5]``

Runs *inside* a throwaway guest booted with ``testbed/vm --bare`` (none of our
modules loaded), as root, from the top of the checkout; tests/test_kernels_vm.py
boots it on every kernel of testbed/kernels.txt whose tests column is
``modules`` (Debian 13's 7.3) and asserts on FILE.  In order:

1. *install*, as a Debian 13 user gets the modules: with ``--staged DIR``,
   the files ``make install DESTDIR=DIR`` staged on the host (built and
   installed by the kernel's kbuild and compiler in build/trixie, gcc-14) are
   copied into place and ``depmod -a`` runs here, as a package would do;
   without it, ``make install`` itself runs here (the same build and
   modules_install in build/trixie, then depmod; about 3.5 minutes under TCG,
   most of it kbuild reading its tree over 9p).  Then the ECN options of the
   README's install guide (``needs_ecn=0`` in modprobe.d, senders
   ``tcp_ecn=1``);
2. *autoload by name*: ``sysctl net.ipv4.tcp_congestion_control=NAME`` loads
   each congestion control (unloaded again after), ``iperf3 -C NAME`` loads it
   again, ``tc qdisc add ... cw`` / ``vcrr`` (the installed tc) load the qdiscs;
3. *transfers*: one short iperf3 flow per module, concurrently: jersey,
   diffc and reno through the thesis's CW gateway on the fig 5.11 path (2 Mb/s,
   1 % loss), jersey through a VCRR gateway on the same path, newrenolp and
   balde on their papers' paths at 1 %; their loss tracepoints;
4. *cycles*: ``tests.guest.modcycle`` for each module (rmmod refused while in use,
   load/unload cycles under traffic, clean kernel log);
5. *uninstall*: ``make uninstall`` unloads and removes them, depmod forgets them.

As in tests/install_walkthrough.py, the kernel's ``drivers/`` and ``sound/``
module trees are hidden first (their modules are loaded already or unused),
which keeps each ``depmod`` within seconds under TCG.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from testbed.net import topologies
from testbed.net.path import Link, Loss, Queue
from testbed.run.trial import ECN_SYSCTLS, Trial, environment, run_trials
from testbed.traffic.flows import Flow
from tests.guest import shell
from tests.guest.shell import TOP, ok, sh

ABI = os.uname().release
MODDIR = Path("/lib/modules") / ABI
CCS = {"jersey": "tcp_jersey", "diffc": "tcp_diffc", "newrenolp": "tcp_newrenolp",
       "balde": "tcp_balde"}  # fmt: skip
QDISCS = {"cw": "sch_cw", "vcrr": "sch_vcrr"}
MODULES = [*CCS.values(), *QDISCS.values()]
EVENTS = ["jersey/jersey_loss", "diffc/diffc_loss", "newrenolp/newrenolp_loss", "balde/balde_loss"]
MODPROBE_CONF = Path("/etc/modprobe.d/jersey.conf")


def loaded() -> set[str]:
    return shell.loaded(MODULES)


class Check:
    def __init__(self) -> None:
        self.doc: dict[str, Any] = {"kernel": ABI, "steps": {}, "checks": []}

    def check(self, what: str, cond: bool, detail: Any = "") -> bool:
        self.doc["checks"].append({"what": what, "ok": bool(cond), "detail": str(detail)[-1500:]})
        print(f"{'ok  ' if cond else 'FAIL'} {what}", flush=True)
        return bool(cond)

    def step(self, name: str, fn: Any, *args: Any) -> Any:
        print(f"== {name}", flush=True)
        t0 = time.monotonic()
        try:
            return fn(*args)
        except (RuntimeError, OSError, subprocess.SubprocessError, ValueError, KeyError) as e:
            self.check(f"{name}: no error", False, e)
            return None
        finally:
            self.doc["steps"][name] = round(time.monotonic() - t0, 1)

    # -- 0. what we run on ----------------------------------------------------
    def fresh(self) -> None:
        self.check("none of our modules is loaded (testbed/vm --bare)", not loaded(), loaded())
        for m in MODULES:
            self.check(f"modprobe does not know {m} yet", not ok(f"modprobe -n -q {m}"))
        ko = TOP / "build" / ABI / "kmod" / "tcp_jersey.ko"
        comment = sh(f"readelf -p .comment {ko}", check=False)
        built = sorted(set(re.findall(r"GCC: \(([^)]*)\) (\S+)", comment)))
        self.doc["compiler"] = [f"{who} {ver}" for who, ver in built]
        config = (MODDIR / "config").read_text() if (MODDIR / "config").exists() else ""
        cc = re.search(r'^CONFIG_CC_VERSION_TEXT="(.*)"$', config, re.M)
        self.doc["kernel_compiler"] = cc.group(1) if cc else ""
        # the kernel's ECN defaults (Accurate ECN raised tcp_ecn's range)
        ipv4 = Path("/proc/sys/net/ipv4")
        self.doc["ecn_sysctls"] = {
            p.name: p.read_text().strip() for p in sorted(ipv4.glob("tcp_ecn*")) if p.is_file()
        }
        kernel_gcc = re.search(r"gcc-(\d+)", self.doc["kernel_compiler"])
        self.check(
            f"modules built with the kernel's compiler ({self.doc['compiler']})",
            bool(built) and kernel_gcc is not None
            and all(ver.split(".")[0] == kernel_gcc.group(1) for _w, ver in built),
            self.doc["kernel_compiler"],
        )  # fmt: skip
        for sub in ("drivers", "sound"):
            d = MODDIR / "kernel" / sub
            if d.is_dir():
                sh(f"mount -t tmpfs -o mode=0755,size=1m jersey-test-hidden {d}")

    # -- 1. make install ----------------------------------------------------------
    def install(self, staged: Path | None) -> None:
        if staged is None:
            out = sh("make install", timeout=600)
        else:
            mods = staged / "lib" / "modules" / ABI / "extra" / "jersey"
            if not mods.is_dir():
                raise RuntimeError(f"nothing staged for {ABI} in {staged}")
            tc = staged / "usr" / "local" / "sbin" / "tc"
            out = sh(
                f"mkdir -p {MODDIR}/extra && cp -R {mods} {MODDIR}/extra/ && "
                f"install -D -m 0755 {tc} /usr/local/sbin/tc && depmod -a {ABI}"
            )
        self.doc["install"] = "make install" if staged is None else f"staged in {staged}, depmod"
        self.doc["install_output"] = out[-3000:]
        for m in MODULES:
            path = sh(f"modinfo -n {m}", check=False).strip()
            where = f"{MODDIR}/extra/jersey/"
            self.check(f"{m} installed in extra/jersey/ and known to depmod",
                       path.startswith(where) and ok(f"modprobe -n -q {m}"), path)  # fmt: skip
        self.check("make install loads nothing", not loaded(), loaded())
        tc = sh("command -v tc").strip()
        self.check("tc in PATH is the installed /usr/local/sbin/tc", tc == "/usr/local/sbin/tc", tc)
        # the install guide's ECN settings: RFC 3168 negotiation at the senders
        MODPROBE_CONF.write_text("options tcp_jersey needs_ecn=0\noptions tcp_diffc needs_ecn=0\n")

    # -- 2. autoload by name ------------------------------------------------------
    def autoload(self) -> None:
        key = "net.ipv4.tcp_congestion_control"
        for cc, mod in CCS.items():
            out = sh(f"sysctl -w {key}={cc}", check=False)
            now = sh(f"sysctl -n {key}").strip()
            self.check(f"sysctl {key}={cc} loaded {mod}", now == cc and mod in loaded(), out)
            sh(f"sysctl -qw {key}=cubic && rmmod {mod}")
        sh(
            "ip netns add jauto && ip -n jauto link set lo up && ip netns exec jauto "
            "iperf3 -s -D -B 127.0.0.1 --pidfile /run/jauto-iperf3.pid && sleep 1"
        )
        try:
            for cc, mod in CCS.items():
                out = sh(f"iperf3 -c 127.0.0.1 -C {cc} -t 1 -J", ns="jauto", check=False)
                used = json.loads(out)["end"].get("sender_tcp_congestion") if "{" in out else None
                self.check(f"iperf3 -C {cc} loaded {mod} ({used})",
                           mod in loaded() and used in (cc, f"{cc}-noecn"), out[-500:])  # fmt: skip
            sh("ip -n jauto link add q0 type veth peer name q1")
            for kind, mod in QDISCS.items():
                args = "rate 10mbit" if kind == "vcrr" else ""
                out = sh(f"tc -n jauto qdisc replace dev q0 root {kind} {args}", check=False)
                self.check(f"tc qdisc add ... {kind} loaded {mod}", mod in loaded(), out)
        finally:
            sh("kill $(cat /run/jauto-iperf3.pid); ip netns del jauto", check=False)
        self.check("every module autoloaded", loaded() == set(MODULES), loaded())

    # -- 3. a short transfer per module -----------------------------------------
    def transfers(self, duration: float) -> None:
        loss = Loss.random(0.01)
        # marks from a queue of 2 packets (12 ms on the 2 Mb/s hop), as an AQM
        # does: jersey and diffc then hold the air losses (the safe mode's
        # queue rule counts a queue only above half the base RTT on a path
        # that marks); with CW's default (a third of the buffer, 16 packets,
        # 97 ms) a run could see no mark, and its queue rule called 7 of 16
        # and 8 of 10 losses congestion in two runs on 7.3
        cw = Queue("cw", ("limit", "50", "thresh", "2"))
        vcrr = Queue("vcrr", ("rate", "2mbit", "limit", "50"))
        ecn = {"src": ECN_SYSCTLS}

        def fig511(q: Queue) -> list[Link]:
            return topologies.links("fig511", loss=loss, gateway=q)

        def trial(name: str, links: list[Link], cc: str) -> Trial:
            return Trial(name, links, [Flow("src", "rcv", cc, duration)], sysctls=ecn,
                         trace_events=EVENTS if cc != "reno" else [])  # fmt: skip

        res = run_trials([
            trial("jersey", fig511(cw), "jersey"),
            trial("diffc", fig511(cw), "diffc"),
            trial("reno", fig511(cw), "reno"),
            trial("jersey_vcrr", fig511(vcrr), "jersey"),
            trial("newrenolp", topologies.links("newrenolp", loss=loss), "newrenolp"),
            trial("balde", topologies.links("balde", loss=loss), "balde"),
        ])  # fmt: skip
        out: dict[str, Any] = {}
        for r in res:
            f = r["flows"][0]
            gw = next((x for x in r["links"] if x["link"] == "gw->rcv"), {})
            causes: dict[str, int] = {}
            whys: dict[str, int] = {}  # why a loss was congestion: ece, excess, queue
            for ev in r.get("trace", []):
                key = str(ev.get("cause", ev.get("action", "?")))
                causes[key] = causes.get(key, 0) + 1
                if "why" in ev:
                    whys[str(ev["why"])] = whys.get(str(ev["why"]), 0) + 1
            out[r["name"]] = {
                "cc": f["cc"],
                "cc_used": f.get("cc_used"),
                "error": f.get("error"),
                "goodput_bps": f.get("goodput_bps"),
                "retransmits": f.get("retransmits"),
                "gateway_marked": gw.get("queue_marked"),
                "air_drops": gw.get("air_drops"),
                "decisions": causes,
                "why": whys,
                "diffc_ecn": sorted(
                    {ev.get("ecn") for ev in r.get("trace", []) if ev.get("event") == "diffc_loss"}
                ),
            }
            g = f.get("goodput_bps") or 0
            what = f"{r['name']}: {f['cc']} moved data ({g / 1e6:.2f} Mb/s, {f.get('cc_used')})"
            self.check(what, "error" not in f and f.get("cc_used") == f["cc"] and g > 0.5e6, f)
        self.doc["transfers"] = out
        self.doc["transfer_duration_s"] = duration

    # -- 4. load/unload cycles ------------------------------------------------------
    def cycles(self, count: int) -> None:
        self.doc["modcycle"] = {}
        for mod in MODULES:
            f = Path(f"/tmp/kernel-check-modcycle-{mod}.json")
            kind = "--cc" if mod in CCS.values() else "--qdisc"
            what = mod.split("_", 1)[1]
            if kind == "--qdisc" and what == "vcrr":
                what = "vcrr rate 10mbit"
            argv = [sys.executable, "-m", "tests.guest.modcycle", "--out", str(f), "--module", mod,
                    kind, what, "--cycles", str(count)]  # fmt: skip
            if mod == "tcp_diffc":
                argv += ["--param", "needs_ecn=0"]
            p = subprocess.run(argv, capture_output=True, text=True, cwd=TOP, timeout=600)
            doc = json.loads(f.read_text()) if f.exists() else {}
            self.doc["modcycle"][mod] = {"rc": p.returncode, **doc}
            cyc = doc.get("cycles", {})
            self.check(f"modcycle {mod}: busy refused, {cyc.get('count')} cycles, clean log",
                       p.returncode == 0 and doc.get("ok"), p.stderr[-1500:] or doc)  # fmt: skip

    # -- 5. make uninstall -----------------------------------------------------------
    def uninstall(self) -> None:
        MODPROBE_CONF.unlink(missing_ok=True)
        out = sh("sysctl -qw net.ipv4.tcp_congestion_control=cubic; make uninstall")
        self.check("make uninstall unloaded every module", not loaded(), f"{loaded()} {out}")
        self.check("extra/jersey removed", not (MODDIR / "extra" / "jersey").exists())
        for m in MODULES:
            self.check(f"depmod forgot {m}", not ok(f"modprobe -n -q {m}"))

    def run(self, staged: Path | None, duration: float, count: int) -> None:
        self.doc["environment"] = environment()
        self.step("fresh guest", self.fresh)
        self.step("make install", self.install, staged)
        self.step("autoload by name", self.autoload)
        self.step("transfers", self.transfers, duration)
        self.step("load/unload cycles", self.cycles, count)
        self.step("make uninstall", self.uninstall)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--staged", type=Path, help="what make install DESTDIR=DIR staged")
    ap.add_argument("--duration", type=float, default=10)
    ap.add_argument("--cycles", type=int, default=5)
    args = ap.parse_args()
    if not shell.in_throwaway_vm("kernel_check"):
        return 2
    c = Check()
    t0 = time.monotonic()
    c.run(args.staged, args.duration, args.cycles)
    c.doc["seconds"] = round(time.monotonic() - t0, 1)
    c.doc["ok"] = all(x["ok"] for x in c.doc["checks"])
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(c.doc, indent=1))
    return 0 if c.doc["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
