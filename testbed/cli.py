"""The testbed's command line: ``python -m testbed COMMAND``.

``list``       the scenarios (``scenarios/*.toml``) and their profiles
``run``        run scenarios on a Debian kernel in the VM (or on the host kernel
               when it can load modules), then build their report
``report``     rebuild tables, plots and report.md from the per-point JSON
``demo``       ``make demo``: the ``demo`` profile of ``fig5_11``, then its report
``calibrate``  run scenarios at their ``parallel`` and at ``parallel=1`` and
               compare the two (does running points at once change them?)

``run`` boots one VM for the whole set (``testbed/vm``) and runs the harness
(:mod:`testbed.run.harness`) inside it, which writes one JSON per point to
``OUT/<kernel series>/<scenario>/runs/`` (the series as named in
``testbed/kernels.txt``: ``6.12``, ``6.1``, ...; a kernel of no series by its
release), so that runs on different kernels never share a directory, and its
compact record (:mod:`testbed.run.compact`: no trace events or time series,
tracked by git) to ``.../<scenario>/points/``; a point whose JSON (or, in a
fresh clone without it, compact record) says ``ok`` for the same spec,
kernel and commit (of a clean tree) is skipped, so the same command resumes
an interrupted run, and measures again after a code change (``--fresh``
starts over, deleting both).  The report is then built on the host
(:mod:`testbed.analysis.report`): ``OUT/<kernel series>/report.md`` and
``OUT/report.md`` linking every kernel's.  ``run --here --out DIR`` (what the
VM runs) writes into ``DIR`` itself.  A user's runs go to ``out/`` (not
tracked by git); the published results in ``results/`` are regenerated on
purpose with ``--out results``.

A scenario file or an option the testbed cannot use ends the command with one
line saying what is wrong and exit status 2.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from testbed import TOP
from testbed.programs import MissingProgram
from testbed.run import scenario

PY = TOP / ".venv" / "bin" / "python"
VM = TOP / "testbed" / "vm"
# a user's results: not tracked (.gitignore); published results go to results/
OUT = TOP / "out"
DEMO_SCENARIO = "fig5_11"
# VM boot and module build, on top of the scenarios' own estimate
BOOT_S = 60
# what the common profiles are for (a scenario may define others)
PROFILES = {
    "full": "every point of the file (the default)",
    "quick": "a short validation run (every scenario has one): make bench-quick",
    "demo": "make demo",
}
USAGE_ERROR = 2


class UsageError(Exception):
    """Input the testbed cannot use; the message says what and where."""


def host_can_load_modules() -> bool:
    build = Path(f"/lib/modules/{os.uname().release}/build/Makefile")
    return Path("/proc/modules").exists() and build.exists()


# the tree a point's commit stands for: everything a measurement depends on.
# Not the harness's outputs, nor the prose (README.md and other Markdown:
# editing the README's results section during a run marked a whole batch of
# points "+dirty"), nor what only reads points back (the tests, CI's script,
# the report): a commit of those alone leaves the points of a bench that runs
# over several sittings one commit's, to be resumed from a fresh clone
CODE = (
    ".",
    ":(exclude)results",
    ":(exclude)out",
    ":(exclude,glob)**/*.md",
    ":(exclude)tests",
    ":(exclude).ci",
    ":(exclude)testbed/analysis/report.py",
)


def git_meta(top: Path = TOP) -> dict[str, str]:
    def git(*args: str) -> str:
        p = subprocess.run(["git", "-C", str(top), *args], capture_output=True, text=True)
        return p.stdout.strip()

    head = git("rev-parse", "HEAD")
    # a shallow clone's history may end at a commit of results: HEAD there
    shallow = git("rev-parse", "--is-shallow-repository") == "true"
    return {
        # the last commit that changed the code: a commit of results or prose
        # after it measures nothing new, so a batch run over several sittings,
        # with results and README committed between them, is one commit's
        "commit": head if shallow else git("rev-list", "-1", "HEAD", "--", *CODE) or head,
        "head": head,
        "branch": git("rev-parse", "--abbrev-ref", "HEAD"),
        # what the harness itself writes (results, out) is not the code measured:
        # a run that rewrote results/report.md made the next run's points "dirty"
        "dirty": "yes" if git("status", "--porcelain", "-uno", "--", *CODE) else "no",
    }


def say(msg: str) -> None:
    print(f"testbed: {msg}", file=sys.stderr, flush=True)


# -- list ---------------------------------------------------------------------------


def cmd_list(args: argparse.Namespace) -> int:
    names = scenario.names()
    scs = [scenario.load(n) for n in names]
    width = max(len(n) for n in names)
    print(f"scenarios ({scenario.SCENARIO_DIR.relative_to(TOP)}/NAME.toml):")
    for sc in scs:
        counts = ", ".join(f"{p} {len(sc.points(p))}" for p in ["full", *sc.profiles()])
        print(f"  {sc.name:<{width}}  {sc.title}")
        print(f"  {'':<{width}}  points: {counts}")
    print("profiles (--profile NAME):")
    have: dict[str, list[str]] = {}
    for sc in scs:
        for p in sc.profiles():
            have.setdefault(p, []).append(sc.name)
    for p in ["full", *sorted(have)]:
        where = "every scenario" if p == "full" or len(have[p]) == len(scs) else ", ".join(have[p])
        print(f"  {p:<8}{PROFILES.get(p, '')}{'; ' if p in PROFILES else ''}in {where}")
    return 0


# -- run ------------------------------------------------------------------------------


def load_all(names: list[str], overrides: dict[str, Any]) -> list[scenario.Scenario]:
    return [scenario.load(n, overrides) for n in names]


def default_out(profile: str | None) -> Path:
    return OUT / (profile or "full")


def kernel_series(kernel: str) -> str:
    """The name of ``kernel``'s series in testbed/kernels.txt (``6.1``, ``6.12``,
    ...): a series name as it is, an ABI name (``uname -r``) by the series whose
    ``abi`` pattern it matches; a kernel of no series (a host's own) by its
    release."""
    from testbed import kernels

    try:
        series = kernels.names()
    except (OSError, subprocess.CalledProcessError):
        return kernel
    if kernel in series:
        return kernel
    for name in series:
        p = subprocess.run([str(kernels.SCRIPT), "get", name], capture_output=True, text=True)
        fields = p.stdout.split()
        try:
            if len(fields) >= 4 and re.fullmatch(fields[3], kernel):
                return name
        except re.error:
            continue
    return kernel


def target_kernel(args: argparse.Namespace) -> str:
    """The kernel ``run`` runs on: the host's (``--host``) or ``--kernel``'s."""
    return os.uname().release if args.host else str(args.kernel)


def kernel_out(args: argparse.Namespace, base: Path) -> Path:
    """``base/<kernel series>``: where ``run`` puts the results of its kernel."""
    return base / scenario.slug(kernel_series(target_kernel(args)))


def check_vm_out(args: argparse.Namespace, out: Path) -> None:
    """Refuse an ``out`` the VM cannot write back (see in_vm())."""
    if not args.host and not out.resolve().is_relative_to(TOP.resolve()):
        raise UsageError(
            f"--out {out}: outside {TOP}, the only directory the VM writes back to the host; "
            "the points would be lost (use a directory under it, e.g. out/NAME)"
        )


def budget_deadline(args: argparse.Namespace) -> float | None:
    """``--budget MIN``: the time (epoch seconds) after which no point starts,
    MIN minutes from now (a VM's boot counts)."""
    budget: float | None = getattr(args, "budget", None)
    if budget is None:
        return None
    if budget <= 0:
        raise UsageError(f"--budget {budget:g}: minutes, more than 0")
    return time.time() + budget * 60


def in_vm(
    args: argparse.Namespace,
    names: list[str],
    out: Path,
    timeout_s: float,
    deadline: float | None = None,
) -> int:
    """The harness on the target kernel through testbed/vm; its exit status.

    The guest sees the host's files read-only with a writable overlay it
    drops at exit; only the repository is shared read-write.  An ``out``
    outside it would lose every point the harness writes there.  After
    ``deadline`` (epoch seconds) the harness starts no point."""
    from testbed.vm import GUEST_DIED, accel

    check_vm_out(args, out)
    meta = {**git_meta(), "accel": "host" if args.host else accel()[0]}
    harness = [str(PY), "-m", "testbed", "run", "--here", "--out", str(out)]
    harness += ["--backend", args.backend, "--meta", json.dumps(meta)]
    if args.profile:
        harness += ["--profile", args.profile]
    if args.only:
        harness += ["--only", args.only]
    for item in args.set:
        harness += ["--set", item]
    if deadline is not None:
        harness += ["--deadline", f"{deadline:.0f}"]
    harness += names
    if deadline is not None:  # the points under way when it passes finish
        timeout_s = min(timeout_s, deadline - time.time() + BOOT_S + 900)
    vm = [str(VM), "--timeout", str(int(timeout_s))]
    vm += ["--memory", "4G"]  # dozens of concurrent trials with packet captures
    vm += ["--host"] if args.host else ["--kernel", args.kernel]
    for boot in range(1, RESUME_BOOTS + 1):
        t0 = time.monotonic()
        rc = subprocess.run([*vm, "--", *harness]).returncode
        say(f"harness exit {rc} after {time.monotonic() - t0:.0f} s")
        if args.host or rc != GUEST_DIED:
            break
        kept = keep_guest_death(args.kernel, out, names, boot)
        if boot < RESUME_BOOTS:
            say(f"the guest died (its kernel's log: {kept}); booting again to run the points "
                f"not done (boot {boot + 1} of {RESUME_BOOTS})")  # fmt: skip
    return rc


# A guest that dies in a batch (exit 255: its kernel panicked or reset; under
# TCG e.g. a stale int3 where the kernel patched its own code, README "Running
# on a kernel") is booted again, at most this many boots in all: the harness
# runs only the points without a result of this identity, so the batch goes on
# where it stopped.  The dead boot's kernel log, which the next boot
# overwrites, is kept in each scenario's guest-deaths/ (its page counts them).
RESUME_BOOTS = 3


def keep_guest_death(kernel: str, out: Path, names: list[str], boot: int) -> Path | None:
    """Copy the kernel log of the guest that died in ``boot`` to
    ``out/<scenario>/guest-deaths/`` of each of ``names``; returns the first
    copy (None when there was no log)."""
    from testbed import vm

    log = vm.kernel_log_path(vm.resolve_abi(kernel))
    if not log.exists():
        return None
    kept = None
    file = f"{time.strftime('%Y%m%dT%H%M%S')}-boot{boot}.log"
    for name in names:
        dest = out / name / "guest-deaths" / file
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(log, dest)
        kept = kept or dest
    return kept


def base_out(args: argparse.Namespace) -> Path:
    """``--out``, or ``out/PROFILE``."""
    return (Path(args.out) if args.out else default_out(args.profile)).resolve()


def check_scenarios(args: argparse.Namespace, names: list[str]) -> list[scenario.Scenario]:
    """The scenarios with ``--set``; a bad file, ``--set`` or profile raises."""
    scs = load_all(names, scenario.parse_set(args.set))  # fail early on a bad file or --set
    for sc in scs:
        check_tc(sc, sc.points(args.profile))  # and on a profile the file lacks
    return scs


def check_tc(sc: scenario.Scenario, points: list[scenario.Point]) -> None:
    """Refuse a scenario whose points need ``cw`` or ``vcrr`` when the ``tc``
    the testbed found (``build/tc``, else the system's) does not know them:
    every such point would fail with "Unknown qdisc"."""
    from testbed.net import path

    kinds = {q.kind for p in points for link in p.links() for q in (link.queue, link.queue_rev)}
    missing = [k for k in path.OUR_QDISCS if k in kinds and not path.tc_knows(k, path.TC)]
    if missing:
        raise UsageError(
            f"{sc.name}: its gateways use {' and '.join(missing)}, which {path.TC} does not "
            "know; build the patched tc with 'make tc' (or point JERSEY_TC at one)"
        )


def run_scenarios(
    args: argparse.Namespace, names: list[str], out: Path | None = None
) -> tuple[int, Path]:
    """The common part of ``run``, ``demo`` and ``calibrate``: check, run, and
    build the report of the directory the points went to: ``out`` if given,
    else ``--out``'s kernel directory (``--here``: ``--out`` itself).  Returns
    the harness's exit status and that directory."""
    deadline = budget_deadline(args)
    scs = check_scenarios(args, names)
    if args.here:
        from testbed.run import harness

        out = out or base_out(args)
        if os.geteuid() != 0:
            raise UsageError("run --here: must run as root on the target kernel (or drop --here)")
        only = [o for o in args.only.split(",") if o] or None
        meta = json.loads(args.meta)
        overrides = scenario.parse_set(args.set)
        deadline = getattr(args, "deadline", None) or deadline
        rc = harness.run_here(
            names, out, args.profile, args.backend, meta, only, overrides, deadline
        )
        return rc, out
    out = out or kernel_out(args, base_out(args))
    if args.fresh:
        check_vm_out(args, out)  # before anything there is deleted
        for sc in scs:
            shutil.rmtree(out / sc.name, ignore_errors=True)
    est = sum(s.estimate_s(args.profile) for s in scs)
    say(
        f"{len(scs)} scenarios ({', '.join(names)}), profile {args.profile or 'full'}, "
        f"estimated {est / 60:.0f} min + boot -> {out}"
    )
    rc = in_vm(args, names, out, est * 2 + BOOT_S + 300, deadline)
    from testbed.analysis import report

    say(f"report {report.build(out, names)}")
    return rc, out


def cmd_run(args: argparse.Namespace) -> int:
    rc, out = run_scenarios(args, args.scenarios or scenario.names())
    if not args.here:
        from testbed.analysis import report

        say(f"report of every kernel {report.index(out.parent)}")
    return rc


def cmd_demo(args: argparse.Namespace) -> int:
    args.profile, args.here, args.only = "demo", False, ""
    args.out = args.out or str(OUT / "demo")
    rc, out = run_scenarios(args, [DEMO_SCENARIO])
    from testbed.analysis import report

    report.index(out.parent)
    page = out / DEMO_SCENARIO / f"{DEMO_SCENARIO}.md"
    if page.exists():
        print(page.read_text())
    say(f"demo: {page}, {out / DEMO_SCENARIO}/goodput.png, runs in {out / DEMO_SCENARIO}/runs/")
    return rc


# -- report and calibrate ----------------------------------------------------------------


def cmd_report(args: argparse.Namespace) -> int:
    from testbed.analysis import report

    names = args.scenarios or scenario.names()
    load_all(names, {})
    out = Path(args.out).resolve()
    if not out.is_dir():
        raise UsageError(f"report: no results directory {out}")
    if args.records:
        written, same = report.write_records(out, names)
        say(f"compact records: {written} written, {same} already up to date")
    print(report.build(out, names, args.mixed))
    return 0


def calibrate_plan(scs: list[scenario.Scenario], profile: str | None) -> dict[str, int]:
    """Each scenario's ``parallel`` (after the profile and ``--set``), those
    above 1 only: a scenario run one point at a time has nothing to compare."""
    plan = {sc.name: int(sc.resolved(profile).get("parallel", 1)) for sc in scs}
    return {name: n for name, n in plan.items() if n > 1}


def toml_inline(v: Any) -> str:
    """A value of scenario data (tables, arrays, strings, numbers, booleans)
    as an inline TOML value, for ``--set``."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(toml_inline(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{json.dumps(k)} = {toml_inline(x)}" for k, x in v.items()) + " }"
    raise TypeError(f"no TOML for {v!r}")


def serial_points(sc: scenario.Scenario, profile: str | None) -> list[dict[str, Any]]:
    """The ``when`` of each override that runs its points one at a time:
    calibrate leaves those points out (they run at 1 either way)."""
    overrides = sc.resolved(profile).get("overrides", [])
    return [dict(o["when"]) for o in overrides if o["set"].get("parallel") == 1]


def calibrate_sets(
    sc: scenario.Scenario, profile: str | None, serial: list[dict[str, Any]]
) -> list[str]:
    """``--set`` for calibrate's runs of ``sc``: its exclusions and the
    points an override runs one at a time (``serial``: :func:`serial_points`)."""
    if not serial:
        return []
    return ["exclude=" + toml_inline([*sc.resolved(profile).get("exclude", []), *serial])]


def cmd_calibrate(args: argparse.Namespace) -> int:
    """Each scenario at its own ``parallel`` into OUT/calibrate/<kernel>/parallel-N/,
    and with ``--set parallel=1`` into .../parallel-1/; then calibration.md
    (:func:`testbed.analysis.report.calibration`)."""
    if not args.scenarios:
        raise UsageError("calibrate: name at least one scenario (python -m testbed list)")
    if "parallel" in scenario.parse_set(args.set):
        raise UsageError("calibrate: parallel is what calibrate varies; drop --set parallel=...")
    args.here, args.only, args.meta = False, "", "{}"
    scs = check_scenarios(args, args.scenarios)  # fail before any VM boots
    plan = calibrate_plan(scs, args.profile)
    if not plan:
        which = ", ".join(args.scenarios)
        raise UsageError(f"calibrate: {which}: parallel = 1 already, nothing to compare")
    base = Path(args.out or OUT).resolve() / "calibrate"
    kdir = kernel_out(args, base)
    serial = {sc.name: serial_points(sc, args.profile) for sc in scs if sc.name in plan}
    extra = {sc.name: calibrate_sets(sc, args.profile, serial[sc.name]) for sc in scs
             if sc.name in plan}  # fmt: skip
    rc = 0
    # one VM per parallel and set of exclusions: the points that an override
    # runs one at a time stay out of both runs
    for n in [*sorted(set(plan.values()), reverse=True), 1]:
        names = [name for name, m in plan.items() if m == n or n == 1]
        for sets in {tuple(extra[name]) for name in names}:
            group = [name for name in names if tuple(extra[name]) == sets]
            say(f"calibrate: {', '.join(group)} at parallel {n}")
            over = [*args.set, *sets, *(["parallel=1"] if n == 1 else [])]
            r, _ = run_scenarios(argparse.Namespace(**{**vars(args), "set": over}), group,
                                 kdir / f"parallel-{n}")  # fmt: skip
            rc = rc or r
    from testbed.analysis import report

    path = report.calibration(kdir, plan, args.metric, serial)
    print(path.read_text())
    say(f"calibration {path}")
    return rc


# -- the parser -----------------------------------------------------------------------------


def run_options(p: argparse.ArgumentParser, demo: bool = False, calibrate: bool = False) -> None:
    where = p.add_argument_group("where to run")
    where.add_argument(
        "--kernel",
        default=os.environ.get("JERSEY_KERNEL", "6.12"),
        help="the Debian kernel the VM boots: 6.1, 6.12 or a full ABI name (default %(default)s)",
    )
    where.add_argument(
        "--host",
        action="store_true",
        default=host_can_load_modules(),
        help="run on the host kernel instead of a VM (the default when it can load modules)",
    )
    p.add_argument(
        "--out",
        default=None,
        metavar="DIR",
        help="results directory (default: out/demo); the points go to DIR/<kernel series>/"
        if demo
        else "results directory (default: out); the points go to DIR/calibrate/<kernel series>/"
        if calibrate
        else "results directory (default: out/PROFILE, e.g. out/full; published: results); the "
        "points go to DIR/<kernel series>/<scenario>/",
    )
    p.add_argument(
        "--backend",
        choices=("netns", "mininet"),
        default="netns",
        help="how paths are built (default %(default)s; mininet: the same paths, slower)",
    )
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a scenario key after the profile: runs=1, sweep.per=0,0.01, sweep.cc=reno",
    )
    p.add_argument(
        "--fresh",
        action="store_true",
        help="delete earlier results of these first (full JSON and compact records)",
    )


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="python -m testbed",
        description="Experiments with jersey's modules on real kernels: scenario files in, "
        "per-point JSON, tables, plots and report.md out.",
    )
    sub = ap.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("list", help="list the scenarios and profiles")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser(
        "run",
        help="run scenarios on a Debian kernel, then build their report",
        description="Run every point of the scenarios (all by default) on a Debian kernel in "
        "the VM, one JSON per point in OUT/<kernel series>/<scenario>/runs/ (not tracked by "
        "git) and its compact record in .../points/ (tracked), then build "
        "OUT/<kernel series>/report.md and OUT/report.md (every kernel's).  Resumable: points "
        "already ok are skipped, by their compact record where runs/ is missing (a fresh "
        "clone).",
    )
    p.add_argument("scenarios", nargs="*", metavar="SCENARIO", help="scenario names (default: all)")
    p.add_argument("--profile", default=None, help="quick, demo, ... (default: the full run)")
    p.add_argument("--only", default="", help="comma-separated substrings of point ids to run")
    run_options(p)
    p.add_argument(
        "--here",
        action="store_true",
        help="run on the kernel this command runs on, as root, without testbed/vm "
        "(what the VM runs): the points go to OUT itself; no report",
    )
    p.add_argument(
        "--budget",
        type=float,
        default=None,
        metavar="MIN",
        help="start no point after MIN minutes from now (the VM's boot counts): the points "
        "under way finish, the report is built, and the same command later runs the rest "
        "(without --fresh, which would delete them first)",
    )
    p.add_argument("--meta", default="{}", help=argparse.SUPPRESS)
    p.add_argument("--deadline", type=float, default=None, help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_run)

    p = sub.add_parser(
        "report",
        help="rebuild tables, plots and report.md from existing results",
        description="Rebuild every scenario's page, tables and figures and report.md from the "
        "per-point JSON: in each kernel directory of OUT (OUT/<kernel series>/, as run writes "
        "them) and OUT/report.md linking them; a directory of the flat layout "
        "(OUT/<scenario>/runs/, one kernel) is reported as it is.  A point whose full JSON "
        "(runs/<id>.json) is missing is read from its compact record (points/<id>.json): the "
        "same tables and verdicts, no time-series figure.",
    )
    p.add_argument("scenarios", nargs="*", metavar="SCENARIO", help="scenario names (default: all)")
    p.add_argument("--out", default=str(OUT / "full"), metavar="DIR", help="results directory")
    p.add_argument(
        "--mixed",
        action="store_true",
        help="report a scenario whose points come from more than one commit or kernel "
        "(each of its tables says so); without it such a scenario is not reported",
    )
    p.add_argument(
        "--records",
        action="store_true",
        help="first (re)write the compact record <scenario>/points/<id>.json of every point "
        "whose full JSON <scenario>/runs/<id>.json is in OUT (run writes both; this is for "
        "points measured before it did), then build the report",
    )
    p.set_defaults(func=cmd_report)

    p = sub.add_parser(
        "demo",
        help="make demo: goodput vs PER on the fig 5.11 path (the demo profile of fig5_11)",
    )
    run_options(p, demo=True)
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser(
        "calibrate",
        help="does running points at once change them? each scenario at its parallel and at 1",
        description="Run each scenario twice on one kernel: at its own `parallel` (points at "
        "once) into OUT/calibrate/<kernel>/parallel-N/, and with --set parallel=1 into "
        "OUT/calibrate/<kernel>/parallel-1/; then OUT/calibrate/<kernel>/calibration.md "
        "compares every point's median and 95 % CI: 'agree' when the parallel-1 median lies "
        "within the parallel-N CI, else 'differs: lower parallel'.  Points that an override "
        "runs one at a time are left out of both runs.  Resumable like run.",
    )
    p.add_argument("scenarios", nargs="*", metavar="SCENARIO", help="scenario names (at least one)")
    p.add_argument("--profile", default=None, help="quick, ... (default: the full run)")
    p.add_argument(
        "--metric",
        default="goodput_mbps",
        help="the point metric compared (default %(default)s; e.g. accuracy, jain)",
    )
    run_options(p, calibrate=True)
    p.set_defaults(func=cmd_calibrate)
    return ap


def main(argv: list[str] | None = None) -> int:
    ap = parser()
    args = ap.parse_args(argv)
    try:
        return int(args.func(args))
    except (UsageError, scenario.ScenarioError, MissingProgram) as e:
        print(f"{ap.prog} {args.command}: error: {e}", file=sys.stderr)
        return USAGE_ERROR
