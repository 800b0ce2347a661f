"""Foundation acceptance on both Debian kernels: the fig 5.11 path in a VM.

One boot per kernel (shared with tests/guest/cc_modules.py, which runs after
it: conftest.SHARED_BOOT) runs every trial of tests/guest/e2e.py concurrently; the
tests below assert on its JSON (results/tests/e2e-<kernel>.json).
"""

from __future__ import annotations

from typing import Any

import pytest

from testbed import vm
from tests.conftest import KERNELS, trial_flow, vm_json

pytestmark = pytest.mark.vm


@pytest.fixture(scope="module", params=KERNELS)
def e2e(request: pytest.FixtureRequest) -> dict[str, Any]:
    doc = vm_json(request.param, "tests.guest.e2e", "e2e")
    doc["requested_abi"] = vm.resolve_abi(request.param)
    print(f"kernel {doc['environment']['kernel']}: boot-to-result {doc['vm_wall_s']:.1f} s")
    return doc


def wireless(doc: dict[str, Any], trial: str) -> dict[str, Any]:
    return next(x for x in doc["trials"][trial]["links"] if x["link"] == "gw->rcv")


def test_kernel_is_the_requested_one(e2e: dict[str, Any]) -> None:
    kernel = e2e["environment"]["kernel"]
    assert kernel == e2e["requested_abi"], kernel
    # guest-init.sh held the receive timestamps on (testbed/hold_netstamp.py)
    assert e2e["environment"]["netstamp_held"] is True


def test_reno_lossless_goodput(e2e: dict[str, Any]) -> None:
    f = trial_flow(e2e, "reno_0")
    assert f["cc_used"] == "reno"
    assert f["goodput_bps"] >= 1.7e6, f
    assert wireless(e2e, "reno_0")["air_drops"] == 0


def test_random_loss_ratio_and_both_ccs_run(e2e: dict[str, Any]) -> None:
    lost = passed = 0
    for trial, cc in (("reno_1", "reno"), ("westwood_1", "westwood")):
        f = trial_flow(e2e, trial)
        assert f["cc_used"] == cc
        assert f["goodput_bps"] > 0.5e6, f
        w = wireless(e2e, trial)
        lost, passed = lost + w["air_drops"], passed + w["air_packets"]
        print(f"{cc}: goodput {f['goodput_bps'] / 1e6:.3f} Mb/s, drop {w['air_drop_ratio']:.4f}")
    ratio = lost / (lost + passed)
    assert 0.005 <= ratio <= 0.015, (lost, passed)


def test_gilbert_elliott_mean_loss(e2e: dict[str, Any]) -> None:
    mean = e2e["trials"]["ge_5"]["params"]["ge_mean"]
    assert mean == pytest.approx(0.05)
    w = wireless(e2e, "ge_5")
    assert w["air_packets"] > 1000
    assert abs(w["air_drop_ratio"] - mean) <= 0.4 * mean, w


def test_red_ecn_marks_and_sender_sees_ece(e2e: dict[str, Any]) -> None:
    w = wireless(e2e, "red_ecn")
    assert w["queue"] == "red"
    assert w["queue_marked"] > 0, w["queue_stats"]
    delivered_ce = e2e["trials"]["red_ecn"]["nstat"]["src"].get("TcpExtTCPDeliveredCE", 0)
    assert delivered_ce > 0
    assert trial_flow(e2e, "red_ecn")["goodput_bps"] >= 1.5e6
