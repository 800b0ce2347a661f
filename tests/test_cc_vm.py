"""diffc, newrenolp, balde and the testbed's oracle on both Debian kernels.

tests/guest/cc_modules.py runs every check in the VM (in one boot per kernel
with tests/guest/e2e.py: conftest.SHARED_BOOT) and writes
results/tests/cc-<kernel>.json; the tests below assert on it with margins
that single short runs clear robustly.  The full acceptance numbers come from
testbed/experiments/diffc_newrenolp_balde.py.
"""

from __future__ import annotations

from typing import Any

import pytest

from testbed import vm
from tests.conftest import KERNELS, trial_flow, vm_json

pytestmark = pytest.mark.vm

CCS = ("diffc", "newrenolp", "balde")


@pytest.fixture(scope="module", params=KERNELS)
def cc(request: pytest.FixtureRequest) -> dict[str, Any]:
    doc = vm_json(request.param, "tests.guest.cc_modules", "cc")
    doc["requested_abi"] = vm.resolve_abi(request.param)
    print(f"kernel {doc['environment']['kernel']}: boot-to-result {doc['vm_wall_s']:.1f} s")
    return doc


def losses(doc: dict[str, Any], trial: str, event: str) -> list[dict[str, Any]]:
    return [e for e in doc["trials"][trial].get("trace", []) if e["event"] == event]


def before_after(e: dict[str, Any]) -> tuple[int, int]:
    a, b = str(e["cwnd"]).split("->")
    return int(a), int(b)


def test_kernel_is_the_requested_one(cc: dict[str, Any]) -> None:
    assert cc["environment"]["kernel"] == cc["requested_abi"]
    assert cc["params_loaded"]["tcp_diffc"]["needs_ecn"] == "N"


@pytest.mark.parametrize("name", CCS)
def test_selectable_by_sysctl_in_a_namespace(cc: dict[str, Any], name: str) -> None:
    s = cc["sysctl"][name]
    assert s["rc"] == 0, s
    assert s["value"] == name


@pytest.mark.parametrize(
    ("trial", "name"),
    [("diffc_ecn", "diffc"), ("newrenolp", "newrenolp"), ("balde", "balde")],
)
def test_selectable_by_iperf3_and_moves_data(cc: dict[str, Any], trial: str, name: str) -> None:
    f = trial_flow(cc, trial)
    assert f["cc_used"] == name
    assert f["goodput_bps"] > 0.5e6, f


def test_diffc_holds_on_loss_without_ece_and_halves_on_ece(cc: dict[str, Any]) -> None:
    ev = losses(cc, "diffc_ecn", "diffc_loss")
    assert all(e["ecn"] == 1 for e in ev)
    held = [e for e in ev if e["action"] == "hold"]
    ece = [e for e in ev if e["kind"] == "ece"]
    print(f"diffc: {len(ev)} decisions, {len(held)} held, {len(ece)} ECE halvings")
    assert len(held) >= 3, ev[:5]
    assert len(ece) >= 1, ev[:5]
    for e in held:
        assert e["ece"] == 0
        b, a = before_after(e)
        assert a == b, e  # cwnd kept (RTO: resumed at the cwnd before it)
    for e in ece:
        assert e["action"] == "halve"
        b, a = before_after(e)
        # the window halved: cwnd, or in Recovery the held PRR target (cwnd
        # itself may be below it there)
        assert abs(a - max(b // 2, 2)) <= 1, e
    # no loss with ECE on its ACK was held
    assert not [e for e in ev if e["ece"] == 1 and e["action"] == "hold"]
    # the RED gateway marked, the air dropped
    gw = next(x for x in cc["trials"]["diffc_ecn"]["links"] if x["link"] == "gw->rcv")
    assert gw["queue_marked"] > 0 and gw["air_drops"] > 0


def test_diffc_without_ecn_behaves_like_reno(cc: dict[str, Any]) -> None:
    ev = losses(cc, "diffc_noecn", "diffc_loss")
    assert trial_flow(cc, "diffc_noecn")["cc_used"] == "diffc"
    assert len(ev) >= 3
    assert all(e["ecn"] == 0 and e["action"] in ("halve", "reset") for e in ev), ev[:5]
    assert all(before_after(e)[1] <= before_after(e)[0] for e in ev)
    dupack = [e for e in ev if e["kind"] == "dupack"]
    halved = [e for e in dupack if before_after(e)[1] == max(before_after(e)[0] // 2, 2)]
    assert len(halved) >= 0.5 * len(dupack), dupack[:5]


def test_newrenolp_classifies_random_loss_mostly_as_wireless(cc: dict[str, Any]) -> None:
    ev = [e for e in losses(cc, "newrenolp", "newrenolp_loss") if e["kind"] == "dupack"]
    wireless = [e for e in ev if e["cause"] == "wireless"]
    print(f"newrenolp: {len(wireless)} of {len(ev)} DUPACK losses classified wireless")
    assert len(ev) >= 10
    # measured 0.53-0.71 (1 % PER, 20 s; lower when the VM's CPU is
    # contended: 19 of 33 with the host stealing 27 %).  At n = 33 a half
    # is 1.2 standard deviations below 0.6 (one run in nine fails); a third
    # is three below, and still fails a predictor that rarely says wireless
    assert len(wireless) >= len(ev) / 3
    for e in wireless:  # ssthresh = FlightSize, not half of it
        assert e["ssthresh"] == max(e["flight"], 2), e
    for e in ev:
        assert e["rtt_min"] > 0 and e["una_tx"] > 0 and e["now"] >= e["una_tx"]


def test_balde_beats_reno_at_1_percent(cc: dict[str, Any]) -> None:
    b, r = trial_flow(cc, "balde"), trial_flow(cc, "reno_balde_path")
    print(f"balde {b['goodput_bps'] / 1e6:.2f} Mb/s, reno {r['goodput_bps'] / 1e6:.2f} Mb/s")
    assert b["goodput_bps"] > 1.2 * r["goodput_bps"]
    ev = losses(cc, "balde", "balde_loss")
    assert len(ev) >= 3
    # the SARBE estimate is a sane fraction of the 5 Mb/s bottleneck
    ebw = sorted(int(e["ebw"]) * 8 for e in ev)[len(ev) // 2]
    assert 1e6 < ebw < 7e6, ebw


@pytest.mark.parametrize(("trial", "tags"), [
    ("diffc_ecn", (" diffc ", "dctcp:(ce_state:")),
    ("newrenolp", (" newrenolp ", "rtt:")),
    ("balde", (" balde ", "bbr:(bw:")),
])  # fmt: skip
def test_get_info_in_ss(cc: dict[str, Any], trial: str, tags: tuple[str, ...]) -> None:
    ss = cc["trials"][trial]["monitor"]["ss"]
    for tag in tags:
        assert tag in ss, ss


@pytest.mark.parametrize("name", CCS)
def test_clean_unload_under_traffic(cc: dict[str, Any], name: str) -> None:
    m = cc["modcycle"][name]
    assert m["rc"] == 0, m.get("stderr")
    assert m["ok"], m
    assert m["busy"]["connected"] and m["busy"]["rmmod_rc"] != 0 and m["busy"]["still_loaded"]
    assert m["cycles"]["bytes_received"] == m["cycles"]["count"] * m["cycles"]["bytes_each"]
    assert m["dmesg_bad"] == []


# the kernel's counts of recoveries it found spurious and undid
UNDO_COUNTERS = ("TcpExtTCPFullUndo", "TcpExtTCPPartialUndo", "TcpExtTCPDSACKUndo",
                 "TcpExtTCPLossUndo", "TcpExtTCPSpuriousRTOs")  # fmt: skip


def outstanding(drop: dict[str, Any], decision: dict[str, Any]) -> bool:
    """Was ``drop`` recorded before ``decision`` and still outstanding then
    (its end after the decision's snd_una, in sequence space)?"""
    ahead = (int(drop["end"]) - int(decision["snd_una"])) % 2**32
    return bool(drop["t"] < decision["t"] and 0 < ahead < 2**31)


def test_oracle_holds_for_the_medium_and_halves_for_the_queue(cc: dict[str, Any]) -> None:
    medium = losses(cc, "oracle_medium", "oracle_loss")
    queue = losses(cc, "oracle_queue", "oracle_loss")
    links = {t: next(x for x in cc["trials"][t]["links"] if x["link"] == "gw->rcv")
             for t in ("oracle_medium", "oracle_queue")}  # fmt: skip
    print(f"oracle: {len(medium)} decisions on medium drops, {len(queue)} on queue drops")
    # only the medium dropped: every loss held, cwnd kept.  A drop anywhere
    # else is a congestion drop the table records (oracle_drop: the receiving
    # TCP's backlog or out-of-order queue when the guest's CPU falls behind,
    # none in most runs) and may be answered, if it came before the decision;
    # the receiver's discards of duplicates, after a spurious timeout, are no
    # loss and stay out of the table.  The out-of-order queue the receiver
    # frees when the connection closes is recorded too, after the last
    # decision (6.1: 26 such, reason "not specified", no device)
    m = links["oracle_medium"]
    assert m["queue_drops"] == 0 and m["air_drops"] > 5
    assert len(medium) >= 5
    recorded = losses(cc, "oracle_medium", "oracle_drop")
    during = [r for r in recorded if r["t"] <= medium[-1]["t"]]
    print(f"oracle: {len(during)} drops recorded beside {m['air_drops']} of the medium's")
    assert len(during) * 4 < m["air_drops"], during[:5]
    answered = [e for e in medium if e["action"] != "hold"]
    unexplained = [e for e in answered if not any(outstanding(r, e) for r in during)]
    assert not unexplained and len(answered) <= len(during), (answered, during)
    held = [e for e in medium if e["action"] == "hold"]
    assert all(before_after(e)[1] == before_after(e)[0] for e in held), held[:5]
    # only the queue dropped: every loss answered as Reno would.  A recovery
    # the kernel entered without a drop (reordering, later undone by a DSACK)
    # finds no drop and is held: there are at most as many of those as the
    # recoveries the kernel undid plus the retransmissions beyond the queue's
    # drops (a drop near the end of the run may never be retransmitted, so
    # retransmissions alone can fall one short of the drops: 44 for 45 seen)
    q = links["oracle_queue"]
    assert q["air_drops"] == 0 and q["queue_drops"] > 0
    # the table saw every drop of the queue (on the gateway's device; a
    # dropped FIN without data would be the one it need not record)
    at_queue = [r for r in losses(cc, "oracle_queue", "oracle_drop") if r["ifindex"]]
    assert len(at_queue) >= q["queue_drops"] - 1, (len(at_queue), q)
    # and each answer follows a drop of a segment then outstanding (14 of 14)
    halved = [e for e in queue if e["action"] != "hold"]
    assert all(any(outstanding(r, e) for r in at_queue) for e in halved), halved[:5]
    src = cc["trials"]["oracle_queue"]["nstat"]["src"]
    undone = sum(src.get(k, 0) for k in UNDO_COUNTERS)
    spurious = max(0, src.get("TcpRetransSegs", 0) - q["queue_drops"]) + undone
    held = [e for e in queue if e["action"] == "hold"]
    assert all(e["action"] in ("halve", "reset", "hold") for e in queue), queue[:5]
    assert len(queue) - len(held) >= 1 and len(held) <= spurious, (held, spurious, src)
    assert trial_flow(cc, "oracle_medium")["goodput_bps"] > 1.5e6


def test_needs_ecn_declined_continues_without_ecn(cc: dict[str, Any]) -> None:
    assert cc["params_needs_ecn"]["needs_ecn"] == "Y", cc.get("needs_ecn_error")
    probe = cc["needs_ecn_declined"]
    assert probe["listener_cc"] != "diffc"
    assert probe["cc"] == "diffc-noecn", probe
    assert probe["bytes"] == 100000
