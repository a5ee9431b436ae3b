"""scaling: ``strata apply -auto-approve`` of N independent ``terraform_data`` at 1k, 10k, 100k, in
two shapes: one resource with ``count = N`` ("count"), and N / 100 instances of a module
(``count`` on the module block) of 100 resources each ("modules": 1,000 module instances at 100k,
which checks that module expansion stays linear).

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
SHAPES = ("count", "modules")
PER_MODULE = 100  # resources in each module instance of the "modules" shape


def module_shape(n: int) -> tuple[int, int]:
    """(module instances, resources in each) of the "modules" shape for N resources."""
    instances = max(1, n // PER_MODULE)
    return instances, n // instances


def module_config(n: int) -> dict[str, str]:
    """The files of the "modules" shape: main.tf calling m/ with count, m/main.tf's resources."""
    instances, per = module_shape(n)
    child = 'variable "name" {}\n' + "".join(
        f'resource "terraform_data" "r{i}" {{\n  input = "${{var.name}}-{i}"\n}}\n' for i in range(per))
    root = f'module "m" {{\n  source = "./m"\n  count  = {instances}\n  name   = "m${{count.index}}"\n}}\n'
    return {"main.tf": root, "m/main.tf": child}


def _write(d: Path, shape: str, n: int) -> None:
    files = {"main.tf": count_config(n)} if shape == "count" else module_config(n)
    for name, text in files.items():
        (d / name).parent.mkdir(parents=True, exist_ok=True)
        (d / name).write_text(text)


def run(ctx: Context) -> Report:
    sizes = ctx.sizes_or([1000, 10_000, 100_000], [100, 1000])
    reps = ctx.reps_or(2, 1)
    cmd = [*strata_argv(), "apply", "-auto-approve"]
    runs: dict[tuple[str, int], list[Run]] = {(sh, n): [] for sh in SHAPES for n in sizes}
    with Workdirs(ctx.keep) as wd:
        for r in range(reps):
            k = r % len(sizes)
            for n in sizes[k:] + sizes[:k]:
                for shape in SHAPES:
                    d = wd.new(f"scaling-{shape}-{n}")
                    _write(d, shape, n)
                    res = run_measured(cmd, d, strata_env())
                    runs[(shape, n)].append(res)
                    ctx.log(f"  {shape:>7} N={n:>7} rep {r + 1}: wall {res.wall:7.2f} s  cpu {res.cpu:7.2f} s  "
                            f"rss {res.maxrss_mb:6.0f} MB")
    rows: list[dict[str, Any]] = []
    for shape in SHAPES:
        for n in sizes:
            s = summarize(runs[(shape, n)])
            rows.append({"shape": shape, "n": n, "wall_s": s["wall_median_s"], "wall_min_s": s["wall_min_s"],
                         "wall_per_resource_us": round(s["wall_median_s"] / n * 1e6, 1),
                         "cpu_s": s["cpu_median_s"], "cpu_per_resource_us": round(s["cpu_median_s"] / n * 1e6, 1),
                         "maxrss_mb": s["maxrss_mb"], "runs": s["wall_s"]})
    targets = []
    for shape in SHAPES:
        targets.extend(_targets(shape, {r["n"]: r for r in rows if r["shape"] == shape}))
    return Report(
        NAME, TITLE,
        commands=["# in a fresh directory, for each N (here 100000):\ncat > main.tf <<EOF\n" + count_config(100_000).rstrip() + "\nEOF",
                  "strata apply -auto-approve > /dev/null",
                  "# the modules shape: 1,000 instances of a module of 100 resources\nmkdir m\ncat > main.tf <<EOF\n"
                  + module_config(100_000)["main.tf"].rstrip() + "\nEOF\n# m/main.tf: variable \"name\" {} and "
                  "resource \"terraform_data\" \"r0\" ... \"r99\", each input = \"${var.name}-I\"",
                  "strata apply -auto-approve > /dev/null"],
        params={"sizes": sizes, "reps": reps, "parallelism": 10, "shapes": list(SHAPES), "per_module": PER_MODULE},
        columns=[Column("shape", "shape", "{}"), Column("n", "N", "{:,}"), Column("wall_s", "wall (s)", "{:.2f}"),
                 Column("wall_per_resource_us", "wall / resource (µs)", "{:.0f}"),
                 Column("cpu_s", "CPU (s)", "{:.2f}"),
                 Column("cpu_per_resource_us", "CPU / resource (µs)", "{:.0f}"),
                 Column("maxrss_mb", "peak RSS (MB)", "{:.0f}")],
        rows=rows, targets=targets,
        notes=["Wall and CPU are medians over the runs; peak RSS is the largest ru_maxrss of the runs.",
               "The whole command is timed: interpreter start-up, parse, plan, apply, final state write."],
    )


def _targets(shape: str, by_n: dict[int, dict[str, Any]]) -> list[Target]:
    label = "" if shape == "count" else f" ({shape})"
    targets = []
    if 10_000 in by_n and 100_000 in by_n:
        a, b = by_n[10_000], by_n[100_000]
        ratio = b["wall_s"] / a["wall_s"]
        ratio_cpu = b["cpu_s"] / a["cpu_s"]
        targets.append(Target(f"t(100k) / t(10k){label}", "<= 11", f"{ratio:.1f} (wall), {ratio_cpu:.1f} (CPU)",
                              ratio <= 11))
    else:
        targets.append(Target(f"t(100k) / t(10k){label}", "<= 11", "not measured", None))
    if 100_000 in by_n:
        b = by_n[100_000]
        targets.append(Target(f"100k resources{label}", "< 20 s", f"{b['wall_s']:.1f} s wall (min "
                              f"{b['wall_min_s']:.1f} s), {b['cpu_s']:.1f} s CPU", b["wall_s"] < 20))
        targets.append(Target(f"peak RSS at 100k{label}", "< 1 GB", f"{b['maxrss_mb']:.0f} MB",
                              b["maxrss_mb"] < 1024))
    else:
        targets.append(Target(f"100k resources{label}", "< 20 s", "not measured", None))
        targets.append(Target(f"peak RSS at 100k{label}", "< 1 GB", "not measured", None))
    return targets


def plot(report: Report, plt: Any, path: Path) -> None:
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4.2))
    for shape in SHAPES:
        rows = [r for r in report.rows if r.get("shape", "count") == shape]
        ns = [r["n"] for r in rows]
        ax1.plot(ns, [r["wall_s"] for r in rows], "o-", label=f"wall ({shape})")
        ax1.plot(ns, [r["cpu_s"] for r in rows], "s--", label=f"CPU ({shape})")
        if rows and shape == "count":
            base = rows[-1]
            ax1.plot(ns, [base["wall_s"] * n / base["n"] for n in ns], ":", color="gray", label="linear")
        ax2.plot(ns, [r["wall_per_resource_us"] for r in rows], "o-", label=f"wall / resource ({shape})")
        ax2.plot(ns, [r["cpu_per_resource_us"] for r in rows], "s--", label=f"CPU / resource ({shape})")
    ax1.set_xscale("log")
    ax1.set_yscale("log")
    ax1.set_xlabel("resources (N)")
    ax1.set_ylabel("time (s)")
    ax1.set_title("strata apply: time vs N")
    ax1.grid(True, which="both", alpha=0.3)
    ax1.legend()
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
