"""scaling: ``strata apply -auto-approve`` of N independent ``terraform_data`` at 1k, 10k, 100k.

Time per resource should be flat (linear total time); peak RSS is the
child's ``ru_maxrss``. Sizes are interleaved round by round (each round
rotates the order) so that a burst of load from other tenants does not land
on one size only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..common import (
    Column,
    Context,
    Report,
    Run,
    Target,
    Workdirs,
    count_config,
    run_measured,
    strata_argv,
    strata_env,
    summarize,
)

NAME = "scaling"
TITLE = "Scaling: strata apply of N independent terraform_data, fresh state"


def run(ctx: Context) -> Report:
    sizes = ctx.sizes_or([1000, 10_000, 100_000], [100, 1000])
    reps = ctx.reps_or(2, 1)
    cmd = [*strata_argv(), "apply", "-auto-approve"]
    runs: dict[int, list[Run]] = {n: [] for n in sizes}
    with Workdirs(ctx.keep) as wd:
        for r in range(reps):
            k = r % len(sizes)
            for n in sizes[k:] + sizes[:k]:
                d = wd.new(f"scaling-{n}")
                (d / "main.tf").write_text(count_config(n))
                res = run_measured(cmd, d, strata_env())
                runs[n].append(res)
                ctx.log(f"  N={n:>7} rep {r + 1}: wall {res.wall:7.2f} s  cpu {res.cpu:7.2f} s  "
                        f"rss {res.maxrss_mb:6.0f} MB")
    rows: list[dict[str, Any]] = []
    for n in sizes:
        s = summarize(runs[n])
        rows.append({"n": n, "wall_s": s["wall_median_s"], "wall_min_s": s["wall_min_s"],
                     "wall_per_resource_us": round(s["wall_median_s"] / n * 1e6, 1),
                     "cpu_s": s["cpu_median_s"], "cpu_per_resource_us": round(s["cpu_median_s"] / n * 1e6, 1),
                     "maxrss_mb": s["maxrss_mb"], "runs": s["wall_s"]})
    by_n = {r["n"]: r for r in rows}
    targets = []
    if 10_000 in by_n and 100_000 in by_n:
        a, b = by_n[10_000], by_n[100_000]
        ratio = b["wall_s"] / a["wall_s"]
        ratio_cpu = b["cpu_s"] / a["cpu_s"]
        targets.append(Target("t(100k) / t(10k)", "<= 11", f"{ratio:.1f} (wall), {ratio_cpu:.1f} (CPU)",
                              ratio <= 11))
    else:
        targets.append(Target("t(100k) / t(10k)", "<= 11", "not measured", None))
    if 100_000 in by_n:
        b = by_n[100_000]
        targets.append(Target("100k resources", "< 20 s", f"{b['wall_s']:.1f} s wall (min {b['wall_min_s']:.1f} s), "
                              f"{b['cpu_s']:.1f} s CPU", b["wall_s"] < 20))
        targets.append(Target("peak RSS at 100k", "< 1 GB", f"{b['maxrss_mb']:.0f} MB", b["maxrss_mb"] < 1024))
    else:
        targets.append(Target("100k resources", "< 20 s", "not measured", None))
        targets.append(Target("peak RSS at 100k", "< 1 GB", "not measured", None))
    return Report(
        NAME, TITLE,
        commands=["# in a fresh directory, for each N (here 100000):\ncat > main.tf <<EOF\n" + count_config(100_000).rstrip() + "\nEOF",
                  "strata apply -auto-approve > /dev/null"],
        params={"sizes": sizes, "reps": reps, "parallelism": 10},
        columns=[Column("n", "N", "{:,}"), Column("wall_s", "wall (s)", "{:.2f}"),
                 Column("wall_per_resource_us", "wall / resource (µs)", "{:.0f}"),
                 Column("cpu_s", "CPU (s)", "{:.2f}"),
                 Column("cpu_per_resource_us", "CPU / resource (µs)", "{:.0f}"),
                 Column("maxrss_mb", "peak RSS (MB)", "{:.0f}")],
        rows=rows, targets=targets,
        notes=["Wall and CPU are medians over the runs; peak RSS is the largest ru_maxrss of the runs.",
               "The whole command is timed: interpreter start-up, parse, plan, apply, final state write."],
    )


def plot(report: Report, plt: Any, path: Path) -> None:
    rows = report.rows
    ns = [r["n"] for r in rows]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4.2))
    ax1.plot(ns, [r["wall_s"] for r in rows], "o-", label="wall")
    ax1.plot(ns, [r["cpu_s"] for r in rows], "s--", label="CPU")
    if rows:
        base = rows[-1]
        ax1.plot(ns, [base["wall_s"] * n / base["n"] for n in ns], ":", color="gray", label="linear")
    ax1.set_xscale("log")
    ax1.set_yscale("log")
    ax1.set_xlabel("resources (N)")
    ax1.set_ylabel("time (s)")
    ax1.set_title("strata apply: time vs N")
    ax1.grid(True, which="both", alpha=0.3)
    ax1.legend()
    ax2.plot(ns, [r["wall_per_resource_us"] for r in rows], "o-", label="wall / resource")
    ax2.plot(ns, [r["cpu_per_resource_us"] for r in rows], "s--", label="CPU / resource")
    ax2.set_xscale("log")
    ax2.set_xlabel("resources (N)")
    ax2.set_ylabel("µs per resource")
    ax2.set_ylim(bottom=0)
    ax2.set_title("time per resource (flat = linear)")
    ax2.grid(True, which="both", alpha=0.3)
    ax2.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
