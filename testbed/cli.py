"""``make bench``: every scenario on a Debian kernel, then the report.

``python -m testbed.bench [SCENARIO...] [--profile quick] [--kernel 6.12]
[--backend netns|mininet] [--out DIR] [--fresh] [--report-only]``

Runs :mod:`testbed.harness` through ``testbed/vm`` (one boot for the whole
set; on the host kernel instead when it can load modules), then builds the
per-scenario tables and plots and ``DIR/report.md`` with
:mod:`testbed.report` on the host.  Results are resumable: run the same
command again after an interruption and only missing points run
(``--fresh`` deletes the previous results of the chosen scenarios first).
``--profile quick`` is the short validation mode (results in
``results/quick`` by default).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from testbed import scenario

TOP = Path(__file__).resolve().parent.parent
PY = TOP / ".venv" / "bin" / "python"
# VM boot and module build, on top of the scenarios' own estimate
BOOT_S = 60


def host_can_load_modules() -> bool:
    build = Path(f"/lib/modules/{os.uname().release}/build/Makefile")
    return Path("/proc/modules").exists() and build.exists()


def git_meta() -> dict[str, str]:
    def git(*args: str) -> str:
        p = subprocess.run(["git", "-C", str(TOP), *args], capture_output=True, text=True)
        return p.stdout.strip()

    return {
        "commit": git("rev-parse", "HEAD"),
        "branch": git("rev-parse", "--abbrev-ref", "HEAD"),
        "dirty": "yes" if git("status", "--porcelain", "--untracked-files=no") else "no",
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("scenarios", nargs="*", help="scenario names (default: all)")
    ap.add_argument("--profile", default=None, help="quick, demo, ... (default: the full set)")
    ap.add_argument("--kernel", default=os.environ.get("JERSEY_KERNEL", "6.12"))
    ap.add_argument("--host", action="store_true", default=host_can_load_modules())
    ap.add_argument("--backend", choices=("netns", "mininet"), default="netns")
    ap.add_argument("--out", default=None, help="default: results (results/<profile>)")
    ap.add_argument("--only", default="", help="comma-separated substrings of point ids")
    ap.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a scenario key (after the profile): runs=1, sweep.per=0,0.01, ...",
    )
    ap.add_argument("--fresh", action="store_true", help="delete previous results first")
    ap.add_argument("--report-only", action="store_true", help="only rebuild the report")
    args = ap.parse_args(argv)

    out = Path(args.out) if args.out else TOP / "results" / (args.profile or "")
    out = out.resolve()
    names = args.scenarios or scenario.names()
    overrides = scenario.parse_set(args.set)
    scs = [scenario.load(n, overrides) for n in names]  # fail early on a bad file
    if not args.report_only:
        if args.fresh:
            for s in scs:
                shutil.rmtree(out / s.name, ignore_errors=True)
        est = sum(s.estimate_s(args.profile) for s in scs)
        print(
            f"bench: {len(scs)} scenarios ({', '.join(names)}), profile "
            f"{args.profile or 'full'}, estimated {est / 60:.0f} min + boot -> {out}",
            file=sys.stderr,
            flush=True,
        )
        from testbed.vm import accel

        meta = {**git_meta(), "accel": "host" if args.host else accel()[0]}
        harness = [str(PY), "-m", "testbed.harness", "--out", str(out), "--backend", args.backend]
        harness += ["--meta", json.dumps(meta)]
        if args.profile:
            harness += ["--profile", args.profile]
        if args.only:
            harness += ["--only", args.only]
        for item in args.set:
            harness += ["--set", item]
        harness += names
        vm = [str(TOP / "testbed" / "vm"), "--timeout", str(int(est * 2 + BOOT_S + 300))]
        vm += ["--memory", "4G"]  # dozens of concurrent trials with packet captures
        vm += ["--host"] if args.host else ["--kernel", args.kernel]
        t0 = time.monotonic()
        rc = subprocess.run([*vm, "--", *harness]).returncode
        print(f"bench: harness exit {rc} after {time.monotonic() - t0:.0f} s", file=sys.stderr)
    else:
        rc = 0
    from testbed import report

    report.build(out, names)
    print(f"bench: report {out / 'report.md'}", file=sys.stderr)
    return rc


if __name__ == "__main__":
    sys.exit(main())
