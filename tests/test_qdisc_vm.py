"""The marking qdiscs cw and vcrr with the patched tc, on both Debian kernels.

qdisc/tests/smoke.sh (run in the VM) checks every option and error message,
JSON output, grafting under tbf/htb, marking of IPv4/IPv6 ECT traffic,
non-ECT handling, change/reset with packets queued, unload, autoload by kind
and a clean kernel log; it prints one line per check.  On both kernels: 6.1
autoloads the qdiscs by kind through its own alias (qdisc/compat.h), and
none of the shared boot's programs grafts, changes or resets a qdisc with
packets queued, or marks IPv6.
"""

from __future__ import annotations

import re

import pytest

from tests.conftest import KERNELS, RESULTS, TOP, run_in_vm

pytestmark = pytest.mark.vm


@pytest.mark.parametrize("kernel", KERNELS)
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
