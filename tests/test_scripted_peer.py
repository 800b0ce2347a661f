"""The scripted peer itself, on the host kernel (its built-in cubic): the ACK
timing that the module scripts rely on.

Under a slow emulator the peer's own steps (reading the trace, TCP_INFO)
take milliseconds; with ``rtt`` counted from the step they lengthen the
socket's RTT samples, and jersey's and diffc's safe mode then sees a
standing queue that is not there.  ``onarrival`` counts the wait from the
segments' arrival instead.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.conftest import PY, TOP

# Five round trips of slow start in which the script spends 60 ms between
# reading a flight and acknowledging it, on a 100 ms path.
ROUNDS = """
cc cubic
peer mss 1000 ts sack wscale 7 rtt 100ms win 400 {opt}
connect
write 300
expect 1-10
wait 60ms
ack 10
expect 30
wait 60ms
ack 30
expect 70
wait 60ms
ack 70
expect 150
wait 60ms
ack all
expect 300
wait 60ms
ack all
check {check}
"""


def run_script(tmp_path: Path, text: str) -> dict[str, object]:
    script = tmp_path / "rounds.pkt"
    script.write_text(text)
    out = tmp_path / "out.json"
    subprocess.run(
        [PY, "-m", "tests.scripted.peer", "--out", str(out), str(script)],
        cwd=TOP, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    result: dict[str, object] = json.loads(out.read_text())["results"][0]
    return result


needs_root = pytest.mark.skipif(
    os.geteuid() != 0 or not Path("/dev/net/tun").exists(),
    reason="the peer needs root (a network namespace) and /dev/net/tun",
)


@needs_root
def test_onarrival_keeps_the_scripts_own_time_out_of_the_rtt(tmp_path: Path) -> None:
    # srtt stays at the path's 100 ms (a sample of 160 ms in each of five
    # rounds would take it to about 130)
    res = run_script(tmp_path, ROUNDS.format(opt="onarrival", check="rtt_ms < 115"))
    assert res["status"] == "ok", res


@needs_root
def test_without_onarrival_the_steps_add_to_the_rtt(tmp_path: Path) -> None:
    # the old timing, still the default: the same script's waits show up
    res = run_script(tmp_path, ROUNDS.format(opt="", check="rtt_ms > 115"))
    assert res["status"] == "ok", res


@pytest.mark.parametrize(
    ("flags", "options"),
    [
        ("A", []),
        ("AE", [("Timestamp", (1005, 4294967295))]),
        ("A", [("NOP", None), ("NOP", None), ("Timestamp", (7, 9)), ("NOP", None),
               ("NOP", None), ("SAck", (100, 200, 300, 400, 500, 600))]),
        ("SAE", [("MSS", 1000), ("SAckOK", b""), ("Timestamp", (1, 0)), ("WScale", 7)]),
        ("SA", [("MSS", 1460), ("WScale", 0)]),
    ],
)  # fmt: skip
def test_raw_packets_are_scapys(flags: str, options: list[tuple[str, object]]) -> None:
    """The peer builds its packets with struct (scapy costs it tens of
    milliseconds an ACK under TCG): the bytes are scapy's, checksums too."""
    from scapy.layers.inet import IP, TCP

    from tests.scripted.peer import LOCAL, REMOTE, tcp_packet

    args = {"sport": 8080, "dport": 41234, "seq": 1001, "ack": 3_000_000_123, "window": 400}
    ours = tcp_packet(REMOTE, LOCAL, **args, flags=flags, options=options)
    ref = bytes(IP(src=REMOTE, dst=LOCAL) / TCP(**args, flags=flags, options=options))
    assert ours == ref


def test_raw_packets_wrap_sequence_numbers_and_refuse_long_options() -> None:
    from tests.scripted.peer import LOCAL, REMOTE, ScriptError, tcp_packet

    wrapped = tcp_packet(REMOTE, LOCAL, 8080, 1, 2**32 + 5, 2**32 + 7, "A", 1,
                         [("SAck", (2**32 + 9, 2**32 + 11))])  # fmt: skip
    plain = tcp_packet(REMOTE, LOCAL, 8080, 1, 5, 7, "A", 1, [("SAck", (9, 11))])
    assert wrapped == plain
    four = [("NOP", None), ("NOP", None), ("Timestamp", (1, 2)), ("NOP", None), ("NOP", None),
            ("SAck", tuple(range(8)))]  # fmt: skip
    with pytest.raises(ScriptError, match="at most 40"):
        tcp_packet(REMOTE, LOCAL, 8080, 1, 5, 7, "A", 1, four)


def test_segments_are_counted_across_a_sequence_wrap() -> None:
    from tests.scripted.peer import Peer, Wire

    peer = Peer(steps=[], iss=2**32 - 1500, mss=1000)
    for n in (1, 2, 3):  # segment 2 starts 500 bytes before the wrap, 3 after it
        seq = (peer.iss + 1 + (n - 1) * 1000) % 2**32
        s = peer.segment_of(Wire(0, 41234, seq, "A", 1000, 0, []))
        assert s is not None and s.seg == n and peer.sent_max == n


def test_a_path_that_loses_segments_is_acknowledged_around_them() -> None:
    from tests.scripted.peer import Peer, ScriptError, Wire

    peer = Peer(steps=[], iss=1000, mss=1000)
    peer.drain = lambda: None  # type: ignore[method-assign]  # no tunnel: segments come by hand

    def send(n: int) -> None:
        peer.segment_of(Wire(0, 41234, peer.iss + 1 + (n - 1) * 1000, "A", 1000, 0, []))

    for n in range(1, 11):
        send(n)
    peer.lose(["4-5"])  # two that arrived, and the first copies of 12 and 14
    peer.lose(["12-12"])
    peer.lose(["14-14"])
    for n in range(11, 17):
        send(n)
    assert peer.received() == ["3", "sack", "15-16", "sack", "13-13", "sack", "6-11"]
    send(4)  # the repairs arrive
    send(5)
    assert peer.received() == ["11", "sack", "15-16", "sack", "13-13"]
    send(12)
    send(14)
    assert peer.received() == ["16"]
    assert peer.resolve(["16"]) == ["16"]
    peer.lose(["18-18"])
    for n in range(17, 20):
        send(n)
    assert peer.received() == ["17", "sack", "19-19"]
    peer.acked = 19  # an explicit ``ack 19`` covered the hole: it is no hole now
    assert peer.received() == ["19"]
    with pytest.raises(ScriptError, match="acknowledged already"):
        peer.lose(["19-20"])
