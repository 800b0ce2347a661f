"""The install guide's acceptance in a fresh guest: the README's guide, verbatim (6.12; both kernels
with JERSEY_FULL_MATRIX=1).

One boot per kernel (``testbed/vm --bare``: our modules are built on the host
but not loaded) runs tests/install_walkthrough.py, which executes every ``sh``
block of the README section "Installing on a host or a gateway" in order and
checks after each one:

* ``make install``, then with no insmod: ``setsockopt(TCP_CONGESTION)`` and
  ``sysctl net.ipv4.tcp_congestion_control=jersey`` load tcp_jersey, a
  connection uses jersey with ECN (the modprobe.d option and sysctl.d file of
  the ECN section in effect), ``tc qdisc add … vcrr`` and ``… cw`` load
  sch_vcrr/sch_cw and they mark a jersey flow through the gateway;
* ``make uninstall`` removes and unloads them and depmod forgets them;
* ``TC_INSTALL=replace`` diverts /usr/sbin/tc and ``make uninstall-tc``
  restores it;
* ``make dkms-src`` + ``dkms install`` builds and installs for the guest kernel,
  the modules autoload from updates/dkms, ``dkms remove`` forgets them.

The only README block not run is the Fedora one.  The README's other commands
(``make deps``, ``make``, ``make check``, ``make demo``, ``testbed/vm``) are
what CI itself runs (.ci/run).  The JSON of each run, with every block's
output and time, is kept in results/tests/install-<kernel>.json.
"""

from __future__ import annotations

import json
import subprocess
import time

import pytest

from tests.conftest import FULL_MATRIX, PY, RESULTS, SLOW_KERNELS, TOP, VM

pytestmark = pytest.mark.vm


@pytest.mark.parametrize("kernel", SLOW_KERNELS)
def test_install_guide_in_a_fresh_guest(kernel: str) -> None:
    # the guest cannot fetch iproute2's source: make install must find tc built
    subprocess.run(["make", "-s", "--no-print-directory", "tc"], cwd=TOP, check=True)
    # nor compile in reasonable time: under TCG the guide's kbuild took 250 s.
    # The host builds the modules with make install's own flags (the guest
    # shares its root file system, compiler and kernel headers), so the
    # guest's make install runs the same kbuild and finds them up to date;
    # the compile with those flags is tested on the host (tests/test_install.py)
    build = ["make", "--no-print-directory", "build-one", f"K={kernel}", "WERROR=0"]
    subprocess.run([*build, "TESTBED_MODULES=0"], cwd=TOP, check=True, capture_output=True)
    out = RESULTS / f"install-{kernel}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.unlink(missing_ok=True)
    t0 = time.monotonic()
    walkthrough = [PY, "-m", "tests.install_walkthrough", "--out", str(out)]
    if not FULL_MATRIX:
        walkthrough += ["--skip", "dkms,dkms-remove"]
    proc = subprocess.run(
        [
            str(VM),
            "--bare",
            "--no-build",
            "--kernel",
            kernel,
            "--timeout",
            "900",
            "--",
            *walkthrough,
        ],
        capture_output=True,
        text=True,
        cwd=TOP,
    )
    wall = time.monotonic() - t0
    log = proc.stdout + proc.stderr
    (RESULTS / f"install-{kernel}.log").write_text(log)
    assert out.exists(), f"no result (exit {proc.returncode}):\n{log[-4000:]}"
    doc = json.loads(out.read_text())
    doc["vm_wall_s"] = round(wall, 1)
    out.write_text(json.dumps(doc, indent=1))
    print(f"\n{kernel}: {doc['kernel']}, {wall:.0f} s wall")
    for step in doc["steps"]:
        print(f"  {step.get('seconds', 0):6.1f} s  {step['name']}")
    failed = [c for c in doc["checks"] if not c["ok"]]
    assert doc["ok"] and not failed, f"{doc['error']}\n{log[-4000:]}"
    assert proc.returncode == 0, log[-4000:]
    ran = {s["name"] for s in doc["steps"] if not s.get("skipped")}
    want = {"README: install", "README: uninstall"} | ({"README: dkms"} if FULL_MATRIX else set())
    assert want <= ran
    assert len(doc["checks"]) >= 40
