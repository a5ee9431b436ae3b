"""``python -m benchmarks``: run scenarios, print their tables, save JSON + Markdown (+ PNG plots)."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from .common import RESULTS, Context, Report, calibrate, have_matplotlib, machine, pyplot, warm_up
from .scenarios import SCENARIOS

DEFAULT = ["e2e", "small", "scaling", "lifecycle", "overhead", "pipelining", "scheduling", "walker", "critical_path", "plugins"]


def parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m benchmarks",
        description="strata's benchmarks. Scenarios: " + ", ".join(SCENARIOS) + " (default: all).")
    p.add_argument("scenarios", nargs="*", metavar="scenario", help="which scenarios to run (default: all)")
    p.add_argument("--sizes", type=_sizes, default=None,
                   help="comma- or space-separated N values, overriding each scenario's own (e.g. 100,1000)")
    p.add_argument("--quick", action="store_true",
                   help="small sizes and one repetition (results go to benchmarks/results/tmp/quick by default)")
    p.add_argument("--reps", type=int, default=None, help="repetitions per measurement (default per scenario)")
    p.add_argument("--out", type=Path, default=None, help="where results go (default benchmarks/results)")
    p.add_argument("--no-terraform", action="store_true", help="do not run terraform even if it is on PATH")
    p.add_argument("--no-plots", action="store_true", help="do not draw PNG plots")
    p.add_argument("--keep", action="store_true", help="keep the temporary work directories")
    p.add_argument("--list", action="store_true", help="list the scenarios and exit")
    return p.parse_args(argv)


def _sizes(s: str) -> list[int]:
    out = []
    for part in s.replace(",", " ").split():
        part = part.lower().replace("_", "")
        mult = 1
        if part.endswith("k"):
            part, mult = part[:-1], 1000
        out.append(int(float(part) * mult))
    if not out or any(n < 1 for n in out):
        raise argparse.ArgumentTypeError(f"invalid sizes: {s!r}")
    return out


def main(argv: list[str] | None = None) -> int:
    a = parse(argv)
    if a.list:
        for name, mod in SCENARIOS.items():
            print(f"{name:<11} {mod.TITLE}")
        return 0
    names = a.scenarios or DEFAULT
    unknown = [n for n in names if n not in SCENARIOS]
    if unknown:
        print(f"unknown scenario(s): {', '.join(unknown)}; choose from {', '.join(SCENARIOS)}")
        return 2
    out = a.out or (RESULTS / "tmp" / "quick" if a.quick else RESULTS)
    ctx = Context(out=out, sizes=a.sizes, quick=a.quick, reps=a.reps, terraform=not a.no_terraform,
                  plots=not a.no_plots, keep=a.keep)
    plots = ctx.plots and have_matplotlib()
    if ctx.plots and not plots:
        ctx.log("(matplotlib is not installed: no plots; `pip install -e '.[bench]'` adds it)")
    m = machine()
    ctx.log(f"strata benchmarks: {', '.join(names)} -> {out}  ({m['cpus']} CPUs, load {m['loadavg']}, "
            f"terraform {m['terraform'] or 'not on PATH'})")
    warm_up()
    t_all = time.perf_counter()
    for name in names:
        mod = SCENARIOS[name]
        ctx.log(f"\n== {name}: {mod.TITLE}")
        before = calibrate()
        t0 = time.perf_counter()
        report: Report = mod.run(ctx)
        report.duration_s = time.perf_counter() - t0
        report.calibration_ms = (before, calibrate())
        report.print(ctx.log)
        written = report.save(out)
        plt = pyplot(ctx.log) if plots and report.rows else None  # imported late: keeps the runner small
        if plt is not None:
            png = out / f"{name}.png"
            mod.plot(report, plt, png)
            if png.exists():
                written.append(png)
        ctx.log(f"  ({report.duration_s:.0f} s) wrote " + ", ".join(str(p) for p in written))
    summary = write_summary(out)
    ctx.log(f"\nall done in {time.perf_counter() - t_all:.0f} s; summary of targets: {summary}")
    return 0


def write_summary(out: Path) -> Path:
    """``summary.md``: every target of every scenario whose JSON is in ``out``."""
    lines = ["# Benchmark targets (from the JSON results in this directory)", "",
             "| scenario | target | wanted | measured | met | measured on |", "|---|---|---|---|---|---|"]
    for name in SCENARIOS:
        j = out / f"{name}.json"
        if not j.exists():
            continue
        data = json.loads(j.read_text())
        for t in data.get("targets", []):
            met = "n/a" if t["met"] is None else ("yes" if t["met"] else "**no**")
            lines.append(f"| {name} | {t['name']} | {t['target']} | {t['value']} | {met} | {data['date']} |")
    path = out / "summary.md"
    path.write_text("\n".join(lines) + "\n")
    return path
