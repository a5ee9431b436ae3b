"""small: the runs most people make every day, where start-up is most of the time.

In one directory per side and round, N independent ``terraform_data`` through:

* ``version``  ``version``: start-up alone
* ``create``   ``apply -auto-approve``, fresh state
* ``plan``     ``plan -detailed-exitcode`` on that state: no changes (exit 0)
* ``apply``    ``apply -auto-approve`` on that state: no changes
* ``destroy``  ``destroy -auto-approve``

strata and terraform alternate round by round, each round starting with the other side, so load
from other tenants of the machine hits both; figures are medians of the rounds. terraform's
``init`` is not timed.
"""

from __future__ import annotations

import sys
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

NAME = "small"
TITLE = "Small runs: version, create, no-change plan and apply, destroy (N independent terraform_data)"
STEPS = ("version", "create", "plan", "apply", "destroy")
VERSION_TARGET_S = 0.060
EVENT_LOOP_ALONE = ("import anyio\n"
                    "async def main():\n"
                    "    async with anyio.create_task_group():\n"
                    "        pass\n"
                    "anyio.run(main)\n")
"""The floor under every command that runs the engine: the product's event-loop stack (anyio on
asyncio, strata's default backend) started and stopped with nothing to do."""


def _round(argv: list[str], d: Path, n: int, env: dict[str, str]) -> dict[str, Run]:
    """The five steps in ``d``; the plan on the created state must say no changes (exit 0)."""
    (d / "main.tf").write_text(count_config(n))
    got = {"version": run_measured([*argv, "version"], d, env),
           "create": run_measured([*argv, "apply", "-auto-approve"], d, env)}
    plan = run_measured([*argv, "plan", "-detailed-exitcode"], d, env, check=False)
    if plan.returncode != 0:
        raise RuntimeError(f"the plan after the create was not empty (exit {plan.returncode}) in {d}:\n{plan.stderr}")
    got["plan"] = plan
    got["apply"] = run_measured([*argv, "apply", "-auto-approve"], d, env)
    got["destroy"] = run_measured([*argv, "destroy", "-auto-approve"], d, env)
    return got


def run(ctx: Context) -> Report:
    sizes = ctx.sizes_or([10, 100], [10])
    reps = ctx.reps_or(7, 1)
    tf = terraform_path() if ctx.terraform else None
    if ctx.terraform and tf is None:
        ctx.log("  terraform is not on PATH: strata only")
    sides = ["strata", "terraform"] if tf is not None else ["strata"]
    rows: list[dict[str, Any]] = []
    bare: list[Run] = []  # the interpreter alone, each round: the floor under every strata figure
    loop: list[Run] = []  # the interpreter and an empty anyio.run: the floor under plan and apply
    with Workdirs(ctx.keep) as wd:
        for n in sizes:
            runs: dict[str, dict[str, list[Run]]] = {side: {s: [] for s in STEPS} for side in sides}
            for r in range(reps):
                for side in sides[r % len(sides):] + sides[:r % len(sides)]:
                    d = wd.new(f"small-{side}-{n}")
                    if side == "strata":
                        bare.append(run_measured([sys.executable, "-c", "pass"], d, strata_env()))
                        loop.append(run_measured([sys.executable, "-c", EVENT_LOOP_ALONE], d, strata_env()))
                        got = _round(strata_argv(), d, n, strata_env())
                    else:
                        assert tf is not None
                        (d / "main.tf").write_text(count_config(n))
                        init_terraform(d)
                        got = _round([tf], d, n, terraform_env())
                    for step, res in got.items():
                        runs[side][step].append(res)
                    ctx.log(f"  N={n:>4} {side:<9} rep {r + 1}: " + "  ".join(
                        f"{s} {got[s].wall * 1000:5.0f} ms" for s in STEPS))
            for step in STEPS:
                s = summarize(runs["strata"][step])
                row: dict[str, Any] = {"n": n, "step": step, "strata_wall_s": s["wall_median_s"],
                                       "strata_cpu_s": s["cpu_median_s"], "strata_rss_mb": s["maxrss_mb"],
                                       "strata_runs": s["wall_s"]}
                if "terraform" in runs:
                    t = summarize(runs["terraform"][step])
                    row.update(terraform_wall_s=t["wall_median_s"], terraform_cpu_s=t["cpu_median_s"],
                               terraform_runs=t["wall_s"],
                               ratio=round(t["wall_median_s"] / s["wall_median_s"], 2))
                rows.append(row)
    interpreter = summarize(bare)
    event_loop = summarize(loop)
    return Report(
        NAME, TITLE,
        commands=["# in a fresh directory, for each N (here 10):\ncat > main.tf <<EOF\n" + count_config(10).rstrip()
                  + "\nEOF",
                  "strata version",
                  "strata apply -auto-approve            # create",
                  "strata plan -detailed-exitcode        # no changes: exit 0",
                  "strata apply -auto-approve            # no changes",
                  "strata destroy -auto-approve",
                  "# terraform: the same commands after TF_CLI_CONFIG_FILE=/dev/null terraform init (not timed)"],
        params={"sizes": sizes, "reps": reps, "terraform": tf is not None},
        columns=[Column("n", "N", "{:,}"), Column("step", "step"),
                 Column("strata_wall_s", "strata wall (s)", "{:.3f}"),
                 Column("strata_cpu_s", "strata CPU (s)", "{:.3f}"),
                 Column("terraform_wall_s", "terraform wall (s)", "{:.3f}"),
                 Column("terraform_cpu_s", "terraform CPU (s)", "{:.3f}"),
                 Column("ratio", "terraform / strata (wall)", "{}x")],
        rows=rows, targets=_targets(rows, interpreter, event_loop),
        extra={"interpreter_alone": interpreter, "event_loop_alone": event_loop},
        notes=["Wall times are medians of the rounds; stdout of both tools goes to /dev/null (human output).",
               "ratio > 1: strata is faster. CPU = user + system time of the process.",
               f"The interpreter alone (python -c pass, strata's environment) took {interpreter['wall_median_s'] * 1000:.0f} ms "
               f"wall (median; min {interpreter['wall_min_s'] * 1000:.0f} ms), {interpreter['cpu_median_s'] * 1000:.0f} ms CPU "
               "in the same rounds.",
               f"The event loop alone (python -c 'anyio.run' of an empty task group, on asyncio: the stack the "
               f"product fixes, started and stopped with nothing to do) took {event_loop['wall_median_s'] * 1000:.0f} ms "
               f"wall (median; min {event_loop['wall_min_s'] * 1000:.0f} ms), {event_loop['cpu_median_s'] * 1000:.0f} ms CPU: "
               "the floor under every plan and apply, whatever strata itself does.",
               "The configuration is parsed by tree-sitter (compiled): ~5 ms of import and ~1 ms to load the grammar "
               "(python-hcl2/lark, before, cost ~130 ms of every command that reads the configuration).",
               "What a no-change plan's CPU is made of (python -X importtime, cProfile; see the README's Performance "
               "section): the interpreter's start, the imports (asyncio and anyio with ssl and sockets, the standard "
               "library they and orjson pull in, ~125 engine modules), ~10-20 ms of interpreter exit, and only then "
               "the plan itself (~15-30 ms at N = 10)."],
    )


def _targets(rows: list[dict[str, Any]], interpreter: dict[str, Any], event_loop: dict[str, Any]) -> list[Target]:
    targets = []
    versions = [r for r in rows if r["step"] == "version"]
    if versions:
        worst = max(versions, key=lambda r: r["strata_wall_s"])
        targets.append(Target("strata version", f"< {VERSION_TARGET_S * 1000:.0f} ms",
                              f"{worst['strata_wall_s'] * 1000:.0f} ms wall (median; min "
                              f"{min(worst['strata_runs']) * 1000:.0f} ms), {worst['strata_cpu_s'] * 1000:.0f} ms CPU; "
                              f"python -c pass alone: {interpreter['wall_median_s'] * 1000:.0f} ms (min "
                              f"{interpreter['wall_min_s'] * 1000:.0f} ms)", worst["strata_wall_s"] < VERSION_TARGET_S))
    for step in ("plan", "apply"):
        for r in rows:
            if r["step"] != step or r["n"] not in (10, 100):
                continue
            name = f"no-change {step}, N = {r['n']}: no slower than terraform"
            if "ratio" not in r:
                targets.append(Target(name, ">= 1x", "not measured", None))
                continue
            targets.append(Target(name, ">= 1x (stretch 2x)",
                                  f"{r['ratio']}x ({r['strata_wall_s'] * 1000:.0f} ms vs "
                                  f"{r['terraform_wall_s'] * 1000:.0f} ms; the event loop alone "
                                  f"{event_loop['wall_median_s'] * 1000:.0f} ms)", r["ratio"] >= 1))
    return targets


def plot(report: Report, plt: Any, path: Path) -> None:
    rows = [r for r in report.rows if r.get("terraform_wall_s") is not None]
    labels = [f"{r['step']}\nN={r['n']}" for r in rows] or [f"{r['step']}\nN={r['n']}" for r in report.rows]
    rows = rows or report.rows
    fig, ax = plt.subplots(figsize=(max(6, len(rows) * 0.7), 4.2))
    xs = range(len(rows))
    ax.bar([x - 0.2 for x in xs], [r["strata_wall_s"] * 1000 for r in rows], width=0.4, label="strata")
    if any(r.get("terraform_wall_s") is not None for r in rows):
        ax.bar([x + 0.2 for x in xs], [(r.get("terraform_wall_s") or 0) * 1000 for r in rows], width=0.4,
               label="terraform")
    ax.set_xticks(list(xs))
    ax.set_xticklabels(labels, fontsize=7)
    ax.set_ylabel("wall time (ms, median)")
    ax.set_title("small runs: strata vs terraform")
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
