"""Testbed logic that needs no VM: loss models, tc commands, routes, metrics."""

from __future__ import annotations

import contextlib
import math
import pathlib
import subprocess
import sys
import threading

import pytest

from testbed import cli
from testbed.analysis import metrics
from testbed.net import topologies
from testbed.net.path import Link, Loss, Path, Queue, air_cmds, shaper_cmds


def test_random_loss_netem_args() -> None:
    assert Loss.random(0.01).netem_args() == ["loss", "random", "1%"]
    assert Loss.random(0.001).mean == pytest.approx(0.001)
    with pytest.raises(ValueError):
        Loss.random(1.5)


@pytest.mark.parametrize("mean", [0.01, 0.05, 0.1])
def test_gilbert_elliott_for_mean(mean: float) -> None:
    ge = Loss.ge_mean(mean, burst=2, bad_loss=0.5, good_loss=mean / 10)
    p, r, bad, good = ge.params
    # stationary mean from first principles: P(bad) = p / (p + r)
    assert (p / (p + r)) * bad + (r / (p + r)) * good == pytest.approx(mean)
    assert ge.netem_args()[:2] == ["loss", "gemodel"]
    assert r == pytest.approx(0.5)  # mean burst of two packets


def test_gemodel_rejects_bad_parameters() -> None:
    with pytest.raises(ValueError):
        Loss.gemodel(0, 0)
    with pytest.raises(ValueError):
        Loss.gemodel(0.1, 1.2)


def test_red_ecn_queue_in_bytes_with_recommended_burst() -> None:
    q = Queue.red_ecn(rate_mbit=2, min_pkts=5, max_pkts=15, max_p=0.1, limit_pkts=50)
    args = dict(zip(q.args[::2], q.args[1::2], strict=False))
    assert q.kind == "red" and q.args[-1] == "ecn"
    assert (args["min"], args["max"], args["limit"]) == ("7500", "22500", "75000")
    assert args["burst"] == "9"  # (2*5 + 15)/3 + 1
    assert args["probability"] == "0.1" and args["bandwidth"] == "2mbit"


def test_shaper_puts_queue_under_htb_and_loss_on_air() -> None:
    cmds = shaper_cmds("e1", 2, Queue.pfifo(50))
    assert cmds[0] == "qdisc add dev e1 root handle 1: htb default 1"
    assert "rate 2mbit ceil 2mbit" in cmds[1]
    assert cmds[2] == "qdisc add dev e1 parent 1:1 handle 10: pfifo limit 50"
    air = air_cmds("pb", 1, Loss.random(0.05))
    assert air == ["qdisc add dev pb root handle 1: netem limit 100000 delay 1ms loss random 5%"]
    assert "loss" not in air_cmds("pa", 45, None)[0]


def test_routes_on_a_chain_go_through_the_right_neighbour() -> None:
    links = [
        Link("src", "gw", 10, 45),
        Link("gw", "gw2", 5, 1),
        Link("gw2", "rcv", 2, 1),
    ]
    path = Path(links)
    for i, link in enumerate(links):
        link.index = i
    ip: dict[str | None, list[str]] = {path.ns(n): [] for n in path.nodes}
    path._route_cmds(ip)
    n = path.id
    # src reaches the far subnets via gw's address on link 0
    assert ip[path.ns("src")] == [
        f"route add 10.{n}.1.0/24 via 10.{n}.0.2",
        f"route add 10.{n}.2.0/24 via 10.{n}.0.2",
    ]
    # rcv reaches them back via gw2's address on link 2
    assert ip[path.ns("rcv")] == [
        f"route add 10.{n}.0.0/24 via 10.{n}.2.1",
        f"route add 10.{n}.1.0/24 via 10.{n}.2.1",
    ]
    assert ip[path.ns("gw")] == [f"route add 10.{n}.2.0/24 via 10.{n}.1.2"]


def test_fig511_path_parameters() -> None:
    wired, wireless = topologies.links("fig511", loss=Loss.random(0.01))
    assert (wired.rate_mbit, wired.delay_ms, wired.loss) == (10, 45, None)
    assert (wireless.rate_mbit, wireless.delay_ms) == (2, 1)
    assert wireless.loss == Loss.random(0.01)
    assert wireless.queue == Queue.pfifo(50)


def test_jain_index() -> None:
    assert metrics.jain([1, 1, 1, 1]) == pytest.approx(1.0)
    assert metrics.jain([1, 0, 0, 0]) == pytest.approx(0.25)
    assert metrics.jain([3, 1]) == pytest.approx(16 / 20)
    assert metrics.jain([0, 0]) == 1.0  # equal shares, all of them zero
    assert math.isnan(metrics.jain([]))  # no flow, no index


def test_trace_parse_key_values_and_hosts() -> None:
    from testbed.measure import trace

    text = (
        "# tracer: nop\n"
        "          iperf3-812     [001] ..s1.    41.250001: jersey_loss: "
        "src=10.11.1.1:45678 dest=10.11.1.2:5201 snd_una=123 cause=wireless cwnd=10->10 "
        "ssthresh=10 are=250000 rtt_min=92000\n"
        "  <idle>-0 [000] d.s3. 42.000000: jersey_sample: src=[fd00::1]:1 dest=[fd00::2]:2 est=ts\n"
    )
    evs = trace.parse(text)
    assert [e["event"] for e in evs] == ["jersey_loss", "jersey_sample"]
    assert evs[0]["cause"] == "wireless" and evs[0]["are"] == 250000
    assert evs[0]["cwnd"] == "10->10" and evs[0]["t"] == pytest.approx(41.250001)
    assert trace.host_of(evs[0]["src"]) == "10.11.1.1"
    assert trace.host_of(evs[1]["dest"]) == "fd00::2"


def test_trace_take_waits_for_a_lagging_reader(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A trial's events recorded before take() are all handed over, even
    when the reader is seconds behind the ring buffer (a loaded guest)."""
    import os
    import time

    from testbed.measure import trace

    # a tracefs whose trace_pipe is a FIFO and whose trace_marker writes into it
    (tmp_path / "events" / "jersey_loss").mkdir(parents=True)
    for name in ("tracing_on", "buffer_size_kb", "trace", "events/jersey_loss/enable"):
        (tmp_path / name).write_text("0")
    (tmp_path / "trace_clock").write_text("[local] global mono\n")
    os.mkfifo(tmp_path / "trace_pipe")
    (tmp_path / "trace_marker").symlink_to(tmp_path / "trace_pipe")
    filed = trace.TraceStream._file

    def lagging(self: trace.TraceStream, text: str) -> None:
        time.sleep(0.5)
        filed(self, text)

    monkeypatch.setattr(trace.TraceStream, "_file", lagging)
    line = "  iperf3-1 [000] ..... 1.5: jersey_loss: src=10.11.1.1:1 dest=10.11.1.2:2 cause=ecn\n"
    with trace.TraceStream(["jersey_loss"], root=tmp_path) as tracer:
        writer = os.open(tmp_path / "trace_pipe", os.O_WRONLY)  # the reader has it open
        try:
            os.write(writer, (line * 3).encode())
            time.sleep(0.1)  # read, not yet filed
            assert [e["cause"] for e in tracer.take(11)] == ["ecn"] * 3
            assert tracer.take(11) == []
        finally:
            os.close(writer)
    assert (tmp_path / "trace_clock").read_text() == "local"


def test_a_batch_of_trials_that_outlives_its_time_is_reported(monkeypatch, capsys) -> None:
    from testbed.run import trial as trial_mod
    from testbed.traffic.flows import Flow

    slow = trial_mod.Trial("slow", [], [Flow("a", "b", duration_s=1)])
    quick = trial_mod.Trial("quick", [], [Flow("a", "b", duration_s=1)])
    assert trial_mod.expected_s(slow) == pytest.approx(trial_mod.LEAD_S + 61)

    reported = threading.Event()
    hold_s = 30.0  # the slow trial runs until the report about it is out (a loaded host is slow)

    def fake_run(t: trial_mod.Trial, tracer: object) -> dict[str, str]:
        if t.name == "slow":
            reported.wait(hold_s)
        return {"name": t.name}

    def fake_sysrq(keys: str) -> None:
        print(f"sysrq {keys}", file=sys.stderr)
        reported.set()

    monkeypatch.setattr(trial_mod, "TraceStream", lambda events: contextlib.nullcontext())
    monkeypatch.setattr(trial_mod, "run_trial", fake_run)
    monkeypatch.setattr(trial_mod, "expected_s", lambda t: 0.1)
    monkeypatch.setattr(trial_mod, "STUCK_GRACE_S", 0.1)
    monkeypatch.setattr(trial_mod, "sysrq", fake_sysrq)
    got = trial_mod.run_trials([slow, quick])
    assert reported.is_set()
    err = capsys.readouterr().err
    assert [r["name"] for r in got] == ["slow", "quick"]  # still waited for, in order
    assert "1 trial(s) still running after" in err and ": slow\n" in err
    assert "in fake_run" in err and "sysrq wl" in err  # its thread's stack, the kernel's tasks
    reported.clear()
    hold_s = 0.6
    monkeypatch.setattr(trial_mod, "STUCK_GRACE_S", 5.0)
    trial_mod.run_trials([slow, quick])
    assert not reported.is_set()
    assert capsys.readouterr().err == ""  # within its time: nothing said


def test_python_dependencies_are_pinned_once() -> None:
    """pyproject.toml declares what testbed/requirements.txt installs, at the same versions;
    testbed/constraints.txt pins everything else exactly."""
    import tomllib

    from testbed import TOP

    project = tomllib.loads((TOP / "pyproject.toml").read_text())["project"]
    declared = {*project["dependencies"], *project["optional-dependencies"]["dev"]}
    lines = (TOP / "testbed" / "requirements.txt").read_text().splitlines()
    installed = {ln for ln in lines if ln and not ln.startswith(("#", "-"))}
    assert declared == installed
    assert "-c constraints.txt" in lines
    pins = (TOP / "testbed" / "constraints.txt").read_text().splitlines()
    assert all("==" in ln for ln in pins if ln and not ln.startswith("#"))


def test_the_readme_layout_table_matches_the_tree() -> None:
    """Every path the README's layout table names exists, and it names everything in testbed/."""
    import re

    from testbed import TOP

    readme = (TOP / "README.md").read_text()
    table = readme.split("\n## Layout\n", 1)[1].split("\n## ", 1)[0]
    rows = [ln for ln in table.splitlines() if ln.startswith("| `")]
    named = [p for ln in rows for p in re.findall(r"`([^`]+)`", ln.split(" | ")[0])]
    untracked = {"out/"}
    assert all((TOP / p).exists() for p in named if p not in untracked), named
    entries = [
        p.name for p in (TOP / "testbed").iterdir() if p.name not in ("__pycache__", "__init__.py")
    ]
    missing = [name for name in entries if name not in table]
    assert not missing, f"testbed/ entries the README's layout table does not name: {missing}"


def test_a_point_is_dirty_when_the_code_changed_not_the_results_or_the_prose(
    tmp_path: pathlib.Path,
) -> None:
    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(tmp_path), *args], check=True, capture_output=True)

    git("init", "-q")
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "report.md").write_text("old\n")
    (tmp_path / "kmod.c").write_text("int x;\n")
    (tmp_path / "README.md").write_text("prose\n")
    git("add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "x")
    assert cli.git_meta(tmp_path)["dirty"] == "no"
    # a run rewrote the report it publishes: the code measured is the commit's
    (tmp_path / "results" / "report.md").write_text("new\n")
    assert cli.git_meta(tmp_path)["dirty"] == "no"
    (tmp_path / "README.md").write_text("edited during the run\n")
    assert cli.git_meta(tmp_path)["dirty"] == "no"
    (tmp_path / "kmod.c").write_text("int y;\n")
    assert cli.git_meta(tmp_path)["dirty"] == "yes"


def test_a_points_commit_is_the_last_one_that_changed_the_code(tmp_path: pathlib.Path) -> None:
    def git(*args: str) -> str:
        p = subprocess.run(["git", "-C", str(tmp_path), *args], check=True, capture_output=True)
        return p.stdout.decode().strip()

    def commit(msg: str) -> str:
        git("add", ".")
        git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", msg)
        return git("rev-parse", "HEAD")

    git("init", "-q")
    (tmp_path / "results").mkdir()
    (tmp_path / "kmod.c").write_text("int x;\n")
    code = commit("code")
    (tmp_path / "results" / "report.md").write_text("first sitting\n")
    (tmp_path / "README.md").write_text("its numbers\n")
    head = commit("results")
    meta = cli.git_meta(tmp_path)
    assert (meta["commit"], meta["head"]) == (code, head)
    # tests, CI's script and the report read points back: they measure nothing
    for path in ("tests/test_x.py", ".ci/run", "testbed/analysis/report.py"):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("x = 1\n")
        assert cli.git_meta(tmp_path)["dirty"] == "no"
        commit(f"reads points: {path}")
        assert cli.git_meta(tmp_path)["commit"] == code
    (tmp_path / "testbed/analysis/metrics.py").write_text("x = 1\n")
    git("add", ".")
    assert cli.git_meta(tmp_path)["dirty"] == "yes"
    (tmp_path / "kmod.c").write_text("int y;\n")
    again = commit("code again")
    assert cli.git_meta(tmp_path)["commit"] == again
    # a shallow clone (CI's) whose history ends at a commit of results: HEAD
    (tmp_path / "results" / "report.md").write_text("second sitting\n")
    head = commit("results again")
    shallow = tmp_path / "shallow"
    subprocess.run(
        ["git", "clone", "-q", "--depth", "1", f"file://{tmp_path}", str(shallow)],
        check=True,
        capture_output=True,
    )
    assert cli.git_meta(shallow)["commit"] == head
