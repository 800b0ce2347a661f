"""testbed/measure/groundtruth.py on synthetic inputs (no VM, no tcpdump)."""

from __future__ import annotations

import struct
from typing import Any

import pytest

from testbed.measure import groundtruth as gt
from testbed.net import topologies
from testbed.net.path import Link, Loss, Path


def built_path(links: list[Link]) -> Path:
    """A Path whose names can be computed without creating namespaces."""
    for i, link in enumerate(links):
        link.index = i
    return Path(links)


def test_route_droppers_and_points_on_the_newrenolp_path() -> None:
    path = built_path(topologies.links("newrenolp", loss=Loss.random(0.01)))
    hops = gt.route(path.links, "src", "rcv")
    assert [h.name for h in hops] == ["src->r", "r->n", "n->rcv"]
    assert gt.droppers(hops) == ["queue:r->n", "queue:n->rcv", "air:n->rcv"]
    points = gt.capture_points(path, hops)
    assert [(p.ns, p.dev, p.direction, p.before) for p in points] == [
        (path.ns("r"), "e0", "in", "queue:r->n"),
        (path.ns("n"), "e1", "in", "queue:n->rcv"),
        (path.air(path.links[2]), "pa", "in", "air:n->rcv"),
        (path.ns("rcv"), "e2", "in", "receiver"),
    ]


def test_route_backwards_uses_the_reverse_direction() -> None:
    links = [
        Link("a", "b", 10, 1, loss_rev=Loss.random(0.1)),
        Link("b", "c", 10, 1),
    ]
    path = built_path(links)
    hops = gt.route(links, "c", "a")
    assert [h.name for h in hops] == ["c->b", "b->a"]
    assert [h.reverse for h in hops] == [True, True]
    assert gt.droppers(hops) == ["queue:b->a", "air:b->a"]
    points = gt.capture_points(path, hops)
    assert [(p.ns, p.dev, p.before) for p in points] == [
        (path.ns("b"), "e1", "queue:b->a"),
        (path.air(links[0]), "pb", "air:b->a"),
        (path.ns("a"), "e0", "receiver"),
    ]
    with pytest.raises(KeyError):
        gt.route(links, "a", "zz")


def frame(seq: int, payload: int, ipid: int, sport: int = 40000, flags: int = 0x10) -> bytes:
    tcp = struct.pack("!HHIIBBHHH", sport, 5201, seq, 1, 0x80, flags, 100, 0, 0) + bytes(12)
    ip = struct.pack(
        "!BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp) + payload, ipid, 0x4000, 64, 6, 0,
        bytes([10, 1, 1, 1]), bytes([10, 1, 2, 2]),
    )  # fmt: skip
    eth = bytes(12) + b"\x08\x00"
    return eth + ip + tcp + bytes(min(payload, 30))  # snaplen cuts the payload


def pcap(packets: list[tuple[float, bytes]], nano: bool = False) -> bytes:
    magic = 0xA1B23C4D if nano else 0xA1B2C3D4
    out = struct.pack("<IHHiIII", magic, 2, 4, 0, 0, 96, 1)
    for t, pkt in packets:
        sec = int(t)
        frac = round((t - sec) * (1e9 if nano else 1e6))
        out += struct.pack("<IIII", sec, frac, len(pkt), len(pkt) + 1000) + pkt
    return out


def test_parse_pcap_keeps_data_segments() -> None:
    data = pcap(
        [
            (100.5, frame(1000, 1448, 7)),
            (100.6, frame(2448, 0, 8)),  # pure ACK: skipped
            (100.7, frame(2448, 500, 9)),
            (100.8, bytes(12) + b"\x86\xdd" + bytes(60)),  # IPv6: skipped
        ]
    )
    segs = gt.parse_pcap(data)
    assert [(s.seq, s.length, s.ipid, s.sport, s.dport) for s in segs] == [
        (1000, 1448, 7, 40000, 5201),
        (2448, 500, 9, 40000, 5201),
    ]
    assert segs[0].t == pytest.approx(100.5)
    nano = gt.parse_pcap(pcap([(5.123456789, frame(1, 10, 1))], nano=True))
    assert nano[0].t == pytest.approx(5.123456789)
    assert gt.parse_pcap(b"") == []
    with pytest.raises(ValueError):
        gt.parse_pcap(b"\0" * 24)


def seg(t: float, seq: int, ipid: int, length: int = 1448) -> gt.Segment:
    return gt.Segment(t, 40000, 5201, seq, length, ipid)


def test_fates_attribute_each_drop_to_its_place() -> None:
    points = ["queue:r->n", "air:n->rcv", "receiver"]
    a, b, c, d = seg(1, 0, 1), seg(1.1, 1448, 2), seg(1.2, 2896, 3), seg(2, 0, 4)
    captured = [[a, b, c, d], [a, c, d], [a, d]]
    got = {(s.seq, s.ipid): f for s, f in gt.fates(points, captured)}
    assert got == {
        (0, 1): "delivered",
        (1448, 2): "queue:r->n",
        (2896, 3): "air:n->rcv",
        (0, 4): "delivered",
    }
    assert gt.truth_of("queue:r->n") == "congestion"
    assert gt.truth_of("air:n->rcv") == "wireless"
    assert gt.truth_of("delivered") == "not_lost"
    with pytest.raises(ValueError):
        gt.fates(points, captured[:2])


OFFSET = 1_700_000_000.0  # realtime - monotonic


def test_match_decision_picks_the_transmission_before_the_decision() -> None:
    # segment 5000 sent at mono 10.0 (lost in the air), retransmitted at
    # 10.3 (lost in the queue), then at 11.0 (delivered)
    txs = [
        (OFFSET + 10.0, 5000, 1448, "air:n->rcv"),
        (OFFSET + 10.0004, 6448, 1448, "delivered"),
        (OFFSET + 10.3, 5000, 1448, "queue:r->n"),
        (OFFSET + 11.0, 5000, 1448, "delivered"),
    ]
    first = {"snd_una": 5000, "una_tx": 9_999_500, "now": 10_200_000}
    assert gt.match_decision(first, txs, OFFSET)["truth"] == "wireless"
    # RTO after the retransmission was lost; snd_una inside the segment
    rto = {"snd_una": 5100, "una_tx": 10_300_000, "now": 10_900_000}
    m = gt.match_decision(rto, txs, OFFSET)
    assert m["truth"] == "congestion"
    assert m["tx_delay_s"] == pytest.approx(0.0, abs=1e-6)
    # no una_tx: the last transmission before the decision
    assert gt.match_decision({"snd_una": 5000, "now": 10_500_000}, txs, OFFSET)["fate"] == (
        "queue:r->n"
    )
    # the segment was delivered: not a loss
    late = {"snd_una": 5000, "una_tx": 11_000_000, "now": 11_300_000}
    assert gt.match_decision(late, txs, OFFSET)["truth"] == "not_lost"
    assert gt.match_decision({"snd_una": 1, "una_tx": 5, "now": 6}, txs, OFFSET)["truth"] == (
        "unmatched"
    )


def test_match_decision_across_sequence_wrap() -> None:
    txs = [(OFFSET + 1.0, 2**32 - 100, 1448, "air:n->rcv")]
    d = {"snd_una": 500, "una_tx": 1_000_000, "now": 1_200_000}
    assert gt.match_decision(d, txs, OFFSET)["truth"] == "wireless"


def test_score_counts_only_real_losses_of_the_given_kinds() -> None:
    decisions = [
        {"kind": "dupack", "cause": "wireless", "truth": "wireless"},
        {"kind": "dupack", "cause": "wireless", "truth": "congestion"},
        {"kind": "rto", "cause": "congestion", "truth": "congestion"},
        {"kind": "dupack", "cause": "congestion", "truth": "not_lost"},
        {"kind": "tlp", "cause": "wireless", "truth": "wireless"},
        {"kind": "dupack", "action": "hold", "truth": "wireless"},
    ]
    s = gt.score(decisions)
    assert s["decisions"] == 5
    assert s["judged"] == 4
    assert s["correct"] == 3
    assert s["accuracy"] == pytest.approx(0.75)
    assert s["confusion"] == {
        "wireless->wireless": 2,
        "congestion->wireless": 1,
        "congestion->congestion": 1,
    }
    assert gt.score([])["accuracy"] is None


def test_classify_a_synthetic_trial_result() -> None:
    txs = {
        "40000": [
            [OFFSET + 1.0, 1000, 1448, "air:n->rcv"],
            [OFFSET + 2.0, 9000, 1448, "queue:r->n"],
        ]
    }
    result: dict[str, Any] = {
        "monitor": {"offset": OFFSET, "transmissions": txs, "fate_counts": {"x": 1}},
        "trace": [
            {"event": "newrenolp_loss", "kind": "dupack", "src": "10.1.0.1:40000",
             "snd_una": 1000, "una_tx": 1_000_000, "now": 1_100_000, "cause": "wireless"},
            {"event": "newrenolp_loss", "kind": "dupack", "src": "10.1.0.1:40000",
             "snd_una": 9000, "una_tx": 2_000_000, "now": 2_100_000, "cause": "wireless"},
            {"event": "balde_sample", "src": "10.1.0.1:40000", "bw": 1},
        ],
    }  # fmt: skip
    s = gt.classify(result)
    assert s["accuracy"] == pytest.approx(0.5)
    assert [e.get("truth") for e in result["trace"]] == ["wireless", "congestion", None]
    assert "transmissions" not in result["monitor"]
    assert result["groundtruth"] is s


def test_bpf_filter_selects_data_of_one_flow() -> None:
    f = gt.bpf_filter("10.1.0.1", "10.1.2.2", 5201)
    assert "src host 10.1.0.1" in f and "dst port 5201" in f and "> 0" in f
