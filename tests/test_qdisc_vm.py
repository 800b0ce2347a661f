"""The marking qdiscs cw and vcrr with the patched tc, on both Debian kernels.

qdisc/tests/smoke.sh (run in the VM) checks every option and error message,
JSON output, grafting under tbf/htb, marking of IPv4/IPv6 ECT traffic,
non-ECT handling, change/reset with packets queued, unload, autoload by kind
and a clean kernel log; it prints one line per check.  It runs on the newer
kernel (both with JERSEY_FULL_MATRIX=1): most of its checks are tc's, and
what each kernel does with the qdiscs runs in every kernel's shared boot
(tests/test_qdisc_marking_vm.py: marking against tc's and the receiver's
counts, load/unload cycles under traffic; tests/test_qdisc_netlink_vm.py:
every netlink attribute's range and message).  Two minutes (four when the
host steals CPU) that make check spends elsewhere.
"""

from __future__ import annotations

import re

import pytest

from tests.conftest import RESULTS, SLOW_KERNELS, TOP, run_in_vm

pytestmark = pytest.mark.vm


@pytest.mark.parametrize("kernel", SLOW_KERNELS)
def test_qdisc_smoke(kernel: str) -> None:
    rc, wall, log = run_in_vm(kernel, [str(TOP / "qdisc" / "tests" / "smoke.sh")], timeout=600)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"qdisc-smoke-{kernel}.log").write_text(log)
    failed = [line for line in log.splitlines() if line.startswith("FAIL")]
    summary = re.search(r"(\d+) passed, (\d+) failed", log)
    print(f"{kernel}: {summary.group(0) if summary else 'no summary'} in {wall:.0f} s")
    assert not failed, "\n".join(failed)
    assert summary and int(summary.group(1)) >= 70 and summary.group(2) == "0", log[-3000:]
    assert rc == 0, log[-3000:]
