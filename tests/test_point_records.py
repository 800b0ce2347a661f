"""Published point records (:mod:`testbed.run.compact`) without a VM: what a
compact record keeps, the report from compact records alone, resume from
them, ``report --records`` and ``run --fresh``."""

from __future__ import annotations

import json
import platform
import shutil
import threading
from pathlib import Path
from typing import Any

import pytest

from testbed.analysis import metrics, report
from testbed.run import compact, harness, scenario
from tests.test_harness_unit import GOOD, _stub_the_vm_side, _write, fake_point

KERNEL = "6.12.95+deb12-amd64"
HEAD = {"accel": "tcg", "commit": "a" * 40, "dirty": "no"}


def full_point(
    cc: str,
    per: float,
    run: int,
    goodput: float,
    *,
    identity: str = "0123456789abcdef",
    kernel: str = KERNEL,
    meta: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """:func:`fake_point` with the bulk of a real point: hundreds of trace
    events and samples, a minute of interval reports, nstat counters, a
    qdisc's record and a trial monitor's document."""
    doc = fake_point(cc, per, run, goodput, causes=["wireless", "wireless", "congestion"])
    doc["trace"] += [
        {"event": "jersey_loss", "dest": "10.9.9.9:1", "cause": "wireless", "t": i / 100,
         "snd_una": 1000 * i, "cwnd": 10 + i % 40, "ssthresh": 20, "srtt_us": 92000 + i}
        for i in range(400)
    ]  # fmt: skip
    doc["samples"]["queues"]["gw->rcv"] += [
        {"t": 1 + i / 10, "qlen": i % 20, "backlog": 1500 * (i % 20), "packets": 10 * i,
         "marked": i // 10}
        for i in range(300)
    ]  # fmt: skip
    doc["samples"]["ss"] = {
        "10.3.1.2:5201": [{"t": i / 10, "cwnd": 10 + i % 7, "srtt_ms": 92.0 + i % 3}
                          for i in range(300)]
    }  # fmt: skip
    doc["flows"][0]["intervals"] = [[float(i), goodput * (1 + i % 3 / 100)] for i in range(1, 61)]
    doc["links"][0]["queue_stats"] = {"kind": "pfifo", "packets": 1000, "drops": 0, "qlen": 0}
    doc["nstat"] = {node: {f"TcpExtCounter{i}": i for i in range(40)} for node in ("src", "rcv")}
    doc["monitor"] = {"offset": 0.0, "fate_counts": {"delivered": 990}}
    doc.update(
        identity=identity,
        versions={"kernel": kernel, "iperf3": "iperf 3.12", "tc": "tc utility"},
        meta=meta or HEAD,
        seeds={"point": 7 + run, "traffic": 8, "scenario": 1, "netem": None},
        cpu={"busy": 0.5, "steal": 0.0, "cpus": 2},
        started=1_796_000_000.0 + run * 12.5,
        wall_s=12.5,
        parallel=4,
    )
    return doc


def test_a_compact_record_has_no_trace_or_time_series_and_is_much_smaller(
    tmp_path: Path,
) -> None:
    p = scenario.load("fig5_11").points("quick")[0]
    doc = full_point("jersey", 0.01, 0, 1.5e6, identity=p.identity)
    harness.write_point(tmp_path, p, doc)
    full_f, rec_f = harness.point_file(tmp_path, p), harness.record_file(tmp_path, p)
    assert rec_f == tmp_path / "fig5_11" / "points" / f"{p.id}.json"
    full, rec = json.loads(full_f.read_text()), json.loads(rec_f.read_text())
    assert not {"trace", "samples", "nstat", "monitor"} & set(rec)
    assert "intervals" not in rec["flows"][0] and "queue_stats" not in rec["links"][0]
    assert rec["compact"] == [
        "flows[].intervals", "links[].queue_stats", "monitor", "nstat", "samples", "trace"
    ]  # fmt: skip
    assert rec_f.stat().st_size * 10 < full_f.stat().st_size
    # what identifies the point and where it comes from, as the full JSON has it
    for key in ("identity", "point", "values", "run", "spec", "seeds", "meta", "versions",
                "environment", "status", "cpu", "started", "wall_s", "parallel",
                "links_config"):  # fmt: skip
        assert rec[key] == full[key], key
    assert rec["flows"][0]["goodput_bps"] == full["flows"][0]["goodput_bps"]
    # its metrics: the report's, from the full JSON (accuracy needs the trace)
    assert rec["metrics"] == json.loads(json.dumps(metrics.point_metrics(full)))
    assert rec["metrics"]["accuracy"] is not None and "rtt" in rec["metrics"]
    # deterministic, one top-level key a line: written again, nothing changes
    text = rec_f.read_text()
    assert text.splitlines()[1].startswith('"backend":') and len(text.splitlines()) == len(rec) + 2
    assert not compact.write(rec_f, full) and not compact.write(rec_f, rec)
    assert rec_f.read_text() == text
    # an unavailable point has its compact record too
    q = scenario.load("fig5_11").points("quick")[1]
    harness.write_point(tmp_path, q, {"status": "unavailable", "missing": ["bbr"], "point": q.id})
    assert json.loads(harness.record_file(tmp_path, q).read_text())["missing"] == ["bbr"]


def _fig5_11_points(runs: Path) -> None:
    runs.mkdir(parents=True)
    for cc, gp in (("reno", 1.2e6), ("jersey", 1.8e6)):
        for per in (0.0, 0.01):
            for run, f in enumerate((1.0, 1.05, 0.97, 1.02)):
                doc = full_point(cc, per, run, gp * f * (1 - per))
                (runs / f"{doc['point']}.json").write_text(json.dumps(doc))


def test_a_report_from_compact_records_alone_has_the_same_cells(tmp_path: Path) -> None:
    from testbed import cli as tcli

    full = tmp_path / "full"
    _fig5_11_points(full / "6.12" / "fig5_11" / "runs")
    # report --records: the compact records of points measured before run wrote them
    assert tcli.main(["report", "--out", str(full), "--records", "fig5_11"]) == 0
    points = full / "6.12" / "fig5_11" / "points"
    assert len(list(points.glob("*.json"))) == 16
    assert report.write_records(full, ["fig5_11"]) == (0, 16)  # already up to date
    # a fresh clone: the compact records only (and the published pages, rebuilt)
    clone = tmp_path / "clone"
    shutil.copytree(full, clone)
    shutil.rmtree(clone / "6.12" / "fig5_11" / "runs")
    for page in ("fig5_11.md", "summary.json", "goodput.png"):
        (clone / "6.12" / "fig5_11" / page).unlink()
    report.build(clone, ["fig5_11"])
    a, b = full / "6.12" / "fig5_11", clone / "6.12" / "fig5_11"
    assert (b / "fig5_11.md").read_text() == (a / "fig5_11.md").read_text()
    assert json.loads((b / "summary.json").read_text()) == json.loads(
        (a / "summary.json").read_text()
    )
    page = (b / "fig5_11.md").read_text()
    assert "| jersey |" in page and "decisions" in page  # accuracy, from the stored metrics
    assert (b / "goodput.png").stat().st_size > 1000  # a figure of medians: drawn
    kernel = [ln for ln in (clone / "6.12" / "report.md").read_text().splitlines()
              if ln.startswith("|")]  # fmt: skip
    assert kernel == [ln for ln in (a.parent / "report.md").read_text().splitlines()
                      if ln.startswith("|")]  # fmt: skip
    assert any(ln.startswith("| jersey | 4 |") for ln in kernel)  # repeatability
    # the time of the points, from their start and wall time: 4 runs one after another
    assert any("| 16 / 0 / 0 | 0.8 min |" in ln for ln in kernel)
    # calibration from compact records alone: the same table
    for d in (a, b):
        for n in (1, 4):
            shutil.copytree(d, d.parent / "cal" / f"parallel-{n}" / "fig5_11")
    tables = [
        [ln for ln in report.calibration(d.parent / "cal", {"fig5_11": 4}).read_text().splitlines()
         if ln.startswith("|")]
        for d in (a, b)
    ]  # fmt: skip
    rows = [ln for ln in tables[1] if ln.startswith("| cc=")]
    assert tables[0] == tables[1] and rows and all(ln.endswith("| agree |") for ln in rows)


def test_calibrations_run_one_by_one_share_a_page_and_the_report_lists_them(
    tmp_path: Path,
) -> None:
    from testbed import cli as tcli

    out = tmp_path / "results"
    _fig5_11_points(out / "6.12" / "fig5_11" / "runs")
    assert tcli.main(["report", "--out", str(out), "--records", "fig5_11"]) == 0
    assert "## Calibration" not in (out / "report.md").read_text()
    kdir = out / "calibrate" / "6.12"
    points = out / "6.12" / "fig5_11" / "points"
    # calibrate fig5_11 (parallel 12), then, in another invocation, newrenolp (6):
    # each invocation writes the page with its own plan only
    for name, n in (("fig5_11", 12), ("newrenolp", 6)):
        for at in (n, 1):
            shutil.copytree(points, kdir / f"parallel-{at}" / name / "points")
        page = report.calibration(kdir, {name: n}).read_text()
    assert report.calibrated(kdir) == {"fig5_11": 12, "newrenolp": 6}
    assert "## fig5_11: goodput_mbps, parallel 12 vs 1" in page
    assert "## newrenolp: goodput_mbps, parallel 6 vs 1" in page
    # how many ran at once, as the points say (an override may run some fewer)
    assert "commit aaaaaaaaaaaa; in `parallel-6/`, 4 points at a time." in page
    summary = [ln for ln in page.splitlines() if ln.startswith("| fig5_11 | 12 |")]
    assert summary and summary[0].endswith("| 4 | agree 4 |")  # the same runs: all agree
    # one at a time, jersey slower by a third: its two points differ
    for f in (kdir / "parallel-1" / "fig5_11" / "points").glob("*.json"):
        doc = json.loads(f.read_text())
        if doc["values"]["cc"] == "jersey":
            doc["metrics"]["goodput_bps"] *= 2 / 3
            for flow in doc["flows"]:
                flow["goodput_bps"] *= 2 / 3
            f.write_text(json.dumps(doc))
    report.build(out, ["fig5_11"])
    index = (out / "report.md").read_text()
    assert "| 6.12 | fig5_11 | 12 | 4 | 2 | 2 | 0 | [calibrate/6.12/calibration.md]" in index
    assert "| 6.12 | newrenolp | 6 | 4 | 4 | 0 | 0 |" in index
    assert "| fig5_11 | 12 |" in (kdir / "calibration.md").read_text()  # written again


def test_a_time_series_figure_needs_the_full_json(tmp_path: Path) -> None:
    out = tmp_path / "out"
    runs = out / "marking" / "runs"
    runs.mkdir(parents=True)
    for marking in ("CWAQ", "VCRR"):
        for run in range(3):
            doc = full_point("jersey", 0.01, run, 1.5e6)
            doc["values"] = {"marking": marking, "cc": "jersey", "per": 0.01}
            doc["point"] = f"marking={marking},cc=jersey,per=0.01,run={run}"
            (runs / f"{doc['point']}.json").write_text(json.dumps(doc))
    report.write_records(out, ["marking"])
    report.build(out, ["marking"])
    page = (out / "marking" / "marking.md").read_text()
    assert "(queue.png)" in page and "not drawn" not in page and "Drawn from" not in page
    tables = [ln for ln in page.splitlines() if ln.startswith("|")]
    # one of the figure's two points (run 0) has its compact record only
    (runs / "marking=CWAQ,cc=jersey,per=0.01,run=0.json").unlink()
    report.build(out, ["marking"])
    page = (out / "marking" / "marking.md").read_text()
    assert "(queue.png)" in page
    assert "Drawn from 1 of its 2 points: the other 1 are here as compact records only" in page
    # none has its full JSON: not drawn, and the page says so in a line
    shutil.rmtree(runs)
    report.build(out, ["marking"])
    page = (out / "marking" / "marking.md").read_text()
    assert "(queue.png)" not in page
    assert (
        "Figure `queue` (Gateway queue, jersey, PER 1% (thesis fig 8.17)) not drawn: its 2 "
        "points are here as compact records only (`points/`, without time series; their full "
        "JSON in `runs/` has them); `queue.png` is an earlier drawing, left as it was." in page
    )
    assert [ln for ln in page.splitlines() if ln.startswith("|")] == tables


def test_resume_by_a_compact_record_of_the_same_identity_commit_and_kernel(
    tmp_path: Path,
) -> None:
    p = scenario.load("fig5_11").points("quick")[0]
    doc = full_point("reno", 0.0, 0, 1.5e6, identity=p.identity)
    rec = harness.record_file(tmp_path, p)
    compact.write(rec, doc)
    assert not harness.point_file(tmp_path, p).exists()
    assert harness.point_done(tmp_path, p, KERNEL, HEAD)
    # its concurrency (4 at a time) when asked for, and only that
    assert harness.point_done(tmp_path, p, KERNEL, HEAD, at_once=4)
    assert not harness.point_done(tmp_path, p, KERNEL, HEAD, at_once=1)
    # another commit, uncommitted changes, another kernel: run again
    assert not harness.point_done(tmp_path, p, KERNEL, {**HEAD, "commit": "b" * 40})
    assert not harness.point_done(tmp_path, p, KERNEL, {**HEAD, "dirty": "yes"})
    assert not harness.point_done(tmp_path, p, "6.1.0-56-amd64", HEAD)
    # another identity (a --set, another duration), or a point that failed
    compact.write(rec, {**doc, "identity": "f" * 16})
    assert not harness.point_done(tmp_path, p, KERNEL, HEAD)
    compact.write(rec, {**doc, "status": "error"})
    assert not harness.point_done(tmp_path, p, KERNEL, HEAD)
    # where the full JSON is there, it decides
    compact.write(rec, doc)
    harness.write_json(harness.point_file(tmp_path, p), {**doc, "status": "error"})
    assert not harness.point_done(tmp_path, p, KERNEL, HEAD)


def test_the_runner_skips_points_that_have_only_their_compact_record(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    sc = scenario.load(
        _write(tmp_path, GOOD.replace("duration_s = 5\n", "duration_s = 5\nruns = 2\n"))
    )
    _stub_the_vm_side(monkeypatch)
    ran: list[str] = []
    lock = threading.Lock()

    def run_point(self: harness.Runner, sc: Any, p: scenario.Point, *rest: Any) -> tuple[str, str]:
        with lock:
            ran.append(p.id)
        return "ok", "fake"

    monkeypatch.setattr(harness.Runner, "run_point", run_point)
    out = tmp_path / "out"
    pts = {p.id: p for p in sc.points()}
    assert sorted(pts) == ["per=0,run=0", "per=0,run=1", "per=0.01,run=0", "per=0.01,run=1"]
    kernel = platform.release()  # the runner's kernel
    for pid, identity, meta, at_once in (
        ("per=0,run=0", pts["per=0,run=0"].identity, HEAD, 1),  # done
        ("per=0,run=1", pts["per=0,run=1"].identity, {**HEAD, "commit": "b" * 40}, 1),
        ("per=0.01,run=0", "f" * 16, HEAD, 1),  # another identity
        # done, but two points at a time where the scenario runs one
        ("per=0.01,run=1", pts["per=0.01,run=1"].identity, HEAD, 2),
    ):
        doc = full_point("reno", 0.0, 0, 1.5e6, identity=identity, kernel=kernel, meta=meta)
        compact.write(harness.record_file(out, pts[pid]), {**doc, "parallel": at_once})
    status = harness.Runner(out, None, "netns", dict(HEAD)).run_scenario(sc)
    assert sorted(ran) == ["per=0,run=1", "per=0.01,run=0", "per=0.01,run=1"]
    assert (status["skipped"], status["ok"]) == (1, 3)


def test_a_point_run_on_a_contended_host_is_an_error_that_resume_repeats(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The host's CPU stolen for 1 % or more of a run (testbed/vm's guest
    slows with it): the point is an error, so the next run repeats it."""
    sc = scenario.load(_write(tmp_path, GOOD))
    _stub_the_vm_side(monkeypatch)
    monkeypatch.setattr(harness, "versions", lambda: {"kernel": platform.release()})
    steal = {"per=0,run=0": 0.03, "per=0.01,run=0": 0.004}
    calls: list[str] = []

    def run_trial(trial: Any, tracer: Any) -> dict[str, Any]:
        fake = fake_point("reno", 0.0, 0, 1.5e6)
        pid = "per=0.01,run=0" if trial.links[1].loss else "per=0,run=0"
        calls.append(pid)
        cpu = {"busy": 0.5, "steal": 0.0, "host_busy": 0.6, "host_steal": steal[pid]}
        return {k: fake[k] for k in ("flows", "links", "links_config")} | {"cpu": cpu}

    monkeypatch.setattr(harness, "run_trial", run_trial)
    out = tmp_path / "out"
    status = harness.Runner(out, None, "netns", dict(HEAD)).run_scenario(sc)
    assert (status["ok"], status["error"]) == (1, 1)
    bad = json.loads((out / "bad" / "runs" / "per=0,run=0.json").read_text())
    assert bad["status"] == "error"
    assert bad["error"].startswith("host CPU steal 3.0% over the run (at most 1%)")
    assert metrics.contended({"host_steal": 0.0099}) is None
    # the host busy with other work (a test suite next to the VM)
    why = metrics.contended({"host_steal": 0.0, "host_other": 0.25})
    assert why is not None and why.startswith("the host ran other processes for 25.0% of its CPU")
    assert metrics.contended({"host_steal": 0.0, "host_other": 0.01}) is None  # an idle host
    assert metrics.contended({"host_steal": 0.0, "host_other": 0.049}) is None
    assert metrics.contended({"host_steal": 0.0, "host_other": 0.05}) is not None
    assert metrics.contended({"cpu_busy": 0.9}) is None  # not in testbed/vm: nothing to judge
    # the same command again: the contended point runs, the other is done
    calls.clear()
    status = harness.Runner(out, None, "netns", dict(HEAD)).run_scenario(sc)
    assert calls == ["per=0,run=0"] and status["skipped"] == 1


def test_fresh_deletes_the_compact_records_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from testbed import cli as tcli
    from testbed.net import path

    monkeypatch.setattr(tcli, "in_vm", lambda args, names, out, timeout_s, deadline: 0)
    monkeypatch.setattr(tcli, "host_can_load_modules", lambda: False)
    monkeypatch.setattr(tcli, "TOP", tmp_path)  # --out within what the VM shares
    monkeypatch.setattr(path, "tc_knows", lambda kind, tc: True)  # cw: make tc
    kdir = tmp_path / "6.1"
    for name in ("fig5_11", "soho"):
        for sub in ("runs", "points"):
            f = kdir / name / sub / "p.json"
            f.parent.mkdir(parents=True)
            f.write_text("{}")
    assert tcli.main(["run", "--out", str(tmp_path), "--kernel", "6.1", "fig5_11"]) == 0
    assert (kdir / "fig5_11" / "points" / "p.json").exists()  # resumed, not deleted
    assert tcli.main(["run", "--out", str(tmp_path), "--kernel", "6.1", "--fresh", "fig5_11"]) == 0
    assert not (kdir / "fig5_11" / "runs").exists() and not (kdir / "fig5_11" / "points").exists()
    # another scenario's points stay
    assert (kdir / "soho" / "runs" / "p.json").exists()
    assert (kdir / "soho" / "points" / "p.json").exists()
