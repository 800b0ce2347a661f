"""The experiment harness without a VM: scenario files, metrics, traffic schedules,
topologies (as data and as Mininet topologies), resume logic and the report."""

from __future__ import annotations

import contextlib
import itertools
import json
import math
import random
import re
import shutil
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from testbed import TOP, modules
from testbed.analysis import metrics, report
from testbed.measure.monitors import QdiscSampler
from testbed.net import topologies
from testbed.net.path import Loss, Queue, link_tc_cmds, route_cmds
from testbed.run import harness, scenario
from testbed.run.records import qdisc_marks
from testbed.traffic import cross as traffic

# -- scenario files ------------------------------------------------------------------

ALL = scenario.names()
SPEC_SCENARIOS = {
    "fig5_11",
    "fig5_13",
    "fairness",
    "friendliness",
    "coexistence",
    "reverse_path",
    "reverse_aiad",
    "soho",
    "marking",
    "staggered",
    "newrenolp",
    "balde",
    "satellite",
    "groundtruth",
}
COMPARATORS = {"reno", "cubic", "westwood", "veno", "vegas", "bbr", "hybla", "illinois", "yeah"}


def test_every_spec_scenario_has_a_file() -> None:
    assert set(ALL) >= SPEC_SCENARIOS, SPEC_SCENARIOS - set(ALL)


@pytest.mark.parametrize("name", ALL)
def test_scenario_expands_in_every_profile(name: str) -> None:
    sc = scenario.load(name)
    for prof in [None, *sc.profiles()]:
        pts = sc.points(prof)
        assert pts, (name, prof)
        ids = [p.id for p in pts]
        assert len(set(ids)) == len(ids), "point ids must be unique"
        for p in pts[:50]:
            links = p.links()
            nodes = {n for lk in links for n in (lk.a, lk.b)}
            for f in p.flows():
                assert f.src in nodes and f.dst in nodes
                assert f.duration_s > 0
            harness.trial_of(p, "netns")  # traffic schedules, sysctls, monitors
        assert sc.estimate_s(prof) > 0
    assert "quick" in sc.profiles(), f"{name} needs a quick profile"
    assert sc.estimate_s("quick") < 240, "quick mode must stay short"


def _goodput_figure(sc: scenario.Scenario) -> bool:
    figs = sc.resolved().get("report", {}).get("figures", [])
    return any("goodput" in f["y"] or "throughput" in f["y"] for f in figs)


@pytest.mark.parametrize("name", ALL)
def test_goodput_figures_have_every_comparator_and_ours(name: str) -> None:
    sc = scenario.load(name)
    if name == "groundtruth" or not _goodput_figure(sc):
        return
    ccs = {cc for p in sc.points() for cc in p.ccs()}
    assert ccs >= COMPARATORS, (name, COMPARATORS - ccs)
    if name == "marking":
        # a comparison of ECN-marking gateways: our ECN-driven schemes
        assert {"jersey", "diffc"} <= ccs
        return
    assert {"jersey", "diffc", "newrenolp", "balde"} <= ccs, name


def _write(tmp_path: Path, text: str, name: str = "bad") -> Path:
    p = tmp_path / f"{name}.toml"
    p.write_text(text)
    return p


GOOD = """
name = "bad"
title = "t"
duration_s = 5
[topology]
name = "fig511"
loss = "${per}"
[sweep]
per = [0, 0.01]
[[flows]]
src = "src"
dst = "rcv"
cc = "reno"
"""


def test_a_minimal_scenario_loads(tmp_path: Path) -> None:
    sc = scenario.load(_write(tmp_path, GOOD))
    pts = sc.points()
    assert [p.id for p in pts] == ["per=0,run=0", "per=0.01,run=0"]
    assert pts[1].links()[1].loss == Loss.random(0.01)
    assert pts[0].links()[1].loss is None


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda t: t.replace('title = "t"\n', ""), "missing required key 'title'"),
        (lambda t: t.replace("duration_s = 5", "duration_s = 'x'"), "duration_s: expected"),
        (lambda t: t + "\nbogus = 1\n", "unknown key 'bogus'"),
        (lambda t: t.replace('name = "fig511"', 'name = "nope"'), "unknown topology 'nope'"),
        (lambda t: t.replace('loss = "${per}"', "los = 0.1"), "has no parameter 'los'"),
        (
            lambda t: t.replace('loss = "${per}"', 'loss = "${pr}"'),
            "no sweep axis or var named 'pr'",
        ),
        (lambda t: t.replace('dst = "rcv"', 'dst = "nowhere"'), "no node 'nowhere'"),
        (lambda t: t.replace("per = [0, 0.01]", "per = []"), "non-empty array"),
        (lambda t: t.replace('cc = "reno"', "cc = 3"), "cc: expected a string"),
        (lambda t: t.replace("duration_s = 5", "duration_s = 5\n[x"), "TOML syntax"),
        (lambda t: t.replace('name = "bad"', 'name = "other"'), "must be 'bad'"),
        (
            lambda t: t + '[[traffic]]\nkind = "udp_bogus"\nsrc = "src"\ndst = "rcv"\n',
            "'kind' must be",
        ),
        (lambda t: t + '[monitor]\nqueues = ["gw->nowhere"]\n', "no link direction 'gw->nowhere'"),
        (
            lambda t: t + '[[report.figures]]\nkind = "lines"\ny = "goodput_mbps"\nx = "nope"\n',
            "not a sweep axis",
        ),
        (lambda t: t + "[profiles.quick]\nruns = 0\n", "runs must be at least 1"),
    ],
)
def test_bad_scenario_files_give_clear_errors(tmp_path: Path, edit: Any, message: str) -> None:
    path = _write(tmp_path, edit(GOOD))
    with pytest.raises(scenario.ScenarioError, match="bad.toml") as err:
        sc = scenario.load(path)
        sc.points()
    assert message in str(err.value)


def test_overrides_change_matching_points_only(tmp_path: Path) -> None:
    text = GOOD + "[[overrides]]\nwhen = { per = 0.01 }\nset = { duration_s = 9 }\n"
    pts = scenario.load(_write(tmp_path, text)).points()
    assert [p.spec["duration_s"] for p in pts] == [5, 9]
    assert [f.duration_s for f in pts[1].flows()] == [9.0]
    bad = GOOD + "[[overrides]]\nwhen = { per = 0.5 }\nset = { duration_s = 9 }\n"
    with pytest.raises(scenario.ScenarioError, match="not one of its values"):
        scenario.load(_write(tmp_path, bad))
    bad = GOOD + "[[overrides]]\nwhen = { per = 0.01 }\nset = { runs = 9 }\n"
    with pytest.raises(scenario.ScenarioError, match="cannot override"):
        scenario.load(_write(tmp_path, bad))


def test_an_override_runs_its_points_fewer_at_a_time(tmp_path: Path) -> None:
    text = GOOD.replace("duration_s = 5\n", "duration_s = 5\nparallel = 4\nruns = 3\n")
    plain = scenario.load(_write(tmp_path, text)).points()
    text += "[[overrides]]\nwhen = { per = 0.01 }\nset = { parallel = 1 }\n"
    sc = scenario.load(_write(tmp_path, text))
    pts = sc.points()
    assert [p.concurrency(4) for p in pts] == [4, 1] * 3
    # concurrency is how the points run, not what they are
    assert [p.identity for p in pts] == [p.identity for p in plain]
    assert all("parallel" not in p.spec for p in pts)
    # the three serial points cost three waves of their own
    four = scenario.load(_write(tmp_path, text.replace("parallel = 1 }", "parallel = 4 }")))
    assert sc.estimate_s() > four.estimate_s()
    groups = scenario.by_concurrency(pts, 4)
    assert [(n, [p.id for p in g]) for n, g in groups] == [
        (4, ["per=0,run=0", "per=0,run=1", "per=0,run=2"]),
        (1, ["per=0.01,run=0", "per=0.01,run=1", "per=0.01,run=2"]),
    ]
    # a scenario already running fewer at a time keeps its own limit
    assert [n for n, _ in scenario.by_concurrency(pts, 1)] == [1]
    # of two overrides of one point, the smaller parallel holds, in either order
    both = text + "[[overrides]]\nwhen = { per = 0.01 }\nset = { parallel = 2 }\n"
    assert {p.concurrency(4) for p in scenario.load(_write(tmp_path, both)).points()} == {4, 1}
    bad = text.replace("set = { parallel = 1 }", "set = { parallel = 0 }")
    with pytest.raises(scenario.ScenarioError, match="parallel must be an integer of at least 1"):
        scenario.load(_write(tmp_path, bad))


def _stub_the_vm_side(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, stub in {"versions": dict, "ensure_cc": lambda cc: True,
                       "module_params": lambda p: {}, "apply_modules": lambda mp: {},
                       "loss_events": lambda ccs, extra: [], "environment": dict,
                       "TraceStream": lambda events: contextlib.nullcontext()}.items():  # fmt: skip
        monkeypatch.setattr(harness, name, stub)
    monkeypatch.setattr(modules, "snapshot", dict)


def test_the_runner_runs_an_overrides_points_one_at_a_time(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """run_scenario with the VM's side stubbed out: the serial group never
    overlaps anything, the others run in waves of the scenario's parallel."""
    text = GOOD.replace("duration_s = 5\n", "duration_s = 5\nparallel = 3\nruns = 4\nsync = true\n")
    text += "[[overrides]]\nwhen = { per = 0.01 }\nset = { parallel = 1 }\n"
    sc = scenario.load(_write(tmp_path, text))
    _stub_the_vm_side(monkeypatch)
    lock = threading.Lock()
    running: list[str] = []
    seen: list[tuple[str, list[str], int, int]] = []  # id, running with it, barrier, parallel

    def run_point(self: harness.Runner, sc: Any, p: scenario.Point, *rest: Any) -> tuple[str, str]:
        barrier: threading.Barrier | None = rest[3]  # tracer, events, env, barrier
        parties = barrier.parties if barrier else 0
        if barrier:
            barrier.wait(timeout=10)
        with lock:
            running.append(p.id)
            seen.append((p.id, list(running), parties, self.record(p, sc)["parallel"]))
        time.sleep(0.05)
        with lock:
            running.remove(p.id)
        return "ok", "fake"

    monkeypatch.setattr(harness.Runner, "run_point", run_point)
    runner = harness.Runner(tmp_path / "out", None, "netns", {"commit": "x", "dirty": "no"})
    status = runner.run_scenario(sc)
    assert status["ok"] == 8
    serial = [s for s in seen if "per=0.01" in s[0]]
    rest = [s for s in seen if "per=0," in s[0]]
    # one at a time, alone, no wave to wait for, and recorded as such
    assert [(len(s[1]), s[2], s[3]) for s in serial] == [(1, 1, 1)] * 4
    # the others: waves of 3 then 1, together with their wave only
    assert sorted(s[2] for s in rest) == [1, 3, 3, 3] and {s[3] for s in rest} == {3}
    assert max(len(s[1]) for s in rest) == 3
    assert all("per=0.01" not in r for s in rest for r in s[1])


@pytest.mark.parametrize("sync", [False, True])
def test_a_spent_budget_starts_no_point(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, sync: bool
) -> None:
    """run --budget: the points begun before the deadline run, no point starts
    after it (nothing written for it: the next run of the command runs it),
    and a wave of a sync scenario runs whole or not at all."""
    extra = "parallel = 3\nruns = 4\nsync = true\n" if sync else "runs = 4\n"
    text = GOOD.replace("duration_s = 5\n", "duration_s = 5\n" + extra)
    sc = scenario.load(_write(tmp_path, text))
    _stub_the_vm_side(monkeypatch)
    clock = [1000.0]
    monkeypatch.setattr(harness.Runner, "spent", lambda self: clock[0] >= self.deadline)
    ran: list[str] = []
    lock = threading.Lock()

    def run_point(self: harness.Runner, sc: Any, p: scenario.Point, *rest: Any) -> tuple[str, str]:
        barrier: threading.Barrier | None = rest[3]
        if barrier:
            barrier.wait(timeout=10)
        with lock:
            ran.append(p.id)
            clock[0] += 30  # each point takes 30 s
        return "ok", "fake"

    monkeypatch.setattr(harness.Runner, "run_point", run_point)
    out = tmp_path / "out"
    # 100 s: one at a time, four points start (at 0, 30, 60, 90 s); in waves
    # of three, two waves: the second's points ask when one to three of the
    # first's have finished (30-90 s), the third's when one of the second's
    # has taken the clock past 100 s: it does not start, neither of its points
    runner = harness.Runner(out, None, "netns", {"commit": "x", "dirty": "no"}, None, 1100.0)
    status = runner.run_scenario(sc)
    want = [p.id for p in sc.points()][: 6 if sync else 4]
    assert (status["ok"], status["deferred"]) == (len(want), 8 - len(want))
    assert sorted(ran) == sorted(want)
    assert json.loads((out / "bad" / "status.json").read_text())["deferred"] == 8 - len(want)
    # no barrier broken, no point written as an error: nothing for what did not run
    assert status["error"] == 0 and not (out / "bad" / "points").exists()


def test_a_wave_is_deferred_whole() -> None:
    """The first point of a wave to ask decides for the wave: a deadline that
    passes while its points start leaves none of them behind."""
    runner = harness.Runner(Path("/nonexistent"), None, "netns", {}, None, time.time() + 3600)
    wave = threading.Barrier(3)
    assert not runner.deferred(wave)
    runner.deadline = time.time() - 1  # the deadline passes between its points
    assert not runner.deferred(wave) and not runner.deferred(wave)
    assert runner.deferred(threading.Barrier(3)) and runner.deferred(None)
    # without a budget nothing is deferred
    assert not harness.Runner(Path("/nonexistent"), None, "netns", {}).deferred(None)


def test_a_value_the_sweep_left_out_matches_nothing(tmp_path: Path) -> None:
    text = GOOD + "[[overrides]]\nwhen = { per = 0.01 }\nset = { duration_s = 9 }\n"
    text = text.replace("duration_s = 5\n", "duration_s = 5\nexclude = [{ per = 0 }]\n")
    # --set narrows the sweep to values the override and exclusion do not name
    sc = scenario.load(_write(tmp_path, text), scenario.parse_set(["sweep.per=0.05"]))
    assert [(p.id, p.spec["duration_s"]) for p in sc.points()] == [("per=0.05,run=0", 5)]
    # a value the file never had is still refused
    with pytest.raises(scenario.ScenarioError, match="per = 0.5 is not one of its values"):
        scenario.load(
            _write(tmp_path, text.replace("when = { per = 0.01 }", "when = { per = 0.5 }"))
        )


def test_exclude_drops_matching_combinations(tmp_path: Path) -> None:
    text = GOOD.replace("per = [0, 0.01]", 'per = [0, 0.01]\ncc = ["reno", "cubic"]')
    text = text.replace('cc = "reno"\n', 'cc = "${cc}"\n')
    excl = 'exclude = [{ per = 0.01, cc = "cubic" }]\n'
    text = text.replace("duration_s = 5\n", "duration_s = 5\n" + excl)
    pts = scenario.load(_write(tmp_path, text)).points()
    assert [p.id for p in pts] == ["per=0,cc=reno,run=0", "per=0,cc=cubic,run=0",
                                   "per=0.01,cc=reno,run=0"]  # fmt: skip
    bad = text.replace('cc = "cubic" }]', 'cc = "bbr" }]')
    with pytest.raises(scenario.ScenarioError, match="not one of its values"):
        scenario.load(_write(tmp_path, bad))


def test_share_and_retransmissions() -> None:
    doc = fake_point("jersey", 0.01, 0, 2e6)
    theirs = {**doc["flows"][0], "cc": "cubic", "label": "cubic", "group": "cubic",
              "goodput_bps": 1e6, "intervals": [[1.0, 1e6], [2.0, 1e6]]}  # fmt: skip
    doc["flows"].append(theirs)
    doc["spec"]["metrics"] = {"bottleneck": "gw->rcv", "share": ["jersey", "cubic"]}
    m = metrics.point_metrics(doc)  # type: ignore[arg-type]
    assert m["share"] == pytest.approx(2.0)
    # 10 retransmitted segments of 1448 bytes over 2.5 MB sent
    assert m["groups"]["jersey"]["retrans_fraction"] == pytest.approx(14480 / 2.5e6)
    doc["spec"]["metrics"]["window_s"] = [0, 10]
    doc["flows"][1]["intervals"] = [[1.0, 0.5e6], [2.0, 0.5e6]]
    assert metrics.point_metrics(doc)["share"] == pytest.approx(4.0)  # type: ignore[arg-type]
    # no competitor in the point: no share
    doc["flows"].pop()
    assert "share" not in metrics.point_metrics(doc)  # type: ignore[arg-type]


def test_a_flow_whose_data_started_late_is_aligned_on_its_data() -> None:
    # launched 0.1 s into the trial, but its SYN was lost at a full queue:
    # connected a second later, 30 s of data, exited at 31.2 s
    late = {"started_s": 0.1, "finished_s": 31.2, "seconds": 30.0, "start_s": 0.0}
    assert metrics.data_start(late) == pytest.approx(1.2)  # type: ignore[arg-type]
    # on time (the exit comes right after the data), and a point from before
    # the exit was recorded
    assert metrics.data_start({**late, "finished_s": 30.08}) == 0.1  # type: ignore[arg-type]
    assert metrics.data_start({"started_s": 0.1, "seconds": 30.0}) == 0.1  # type: ignore[arg-type]
    # the receiver's own start, from its printed interval lines, comes first
    assert metrics.data_start({**late, "data_start_s": 1.04}) == 1.04  # type: ignore[arg-type]
    # its first interval ends at trial time 2.2, not 1.1 (the launch)
    doc = fake_point("jersey", 0.0, 0, 1e6)
    doc["flows"][0].update(late, intervals=[[1.0, 4e6], [2.0, 1e6], [3.0, 1e6]])
    doc["spec"]["metrics"] = {"bottleneck": "gw->rcv", "window_s": [0, 2.5]}
    assert metrics.point_metrics(doc)["window"]["goodput_bps"] == pytest.approx(4e6)  # type: ignore[arg-type]
    doc["spec"]["metrics"]["window_s"] = [1.5, 3.5]
    assert metrics.point_metrics(doc)["window"]["goodput_bps"] == pytest.approx(2.5e6)  # type: ignore[arg-type]


def test_aggregate_goodput_is_bytes_over_the_span_the_flows_covered() -> None:
    # four flows of 30 s on a 2 Mb/s link whose data began up to 1.7 s apart
    # (SYNs lost at a full queue): each one's rate over its own 30 s summed
    # to more than the link carries; their bytes over the 31.7 s they
    # covered do not
    flows = [
        {"cc": "reno", "started_s": 0.1 * i, "finished_s": 30.1 + s, "seconds": 30.0,
         "bytes_received": 1_890_000, "goodput_bps": 1_890_000 * 8 / 30.0}
        for i, s in enumerate((0.0, 0.5, 1.2, 1.7))
    ]  # fmt: skip
    assert sum(f["goodput_bps"] for f in flows) == pytest.approx(2.016e6)
    assert metrics.aggregate_goodput(flows) == pytest.approx(4 * 1_890_000 * 8 / 31.7)  # type: ignore[arg-type]
    # one flow: its own goodput
    assert metrics.aggregate_goodput(flows[:1]) == flows[0]["goodput_bps"]  # type: ignore[arg-type]


def test_fig5_11_repeatability_point_is_long() -> None:
    pts = scenario.load("fig5_11").points()
    one = [p for p in pts if p.values["per"] == 0.01]
    assert len(one) == 5 * len({p.values["cc"] for p in pts})
    assert all(p.spec["duration_s"] >= 100 for p in one)


def test_substitution_keeps_types_and_reaches_into_tables() -> None:
    env = {"mix": {"label": "3/17", "m": 3, "n": 17}, "per": 0.001}
    out = scenario.substitute({"a": "${mix.m}", "b": "m=${mix.m} per=${per}", "c": ["${per}"]}, env)
    assert out == {"a": 3, "b": "m=3 per=0.001", "c": [0.001]}
    assert scenario.deep_merge({"a": {"b": 1, "c": 2}}, {"a": {"c": 3}}) == {"a": {"b": 1, "c": 3}}


def test_profiles_override_sweeps_and_seeds_are_stable() -> None:
    sc = scenario.load("fig5_11")
    quick = sc.points("quick")
    assert len(quick) < len(sc.points())
    again = scenario.load("fig5_11").points("quick")
    assert [p.seed for p in quick] == [p.seed for p in again]
    assert len({p.seed for p in quick}) == len(quick)


# -- loss, queue and topology specs --------------------------------------------------


def test_loss_specs() -> None:
    assert Loss.from_spec(None) is None and Loss.from_spec(0) is None
    assert Loss.from_spec(0.01) == Loss.random(0.01)
    ge = Loss.from_spec({"ge_mean": 0.05, "burst": 4, "bad_loss": 1.0})
    assert ge is not None and ge.mean == pytest.approx(0.05)
    p, r, _, _ = ge.params
    assert r == pytest.approx(0.25)
    st = Loss.from_spec({"good_pkts": 800, "bad_pkts": 40, "bad_loss": 0.5})
    assert st is not None and st.mean == pytest.approx(0.5 * 40 / 840)
    ber = Loss.from_spec({"ber": 1e-5, "bytes": 1000})
    assert ber is not None and ber.mean == pytest.approx(1 - (1 - 1e-5) ** 8000)
    with pytest.raises(ValueError, match="unknown"):
        Loss.from_spec({"ge_mean": 0.1, "bogus": 1})


def test_queue_specs() -> None:
    assert Queue.from_spec("pfifo", 2) == Queue.pfifo(50)
    cw = Queue.from_spec({"kind": "cw", "limit": 50, "thresh": 25, "mode": "pq"}, 2)
    assert cw.tc_args() == ["cw", "limit", "50", "thresh", "25", "mode", "pq"]
    vcrr = Queue.from_spec({"kind": "vcrr", "gamma": 0.95}, 5)
    assert vcrr.tc_args() == ["vcrr", "gamma", "0.95", "limit", "50", "rate", "5mbit"]
    red = Queue.from_spec({"kind": "red_ecn", "min": 5, "max": 8, "limit": 40}, 2)
    assert red.kind == "red" and red.limit == 40 and "ecn" in red.args
    fq = Queue.from_spec({"kind": "fq_codel", "ecn": True}, 2)
    assert fq.tc_args() == ["fq_codel", "ecn", "limit", "50"] and fq.limit == 50
    with pytest.raises(ValueError):
        Queue.from_spec({"kind": "pfifo", "thresh": 3}, 2)


@pytest.mark.parametrize("name", topologies.names())
def test_topologies_are_connected_and_route_everywhere(name: str) -> None:
    links = topologies.links(name)
    for i, lk in enumerate(links):
        lk.index = i
    nodes = list(dict.fromkeys(n for lk in links for n in (lk.a, lk.b)))
    routes = route_cmds(7, nodes, links)
    for n in nodes:
        direct = sum(n in (lk.a, lk.b) for lk in links)
        assert len(routes[n]) == len(links) - direct


MN_CUSTOM = TOP / "mininet" / "topos.py"


def mn_custom() -> dict[str, Any]:
    """What ``mn --custom mininet/topos.py`` reads (needs Debian's Mininet)."""
    pytest.importorskip("mininet.net", reason="needs Mininet (Debian's python3-mininet)")
    customs: dict[str, Any] = {}
    exec(compile(MN_CUSTOM.read_text(), str(MN_CUSTOM), "exec"), customs, customs)
    return customs


def test_mininet_topology_mirrors_the_link_model() -> None:
    topo = mn_custom()["topos"]["fig511"](loss=0.01, gateway={"kind": "cw", "limit": 50})
    assert sorted(topo.hosts()) == ["gw", "rcv", "src"]
    assert sorted(topo.switches()) == ["air0", "air1"]
    links = topologies.links("fig511", loss=0.01, gateway={"kind": "cw", "limit": 50})
    links[0].index, links[1].index = 0, 1
    cmds = link_tc_cmds(links[1])
    infos = {(i["node1"], i["node2"]): i for _, _, i in topo.links(withInfo=True)}
    gw_air = infos[("gw", "air1")]
    assert gw_air["intfName1"] == "e1" and gw_air["intfName2"] == "pa"
    assert gw_air["params1"]["tc"] == cmds["a"]  # htb + cw at the gateway
    assert gw_air["params1"]["addr"] == "10.1.1.1/24"
    air_rcv = infos[("air1", "rcv")]
    assert air_rcv["params1"]["tc"] == cmds["pb"]  # netem delay + loss towards rcv
    assert "loss random 1%" in air_rcv["params1"]["tc"][0]
    src = topo.nodeInfo("src")
    assert src["routes"] == ["route add 10.1.1.0/24 via 10.1.0.2"]


def test_mn_custom_file_defines_topos() -> None:
    topos = mn_custom()["topos"]
    assert set(topos) == {*topologies.names(), "scenario"}


def test_scenario_topology_builds_a_point() -> None:
    topo = mn_custom()["topos"]["scenario"]("groundtruth", point=0)
    assert "rcv" in topo.hosts()


def test_the_papers_paths_have_one_source() -> None:
    """Only testbed/net/topologies.py builds links of the papers (nothing else names a
    rate with a delay)."""
    import re

    made_here = re.compile(r"\bLink\(\s*\"")
    others = [
        p.relative_to(TOP)
        for p in sorted((TOP / "testbed").rglob("*.py"))
        if p.name != "topologies.py" and made_here.search(p.read_text())
    ]
    assert not others, others


# -- traffic schedules ---------------------------------------------------------------


def test_onoff_schedule_is_seeded_and_within_bounds() -> None:
    a = traffic.onoff(random.Random(3), 0, 100, 1.0, 1.0)
    b = traffic.onoff(random.Random(3), 0, 100, 1.0, 1.0)
    assert a == b and a
    assert all(0 <= s < 100 and s + d <= 100.001 for s, d in a)
    on = sum(d for _, d in a)
    assert 30 < on < 70  # about half the time on
    for (s1, d1), (s2, _) in itertools.pairwise(a):
        assert s1 + d1 <= s2


def test_traffic_sources_from_spec() -> None:
    spec = [
        {"kind": "udp_onoff", "src": "a", "dst": "b", "sources": 5, "rate_kbit": 96},
        {"kind": "udp_schedule", "src": "b", "dst": "a", "bursts": [[1, 4, 1000], [10, 5, 2000]]},
        {"kind": "tcp_onoff", "src": "a", "dst": "b", "on_mean_s": 10, "off_mean_s": 1},
        {"kind": "udp_cbr", "src": "a", "dst": "b", "rate_kbit": 0},
    ]
    srcs = traffic.sources(spec, 60, seed=42)
    assert [s.kind for s in srcs] == ["udp"] * 5 + ["udp", "tcp"]  # rate 0: no source
    assert len({s.seed for s in srcs[:5]}) == 5
    assert srcs[5].bursts[1].rate_bps == 2e6
    assert all(b.duration_s == int(b.duration_s) >= 1 for b in srcs[6].bursts)
    assert (
        srcs[0].to_json()["schedule"] == traffic.sources(spec, 60, seed=42)[0].to_json()["schedule"]
    )


# -- metrics ---------------------------------------------------------------------------


def test_basic_statistics() -> None:
    assert metrics.jain([1, 1, 1, 1]) == pytest.approx(1.0)
    assert metrics.jain([1, 0, 0, 0]) == pytest.approx(0.25)
    assert metrics.percentile([1, 2, 3, 4], 50) == pytest.approx(2.5)
    assert metrics.percentile([5], 99) == 5
    assert metrics.jitter([10, 12, 11, 11]) == pytest.approx(1.0)
    assert math.isnan(metrics.jitter([1]))
    # C (1 - PER) payload / wire: iperf3's 1448-byte segments take 1514 bytes on the link
    assert metrics.ceiling(2e6, 0.05) == pytest.approx(1.9e6 * 1448 / 1514)
    assert metrics.ceiling(64e3, 0.0, mss=512) == pytest.approx(64e3 * 512 / 578)
    ms = metrics.median_spread([1.0, 1.1, 0.95])
    assert ms["median"] == 1.0 and ms["max_rel_dev"] == pytest.approx(0.1)


def test_median_ci_is_a_bootstrap_interval_and_none_below_three_runs() -> None:
    assert metrics.median_ci([1.0]) is None and metrics.median_ci([1.0, 2.0]) is None
    # five runs: the bootstrap median is the smallest run with probability 5.8 % > 2.5 %
    assert metrics.median_ci([5.0, 1.0, 4.0, 2.0, 3.0]) == (1.0, 5.0)
    # twenty-one runs 0..20: the interval narrows around the median 10 and holds it
    lo, hi = metrics.median_ci([float(x) for x in range(21)]) or (0.0, 0.0)
    assert 4 <= lo < 10 < hi <= 16
    # seeded: the same runs give the same interval
    xs = [3.1, 2.9, 3.4, 3.0, 2.7, 3.3, 3.2]
    assert metrics.median_ci(xs) == metrics.median_ci(list(xs))
    assert math.isnan(metrics.median_spread([1.0, 2.0])["ci_lo"])


def test_table_cells_give_the_median_and_its_ci_or_the_run_count() -> None:
    five = metrics.median_spread([5.0, 1.0, 4.0, 2.0, 3.0])
    assert report.cell_text(five, ".1f") == "3.0 [1.0, 5.0]"
    assert report.cell_text(metrics.median_spread([2.0]), ".2f") == "2.00 (n=1)"
    assert report.error_bar([2.0, 4.0]) == (3.0, 0.0, 0.0)
    assert report.error_bar([5.0, 1.0, 4.0, 2.0, 3.0]) == (3.0, 2.0, 2.0)


def test_route_and_counter_truth() -> None:
    cfg = [{"a": "src", "b": "gw"}, {"a": "gw", "b": "rcv"}]
    assert metrics.route(cfg, "src", "rcv") == ["src->gw", "gw->rcv"]
    assert metrics.route(cfg, "rcv", "src") == ["rcv->gw", "gw->src"]
    ground = [
        {"link": "gw->rcv", "air_drops": 10, "queue_drops": 0},
        {"link": "rcv->gw", "air_drops": 5, "queue_drops": 3},
        {"link": "src->gw", "air_drops": 0, "queue_drops": 0},
    ]
    t = metrics.counter_truth(ground, ["src->gw", "gw->rcv"])
    assert t == {"link_drops": 10, "queue_drops": 0, "kind": "wireless"}
    assert metrics.counter_truth(ground, ["rcv->gw"])["kind"] == "mixed"


def test_accuracy_against_counters_and_per_packet_truth() -> None:
    dec = [
        {"cause": "wireless"},
        {"cause": "congestion"},
        {"cause": "ecn"},
        {"cause": "rto_wireless"},
    ]
    a = metrics.accuracy(dec, {"kind": "wireless"})
    assert a["decisions"] == 3 and a["ecn_reactions"] == 1
    assert a["accuracy"] == pytest.approx(2 / 3) and a["method"] == "counters"
    assert metrics.accuracy(dec, {"kind": "mixed"})["accuracy"] is None
    pp = metrics.accuracy(dec, {"per_decision": ["wireless", "wireless", None, "congestion"]})
    assert pp["method"] == "per-packet" and pp["matched"] == 3
    assert pp["accuracy"] == pytest.approx(1 / 3)
    assert pp["misprediction"] == pytest.approx(1 / 2)  # 2 said wireless, 1 was congestion


def test_queue_metrics_and_marking_probability() -> None:
    samples = [
        {"t": 0.0, "qlen": 0, "backlog": 0, "packets": 0, "marked": 0},
        {"t": 0.5, "qlen": 10, "backlog": 15000, "packets": 100, "marked": 10},
        {"t": 1.0, "qlen": 20, "backlog": 30000, "packets": 200, "marked": 60},
    ]
    # arrivals = packets sent + backlog growth + drops = 110 in each interval
    mp = metrics.mark_probability(samples)
    assert [t for t, _ in mp] == [0.5, 1.0]
    assert [p for _, p in mp] == pytest.approx([10 / 110, 50 / 110])
    q = metrics.queue_metrics(samples, 2e6)
    assert q["qlen_max"] == 20 and q["qdelay_ms_max"] == pytest.approx(120.0)
    assert q["mark_prob_mean"] == pytest.approx(30 / 110)


def test_marks_of_every_marking_qdisc_kind() -> None:
    # tc -s -j: RED, CW and VCRR count "marked", fq_codel and PIE "ecn_mark"
    assert qdisc_marks({"kind": "red", "xstats": {"marked": 7, "early": 1}}) == 7
    assert qdisc_marks({"kind": "cw", "marked": 5}) == 5
    assert qdisc_marks({"kind": "fq_codel", "ecn_mark": 13, "drop_overlimit": 34}) == 13
    assert qdisc_marks({"kind": "pie", "xstats": {"ecn_mark": 2}}) == 2
    assert qdisc_marks({"kind": "pfifo", "drops": 3}) is None
    # the sampler keeps fq_codel's marks as "marked", and its probability follows
    got = [
        QdiscSampler.compact({"packets": n, "qlen": 0, "ecn_mark": m})
        for n, m in ((0, 0), (100, 4))
    ]
    assert metrics.mark_probability([{"t": 0.0, **got[0]}, {"t": 1.0, **got[1]}]) == [[1.0, 0.04]]
    assert "marked" not in QdiscSampler.compact({"kind": "pfifo", "packets": 9})


def test_bottleneck_marks_read_from_the_qdisc_record() -> None:
    # a point written when fq_codel's ecn_mark was read as 0: its record says 13
    doc = fake_point("jersey", 0.01, 0, 1.5e6)
    doc["links"][0]["queue_marked"] = 0
    doc["links"][0]["queue_stats"] = {"kind": "fq_codel", "packets": 1000, "ecn_mark": 13}
    b = metrics.point_metrics(doc)["bottleneck"]
    assert b["queue_marked"] == 13 and b["mark_rate"] == pytest.approx(0.013)


def fake_point(
    cc: str, per: float, run: int, goodput: float, *, causes: list[str] | None = None
) -> dict[str, Any]:
    """A synthetic point result with the harness's structure (for metric/report tests)."""
    dest = "10.3.1.2:5201"
    return {
        "status": "ok",
        "scenario": "fig5_11",
        "point": f"cc={cc},per={per:g},run={run}",
        "values": {"cc": cc, "per": per},
        "run": run,
        "spec": {"duration_s": 10, "metrics": {"bottleneck": "gw->rcv"}},
        "links_config": [
            {
                "a": "src",
                "b": "gw",
                "rate_mbit": 10,
                "rate_rev_mbit": 10,
                "loss": None,
                "loss_rev": None,
            },
            {
                "a": "gw",
                "b": "rcv",
                "rate_mbit": 2,
                "rate_rev_mbit": 2,
                "loss": {"kind": "random", "params": [per], "mean": per} if per else None,
                "loss_rev": None,
            },
        ],
        "flows": [
            {
                "src": "src",
                "dst": "rcv",
                "cc": cc,
                "label": cc,
                "group": cc,
                "start_s": 0,
                "goodput_bps": goodput,
                "throughput_bps": goodput * 1.02,
                "bytes_sent": int(goodput * 10 / 8),
                "retransmits": 10,
                "mss": 1448,
                "dest": dest,
                "intervals": [[1.0, goodput], [2.0, goodput]],
                "mean_rtt_us": 130_000 + goodput / 100,
                "min_rtt_us": 100_000,
            }
        ],
        "links": [
            {
                "link": "gw->rcv",
                "queue_packets": 1000,
                "queue_drops": 0,
                "queue_marked": 20,
                "air_packets": 990,
                "air_drops": 10 if per else 0,
            },
            {
                "link": "src->gw",
                "queue_packets": 1000,
                "queue_drops": 0,
                "queue_marked": 0,
                "air_packets": 1000,
                "air_drops": 0,
            },
        ],
        "trace": [
            {"event": "jersey_loss", "dest": dest, "cause": c, "t": 1.0} for c in causes or []
        ],
        "samples": {
            "queues": {
                "gw->rcv": [{"t": 0.5, "qlen": 5, "backlog": 7500, "packets": 10, "marked": 1}]
            },
            "ping": {
                "src->rcv": {
                    "sent": 4,
                    "received": 4,
                    "rtt": [[0.5, 92], [1, 94], [1.5, 93], [2, 93]],
                }
            },
        },
        "environment": {"kernel": "6.12.95+deb12-amd64", "module_params": {}},
        "versions": {"iperf3": "iperf 3.12"},
        "meta": {"accel": "tcg", "commit": "0123456789abcdef"},
        "backend": "netns",
    }


def test_point_metrics_of_a_synthetic_point() -> None:
    doc = fake_point("jersey", 0.01, 0, 1.5e6, causes=["wireless", "wireless", "congestion", "ecn"])
    m = metrics.point_metrics(doc)
    assert m["goodput_bps"] == 1.5e6
    assert m["ceiling_raw_bps"] == pytest.approx(1.98e6)
    assert m["ceiling_bps"] == pytest.approx(1.98e6 * 1448 / 1514)
    assert m["bottleneck"]["wireless_drop_rate"] == pytest.approx(0.01)
    assert m["flows"][0]["truth"] == "wireless"
    assert m["accuracy"] == pytest.approx(2 / 3)
    assert m["drops"]["link_share"] == 1.0
    assert m["rtt"]["src->rcv"]["jitter_ms"] == pytest.approx(1.0)
    assert m["queue"]["gw->rcv"]["qdelay_ms_p50"] == pytest.approx(30.0)


# -- resume and report ------------------------------------------------------------------


def test_resume_skips_only_finished_points_of_the_same_identity_and_kernel(
    tmp_path: Path,
) -> None:
    p = scenario.load("fig5_11").points("quick")[0]
    f = harness.point_file(tmp_path, p)
    mine = {"identity": p.identity, "versions": {"kernel": "6.12.95+deb12-amd64"}}
    assert not harness.done(f, p, "6.12.95+deb12-amd64")
    harness.write_json(f, {"status": "unavailable", **mine})
    assert not harness.done(f, p, "6.12.95+deb12-amd64")
    harness.write_json(f, {"status": "ok", **mine})
    assert harness.done(f, p, "6.12.95+deb12-amd64")
    assert f.parent.name == "runs" and f.name == f"{p.id}.json"
    # another kernel, or a result from before identities: run again
    assert not harness.done(f, p, "6.1.0-56-amd64")
    harness.write_json(f, {"status": "ok", "versions": mine["versions"]})
    assert not harness.done(f, p, "6.12.95+deb12-amd64")


def test_resume_measures_again_after_a_code_change(tmp_path: Path) -> None:
    p = scenario.load("fig5_11").points("quick")[0]
    f = harness.point_file(tmp_path, p)
    k = "6.12.95+deb12-amd64"
    head = {"commit": "a" * 40, "dirty": "no"}
    harness.write_json(
        f, {"status": "ok", "identity": p.identity, "versions": {"kernel": k}, "meta": head}
    )
    assert harness.done(f, p, k, head)
    # another commit, or uncommitted changes on either side: run again
    assert not harness.done(f, p, k, {"commit": "b" * 40, "dirty": "no"})
    assert not harness.done(f, p, k, {**head, "dirty": "yes"})
    harness.write_json(
        f,
        {
            "status": "ok",
            "identity": p.identity,
            "versions": {"kernel": k},
            "meta": {**head, "dirty": "yes"},
        },
    )
    assert not harness.done(f, p, k, head)
    # no commit to compare with (not a checkout): the identity decides
    assert harness.done(f, p, k, {})


def test_point_identity_follows_every_override_of_the_spec() -> None:
    base = scenario.load("fig5_11").points("quick")
    again = scenario.load("fig5_11").points("quick")
    assert [p.identity for p in base] == [p.identity for p in again]
    assert len({p.identity for p in base}) == len(base)
    for key, val in (("duration_s", "7"), ("modules.tcp_jersey.classify", "safe")):
        other = scenario.load("fig5_11", scenario.parse_set([f"{key}={val}"])).points("quick")
        assert [p.id for p in other] == [p.id for p in base]
        assert not {p.identity for p in other} & {p.identity for p in base}, key


def test_report_from_synthetic_runs(tmp_path: Path) -> None:
    out = tmp_path / "results"
    runs = out / "fig5_11" / "runs"
    runs.mkdir(parents=True)
    gp = {"reno": 1.2e6, "jersey": 1.8e6}
    for cc in gp:
        for per in (0.0, 0.01):
            for run, f in enumerate((1.0, 1.05, 0.97)):
                doc = fake_point(cc, per, run, gp[cc] * f * (1 - per), causes=["wireless"])
                (runs / f"{doc['point']}.json").write_text(json.dumps(doc))
    (runs / "cc=bbr,per=0,run=0.json").write_text(
        json.dumps(
            {
                "status": "unavailable",
                "values": {"cc": "bbr", "per": 0},
                "run": 0,
                "point": "x",
                "missing": ["bbr"],
            }
        )
    )
    path = report.build(out, ["fig5_11"])
    text = path.read_text()
    assert "Repeatability" in text and "| jersey | 3 |" in text and "pass" in text
    page = (out / "fig5_11" / "fig5_11.md").read_text()
    assert "| reno | 1.20 [1.16, 1.26] | 1.19 [1.15, 1.25] |" in page
    assert "n/a (bbr)" in page
    for ext in ("png", "svg"):
        assert (out / "fig5_11" / f"goodput.{ext}").stat().st_size > 1000
    summary = json.loads((out / "fig5_11" / "summary.json").read_text())
    assert summary["tables"]["goodput"]["jersey|0.01"]["runs"] == 3


def _reno_points(out: Path) -> Path:
    """3 runs of reno at 1.5 Mb/s in ``out``'s fig5_11/runs/ (returned)."""
    runs = out / "fig5_11" / "runs"
    runs.mkdir(parents=True)
    for run in range(3):
        doc = fake_point("reno", 0.0, run, 1.5e6)
        (runs / f"{doc['point']}.json").write_text(json.dumps(doc))
    return runs


def test_report_refuses_a_point_above_the_bottleneck_capacity(tmp_path: Path) -> None:
    out = tmp_path / "results"
    runs = _reno_points(out)
    # 2.5 Mb/s through the 2 Mb/s bottleneck: a bug, not a result
    bad = fake_point("jersey", 0.0, 0, 2.5e6)
    (runs / f"{bad['point']}.json").write_text(json.dumps(bad))
    m = metrics.point_metrics(bad)  # type: ignore[arg-type]
    assert m["impossible"] == "goodput 2.500 Mb/s above the bottleneck's capacity 2.000 Mb/s"
    assert "impossible" not in metrics.point_metrics(fake_point("jersey", 0.0, 0, 2.0e6))  # type: ignore[arg-type]
    report.build(out, ["fig5_11"])
    summary = json.loads((out / "fig5_11" / "summary.json").read_text())
    assert summary["counts"] == {"ok": 3, "unavailable": 0, "error": 1, "mixed": 0, "not yet": 0}
    assert "jersey|0" not in summary["tables"]["goodput"]
    page = (out / "fig5_11" / "fig5_11.md").read_text()
    assert "errors: cc=jersey,per=0,run=0: goodput 2.500 Mb/s above" in page
    assert "the guest died" not in page


def test_report_counts_the_guest_deaths_of_a_scenario(tmp_path: Path) -> None:
    out = tmp_path / "results"
    _reno_points(out)
    deaths = out / "fig5_11" / "guest-deaths"
    deaths.mkdir()
    for boot in (1, 2):
        (deaths / f"20261202T062800-boot{boot}.log").write_text("Oops: double fault\n")
    report.build(out, ["fig5_11"])
    page = (out / "fig5_11" / "fig5_11.md").read_text()
    assert "the guest died 2 time(s) in these batches" in page


def test_receiver_intervals_from_iperf3_server_text() -> None:
    from testbed.traffic.flows import _intervals

    text = (
        "[  5] local 10.1.1.2 port 5201 connected to 10.1.0.1 port 40000\n"
        "[ ID] Interval           Transfer     Bitrate\n"
        "[  5]   0.00-1.00   sec   230 KBytes  1.88 Mbits/sec                  \n"
        "[  5]   1.00-2.00   sec  0.00 Bytes  0.00 bits/sec                  \n"
        "[  5]   0.00-2.00   sec   230 KBytes   940 Kbits/sec                  receiver\n"
    )
    assert _intervals({"server_output_text": text}) == [[1.0, 1.88e6], [2.0, 0.0]]


def test_receiver_start_from_when_its_interval_lines_were_printed() -> None:
    from testbed.traffic.flows import interval_end, receiver_start

    assert interval_end("[  5]   2.00-3.00   sec   230 KBytes  1.88 Mbits/sec  \n") == 3.0
    # the summary and the other lines are no interval reports
    assert interval_end("[  5]   0.00-2.00   sec   230 KBytes   940 Kbits/sec   receiver") is None
    assert interval_end("Accepted connection from 10.1.0.1, port 40000") is None
    # lines read 10-80 ms after their interval ended (the reader's delay):
    # the start is the earliest read less its end, 1.21 s into the trial
    seen = [(2.29, 1.0), (3.22, 2.0), (4.25, 3.0), (5.21 + 0.07, 4.0)]
    assert receiver_start(seen) == pytest.approx(1.22)
    assert receiver_start([]) is None


def test_ping_and_ss_parsers() -> None:
    from testbed.measure.monitors import parse_ping, parse_ss

    ping = "[1700000000.500000] 64 bytes from 10.1.1.2: icmp_seq=3 ttl=63 time=92.4 ms\nno\n"
    assert parse_ping(ping) == [[1700000000.5, 3, 92.4]]
    ss = (
        "0      0      10.1.0.1:40000 10.1.1.2:5201\n"
        "\t cubic rtt:92.5/3.1 cwnd:12 bytes_acked:1000 bbr:(bw:1.5Mbps,mrtt:92)"
        " unacked:9 lost:2 sacked:4 rwnd_limited:120ms(4.5%) snd_wnd:65536\n"
    )
    rec = parse_ss(ss)["10.1.1.2:5201"]
    assert rec["cwnd"] == 12 and rec["srtt_ms"] == 92.5 and rec["bw_bps"] == 1.5e6
    # the flight (unacked - sacked - lost) and what limited the sender
    assert (rec["unacked"], rec["sacked"], rec["lost"]) == (9, 4, 2)
    assert rec["rwnd_limited_pct"] == 4.5 and rec["snd_wnd"] == 65536


# -- time-based fading channel ------------------------------------------------------


def test_fading_monitor_takes_over_the_named_link() -> None:
    links = topologies.links("wired_wireless", wired_mbit=100, wireless_mbit=10)
    out, fade = harness.fading_of(
        {"link": "gw->rcv", "good_s": 1, "bad_s": 0.05, "bad_loss": 0.5}, links, seed=7
    )
    i = next(i for i, lk in enumerate(out) if (lk.a, lk.b) == ("gw", "rcv"))
    assert fade.link_index == i and not fade.reverse
    assert out[i].loss is not None and out[i].loss_rev is None  # random 0: a dropper
    assert links[i].loss is None  # the topology's own list is left alone
    assert fade.to_json()["mean_loss"] == pytest.approx(0.5 * 0.05 / 1.05)
    _, rev = harness.fading_of({"link": "rcv->gw", "bad_loss": 1}, links, seed=7)
    assert rev.reverse and rev.link_index == i


@pytest.mark.parametrize(
    ("spec", "msg"),
    [
        ({"link": "gw->nowhere"}, "no link"),
        ({"link": "gw->rcv", "bad": 1}, "unknown keys"),
        ({"link": "gw->rcv"}, "own loss model"),
    ],
)
def test_fading_monitor_rejects_bad_specs(spec: dict[str, Any], msg: str) -> None:
    loss = 0.01 if msg == "own loss model" else 0
    links = topologies.links("wired_wireless", loss=loss)
    with pytest.raises(ValueError, match=msg):
        harness.fading_of(spec, links, seed=1)


def test_newrenolp_ge_runs_on_a_timed_channel() -> None:
    pts = scenario.load("newrenolp_ge").points()
    p = next(p for p in pts if p.values["bad_per"] == 1.0)
    trial = harness.trial_of(p, "netns")
    assert "fading" not in trial.samplers and trial.monitor is not None
    same_run = [q for q in pts if q.run == p.run]
    assert len({q.traffic_seed for q in same_run}) == 1  # one schedule for every scheme


def test_ceiling_of_a_faded_link_uses_the_channel_mean() -> None:
    doc = fake_point("newrenolp", 0, 0, 5e6)
    i = next(i for i, lk in enumerate(doc["links_config"]) if (lk["a"], lk["b"]) == ("gw", "rcv"))
    doc["monitor"] = {"fading": {"link_index": i, "reverse": False, "mean_loss": 0.05 / 1.05}}
    m = metrics.point_metrics(doc)
    assert m["ceiling_raw_bps"] == pytest.approx(2e6 * (1 - 0.05 / 1.05))
    doc["monitor"]["fading"]["reverse"] = True  # the other direction faded: not the ceiling's
    assert metrics.point_metrics(doc)["ceiling_raw_bps"] == pytest.approx(2e6)


def test_flow_timeout_from_the_scenario() -> None:
    p = scenario.load("satellite").points()[0]
    assert all(f.timeout_s == 330 for f in p.flows())
    q = scenario.load("fig5_11").points()[0]
    assert all(f.timeout_s is None for f in q.flows())  # iperf3's default: duration + 60 s


def test_cpu_load_from_proc_stat(tmp_path: Path) -> None:
    from testbed.measure.monitors import cpu_load, cpu_times

    stat = tmp_path / "stat"
    stat.write_text("cpu  100 0 50 800 50 0 0 0 0 0\ncpu0 1 2 3\n")
    before = cpu_times(str(stat))
    stat.write_text("cpu  160 0 90 870 60 5 5 10 0 0\n")
    after = cpu_times(str(stat))
    # 200 jiffies: 60 user + 40 system + 5 irq + 5 softirq + 10 steal busy, 70 idle + 10 iowait
    assert cpu_load(before, after) == {"busy": 0.6, "steal": 0.05}
    assert math.isnan(cpu_load(after, after)["busy"])
    assert len(cpu_times()) == 8  # this machine's own
    doc = fake_point("reno", 0.0, 0, 1.5e6)
    doc["cpu"] = {"busy": 0.6, "steal": 0.0, "cpus": 2}
    m = metrics.point_metrics(doc)  # type: ignore[arg-type]
    assert m["cpu_busy"] == 0.6 and "host_steal" not in m  # a point without the host's CPU
    doc["cpu"] |= {"host_busy": 0.9, "host_steal": 0.3}
    m = metrics.point_metrics(doc)  # type: ignore[arg-type]
    assert (m["cpu_steal"], m["host_busy"], m["host_steal"]) == (0.0, 0.9, 0.3)
    assert "host_other" not in m  # an older testbed/vm: no VM ticks
    doc["cpu"] |= {"host_vm": 0.7, "host_other": 0.2}
    m = metrics.point_metrics(doc)  # type: ignore[arg-type]
    assert (m["host_vm"], m["host_other"]) == (0.7, 0.2)


def test_a_trial_records_the_hosts_cpu_next_to_the_guests(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from testbed.measure.monitors import HOST_STAT_ENV, CpuMeter

    guest, host = tmp_path / "stat", tmp_path / "host-stat"
    guest.write_text("cpu  100 0 50 800 50 0 0 0 0 0\n")
    # testbed/vm's copy: the host's cpu line, then the time it was taken
    host.write_text("cpu  1000 0 500 8000 400 0 0 100 0 0\ntime 1700000000.000\n")
    monkeypatch.setenv(HOST_STAT_ENV, str(host))
    meter = CpuMeter(str(guest))  # the host's copy named as in the guest
    meter.start()
    guest.write_text("cpu  160 0 90 870 60 5 5 10 0 0\n")
    # 1000 jiffies: 300 user + 100 system + 250 steal busy, 300 idle + 50 iowait
    host.write_text("cpu  1300 0 600 8300 450 0 0 350 0 0\ntime 1700000001.000\n")
    assert meter.stop() == {"busy": 0.6, "steal": 0.05, "host_busy": 0.65, "host_steal": 0.25}
    # with the VM's processes' ticks and all processes' (testbed/vm's vm
    # line): of the host's 1000 ticks QEMU ran 500, the other processes 150
    host.write_text("cpu  1000 0 500 8000 400 0 0 100 0 0\nvm 7000 9000\ntime 1700000000.000\n")
    meter.start()
    host.write_text("cpu  1300 0 600 8300 450 0 0 350 0 0\nvm 7500 9650\ntime 1700000001.000\n")
    got = meter.stop()
    assert (got["host_vm"], got["host_other"]) == (0.5, 0.15)
    # a copy gone by the end (testbed/vm stopped copying), one never there,
    # none named (no VM): the host's keys are absent, not made up
    meter = CpuMeter(str(guest), str(host))
    meter.start()
    host.unlink()
    assert set(meter.stop()) == {"busy", "steal"}
    monkeypatch.delenv(HOST_STAT_ENV)
    for meter in (CpuMeter(str(guest), str(host)), CpuMeter(str(guest))):
        meter.start()
        assert set(meter.stop()) == {"busy", "steal"}


def test_safety_checks_of_the_bottlenecks_scenario() -> None:
    def rec(ours: str, gw: str, per: float, mix: str, run: int, path: str = "20M-40ms",
            **m: float) -> dict[str, Any]:  # fmt: skip
        return {"_level": "point", "path": path, "ours": ours, "gw": gw, "per": per,
                "mix": mix, "run": run, **m}  # fmt: skip

    DROP = "bottleneck.congestion_drop_rate"
    recs = []
    for run in range(5):
        recs += [
            rec("cubic", "pfifo", 0, "alone", run, **{DROP: 0.010}),
            rec("jersey", "pfifo", 0, "alone", run, **{DROP: 0.012}, accuracy=0.95),
            rec("diffc", "pfifo", 0, "alone", run, **{DROP: 0.030 + run / 1000}, accuracy=0.5),
            rec(
                "bbr",
                "vcrr",
                0.01,
                "alone",
                run,
                goodput_bps=18.6e6,
                ceiling_raw_bps=19.8e6,
                ceiling_bps=18.94e6,
            ),
            rec(
                "jersey",
                "vcrr",
                0.01,
                "alone",
                run,
                goodput_bps=18.5e6,
                ceiling_raw_bps=19.8e6,
                ceiling_bps=18.94e6,
            ),
            rec("jersey", "cw-aq", 0, "2+2cubic", run, share=1.1),
            # 5 % behind vcrr: 0.929 of bbr, below 0.97 but above 0.97 x 0.95
            rec("bbr", "vcrr", 0.05, "alone", run, goodput_bps=17.0e6),
            rec("jersey", "vcrr", 0.05, "alone", run, goodput_bps=15.8e6),
            rec("bbr", "vcrr-gamma1", 0.01, "alone", run, goodput_bps=18.0e6),
            rec("jersey", "vcrr-gamma1", 0.01, "alone", run, goodput_bps=17.0e6),
            # the short path: its own rows, which the 40 ms rows do not pool
            rec("cubic", "pfifo", 0, "alone", run, "20M-4ms", **{DROP: 0.009}),
            rec("jersey", "pfifo", 0, "alone", run, "20M-4ms", **{DROP: 0.245}, accuracy=0.2),
        ]
    text = "\n".join(report.safety_checks(recs))
    line = {(row.split("|")[1].strip(), row.split("|")[2].strip()): row for row in text.splitlines()
            if row.startswith("| ") and "criterion" not in row}  # fmt: skip
    drop = "drop-tail, PER 0, alone: congestion drop rate <= 1.5x cubic's"
    assert line[(drop, "jersey")].endswith("| <= 0.015 | pass |")
    assert "| 5 | 0.032 [0.03, 0.034] | <= 0.015 | FAIL |" in line[(drop, "diffc")]
    acc = "drop-tail, PER 0, alone: loss-classification accuracy >= 0.9"
    assert line[(acc, "jersey")].endswith("pass |") and line[(acc, "diffc")].endswith("FAIL |")
    assert line[("vcrr, PER 1 %, alone: goodput >= 0.98x bbr's", "jersey")].endswith(
        "| >= 1.823e+07 | pass |"
    )
    ceil = "vcrr, PER 1 %, alone: goodput >= 0.93 of C(1-PER)"
    assert line[(ceil + " payload/wire", "jersey")].endswith("pass |")
    # 18.5 of 19.8 Mb/s is 0.934 of the papers' ceiling; bbr's 18.6 too
    raw = ceil + ", headers counted as goodput"
    assert line[(raw, "jersey")].endswith("pass |") and line[(raw, "bbr")].endswith("pass |")
    assert line[("vcrr, PER 5 %, alone: goodput >= 0.97x bbr's", "jersey")].endswith("FAIL |")
    ref5 = "reference: vcrr, PER 5 %, alone: goodput >= 0.97x of 0.95x bbr's (its virtual capacity)"
    assert line[(ref5, "jersey")].endswith("| >= 1.567e+07 | above |")
    # behind vcrr gamma 1 the virtual capacity is the link's: 17.0 of 18.0 fails
    ref1 = "reference: vcrr gamma 1, PER 1 %, alone: goodput >= 0.98x bbr's"
    assert line[(ref1, "jersey")].endswith("| >= 1.764e+07 | below |")
    assert "Rows named *reference* are not criteria" in text
    no_vcrr = [r for r in recs if not str(r["gw"]).startswith("vcrr")]
    assert "Rows named" not in "\n".join(report.safety_checks(no_vcrr))
    # no vcrr gamma 1 point at 5 %: that row is not claimed
    assert "vcrr gamma 1, PER 5 %" not in text
    # the lossy-link goodput criteria are jersey's
    assert ("vcrr, PER 1 %, alone: goodput >= 0.98x bbr's", "diffc") not in line
    share = "cw-aq, PER 0, 20M-40ms, 2 + 2 cubic: per-flow goodput / cubic's in 0.8-1.25"
    assert line[(share, "jersey")].endswith("| 0.8 - 1.25 | pass |")
    # no bbr at drop-tail 1 %: that row is not claimed
    assert "drop-tail, PER 1 %, alone: goodput" not in text
    short = "short path (20 Mb/s, 4 ms), drop-tail, PER 0, alone: "
    assert (
        "| 5 | 0.245 [0.245, 0.245] | <= 0.0135 | FAIL |"
        in line[(short + "congestion drop rate <= 1.5x cubic's", "jersey")]
    )
    assert line[(short + "loss-classification accuracy >= 0.9", "jersey")].endswith("FAIL |")


def test_report_refuses_to_mix_commits_or_kernels_unless_told(tmp_path: Path) -> None:
    out = tmp_path / "results"
    runs = out / "fig5_11" / "runs"
    runs.mkdir(parents=True)
    for run, commit in enumerate(("a" * 40, "a" * 40, "b" * 40)):
        doc = fake_point("reno", 0.0, run, 1.5e6)
        doc["meta"] = {"commit": commit}
        doc["versions"] = {"kernel": "6.12.95+deb12-amd64"}
        (runs / f"{doc['point']}.json").write_text(json.dumps(doc))
    text = report.build(out, ["fig5_11"]).read_text()
    assert "Not reported (points from more than one commit or kernel): fig5_11." in text
    page = (out / "fig5_11" / "fig5_11.md").read_text()
    assert (
        "**not reported**: its 3 points come from 2 commit(s) (aaaaaaaaaaaa, bbbbbbbbbbbb)" in page
    )
    assert "| reno |" not in page
    report.build(out, ["fig5_11"], mixed=True)
    page = (out / "fig5_11" / "fig5_11.md").read_text()
    assert "**mixed** (reported with `--mixed`): commits aaaaaaaaaaaa, bbbbbbbbbbbb" in page
    assert "(mixed commits or kernels)" in page and "| reno | 1.50 [1.50, 1.50] |" in page
    # one commit, one kernel: reported as usual
    (runs / "cc=reno,per=0,run=2.json").unlink()
    page_text = report.build(out, ["fig5_11"]).read_text()
    assert "Not reported" not in page_text and "commit(s) aaaaaaaaaaaa" in page_text


def test_throughput_delay_scatter(tmp_path: Path) -> None:
    recs = [
        {"_level": "point", "ours": cc, "gw": "pfifo", "run": run,
         "goodput_bps": (18 + run / 10) * 1e6, "rtt.qdelay_p95_ms": d + run}
        for cc, d in (("jersey", 5.0), ("bbr", 20.0))
        for run in range(5)
    ]  # fmt: skip
    spec = {"kind": "scatter", "x": "rtt.qdelay_p95_ms", "y": "goodput_mbps",
            "series": "ours", "facet": "gw", "name": "td"}  # fmt: skip
    files = report.fig_scatter(recs, spec, {"ours": ["jersey", "bbr"]}, tmp_path)
    assert files == ["td.png", "td.svg"] and (tmp_path / "td.png").stat().st_size > 1000
    assert report.fig_scatter(recs, {**spec, "select": {"gw": "vcrr"}}, {}, tmp_path) == []
    data = scenario.load("bottlenecks").resolved()
    scenario._validate(data, "bottlenecks.toml")  # its own scatter is valid
    (fig,) = (f for f in data["report"]["figures"] if f["kind"] == "scatter")
    del fig["series"]
    with pytest.raises(scenario.ScenarioError, match="needs 'series'"):
        scenario._validate(data, "bottlenecks.toml")


def test_oracle_checks_against_the_best_other_scheme() -> None:
    def rec(cc: str, per: float, run: int, mbps: float) -> dict[str, Any]:
        return {"_level": "point", "cc": cc, "per": per, "run": run, "goodput_bps": mbps * 1e6}

    recs = []
    for run in range(5):
        recs += [
            rec("oracle", 0.01, run, 1.90 + run / 1000),
            rec("reno", 0.01, run, 1.30 + run / 1000),
            rec("bbr", 0.01, run, 1.85 + run / 1000),
            rec("oracle", 0.05, run, 1.50 + run / 1000),
            rec("bbr", 0.05, run, 1.80 + run / 1000),  # above the oracle, CIs apart
            rec("oracle", 0.1, run, 1.20 + run / 100),
            rec("jersey", 0.1, run, 1.21 + run / 100),  # above by median only
        ]
    md = report.oracle_checks("fig5_11", recs)
    rows = [r for r in md if r.startswith("| ") and "%" in r and r.count("|") == 6]
    assert len(rows) == 3
    assert rows[0].startswith("| 1% | 1.902") and "| bbr |" in rows[0]
    assert rows[0].endswith("pass |")
    assert "below bbr (20.0 %, CIs apart)" in rows[1]
    assert rows[2].endswith("pass (within the CIs of jersey) |")
    # the best by median has a wide CI that reaches the oracle's; the next is apart
    wide = [rec("oracle", 0.2, run, 1.00 + run / 100) for run in range(5)]
    wide += [rec("bbr", 0.2, run, (0.9, 1.2, 1.3, 1.4, 1.5)[run]) for run in range(5)]
    wide += [rec("jersey", 0.2, run, 1.25 + run / 100) for run in range(5)]
    (row,) = (r for r in report.oracle_checks("fig5_11", wide) if r.startswith("| 20% |")
              and r.count("|") == 6)  # fmt: skip
    assert "| bbr |" in row and row.endswith("below jersey (24.5 %, CIs apart) |")
    # no oracle measured: no table
    assert report.oracle_checks("fig5_11", [r for r in recs if r["cc"] != "oracle"]) == []


def test_oracle_report_says_why_a_scheme_lies_above_it() -> None:
    """Every scheme above the oracle (CIs apart) gets a row that reads its
    congestion from the points (drop and mark rates at the bottleneck against
    the oracle's): more of it, none answered in any run, about as much with
    a gentler answer, or congestion where the oracle caused none."""

    def point(cc: str, per: float, run: int, mbps: float, drop: float, mark: float,
              took: int | None = None) -> list[dict]:  # fmt: skip
        base = {"cc": cc, "per": per, "run": run, "_point": f"cc={cc},per={per},run={run}"}
        pt = {**base, "_level": "point", "goodput_bps": mbps * 1e6 + run * 1e3,
              "bottleneck.congestion_drop_rate": drop,
              "bottleneck.mark_rate": mark}  # fmt: skip
        counters = {} if took is None else {"decisions": 40, "claimed_congestion": took,
                                            "ecn_reactions": 0}  # fmt: skip
        return [pt, {**base, "_level": "flow", **counters}]

    recs: list[dict] = []
    for run in range(5):
        recs += point("oracle", 0.0, run, 1.75, 0.002, 0.08, took=3)
        recs += point("cubic", 0.0, run, 1.89, 0.0, 0.05)  # about as much, gentler back-off
        recs += point("jersey", 0.0, run, 1.86, 0.002, 0.08, took=4)  # also above at 0 %
        recs += point("oracle", 0.05, run, 3.87, 0.005, 0.0, took=2)
        # took a congestion loss for one in run 0 only: not "none in any run"
        recs += point("newrenolp", 0.05, run, 4.10, 0.05, 0.0, took=1 if run == 0 else 0)
        recs += point("diffc", 0.05, run, 4.20, 0.06, 0.0, took=0)  # none answered
        recs += point("oracle", 0.1, run, 3.28, 0.005, 0.0, took=1)
        recs += point("bbr", 0.1, run, 3.65, 0.013, 0.0)  # more congestion
        recs += point("oracle", 0.2, run, 2.0, 0.0, 0.0, took=0)
        recs += point("hybla", 0.2, run, 2.5, 0.001, 0.0)  # congestion the oracle did not cause
        recs += point("oracle", 0.01, run, 1.79, 0.0, 0.04, took=5)
        recs += point("reno", 0.01, run, 1.28, 0.0, 0.02)  # below the oracle: no row
    md = report.oracle_checks("balde", recs)
    verdict = next(r for r in md if r.startswith("| 0% |") and r.count("|") == 6)
    assert "below cubic (8.0 %, CIs apart); 1 more above it: jersey |" in verdict
    rows = {
        tuple(c.strip() for c in r.split("|")[1:3]): r
        for r in md
        if r.count("|") == 8 and "%" in r and not r.startswith("| PER")
    }
    assert set(rows) == {
        ("0%", "oracle"), ("0%", "cubic"), ("0%", "jersey"), ("5%", "oracle"),
        ("5%", "diffc"), ("5%", "newrenolp"), ("10%", "oracle"), ("10%", "bbr"),
        ("20%", "oracle"), ("20%", "hybla"),
    }  # fmt: skip
    assert "| 1.752 | 0.20 | 8.00 | 3 | Reno's answer" in rows[("0%", "oracle")]
    assert "about as much congestion as the oracle (0.6x its rate); cubic" in rows[("0%", "cubic")]
    assert "| 4 | caused about as much congestion as the oracle (1.0x" in rows[("0%", "jersey")]
    assert "| 6.00 | 0.00 | 0 | answered none of its congestion in any run" in rows[("5%", "diffc")]
    assert "more congestion than the oracle (10.0x its rate)" in rows[("5%", "newrenolp")]
    assert "more congestion than the oracle (2.6x its rate); bbr" in rows[("10%", "bbr")]
    assert "| - |" in rows[("10%", "bbr")]  # a kernel scheme counts no responses
    assert "caused congestion where the oracle caused none" in rows[("20%", "hybla")]
    assert "inf" not in "\n".join(md)
    # every scheme at or below the oracle: no explanation
    below = [r for r in recs if r["per"] == 0.01]
    assert not any("reading" in r for r in report.oracle_checks("balde", below))


def test_tcp_queueing_delay_above_the_paths_smallest_rtt() -> None:
    """A flow's queueing delay is its mean RTT above the smallest any flow saw
    on the same path (another scheme's, another run's), not above its own
    minimum; the point's scheme's flows give ``scheme.*``; flows without
    RTTs and points mixing schemes give nothing."""

    def doc(cc: str, run: int, flows: list[tuple[str, str, float | None, float | None]],
            per: float = 0.0) -> dict:  # fmt: skip
        fl = [{"label": lb, "cc": fcc, "src": "src", "dst": "rcv", "mean_rtt_us": mean,
               "min_rtt_us": low} for lb, fcc, mean, low in flows]  # fmt: skip
        return {
            "status": "ok", "values": {"cc": cc, "per": per}, "run": run,
            "point": f"cc={cc},per={per},run={run}",
            "flows": fl,
            "metrics": {"flows": [{"label": f["label"], "cc": f["cc"], "group": f["cc"],
                                   "goodput_bps": 1e6} for f in fl]},
        }  # fmt: skip

    docs = [
        # fills the queue in slow start: its own minimum is 200 ms, the path's 100
        doc("diffc", 0, [("diffc", "diffc", 208e3, 200e3)]),
        doc("vegas", 0, [("vegas", "vegas", 110e3, 100e3)]),
        # two flows, one without RTTs (its sender's report missing)
        doc("jersey", 0, [("j1", "jersey", 150e3, 140e3), ("j2", "jersey", None, None)]),
        # another path (another PER here): its own smallest RTT
        doc("diffc", 0, [("diffc", "diffc", 300e3, 250e3)], per=0.05),
    ]
    recs = report.records(docs)  # type: ignore[arg-type]
    pts = {(r["cc"], r["per"]): r for r in recs if r["_level"] == "point"}
    assert pts[("diffc", 0.0)]["scheme.tcp_qdelay_ms"] == pytest.approx(108.0)
    assert pts[("vegas", 0.0)]["scheme.tcp_qdelay_ms"] == pytest.approx(10.0)
    assert pts[("jersey", 0.0)]["scheme.tcp_qdelay_ms"] == pytest.approx(50.0)
    assert pts[("jersey", 0.0)]["scheme.goodput_bps"] == 2e6  # both flows' goodput
    assert pts[("diffc", 0.05)]["scheme.tcp_qdelay_ms"] == pytest.approx(50.0)
    flows = {r["flow"]: r for r in recs if r["_level"] == "flow"}
    assert (
        flows["j1"]["tcp_qdelay_ms"] == pytest.approx(50.0) and "tcp_qdelay_ms" not in flows["j2"]
    )
    # a point of 2 reno flows with one of the scheme's: the scheme's flow only
    mixed = doc("jersey", 1, [("r1", "reno", 400e3, 100e3), ("j", "jersey", 120e3, 110e3)])
    (pt,) = (r for r in report.records([*docs, mixed]) if r["_point"] == mixed["point"]
             and r["_level"] == "point")  # type: ignore[list-item]  # fmt: skip
    assert pt["scheme.tcp_qdelay_ms"] == pytest.approx(20.0) and pt["scheme.goodput_bps"] == 1e6
    # a variant (soho's jersey-ack) beside Reno cross traffic: its flow, by label
    variant = doc("x", 0, [("jersey-ack", "jersey", 130e3, 120e3), ("c1", "reno", 1e6, 100e3)])
    variant["values"] = {"variant": "jersey-ack", "per": 0.0}
    (pt,) = (r for r in report.records([*docs, variant]) if r["_point"] == variant["point"]
             and r["_level"] == "point")  # type: ignore[list-item]  # fmt: skip
    assert pt["scheme.tcp_qdelay_ms"] == pytest.approx(30.0) and pt["scheme.goodput_bps"] == 1e6
    # a scheme axis value none of the flows runs, flows of two others: nothing
    other = doc("bbr", 0, [("r1", "reno", 400e3, 100e3), ("c", "cubic", 120e3, 110e3)])
    (pt,) = (r for r in report.records([other]) if r["_level"] == "point")  # type: ignore[list-item]
    assert "scheme.tcp_qdelay_ms" not in pt and "scheme.goodput_bps" not in pt


# -- statistics, per-kernel results, scorecard, figures, calibration ------------------------


@pytest.mark.parametrize("name", ALL)
def test_every_scenario_runs_at_least_five_runs_per_point(name: str) -> None:
    sc = scenario.load(name)
    assert int(sc.resolved().get("runs", 1)) >= 5, name
    pts = sc.points()
    per_key: dict[Any, int] = {}
    for p in pts:
        per_key[p.key] = per_key.get(p.key, 0) + 1
    assert min(per_key.values()) >= 5, name


@pytest.mark.parametrize("name", ALL)
def test_titles_name_papers_not_file_numbers(name: str) -> None:
    data = scenario.load(name).resolved()
    texts = [data["title"], data.get("paper", ""), data.get("description", "")]
    texts += [f.get("title", "") for f in data.get("report", {}).get("figures", [])]
    texts += [t.get("title", "") for t in data.get("report", {}).get("tables", [])]
    for text in texts:
        # "(004 fig 6)", "002_...": the papers' file numbers (not "0.001%")
        assert not re.search(r"(?<![\d.])00[0-4](?![\d.%])", text), (name, text)


def _write_points(runs: Path, kernel: str, commit: str, gp: float) -> None:
    runs.mkdir(parents=True)
    for cc in ("reno", "jersey"):
        for run in range(3):
            doc = fake_point(cc, 0.01, run, gp * (1 + run / 100), causes=["wireless"])
            doc["versions"] = {"kernel": kernel, "iperf3": "iperf 3.12"}
            doc["meta"] = {"accel": "tcg", "commit": commit}
            (runs / f"{doc['point']}.json").write_text(json.dumps(doc))


def test_report_says_which_points_are_not_measured_yet(tmp_path: Path) -> None:
    """After a `run --budget` sitting (or an interrupted run) the last run's
    points without a result are counted on the page and in both indexes."""
    out = tmp_path / "results"
    sdir = out / "6.12" / "fig5_11"
    _write_points(sdir / "runs", "6.12.95+deb12-amd64", "a" * 40, 1.5e6)
    ids = sorted(p.stem for p in (sdir / "runs").glob("*.json"))
    later = ["cc=bbr,per=0.01,run=0", "cc=bbr,per=0.01,run=1"]
    (sdir / "scenario.json").write_text(json.dumps({"name": "fig5_11", "points": ids + later}))
    report.build(out, ["fig5_11"])
    page = (sdir / "fig5_11.md").read_text()
    assert "- **incomplete**: 2 of the last run's 8 points not measured yet" in page
    assert "| 6 / 0 / 0 (2 not yet) |" in (out / "6.12" / "report.md").read_text()
    assert "| 6 / 0 / 0 (2 not yet) |" in (out / "report.md").read_text()
    # all of them measured: nothing said
    (sdir / "scenario.json").write_text(json.dumps({"name": "fig5_11", "points": ids}))
    report.build(out, ["fig5_11"])
    assert "incomplete" not in (sdir / "fig5_11.md").read_text()
    assert "not yet" not in (out / "report.md").read_text()


def test_report_per_kernel_directories_and_their_index(tmp_path: Path) -> None:
    out = tmp_path / "results"
    _write_points(out / "6.12" / "fig5_11" / "runs", "6.12.95+deb12-amd64", "a" * 40, 1.5e6)
    _write_points(out / "6.1" / "fig5_11" / "runs", "6.1.0-56-amd64", "b" * 40, 1.2e6)
    # the flat layout of earlier versions next to them, and a directory that
    # is no kernel's (make demo OUT=results/demo)
    _write_points(out / "fig5_11" / "runs", "6.12.90+deb12-amd64", "c" * 40, 1.0e6)
    (out / "demo" / "fig5_11" / "runs").mkdir(parents=True)
    assert [d.name for d in report.kernel_dirs(out)] == ["6.1", "6.12"]
    path = report.build(out, ["fig5_11"])
    assert path == out / "report.md"
    text = path.read_text()
    assert "[6.12/report.md](6.12/report.md)" in text and "[6.1/report.md](6.1/report.md)" in text
    row = next(ln for ln in text.splitlines() if ln.startswith("| 6.12 |"))
    assert "6.12.95+deb12-amd64" in row and "aaaaaaaaaaaa" in row and "| 6 / 0 / 0 |" in row
    assert "Kernels: 6.1.0-56-amd64, 6.12.95+deb12-amd64." in text
    assert "Commits: aaaaaaaaaaaa, bbbbbbbbbbbb." in text
    assert f"[{report.FLAT_PAGE}]({report.FLAT_PAGE})" in text
    # each kernel's own report and pages, not mixed with the other's
    k612 = (out / "6.12" / "report.md").read_text()
    assert "Kernel(s): 6.12.95+deb12-amd64" in k612 and "Not reported" not in k612
    page = (out / "6.1" / "fig5_11" / "fig5_11.md").read_text()
    assert "| jersey | 1.21 [1.20, 1.22] |" in page
    assert "cccccccccccc" in (out / report.FLAT_PAGE).read_text()
    # a kernel directory alone, or the flat layout alone: reported as before
    assert report.build(out / "6.1", ["fig5_11"]) == out / "6.1" / "report.md"
    flat = tmp_path / "flat"
    _write_points(flat / "fig5_11" / "runs", "6.12.95+deb12-amd64", "a" * 40, 1.5e6)
    assert "Repeatability" in report.build(flat, ["fig5_11"]).read_text()
    # a fresh clone: one kernel's points are gone (runs/ is not tracked), its
    # published report stays, and the index still lists it
    kept = (out / "6.1" / "report.md").read_text()
    shutil.rmtree(out / "6.1" / "fig5_11" / "runs")
    report.build(out, ["fig5_11"])
    assert (out / "6.1" / "report.md").read_text() == kept
    assert "Kernels: 6.1.0-56-amd64, 6.12.95+deb12-amd64." in (out / "report.md").read_text()


def _card_recs() -> list[dict[str, Any]]:
    """bottlenecks-like records: 2 of ``ours`` + 2 Cubic per point, 5 runs."""
    recs: list[dict[str, Any]] = []
    for ours, norm, qd, acc, cubic_gp in (
        ("jersey", 0.9, 20.0, 0.8, 4e6),
        ("cubic", 0.7, 150.0, None, 5e6),
    ):
        tcp_qd = qd / 2 + 2  # TCP's own RTT above its minimum: 12 ms, 77 ms
        for run in range(5):
            pid = f"ours={ours},mix=2+2cubic,run={run}"
            base = {"ours": ours, "mix": "2+2cubic", "run": run, "_point": pid}
            recs.append({**base, "_level": "point", "group": "all", "_competitor": "cubic",
                         "goodput_norm": norm + run / 1000, "rtt.qdelay_p95_ms": qd,
                         "scheme.tcp_qdelay_ms": tcp_qd,
                         "window.jain": 0.95, "jain": 0.5, "accuracy": acc,
                         "decisions": 10})  # fmt: skip
            recs.append({**base, "_level": "group", "group": "ours", "_scheme": ours,
                         "goodput_mean_bps": 5e6})  # fmt: skip
            recs.append({**base, "_level": "group", "group": "cubic", "_scheme": "cubic",
                         "goodput_mean_bps": cubic_gp + run * 1e3})  # fmt: skip
            for i in range(4):
                recs.append({**base, "_level": "flow", "flow": f"f{i}"})
    return recs


def test_scorecard_one_row_per_scheme_with_bars() -> None:
    axes = {"mix": ["2+2cubic"], "ours": ["jersey", "cubic"]}
    md, data = report.scorecard(_card_recs(), axes)
    rows = {ln.split("|")[1].strip(): ln for ln in md if ln.startswith("| ") and "---" not in ln}
    assert rows["ours"].startswith("| ours | utilisation | p95 queueing delay (ms) |")
    jersey = [c.strip() for c in rows["jersey"].split("|")[2:-1]]
    assert jersey[0] == "0.90 [0.90, 0.90] pass"
    assert jersey[1] == "20.0 [20.0, 20.0] pass"
    assert jersey[2] == "12.0 [12.0, 12.0]"  # TCP's delay: measured everywhere, no bar
    assert jersey[3] == "0.950 [0.950, 0.950] pass"  # the window's index, not the whole run's
    # cubic's per-flow goodput next to jersey (4 Mb/s) vs next to cubic (median 5.002)
    assert jersey[4].startswith("0.20 [0.20, 0.20]") and "pass" not in jersey[4]
    assert jersey[5] == "0.80 [0.80, 0.80] pass; 50 decisions"
    cubic = [c.strip() for c in rows["cubic"].split("|")[2:-1]]
    assert cubic[0].endswith("FAIL") and cubic[1].endswith("FAIL") and cubic[5] == "-"
    assert cubic[2] == "77.0 [77.0, 77.0]" and cubic[4].startswith("0.00 [")
    assert (
        data["jersey"]["accuracy"]["decisions"] == 50
        and data["cubic"]["utilisation"]["pass"] is False
    )
    assert report.SCORECARD_BARS == {
        "utilisation": (">=", 0.8),
        "qdelay_p95_ms": ("<=", 100.0),
        "jain": (">=", 0.9),
        "accuracy": (">=", 0.7),
    }
    # one flow per point: no Jain's index; no share metric: no harm
    one = [r for r in _card_recs() if r["_level"] != "flow" or r["flow"] == "f0"]
    for r in one:
        r.pop("_competitor", None)
    md, data = report.scorecard(one, axes)
    row = next(ln for ln in md if ln.startswith("| jersey |"))
    assert [c.strip() for c in row.split("|")[2:-1]][3:5] == ["-", "-"]
    # alone (one flow, Jain 1 by definition) pooled with the mix: the mix's index only
    alone = [
        {"_level": "point", "_point": f"ours=jersey,mix=alone,run={run}", "ours": "jersey",
         "mix": "alone", "run": run, "goodput_norm": 0.9, "window.jain": 1.0}
        for run in range(5)
    ]  # fmt: skip
    alone += [{**r, "_level": "flow", "flow": "f0"} for r in alone]
    md, data = report.scorecard([*_card_recs(), *alone], {**axes, "mix": ["2+2cubic", "alone"]})
    assert data["jersey"]["jain"]["median"] == 0.95 and data["jersey"]["jain"]["runs"] == 5
    # no scheme axis: no scorecard
    assert report.scorecard(_card_recs(), {"mix": ["2+2cubic"]}) == ([], {})


def test_scorecard_on_a_scenario_page(tmp_path: Path) -> None:
    _write_points(tmp_path / "fig5_11" / "runs", "6.12.95+deb12-amd64", "a" * 40, 1.5e6)
    report.build(tmp_path, ["fig5_11"])
    page = (tmp_path / "fig5_11" / "fig5_11.md").read_text()
    assert "## Scorecard" in page and "| cc | utilisation |" in page
    # 1.5 Mb/s of 2: utilisation 0.75..0.76, below the bar; one wireless decision per run
    assert "| reno | 0.76 [0.75, 0.77] FAIL |" in page
    summary = json.loads((tmp_path / "fig5_11" / "summary.json").read_text())
    assert summary["scorecard"]["jersey"]["accuracy"]["decisions"] == 3
    # TCP's own RTT above its minimum: 30 ms + goodput / 100 us (45.0..45.3 ms)
    assert summary["scorecard"]["reno"]["tcp_qdelay_ms"]["median"] == pytest.approx(45.15)
    # every scenario with a scheme axis gets Pantheon's throughput-delay plot
    assert ["throughput_delay.png", "throughput_delay.svg"] in summary["figures"]
    assert "![throughput_delay.png](throughput_delay.png)" in page
    assert (tmp_path / "fig5_11" / "throughput_delay.png").stat().st_size > 10_000


def test_throughput_delay_plot_per_scheme_and_condition() -> None:
    """One panel per combination of the other sweep values, the scheme axis
    as series; none where a scenario draws its own scatter, has no scheme
    axis or no RTTs."""
    recs = [
        {"_level": "point", "cc": cc, "per": per, "mix": mix, "run": run,
         "goodput_bps": 1e6, "scheme.tcp_qdelay_ms": 20.0}
        for cc in ("reno", "jersey") for per in (0, 0.01) for mix in ("a", "b")
        for run in range(3)
    ]  # fmt: skip
    axes = {"cc": ["reno", "jersey"], "per": [0, 0.01], "mix": ["a", "b"]}
    drawn, spec, with_cond = report.throughput_delay(recs, axes, [])  # type: ignore[misc]
    assert (
        spec["series"] == "cc" and spec["facet"] == "_cond" and spec["x"] == "scheme.tcp_qdelay_ms"
    )
    assert with_cond["_cond"] == ["per = 0%, mix = a", "per = 0%, mix = b",
                                  "per = 1%, mix = a", "per = 1%, mix = b"]  # fmt: skip
    assert {r["_cond"] for r in drawn} == set(with_cond["_cond"]) and len(drawn) == 24
    assert report.throughput_delay(recs, axes, [{"kind": "scatter"}]) is None
    assert report.throughput_delay(recs, {"per": [0, 0.01], "mix": ["a", "b"]}, []) is None
    no_rtt = [{k: v for k, v in r.items() if k != "scheme.tcp_qdelay_ms"} for r in recs]
    assert report.throughput_delay(no_rtt, axes, []) is None


def test_accuracy_cells_give_their_decisions() -> None:
    recs = [{"_level": "point", "cc": "jersey", "per": 0.01, "run": r, "accuracy": 0.9,
             "decisions": 10 + r} for r in range(3)]  # fmt: skip
    recs.append({"_level": "point", "cc": "jersey", "per": 0.01, "run": 3, "accuracy": None,
                 "decisions": 99})  # fmt: skip
    text, data = report.table(recs, {"rows": "cc", "cols": "per", "value": "accuracy",
                                     "fmt": ".2f"}, {}, {})  # fmt: skip
    assert "| jersey | 0.90 [0.90, 0.90]; 33 decisions |" in text
    assert data["jersey|0.01"]["decisions"] == 33
    assert report.decisions_metric("group.accuracy") == "group.decisions"
    assert report.decisions_metric("goodput_mbps") is None


def test_facets_wrap_and_share_their_y_axis() -> None:
    assert report.facet_grid(1, 6.4) == (1, 1)
    assert report.facet_grid(3, 6.4) == (1, 3)
    assert report.facet_grid(4, 6.4) == (2, 3)
    assert report.facet_grid(7, 4.8) == (2, 4)
    fig, axs = report.subplots(7, 4.8, 4.2)
    assert len(axs) == 7 and fig.get_size_inches()[0] <= report.MAX_FIG_WIDTH_IN
    assert all(axs[0].get_shared_y_axes().joined(axs[0], ax) for ax in axs)
    report._plt().close(fig)


def test_tick_labels_rotate_and_thin_when_crowded() -> None:
    assert report.tick_plan(["0%", "1%", "5%"], 5.0) == (["0%", "1%", "5%"], 0)
    long = [f"fq_codel-ecn-{i}" for i in range(7)]
    shown, rot = report.tick_plan(long, 5.0)
    assert rot == 45 and shown == long  # rotated, every one fits
    many = [f"x{i}" for i in range(60)]
    shown, rot = report.tick_plan(many, 5.0)
    assert rot == 45 and 0 < sum(bool(t) for t in shown) <= 5.0 / report.ROTATED_IN + 1
    assert report.tick_plan(["0%", "1%"], 5.0, rotate=True)[1] == 45
    # unevenly spaced ticks (log scale): one too close to the last kept is blank
    sat = ["1e-07", "1e-06", "1e-05", "5e-05", "0.0001", "0.00012"]
    at = [0.0, 1.6, 3.2, 4.3, 4.8, 4.93]
    assert report.spaced_labels(sat, at, 0.25) == ["1e-07", "1e-06", "1e-05", "5e-05", "0.0001", ""]
    assert report.spaced_labels(["a", "", "c"], [0.0, 1.0, 1.1], 0.25) == ["a", "", "c"]
    # 14 schemes in one figure: 14 colours, the first ten matplotlib's own
    colors = [report.series_color(i) for i in range(14)]
    assert len({str(c) for c in colors}) == 14
    assert report.series_color(3) == "C3" and "black" not in colors


def _captured(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    figs: list[Any] = []

    def save(fig: Any, sdir: Path, name: str) -> list[str]:
        figs.append(fig)
        return [f"{name}.png", f"{name}.svg"]

    monkeypatch.setattr(report, "_save", save)
    return figs


def _friendly_recs() -> list[dict[str, Any]]:
    recs: list[dict[str, Any]] = []
    for ours in ("jersey", "cubic"):
        for per in (0, 0.001):
            for run in range(3):
                pid = f"ours={ours},per={per},mix=10/10,run={run}"
                base = {"ours": ours, "per": per, "mix": "10/10", "run": run, "_point": pid}
                recs.append({**base, "_level": "point", "group": "all", "capacity_bps": 20e6})
                for g, cc, gp in (("reno", "reno", 0.9e6), ("ours", ours, 1.1e6)):
                    recs.append({**base, "_level": "group", "group": g, "_scheme": cc,
                                 "goodput_mean_bps": gp})  # fmt: skip
                    recs += [{**base, "_level": "flow", "group": g, "flow": f"{g}#{i}"}
                             for i in range(10)]  # fmt: skip
    return recs


def test_friendliness_figure_names_schemes_and_draws_the_fair_share(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    figs = _captured(monkeypatch)
    spec = {"kind": "bars", "x": "mix", "series": "group", "facet": "per", "ceiling": True,
            "select": {"ours": "jersey"}, "y": "goodput_mean_kbps",
            "xlabel": "Reno flows / jersey flows"}  # fmt: skip
    assert report.fig_lines_or_bars(_friendly_recs(), spec, {}, tmp_path)
    (fig,) = figs
    assert fig.get_size_inches()[0] <= report.MAX_FIG_WIDTH_IN
    for ax in fig.axes:
        labels = [t.get_text() for t in ax.get_legend().get_texts()]
        assert sorted(labels) == ["fair share C / flows", "jersey", "reno"]
        (line,) = (c for c in ax.collections if c.get_label() == "fair share C / flows")
        assert line.get_linestyle()[0][1] is not None  # dashed
        assert [seg[0][1] for seg in line.get_segments()] == [pytest.approx(1000.0)]
    # the other scheme along the x axis: named by the x axis, never "ours"
    spec = {**spec, "x": "ours", "select": {"mix": "10/10"}, "xlabel": "scheme sharing with Reno"}
    report.fig_lines_or_bars(_friendly_recs(), spec, {}, tmp_path)
    labels = [t.get_text() for t in figs[1].axes[0].get_legend().get_texts()]
    assert sorted(labels) == ["fair share C / flows", "reno", "scheme sharing with Reno"]
    for f in figs:
        report._plt().close(f)


def test_wide_figures_wrap_and_accuracy_plots_count_decisions(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    figs = _captured(monkeypatch)
    gws = [f"gw{i}" for i in range(7)]
    recs = [
        {"_level": "point", "_point": f"p{gw}{cc}{run}", "ours": cc, "gw": gw, "run": run,
         "goodput_bps": 18e6, "rtt.qdelay_p95_ms": 5.0 + run, "accuracy": 0.9, "decisions": 4}
        for gw in gws for cc in ("jersey", "bbr") for run in range(3)
    ]  # fmt: skip
    scatter = {"kind": "scatter", "x": "rtt.qdelay_p95_ms", "y": "goodput_mbps",
               "series": "ours", "facet": "gw"}  # fmt: skip
    assert report.fig_scatter(recs, scatter, {}, tmp_path)
    bars = {"kind": "bars", "x": "ours", "y": "accuracy", "facet": "gw"}
    assert report.fig_lines_or_bars(recs, bars, {}, tmp_path)
    for fig in figs:
        assert fig.get_size_inches()[0] <= report.MAX_FIG_WIDTH_IN
        shown = [ax for ax in fig.axes if ax.get_visible()]
        assert len(shown) == 7
        assert all(shown[0].get_shared_y_axes().joined(shown[0], ax) for ax in shown)
    notes = [t.get_text() for t in figs[1].axes[0].texts]
    assert notes == ["12", "12"]  # 3 runs x 4 decisions beside each accuracy
    for f in figs:
        report._plt().close(f)


def test_calibration_table_compares_medians_with_the_parallel_ci() -> None:
    def rec(cc: str, run: int, mbps: float) -> dict[str, Any]:
        return {"_level": "point", "_point": f"cc={cc},per=0.01,run={run}", "cc": cc,
                "run": run, "goodput_bps": mbps * 1e6}  # fmt: skip

    at_n = [rec("reno", r, 1.00 + r / 100) for r in range(5)]
    at_n += [rec("jersey", r, 1.50 + r / 100) for r in range(5)]
    at_n += [rec("bbr", r, 1.8) for r in range(5)]
    at_n += [rec("cubic", r, 1.3) for r in range(2)]
    at_1 = [rec("reno", r, 1.02 + r / 1000) for r in range(5)]
    at_1 += [rec("jersey", r, 1.80 + r / 100) for r in range(5)]
    at_1 += [rec("cubic", r, 1.3) for r in range(2)]
    md = report.calibration_table("fig5_11", 12, at_n, at_1)
    rows = {ln.split("|")[1].strip(): ln for ln in md if ln.startswith("| cc=")}
    assert rows["cc=reno,per=0.01"].endswith("| agree |")
    assert (
        "| 1.02 [1, 1.04] | 1.022 [1.02, 1.024] | 1.002 [0.983, 1.022] |"
        in rows["cc=reno,per=0.01"]
    )
    assert rows["cc=jersey,per=0.01"].endswith("| differs: lower parallel |")
    assert rows["cc=bbr,per=0.01"].endswith("| missing at parallel 1 |")
    assert rows["cc=cubic,per=0.01"].endswith("| no CI at parallel 12 (n=2) |")
    assert md[0] == "## fig5_11: goodput_mbps, parallel 12 vs 1"
    # the same five runs reordered, and five of one distribution against five of
    # another just past the first's range: ratio CIs that hold 1
    same = [1.736, 1.786, 1.774, 1.75, 1.78]
    a, b = ([rec("x", r, v) for r, v in enumerate(xs)] for xs in (same, same[::-1]))
    assert report.calibration_rows(12, a, b)[0][0][-1] == "agree"
    ci = report.ratio_ci([1.736, 1.75, 1.774, 1.78, 1.786], [1.732, 1.76, 1.787, 1.79, 1.806])
    assert ci is not None and ci[0] < 1 < ci[1]
    # the jersey rows: parallel 1 is 1.19 times parallel 12, all resamples above 1
    ci = report.ratio_ci([1.50, 1.51, 1.52, 1.53, 1.54], [1.80, 1.81, 1.82, 1.83, 1.84])
    assert ci is not None and 1.15 < ci[0] < ci[1] < 1.25
    assert report.ratio_ci([1.0, 1.1], [1.0, 1.1, 1.2]) is None  # fewer than 3 runs
    assert "Verdicts: agree 1, differs: lower parallel 1, missing at parallel 1 1, " in md[-2]


def test_scenario_page_takes_its_sweep_and_time_from_the_points() -> None:
    # a scenario run as two --set subsets: scenario.json keeps the last one's sweep
    last = {"gw": ["cw-aq", "vcrr"], "per": [0.01], "ours": ["jersey", "bbr"]}
    docs: list[Any] = [
        {"values": {"gw": "pfifo", "per": 0.0, "ours": "cubic"}, "wall_s": 40.0, "parallel": 2},
        {"values": {"gw": "pfifo", "per": 0.01, "ours": "cubic"}, "wall_s": 40.0, "parallel": 2},
        {"values": {"gw": "vcrr", "per": 0.01, "ours": "bbr"}, "wall_s": 36.0, "parallel": 2},
        {"values": {"gw": "cw-aq", "per": 0.01, "ours": "jersey"}, "wall_s": 36.0, "parallel": 2},
        {"values": {"gw": "vcrr", "per": 0.01, "ours": "jersey"}, "parallel": 2},
    ]
    assert report.point_axes(docs, last) == {
        "gw": ["cw-aq", "vcrr", "pfifo"],
        "per": [0.01, 0.0],
        "ours": ["jersey", "bbr", "cubic"],
    }
    assert report.point_wall_s(docs) == pytest.approx(76.0)
    assert report.point_wall_s([{"values": {}}]) is None


def test_a_scenario_page_names_the_module_parameters_a_variant_sets() -> None:
    # reverse_aiad: jersey-ack loads tcp_jersey with estimator=ack, every other
    # variant with ts; the page once showed the first point's (ts) as everyone's
    def point(variant: str, estimator: str, nflows: int) -> Any:
        mp = {"tcp_jersey": {"classify": "paper", "estimator": estimator}, "sch_cw": {}}
        return {"values": {"variant": variant, "nflows": nflows},
                "environment": {"module_params": mp}}  # fmt: skip

    docs = [point(v, "ack" if v == "jersey-ack" else "ts", n)
            for v in ("jersey-ack", "jersey-ts", "reno") for n in (1, 5)]  # fmt: skip
    axes = {"variant": ["jersey-ack", "jersey-ts", "reno"], "nflows": [1, 5]}
    line = report.module_params_line(docs, axes)
    assert line == (
        '- module parameters: `{"tcp_jersey": {"classify": "paper"}, "sch_cw": {}}`; set per '
        "point: `tcp_jersey.estimator` ack in 2 points (variant jersey-ack), ts in 4 points "
        "(variant jersey-ts, reno)"
    )
    same = [point("jersey", "auto", n) for n in (1, 5)]
    assert report.module_params_line(same, {"nflows": [1, 5]}) == (
        '- module parameters: `{"tcp_jersey": {"classify": "paper", "estimator": "auto"}, '
        '"sch_cw": {}}`'
    )


def _two_invocations(sdir: Path) -> None:
    """fig5_11 points of two invocations with other ``--set`` subsets in
    ``sdir``, its scenario.json and status.json the last one's: first cc =
    reno, jersey at PER 0 and 1 %, 3 runs of 20 s, two at a time (one of
    them an error, bbr unavailable); a day later cc = cubic at PER 0.1 %, 5
    runs of 10 s, all five at once in a pool of 12."""
    runs = sdir / "runs"
    runs.mkdir(parents=True)
    t0 = 1_796_000_000.0

    def put(doc: dict[str, Any], started: float, parallel: int, duration: int) -> None:
        doc.update(started=started, wall_s=40.0, parallel=parallel, profile="full")
        doc["spec"]["duration_s"] = duration
        (runs / f"{doc['point']}.json").write_text(json.dumps(doc))

    i = 0
    for run in range(3):
        for cc in ("reno", "jersey"):
            for per in (0.0, 0.01):
                doc = fake_point(cc, per, run, 1.5e6)
                if (cc, per, run) == ("jersey", 0.01, 2):
                    doc["status"], doc["error"] = "error", "RuntimeError: flows failed"
                put(doc, t0 + (i // 2) * 40, 2, 20)
                i += 1
    bbr = {"status": "unavailable", "values": {"cc": "bbr", "per": 0.0}, "run": 0,
           "point": "cc=bbr,per=0,run=0", "missing": ["bbr"],
           "spec": {"duration_s": 20}}  # fmt: skip
    (runs / "cc=bbr,per=0,run=0.json").write_text(json.dumps(bbr))
    for run in range(5):
        put(fake_point("cubic", 0.001, run, 1.5e6), t0 + 86400, 12, 10)
    last = scenario.load("fig5_11", {"sweep": {"cc": ["cubic"], "per": [0.001]}, "runs": 5})
    (sdir / "scenario.json").write_text(json.dumps(
        {"name": "fig5_11", "profile": "full", "resolved": last.resolved(),
         "points": [p.id for p in last.points()]}
    ))  # fmt: skip
    (sdir / "status.json").write_text(json.dumps({"scenario": "fig5_11", "points": 5, "ok": 5,
                                                  "wall_s": 61.0, "parallel": 12}))  # fmt: skip


def test_a_scenario_page_of_several_invocations_describes_every_point(tmp_path: Path) -> None:
    sdir = tmp_path / "results" / "6.12" / "fig5_11"
    _two_invocations(sdir)
    report.build(tmp_path / "results", ["fig5_11"])
    page = (sdir / "fig5_11.md").read_text().splitlines()
    # every value of the points, in the scenario file's order (not the last sweep's)
    assert "- sweep: cc = reno, cubic, bbr, jersey; per = 0%, 0.1%, 1%" in page
    # durations, runs and counts of the points, not of the last invocation
    assert (
        "- 10 or 20 s per point; runs: 5 (1 combination of values), 3 (4), 1 (1); "
        "points at a time: 12 (5 points), 2 (11 points); profile full"
    ) in page
    assert "- points: 18 (16 ok, 1 unavailable, 1 errors)" in page
    summary = json.loads((sdir / "summary.json").read_text())
    assert summary["counts"] == {"ok": 16, "unavailable": 1, "error": 1, "mixed": 0, "not yet": 0}
    # values the scenario file does not name: after its own, sorted
    docs: list[Any] = [{"values": {"per": p, "x": x}} for p, x in
                       ((0.2, "b"), (0.01, "a"), (0.15, "c"), (0, "a"))]  # fmt: skip
    assert report.point_axes(docs, {"per": [0.01, 0]}) == {
        "per": [0.01, 0, 0.15, 0.2],
        "x": ["a", "b", "c"],
    }


def test_the_time_of_a_scenarios_points_counts_points_run_together_once(tmp_path: Path) -> None:
    # three points two at a time: two together, then the third alone (80 s,
    # not 3 x 40 / 2); a day later five at once in a pool of 12 (40 s, not 5 x 40 / 12)
    t0 = 1_796_000_000.0
    docs: list[Any] = [
        {"started": t0, "wall_s": 40.0, "parallel": 2},
        {"started": t0 + 1, "wall_s": 40.0, "parallel": 2},
        {"started": t0 + 40.5, "wall_s": 39.5, "parallel": 2},
        *({"started": t0 + 86400 + i / 10, "wall_s": 40.0 - i / 10, "parallel": 12}
          for i in range(5)),
        {"status": "unavailable", "missing": ["bbr"]},  # no time
    ]  # fmt: skip
    assert report.point_wall_s(docs) == pytest.approx(80.0 + 40.0)
    # a point without a start time: its wall time over the points run at once
    assert report.point_wall_s([*docs, {"wall_s": 30.0, "parallel": 3}]) == pytest.approx(130.0)
    assert report.point_wall_s(docs[-1:]) is None
    # the kernel's report: every invocation's points, not the last one's 61 s
    out = tmp_path / "results"
    _two_invocations(out / "6.12" / "fig5_11")
    text = report.build(out / "6.12", ["fig5_11"]).read_text()
    row = next(ln for ln in text.splitlines() if "[fig5_11](fig5_11/fig5_11.md)" in ln)
    assert "| 16 / 1 / 1 | 4.7 min |" in row  # 6 pairs of 40 s, then 40 s
    assert "VM time of its points: the time during which at least one" in text


def test_a_point_that_measured_nothing_is_an_error() -> None:
    ok, bad = {"goodput_bps": 1.0}, {"error": "unable to connect"}
    assert harness.point_status([ok, bad], []) == ("ok", ["unable to connect"])
    assert harness.point_status([bad, bad], [])[0] == "error"
    udp = [{"kind": "udp", "runs": [{"error": "unable to read from stream socket"}]}]
    assert harness.point_status([], udp) == ("error", ["unable to read from stream socket"])
    udp[0]["runs"].append({"bytes": 10})
    assert harness.point_status([], udp)[0] == "ok"
    assert harness.point_status([], []) == ("ok", [])


def test_a_page_says_one_point_at_a_time_in_words() -> None:
    one = [{"parallel": 1}, {"parallel": 1}]
    assert report.at_a_time(one, 2) == "one point at a time"  # type: ignore[arg-type]
    assert report.at_a_time([{"parallel": 4}], 4) == "4 points at a time"  # type: ignore[arg-type]
    assert report.at_a_time([], 3) == "3 points at a time"
