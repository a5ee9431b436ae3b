"""e2e: ``strata apply -auto-approve`` vs ``terraform apply -auto-approve`` of N independent ``terraform_data``.

Each run is a fresh state in a fresh temporary directory (terraform's ``init``
happens before the clock starts). strata and terraform runs alternate, each
round starting with the other side, so load from other tenants of the machine
hits both. The ratio is terraform's median wall time over strata's. terraform
runs only where it is on PATH and N <= 3,000 (its apply of one resource with a
large count is quadratic: minutes at 3,000).
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

NAME = "e2e"
TITLE = "End to end: strata vs terraform, N independent terraform_data, fresh state"
TF_MAX_N = 3000
PARALLELISM = 10  # terraform's default, and strata's


def run(ctx: Context) -> Report:
    sizes = ctx.sizes_or([100, 1000, 3000], [100, 300])
    reps = ctx.reps_or(3, 1)
    tf = terraform_path() if ctx.terraform else None
    if ctx.terraform and tf is None:
        ctx.log("  terraform is not on PATH: strata only")
    strata_cmd = [*strata_argv(), "apply", "-auto-approve", f"-parallelism={PARALLELISM}"]
    tf_cmd = [tf or "terraform", "apply", "-auto-approve", "-input=false", f"-parallelism={PARALLELISM}"]
    rows: list[dict[str, Any]] = []
    with Workdirs(ctx.keep) as wd:
        for n in sizes:
            tf_reps = 0 if tf is None or n > TF_MAX_N else (reps if n <= 1000 else 1)
            runs: dict[str, list[Run]] = {"strata": [], "terraform": []}
            for r in range(max(reps, tf_reps)):
                sides = ["strata", "terraform"] if r % 2 == 0 else ["terraform", "strata"]
                for side in sides:
                    if side == "strata" and r < reps:
                        d = wd.new(f"strata-{n}")
                        (d / "main.tf").write_text(count_config(n))
                        res = run_measured(strata_cmd, d, strata_env())
                    elif side == "terraform" and r < tf_reps:
                        d = wd.new(f"terraform-{n}")
                        (d / "main.tf").write_text(count_config(n))
                        init_terraform(d)
                        res = run_measured(tf_cmd, d, terraform_env())
                    else:
                        continue
                    runs[side].append(res)
                    ctx.log(f"  N={n:>6} {side:<9} rep {r + 1}: wall {res.wall:8.2f} s  cpu {res.cpu:7.2f} s  "
                            f"rss {res.maxrss_mb:6.0f} MB")
            s = summarize(runs["strata"])
            row = {"n": n, "strata_wall_s": s["wall_median_s"], "strata_cpu_s": s["cpu_median_s"],
                   "strata_rss_mb": s["maxrss_mb"], "strata_runs": s["wall_s"]}
            if runs["terraform"]:
                t = summarize(runs["terraform"])
                row.update(terraform_wall_s=t["wall_median_s"], terraform_cpu_s=t["cpu_median_s"],
                           terraform_rss_mb=t["maxrss_mb"], terraform_runs=t["wall_s"],
                           ratio=round(t["wall_median_s"] / s["wall_median_s"], 1),
                           ratio_cpu=round(t["cpu_median_s"] / s["cpu_median_s"], 1))
            rows.append(row)
    targets = []
    at = [r for r in rows if r["n"] == 3000 and "ratio" in r]
    if at:
        targets.append(Target("e2e speed-up over terraform at N = 3,000", ">= 50x",
                              f"{at[0]['ratio']}x (wall), {at[0]['ratio_cpu']}x (CPU)", at[0]["ratio"] >= 50))
    else:
        targets.append(Target("e2e speed-up over terraform at N = 3,000", ">= 50x", "not measured", None))
    report = Report(
        NAME, TITLE,
        commands=["# in a fresh directory, for each N (here 3000):\ncat > main.tf <<EOF\n" + count_config(3000).rstrip() + "\nEOF",
                  " ".join(["strata", *strata_cmd[len(strata_argv()):]]),
                  "TF_CLI_CONFIG_FILE=/dev/null terraform init && " + " ".join(["terraform", *tf_cmd[1:]])],
        params={"sizes": sizes, "strata_reps": reps, "parallelism": PARALLELISM, "terraform_max_n": TF_MAX_N,
                "terraform": tf is not None},
        columns=[Column("n", "N", "{:,}"), Column("strata_wall_s", "strata wall (s)", "{:.2f}"),
                 Column("strata_cpu_s", "strata CPU (s)", "{:.2f}"),
                 Column("strata_rss_mb", "strata peak RSS (MB)", "{:.0f}"),
                 Column("terraform_wall_s", "terraform wall (s)", "{:.2f}"),
                 Column("terraform_cpu_s", "terraform CPU (s)", "{:.2f}"),
                 Column("ratio", "speed-up (wall)", "{}x"), Column("ratio_cpu", "speed-up (CPU)", "{}x")],
        rows=rows, targets=targets,
        notes=["Wall times are medians; stdout of both tools goes to /dev/null (human output); "
               "terraform init is not timed.",
               "CPU = user + system time of the process (and its children that it waited for)."],
    )
    return report


def plot(report: Report, plt: Any, path: Path) -> None:
    rows = report.rows
    fig, ax = plt.subplots(figsize=(6, 4.2))
    ax.plot([r["n"] for r in rows], [r["strata_wall_s"] for r in rows], "o-", label="strata")
    tf = [r for r in rows if r.get("terraform_wall_s") is not None]
    if tf:
        ax.plot([r["n"] for r in tf], [r["terraform_wall_s"] for r in tf], "s-", label="terraform")
        for r in tf:
            ax.annotate(f"{r['ratio']}x", (r["n"], r["terraform_wall_s"]), textcoords="offset points",
                        xytext=(4, 4), fontsize=8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("resources (N)")
    ax.set_ylabel("wall time of apply (s)")
    ax.set_title("apply, fresh state: N independent terraform_data")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
