"""The jersey congestion control on both Debian kernels (in the shared boot).

In the VM (conftest.SHARED_BOOT): tests.guest.jersey_module (parameters,
selection, ECN negotiation and fallback, ss, tracepoints),
tests.guest.modcycle (rmmod while in use, 100 load/unload cycles (10 in make
check) with traffic, kernel log) and one run of the acceptance experiment
testbed.experiments.jersey_loss_differentiation (the full acceptance is three
runs; see README "Results").  Single-run goodputs vary, so the assertions here
keep margins; the measured numbers are printed and kept in results/tests/.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.conftest import KERNELS, MOD_CYCLES, shared_json

pytestmark = pytest.mark.vm


@pytest.fixture(scope="module", params=KERNELS)
def jersey(request: pytest.FixtureRequest) -> dict[str, Any]:
    kernel = request.param
    docs = {k: shared_json(kernel, f"jersey-{k}") for k in ("check", "cycle", "accept")}
    print(f"{kernel}: {docs['check']['vm_wall_s']:.0f} s in the shared boot")
    return docs


def test_bad_parameters_are_refused(jersey: dict[str, Any]) -> None:
    p = jersey["check"]["params"]
    for arg in ("estimator=bogus", "filter=3", "filter=x"):
        assert p[f"insmod {arg}"]["rc"] != 0 and not p[f"insmod {arg}"]["loaded"], arg
    assert p["insmod"]["rc"] == 0
    assert not p["write estimator=bogus"]["ok"]
    assert p["write estimator=ts"] == {"ok": True, "now": "ts"}
    assert p["write filter=2"] == {"ok": True, "now": "2"}
    assert any("estimator 'bogus'" in m for m in p["dmesg_messages"]), p["dmesg_messages"]


def test_selected_by_sysctl_and_iperf3(jersey: dict[str, Any]) -> None:
    s = jersey["check"]["select"]
    for case in ("sysctl", "sysctl_ecn_listener", "iperf3_C", "iperf3_C_tcp_ecn"):
        assert s[case]["cc_used"] in ("jersey", "jersey-noecn"), (case, s[case])
        assert s[case]["goodput_bps"] > 5e6, (case, s[case])


def test_ecn_declined_falls_back_to_noecn(jersey: dict[str, Any]) -> None:
    # default needs_ecn=Y: the ECT SYN of a jersey socket is declined by an
    # ordinary Linux receiver; the connection continues as jersey-noecn and
    # sends no ECT packets
    s = jersey["check"]["select"]
    assert s["sysctl"]["cc_used"] == "jersey-noecn", s["sysctl"]
    assert " ecn " not in s["sysctl"]["ss"], s["sysctl"]["ss"]
    # iperf3 -C switches after connect: without tcp_ecn=1 there is no ECN
    assert s["iperf3_C"]["cc_used"] == "jersey-noecn", s["iperf3_C"]


def test_ecn_negotiated(jersey: dict[str, Any]) -> None:
    s = jersey["check"]["select"]
    # a listener whose CC needs ECN accepts the ECT SYN
    assert s["sysctl_ecn_listener"]["cc_used"] == "jersey", s["sysctl_ecn_listener"]
    assert " ecn " in s["sysctl_ecn_listener"]["ss"], s["sysctl_ecn_listener"]["ss"]
    # RFC 3168 negotiation by the sender's tcp_ecn=1
    assert s["iperf3_C_tcp_ecn"]["cc_used"] == "jersey", s["iperf3_C_tcp_ecn"]
    assert " ecn " in s["iperf3_C_tcp_ecn"]["ss"], s["iperf3_C_tcp_ecn"]["ss"]


def test_ss_shows_are_and_rtt_min(jersey: dict[str, Any]) -> None:
    ss = jersey["check"]["select"]["iperf3_C_tcp_ecn"]["ss"]
    # "bbr:(bw:<ARE>bps,mrtt:<rtt_min>)" from .get_info
    assert "jersey" in ss and "bbr:(bw:" in ss and "mrtt:" in ss, ss


def test_tracepoints(jersey: dict[str, Any]) -> None:
    assert {"jersey_loss", "jersey_sample"} <= set(jersey["check"]["tracepoints"])


def test_unload_busy_then_load_unload_cycles(jersey: dict[str, Any]) -> None:
    c = jersey["cycle"]
    assert c["busy"]["connected"] and c["busy"]["rmmod_rc"] != 0 and c["busy"]["still_loaded"], c[
        "busy"
    ]
    assert c["cycles"]["count"] == MOD_CYCLES
    assert c["cycles"]["bytes_received"] == MOD_CYCLES * c["cycles"]["bytes_each"]
    assert c["dmesg_bad"] == [], c["dmesg_bad"]
    assert c["ok"]


def test_one_run_of_the_acceptance_experiment(jersey: dict[str, Any]) -> None:
    s = jersey["accept"]["summary"]
    print(json.dumps(jersey["accept"]["criteria"], indent=1))
    u1, u5, cong, burst = s["u1"], s["u5"], s["cong"], s["burst"]
    print(
        f"{s['kernel']}: u1 jersey {u1['jersey_bps'] / 1e6:.2f} reno {u1['reno_bps'] / 1e6:.2f}"
        f" wireless {u1['wireless_fraction']}; u5 jersey {u5['jersey_bps'] / 1e6:.2f}"
        f" reno {u5['reno_bps'] / 1e6:.2f}; cong share {cong['jersey_over_reno']:.2f};"
        f" burst decisions {burst['decisions']}"
    )
    # One run on a host that may steal a quarter of the guest's CPU: CI's 6.1
    # run under such steal gave 0.79 of the ceiling and 28 of 33 losses
    # wireless (a quiet 6.12 run 0.91 and 35 of 36).  A jersey that took
    # every loss for congestion is Reno: 0.45 of the ceiling, no wireless
    # decision.  The acceptance's own bounds (0.85, 85 %) hold for the
    # median of its runs (README "Results"), not for one run.
    assert u1["jersey_over_ceiling"] >= 0.7 and u1["jersey_over_reno"] >= 1.05
    assert u1["wireless_fraction"] is not None and u1["wireless_fraction"] >= 0.7
    assert u5["jersey_over_ceiling"] >= 0.6 and u5["jersey_over_reno"] >= 1.8
    assert burst["loss_decisions"] >= 3 and s["congestion_fraction"] >= 0.8, burst
    assert 0.5 <= cong["jersey_over_reno"] <= 2.0
    ge = s["ge5"]["goodput_bps"]
    assert ge["jersey"] >= 0.9 * max(ge["reno"], ge["westwood"]), ge
