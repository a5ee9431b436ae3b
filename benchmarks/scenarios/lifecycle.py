"""lifecycle: the runs after the first. N independent ``terraform_data`` through four commands:

* ``create``   ``apply -auto-approve``, fresh state
* ``no-op``    ``plan -detailed-exitcode`` on that state: a refresh of N objects, no changes (exit 0)
* ``update``   ``apply -auto-approve`` after every ``input`` changed: N in-place updates
* ``destroy``  ``destroy -auto-approve``

A team applying 100k resources runs the last three far more often than the
first, and each one reads and refreshes the whole state: they must scale as
the create does. strata and terraform (where it is on PATH, N <= 1,000)
alternate round by round, each round starting with the other side, so load
from other tenants of the machine hits both.
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
    init_terraform,
    run_measured,
    strata_argv,
    strata_env,
    summarize,
    terraform_env,
    terraform_path,
)

NAME = "lifecycle"
TITLE = "Lifecycle: create, no-change plan, update all, destroy (N independent terraform_data)"
TF_MAX_N = 1000  # terraform takes ~30 s for the four steps at 1,000
STEPS = ("create", "no-op", "update", "destroy")


def updated_config(n: int) -> str:
    """:func:`count_config` with every ``input`` changed: N in-place updates."""
    return count_config(n).replace("input = count.index", 'input = "v2-${count.index}"')


def _cycle(argv: list[str], d: Path, n: int, env: dict[str, str], extra: list[str]) -> dict[str, Run]:
    """The four steps in ``d``; each step's exit status is checked (the plan's must say no changes)."""
    (d / "main.tf").write_text(count_config(n))
    got = {"create": run_measured([*argv, "apply", "-auto-approve", *extra], d, env)}
    plan = run_measured([*argv, "plan", "-detailed-exitcode", *extra], d, env, check=False)
    if plan.returncode != 0:
        raise RuntimeError(f"the plan after the create was not empty (exit {plan.returncode}) in {d}:\n"
                           f"{plan.stderr}")
    got["no-op"] = plan
    (d / "main.tf").write_text(updated_config(n))
    got["update"] = run_measured([*argv, "apply", "-auto-approve", *extra], d, env)
    got["destroy"] = run_measured([*argv, "destroy", "-auto-approve", *extra], d, env)
    return got


def run(ctx: Context) -> Report:
    sizes = ctx.sizes_or([1000, 10_000, 100_000], [100, 1000])
    reps = ctx.reps_or(3, 1)
    tf = terraform_path() if ctx.terraform else None
    if ctx.terraform and tf is None:
        ctx.log("  terraform is not on PATH: strata only")
    rows: list[dict[str, Any]] = []
    with Workdirs(ctx.keep) as wd:
        for n in sizes:
            tf_reps = reps if tf is not None and n <= TF_MAX_N else 0
            runs: dict[str, dict[str, list[Run]]] = {side: {s: [] for s in STEPS} for side in ("strata", "terraform")}
            for r in range(reps):
                for side in (["strata", "terraform"] if r % 2 == 0 else ["terraform", "strata"]):
                    if side == "terraform" and r >= tf_reps:
                        continue
                    d = wd.new(f"lifecycle-{side}-{n}")
                    if side == "strata":
                        got = _cycle(strata_argv(), d, n, strata_env(), [])
                    else:
                        (d / "main.tf").write_text(count_config(n))
                        init_terraform(d)
                        got = _cycle([tf or "terraform"], d, n, terraform_env(), ["-input=false"])
                    for step, res in got.items():
                        runs[side][step].append(res)
                    ctx.log(f"  N={n:>7} {side:<9} rep {r + 1}: " + "  ".join(
                        f"{step} {res.wall:6.2f} s" for step, res in got.items()))
            for step in STEPS:
                s = summarize(runs["strata"][step])
                row: dict[str, Any] = {
                    "n": n, "step": step, "strata_wall_s": s["wall_median_s"], "strata_cpu_s": s["cpu_median_s"],
                    "strata_rss_mb": s["maxrss_mb"], "strata_runs": s["wall_s"],
                    "strata_per_resource_us": round(s["wall_median_s"] / n * 1e6, 1)}
                if runs["terraform"][step]:
                    t = summarize(runs["terraform"][step])
                    row.update(terraform_wall_s=t["wall_median_s"], terraform_runs=t["wall_s"],
                               ratio=round(t["wall_median_s"] / s["wall_median_s"], 1))
                rows.append(row)
    at = {(r["n"], r["step"]): r for r in rows}
    targets = []
    for step in STEPS:
        a, b = at.get((10_000, step)), at.get((100_000, step))
        name = f"{step}: t(100k) / t(10k)"
        if a and b:
            ratio = b["strata_wall_s"] / a["strata_wall_s"]
            targets.append(Target(name, "<= 11", f"{ratio:.1f} ({b['strata_wall_s']:.1f} s at 100k, "
                                  f"{b['strata_rss_mb']:.0f} MB)", ratio <= 11))
        else:
            targets.append(Target(name, "<= 11", "not measured", None))
    return Report(
        NAME, TITLE,
        commands=["# in a fresh directory, for each N (here 100000):\ncat > main.tf <<EOF\n"
                  + count_config(100_000).rstrip() + "\nEOF",
                  "strata apply -auto-approve > /dev/null",
                  "strata plan -detailed-exitcode > /dev/null   # exit 0: no changes",
                  "sed -i 's/input = count.index/input = \"v2-${count.index}\"/' main.tf",
                  "strata apply -auto-approve > /dev/null",
                  "strata destroy -auto-approve > /dev/null",
                  "# terraform: the same, after TF_CLI_CONFIG_FILE=/dev/null terraform init, with -input=false"],
        params={"sizes": sizes, "reps": reps, "parallelism": 10, "terraform_max_n": TF_MAX_N,
                "terraform": tf is not None},
        columns=[Column("n", "N", "{:,}"), Column("step", "step", "{}"),
                 Column("strata_wall_s", "strata wall (s)", "{:.2f}"),
                 Column("strata_per_resource_us", "strata wall / resource (µs)", "{:.0f}"),
                 Column("strata_cpu_s", "strata CPU (s)", "{:.2f}"),
                 Column("strata_rss_mb", "strata peak RSS (MB)", "{:.0f}"),
                 Column("terraform_wall_s", "terraform wall (s)", "{:.2f}"),
                 Column("ratio", "speed-up (wall)", "{}x")],
        rows=rows, targets=targets,
        notes=["#4's table has no row for these steps; the targets here hold them to its scaling row "
               "(time per resource flat from 10k to 100k).",
               "Wall times are medians; stdout goes to /dev/null (human output); terraform init is not timed.",
               "Each step runs on the state the one before it left, in the same directory."],
    )


def plot(report: Report, plt: Any, path: Path) -> None:
    fig, ax = plt.subplots(figsize=(7, 4.6))
    for i, step in enumerate(STEPS):
        rows = [r for r in report.rows if r["step"] == step]
        color = f"C{i}"
        ax.plot([r["n"] for r in rows], [r["strata_wall_s"] for r in rows], "o-", color=color,
                label=f"strata {step}")
        tf = [r for r in rows if r.get("terraform_wall_s") is not None]
        if tf:
            ax.plot([r["n"] for r in tf], [r["terraform_wall_s"] for r in tf], "s", color=color,
                    label=f"terraform {step}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("resources (N)")
    ax.set_ylabel("wall time (s)")
    ax.set_title("create, no-change plan, update, destroy")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
