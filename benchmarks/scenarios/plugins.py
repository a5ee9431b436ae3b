"""plugins: strata and terraform driving the same real provider plugins.

* ``null apply``: ``apply -auto-approve`` of N ``null_resource`` (count = N, a ``triggers`` map
  each) through terraform-provider-null 2.1.2 (protocol 5, the real binary), fresh state, a fresh
  directory per run; ``.terraform/`` is filled from the filesystem mirror before (untimed: ``strata
  init -plugin-dir``, or ``terraform init -plugin-dir`` where strata cannot install yet). strata's
  built-in ``null`` runs the same files without ``.terraform/`` (side ``builtin``): the difference
  is what the plugin costs end to end.
* ``round trip``: the plugin client alone, in this process: N ``PlanResourceChange`` +
  ``ApplyResourceChange`` pairs of one ``null_resource``, one after the other on trio and on
  asyncio, and by 10 concurrent tasks (as ``-parallelism=10`` makes them); µs per pair of wall
  time, of strata's CPU (every thread of this process) and of the plugin process's own CPU (from
  ``/proc/PID/stat``): what terraform pays too, and what bounds the ratio.
* ``aws …``: terraform-provider-aws 3.39.0 against moto (``tests/plugins/moto.py``), N SSM
  parameters and N SQS queues tagged with them: create, no-op ``plan -detailed-exitcode``, an
  update in place of every object, destroy; a fresh moto server per side and round, and the AWS
  API's listing checked after the create (untimed).

Sides alternate round by round (each round starting with the other side); figures are medians.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path
from typing import Any

from ..common import (
    Column,
    Context,
    Report,
    Run,
    Target,
    Workdirs,
    median,
    run_measured,
    strata_argv,
    strata_env,
    summarize,
    terraform_env,
    terraform_path,
)

NAME = "plugins"
TITLE = "Real provider plugins: null 2.1.2 at N null_resource, the client's round trip, aws 3.39.0 against moto"
TARGET_N = 3000
TARGET_RATIO = 50.0
AWS_STEPS = ("create", "no-op plan", "update", "destroy")
NULL_SOURCE = "registry.terraform.io/hashicorp/null"


def null_config(n: int) -> str:
    return ('terraform {\n  required_providers {\n    null = { source = "hashicorp/null", version = "2.1.2" }\n  }\n}\n\n'
            f'resource "null_resource" "x" {{\n  count    = {n}\n  triggers = {{ i = count.index }}\n}}\n')


def install(d: Path, mirror: Path) -> None:
    """Fill ``d/.terraform`` from ``mirror``: ``strata init -plugin-dir``, else terraform's (untimed)."""
    got = subprocess.run([*strata_argv(), "init", f"-plugin-dir={mirror}", "-no-color"], cwd=d, env=strata_env(),
                         capture_output=True, text=True)
    if got.returncode == 0 and (d / ".terraform" / "providers").is_dir():
        return
    tf = terraform_path()
    if tf is None:
        raise RuntimeError(f"strata init -plugin-dir failed and terraform is not on PATH:\n{got.stderr}")
    subprocess.run([tf, "init", f"-plugin-dir={mirror}", "-input=false", "-no-color"], cwd=d, env=terraform_env(),
                   check=True, capture_output=True)


def strata_uses_plugins(null_binary: Path | None) -> str | None:
    """Why strata does not drive plugins in this checkout (observed: tests/plugins/probe.py), or None."""
    import importlib.util

    from tests.plugins.probe import strata_runs_plugins

    if importlib.util.find_spec("engine.plugin") is None:
        return "this checkout of strata has no plugin client (engine.plugin)"
    if null_binary is None:
        return "null 2.1.2 could not be fetched"
    return strata_runs_plugins(null_binary)


# --------------------------------------------------------------------------- null


def _null_sides(tf: str | None, why_not: str | None) -> list[str]:
    sides = ["builtin"]
    if why_not is None:
        sides.insert(0, "strata")
    if tf is not None:
        sides.append("terraform")
    return sides


def _null_apply(side: str, d: Path, n: int, mirror: Path, tf: str | None) -> Run:
    (d / "main.tf").write_text(null_config(n))
    if side == "builtin":
        return run_measured([*strata_argv(), "apply", "-auto-approve"], d, strata_env())
    install(d, mirror)
    if side == "strata":
        return run_measured([*strata_argv(), "apply", "-auto-approve"], d, strata_env())
    assert tf is not None
    return run_measured([tf, "apply", "-auto-approve", "-input=false"], d, terraform_env())


def _null_rows(ctx: Context, wd: Workdirs, mirror: Path, sizes: list[int], reps: int, tf: str | None,
               why_not: str | None) -> list[dict[str, Any]]:
    sides = _null_sides(tf, why_not)
    rows = []
    for n in sizes:
        runs: dict[str, list[Run]] = {s: [] for s in sides}
        for r in range(reps):
            for side in sides[r % len(sides):] + sides[:r % len(sides)]:
                if side == "terraform" and n > 1000 and r > 0:
                    continue  # terraform's apply of one large count is quadratic: once (as in e2e)
                got = _null_apply(side, wd.new(f"null-{side}-{n}"), n, mirror, tf)
                runs[side].append(got)
                ctx.log(f"  null N={n:>5} {side:<9} rep {r + 1}: {got.wall:7.2f} s wall, {got.cpu:6.2f} s CPU")
        row: dict[str, Any] = {"case": "null apply", "n": n}
        for side in sides:
            s = summarize(runs[side])
            row.update({f"{side}_wall_s": s["wall_median_s"], f"{side}_cpu_s": s["cpu_median_s"],
                        f"{side}_rss_mb": s["maxrss_mb"], f"{side}_runs": s["wall_s"]})
        if "strata" in sides and "terraform" in sides:
            row["ratio"] = round(row["terraform_wall_s"] / row["strata_wall_s"], 1)
        if "strata" in sides:
            row["plugin_us_per_resource"] = round((row["strata_wall_s"] - row["builtin_wall_s"]) / n * 1e6, 1)
        rows.append(row)
    return rows


# --------------------------------------------------------------------------- round trip


def _process_cpu(pid: int) -> float:
    """CPU seconds (user + system) process ``pid`` has used so far (Linux: /proc/PID/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def round_trips(executable: Path, n: int, backend: str, tasks: int = 1) -> tuple[float, float, float]:
    """Per PlanResourceChange + ApplyResourceChange pair of one null_resource, made by ``tasks``
    concurrent tasks: seconds of wall time, of strata's CPU (this process, every thread) and of
    the plugin process's own CPU."""
    import anyio

    from engine.plugin.client import PluginProvider
    from engine.provider.protocol import ApplyResourceChangeRequest, PlanResourceChangeRequest
    from engine.values import MapVal

    provider = PluginProvider(executable, NULL_SOURCE)

    async def pairs() -> tuple[float, float, float]:
        await provider.configure({})

        async def some(k: int, j: int) -> None:
            for i in range(k):
                cfg = {"id": None, "triggers": MapVal({"i": str(i * tasks + j)})}
                plan = await provider.plan_resource_change(PlanResourceChangeRequest("null_resource", None, cfg, cfg))
                done = await provider.apply_resource_change(ApplyResourceChangeRequest(
                    "null_resource", None, plan.planned_state, cfg, planned_private=plan.planned_private))
                assert not done.diagnostics, done.diagnostics

        async def run(k: int) -> None:
            async with anyio.create_task_group() as tg:
                for j in range(tasks):
                    tg.start_soon(some, k // tasks, j)

        await run(max(50, tasks * 5))  # warm: the connection, the schema's codecs, grpcio's threads
        assert provider.pid is not None
        t0, c0, p0 = time.perf_counter(), time.process_time(), _process_cpu(provider.pid)
        await run(n)
        return ((time.perf_counter() - t0) / n, (time.process_time() - c0) / n,
                (_process_cpu(provider.pid) - p0) / n)

    try:
        return anyio.run(pairs, backend=backend)
    finally:
        provider.close()


def _round_trip_rows(ctx: Context, executable: Path, sizes: list[int], reps: int) -> list[dict[str, Any]]:
    rows = []
    for n in sizes:
        for backend, tasks in (("trio", 1), ("asyncio", 1), ("asyncio", 10)):
            got = [round_trips(executable, n, backend, tasks) for _ in range(reps)]
            case = f"round trip ({backend}{', 10 tasks' if tasks > 1 else ''})"
            ctx.log(f"  {case} N={n:>5}: " + ", ".join(
                f"{w * 1e6:.0f} µs wall {c * 1e6:.0f} µs CPU {p * 1e6:.0f} µs plugin CPU" for w, c, p in got))
            rows.append({"case": case, "n": n,
                         "us_per_round_trip": round(median([g[0] for g in got]) * 1e6, 1),
                         "cpu_us_per_round_trip": round(median([g[1] for g in got]) * 1e6, 1),
                         "plugin_cpu_us_per_round_trip": round(median([g[2] for g in got]) * 1e6, 1),
                         "us_runs": [round(g[0] * 1e6, 1) for g in got]})
    return rows


# --------------------------------------------------------------------------- aws against moto


def _aws_round(side: str, d: Path, n: int, mirror: Path, tf: str | None) -> dict[str, Run]:
    from tests.plugins.moto import Counts, MotoServer, aws_config

    argv = strata_argv() if side == "strata" else [tf or "terraform"]
    env = strata_env() if side == "strata" else terraform_env()
    with MotoServer() as moto:
        (d / "main.tf").write_text(aws_config(moto.endpoint, n, "one"))
        install(d, mirror)
        got = {"create": run_measured([*argv, "apply", "-auto-approve", "-input=false"], d, env)}
        counts = moto.counts(with_tags=False)
        if counts.summary != (n, n):
            raise RuntimeError(f"{side}: after the create the AWS API lists {counts.summary}, not {(n, n)}")
        plan = run_measured([*argv, "plan", "-detailed-exitcode", "-input=false"], d, env, check=False)
        if plan.returncode != 0:
            raise RuntimeError(f"{side}: the plan after the create was not empty (exit {plan.returncode}):\n"
                               f"{plan.stderr}")
        got["no-op plan"] = plan
        (d / "main.tf").write_text(aws_config(moto.endpoint, n, "two"))
        got["update"] = run_measured([*argv, "apply", "-auto-approve", "-input=false"], d, env)
        got["destroy"] = run_measured([*argv, "destroy", "-auto-approve", "-input=false"], d, env)
        if moto.counts(with_tags=False) != Counts((), ()):
            raise RuntimeError(f"{side}: objects are left after the destroy")
    return got


def _aws_rows(ctx: Context, wd: Workdirs, mirror: Path, n: int, reps: int, tf: str | None,
              why_not: str | None) -> list[dict[str, Any]]:
    sides = ([] if why_not else ["strata"]) + (["terraform"] if tf else [])
    runs: dict[str, dict[str, list[Run]]] = {s: {step: [] for step in AWS_STEPS} for s in sides}
    for r in range(reps):
        for side in sides[r % len(sides):] + sides[:r % len(sides)]:
            got = _aws_round(side, wd.new(f"aws-{side}"), n, mirror, tf)
            for step, run in got.items():
                runs[side][step].append(run)
            ctx.log(f"  aws N={n:>3} {side:<9} rep {r + 1}: " + "  ".join(
                f"{s} {got[s].wall:5.2f} s" for s in AWS_STEPS))
    rows = []
    for step in AWS_STEPS:
        row: dict[str, Any] = {"case": f"aws {step}", "n": n}
        for side in sides:
            s = summarize(runs[side][step])
            row.update({f"{side}_wall_s": s["wall_median_s"], f"{side}_cpu_s": s["cpu_median_s"],
                        f"{side}_runs": s["wall_s"]})
        if "strata" in sides and "terraform" in sides:
            row["ratio"] = round(row["terraform_wall_s"] / row["strata_wall_s"], 2)
        rows.append(row)
    return rows


# --------------------------------------------------------------------------- the scenario


def run(ctx: Context) -> Report:
    from tests.plugins.fetch import fetch
    from tests.plugins.moto import moto_available

    sizes = ctx.sizes_or([1000, 3000], [100])
    reps = ctx.reps_or(3, 1)
    tf = terraform_path() if ctx.terraform else None
    got = fetch()
    why_not = strata_uses_plugins(got.null)
    notes = ["Wall times are medians of the rounds; stdout goes to /dev/null (human output). ratio > 1: strata is "
             "faster. CPU = user + system time of the process and of the plugin processes it reaped.",
             "Installing the plugins into .terraform/ (init -plugin-dir) is not timed."]
    rows: list[dict[str, Any]] = []
    if why_not:
        notes.append(f"strata's side was not measured: {why_not}.")
    if ctx.terraform and tf is None:
        notes.append("terraform is not on PATH: its side was not measured.")
    with Workdirs(ctx.keep) as wd:
        if got.null is None:
            notes.append("null 2.1.2 could not be fetched: " + "; ".join(got.problems))
        else:
            rows += _null_rows(ctx, wd, got.mirror, sizes, reps, tf, why_not)
            if why_not is None:
                rows += _round_trip_rows(ctx, got.null, sizes, reps)
        aws_n = 5 if ctx.quick else 20
        why_no_aws = moto_available() or (None if got.aws is not None else "aws 3.39.0 could not be fetched")
        if why_no_aws:
            notes.append(f"aws against moto was not measured: {why_no_aws}.")
        elif why_not and tf is None:
            notes.append("aws against moto was not measured: neither side can run.")
        else:
            rows += _aws_rows(ctx, wd, got.mirror, aws_n, reps, tf, why_not)
    if not rows:
        rows.append({"case": "nothing measured", "n": sizes[0]})
    return Report(
        NAME, TITLE,
        commands=["# null: in a fresh directory, for each N (here 1000), after init -plugin-dir=MIRROR (not timed):",
                  "cat > main.tf <<EOF\n" + null_config(1000).rstrip() + "\nEOF",
                  "strata apply -auto-approve       # terraform apply -auto-approve; builtin: strata without .terraform/",
                  "# round trip: in process, engine.plugin.client.PluginProvider(null binary), N sequential "
                  "plan_resource_change + apply_resource_change",
                  "# aws: python -m moto.server -p 0; main.tf = tests.plugins.moto.aws_config(endpoint, N, 'one'|'two')",
                  "strata apply -auto-approve; strata plan -detailed-exitcode; (value two) strata apply -auto-approve; "
                  "strata destroy -auto-approve"],
        params={"sizes": sizes, "reps": reps, "aws_n": aws_n, "terraform": tf is not None, "strata": why_not is None,
                "mirror": str(got.mirror)},
        columns=[Column("case", "case"), Column("n", "N", "{:,}"),
                 Column("strata_wall_s", "strata wall (s)", "{:.3f}"),
                 Column("strata_cpu_s", "strata CPU (s)", "{:.3f}"),
                 Column("builtin_wall_s", "strata built-in null (s)", "{:.3f}"),
                 Column("terraform_wall_s", "terraform wall (s)", "{:.3f}"),
                 Column("terraform_cpu_s", "terraform CPU (s)", "{:.3f}"),
                 Column("ratio", "terraform / strata", "{}x"),
                 Column("plugin_us_per_resource", "plugin cost per resource (µs, vs built-in)", "{:,.0f}"),
                 Column("us_per_round_trip", "µs per plan + apply", "{:,.0f}"),
                 Column("cpu_us_per_round_trip", "strata CPU µs per plan + apply", "{:,.0f}"),
                 Column("plugin_cpu_us_per_round_trip", "plugin CPU µs per plan + apply", "{:,.0f}")],
        rows=rows, targets=_targets(rows), notes=notes)


def _targets(rows: list[dict[str, Any]]) -> list[Target]:
    name = f"null_resource through the plugin, N = {TARGET_N:,}: faster than terraform"
    at = next((r for r in rows if r["case"] == "null apply" and r["n"] == TARGET_N), None)
    if at is None or "ratio" not in at:
        return [Target(name, f">= {TARGET_RATIO:g}x", "not measured", None)]
    return [Target(name, f">= {TARGET_RATIO:g}x",
                   f"{at['ratio']}x ({at['strata_wall_s']:.2f} s vs {at['terraform_wall_s']:.1f} s)",
                   at["ratio"] >= TARGET_RATIO)]


def plot(report: Report, plt: Any, path: Path) -> None:
    rows = [r for r in report.rows if r["case"] == "null apply"]
    if not rows:
        return
    fig, ax = plt.subplots(figsize=(6, 4.2))
    for side, marker in (("strata", "o-"), ("builtin", "^--"), ("terraform", "s-")):
        some = [r for r in rows if r.get(f"{side}_wall_s") is not None]
        if some:
            ax.plot([r["n"] for r in some], [r[f"{side}_wall_s"] for r in some], marker,
                    label={"builtin": "strata, built-in null"}.get(side, side + " + plugin"))
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("null_resource (N)")
    ax.set_ylabel("wall time of apply (s)")
    ax.set_title("apply through terraform-provider-null 2.1.2, fresh state")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
