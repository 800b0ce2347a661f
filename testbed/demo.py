"""``make demo``: the thesis fig 5.11 goodput-vs-loss comparison.

Runs the harness's ``fig5_11`` scenario with its ``demo`` profile (7
congestion controls x 4 PERs x 3 runs of 20 s) on a Debian kernel in the VM
(or on the host kernel when it can load modules), then writes into
``--out``: ``summary.json`` (median goodput per congestion control and PER,
with the ceiling C (1 - PER)), ``runs.json`` (every run with its
parameters), ``goodput.png``/``goodput.svg`` and ``summary.md``.  The raw
per-point results stay in ``--out/fig5_11/runs/``.  Each ``make demo``
measures afresh (``--resume`` keeps the points of an interrupted run).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from testbed.analysis import WIRELESS_RATE_BPS, goodput_summary

TOP = Path(__file__).resolve().parent.parent
DEMO_CCS = ["reno", "cubic", "westwood", "veno", "vegas", "bbr", "jersey"]
SCENARIO = "fig5_11"


def host_can_load_modules() -> bool:
    build = Path(f"/lib/modules/{os.uname().release}/build/Makefile")
    return Path("/proc/modules").exists() and build.exists()


def plot(summary: list[dict[str, Any]], out: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    pers = sorted({r["per"] for r in summary})
    xs = range(len(pers))
    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.plot(
        xs,
        [(1 - p) * WIRELESS_RATE_BPS / 1e6 for p in pers],
        "k--",
        label="ceiling C(1-PER)",
    )
    for cc in dict.fromkeys(r["cc"] for r in summary):
        rows = {r["per"]: r for r in summary if r["cc"] == cc}
        ys = [rows[p]["goodput_bps"] / 1e6 if p in rows else float("nan") for p in pers]
        ax.plot(xs, ys, marker="o", label=cc)
    ax.set_xticks(list(xs), [f"{p * 100:g}%" for p in pers])
    ax.set_xlabel("packet error rate on the 2 Mb/s wireless hop")
    ax.set_ylabel("goodput (Mb/s), median of runs")
    ax.set_ylim(0, 2.1)
    ax.grid(alpha=0.3)
    ax.legend()
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    for ext in ("png", "svg"):
        fig.savefig(out / f"goodput.{ext}", dpi=120)
    plt.close(fig)


def markdown(summary: list[dict[str, Any]]) -> str:
    pers = sorted({r["per"] for r in summary})
    ccs = list(dict.fromkeys(r["cc"] for r in summary))
    cell = {(r["cc"], r["per"]): r for r in summary}
    lines = [
        "| cc | " + " | ".join(f"PER {p * 100:g}%" for p in pers) + " |",
        "|---|" + "---:|" * len(pers),
    ]
    for cc in ccs:
        row = [f"{cell[cc, p]['goodput_bps'] / 1e6:.2f}" if (cc, p) in cell else "-" for p in pers]
        lines.append(f"| {cc} | " + " | ".join(row) + " |")
    ceil = WIRELESS_RATE_BPS / 1e6
    lines.append("| ceiling | " + " | ".join(f"{ceil * (1 - p):.2f}" for p in pers) + " |")
    return "\n".join(lines) + "\n"


def collect(out: Path) -> dict[str, Any]:
    """The harness's point results as the demo's runs.json document."""
    trials = []
    env: dict[str, Any] = {}
    for f in sorted((out / SCENARIO / "runs").glob("*.json")):
        doc = json.loads(f.read_text())
        if doc.get("status") != "ok":
            continue
        env = env or {**doc["environment"], "versions": doc.get("versions", {})}
        for link in doc.get("links", []):
            link.pop("queue_stats", None)
        trials.append(
            {
                "name": doc["point"],
                "params": {
                    **doc["values"],
                    "run": doc["run"],
                    "duration_s": doc["spec"]["duration_s"],
                },
                "links_config": doc["links_config"],
                "sysctls": doc["sysctls"],
                "flows": doc["flows"],
                "links": doc["links"],
                "nstat": doc["nstat"],
                "seeds": doc["seeds"],
                "wall_s": doc["wall_s"],
            }
        )
    return {"environment": env, "scenario": SCENARIO, "profile": "demo", "trials": trials}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", default="results/demo")
    ap.add_argument("--kernel", default=os.environ.get("JERSEY_KERNEL", "6.12"))
    ap.add_argument("--host", action="store_true", default=host_can_load_modules())
    ap.add_argument("--ccs", default=",".join(DEMO_CCS))
    ap.add_argument("--pers", default="0,0.001,0.01,0.05")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--duration", type=float, default=20)
    ap.add_argument("--resume", action="store_true", help="keep points of an earlier run")
    args = ap.parse_args()
    out = (TOP / args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    if not args.resume:
        shutil.rmtree(out / SCENARIO, ignore_errors=True)
    vm = [str(TOP / "testbed" / "vm")] + (["--host"] if args.host else ["--kernel", args.kernel])
    harness = [str(TOP / ".venv" / "bin" / "python"), "-m", "testbed.harness", "--out", str(out)]
    harness += ["--profile", "demo", SCENARIO]
    harness += ["--set", f"sweep.cc={args.ccs}", "--set", f"sweep.per=[{args.pers}]"]
    harness += ["--set", f"runs={args.runs}", "--set", f"duration_s={args.duration:g}"]
    rc = subprocess.run([*vm, "--", *harness]).returncode
    if rc != 0:
        sys.exit(f"demo: sweep failed with exit {rc}")
    doc = collect(out)
    (out / "runs.json").write_text(json.dumps(doc, indent=1))
    summary = goodput_summary(doc)
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    env = doc["environment"]
    title = (
        f"fig 5.11 path: 10 Mb/s 45 ms + 2 Mb/s 1 ms lossy; cw gateway, ECN on\n"
        f"{args.duration:g} s flows, median of {args.runs} runs; kernel {env.get('kernel')}"
    )
    plot(summary, out, title)
    table = markdown(summary)
    (out / "summary.md").write_text(title.replace("\n", "; ") + "\n\n" + table)
    print(table)
    print(f"demo: wrote {out}/summary.json, runs.json, goodput.png, goodput.svg, summary.md")


if __name__ == "__main__":
    main()
