"""scheduling: how close the walk gets to the best possible schedule, with the ``sim`` provider.

Random layered DAGs of N ``sim_object`` resources (see :mod:`benchmarks.dag`),
every create taking a fixed latency L. No schedule with at most P operations
in flight can finish before ``max(critical path × L, ⌈N/P⌉ × L)``; the
efficiency of a run is that bound over the measured wall time of the apply
phase (from the first ``apply_start`` to the last ``apply_complete`` of the
``-json`` stream). The whole process — parsing, planning, the final state
write — is reported next to it.

Two shapes: ``wide`` (10 layers: the ⌈N/P⌉ term dominates, so this measures
keeping P operations in flight) and ``deep`` (200 layers: the critical path
dominates, so this measures starting each node the moment its last dependency
is durable).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from ..common import (
    Column,
    Context,
    OpTimes,
    Report,
    Target,
    Workdirs,
    op_times,
    parse_ts,
    plot_efficiency,
    read_events,
    run_measured,
    strata_argv,
    strata_env,
)
from ..dag import Dag, critical_chain, layered_dag, write_sim_config

NAME = "scheduling"
TITLE = "Scheduling efficiency: sim provider, fixed latency L, random layered DAGs"


@dataclass
class Case:
    shape: str
    n: int
    depth: int
    latency_ms: float
    parallelism: int
    seed: int
    backend: str = "trio"


def cases(ctx: Context) -> list[Case]:
    sizes = ctx.sizes_or([10_000], [300])
    out = []
    for n in sizes:
        if ctx.quick:
            out += [Case("wide", n, 5, 20, 4, 1), Case("deep", n, max(2, n // 8), 20, 16, 2)]
        else:
            out += [Case("wide", n, 10, 50, p, 1) for p in (50, 100, 200, 400)]
            out += [Case("deep", n, 200, 50, 100, 2)]
            out += [Case("wide", n, 10, 50, p, 1, "asyncio") for p in (100, 200)]
            # a cloud API's create takes longer than 50 ms: at 200 ms the same P needs a quarter
            # of the operations per second, and a layer's CPU is a smaller share of L
            out += [Case("wide", n, 10, 200, p, 1) for p in (200, 400)]
            out += [Case("deep", n, 100, 200, 200, 2)]
    return out


def chain_breakdown(dag: Dag, d: Path, t: OpTimes, latency_s: float) -> dict[str, Any]:
    """Where the time goes on the critical chain, per link, in ms (from the -json stream and the
    sim ledger's record of each create): a node's last parent durable -> its ``apply_start``
    (dispatch: the worker's turn, the final plan); ``apply_start`` + L -> the ledger's record
    (the operation's turn on the CPU after its wait ended); the ledger's record ->
    ``apply_complete``'s time (durable: back through the provider, its result checked, put in
    the state and the journal fsync'd; a dependent starts only then)."""
    created: dict[str, float] = {}
    ledger = d / "ledger.jsonl"
    if ledger.exists():
        for line in ledger.read_bytes().splitlines():
            rec = orjson.loads(line) if line.strip() else {}
            if rec.get("op") == "create" and "t" in rec:  # compaction writes records without "t"
                created[f"sim_object.{rec['name']}"] = rec["t"]
    addr = [f"sim_object.n{i}" for i in range(dag.n)]
    done_at = {i: t.complete[a] for i, a in enumerate(addr) if a in t.complete}
    chain = critical_chain(dag, done_at)
    if not chain or any(addr[i] not in created or addr[i] not in t.start for i in chain):
        return {}
    dispatch, turn, durable = [], [], []
    for k, i in enumerate(chain):
        a = addr[i]
        ready = done_at[chain[k - 1]] if k else t.first_start
        dispatch.append(t.start[a] - ready)
        turn.append(created[a] - (t.start[a] + latency_s))
        durable.append(t.complete[a] - created[a])

    def ms(xs: list[float]) -> float:
        return round(sum(xs) / len(xs) * 1000, 2)

    return {"chain_links": len(chain), "chain_dispatch_ms": ms(dispatch), "chain_turn_ms": ms(turn),
            "chain_durable_ms": ms(durable)}


def run(ctx: Context) -> Report:
    rows: list[dict[str, Any]] = []
    reps = ctx.reps_or(1, 1)
    with Workdirs(ctx.keep) as wd:
        for c in cases(ctx):
            dag = layered_dag(c.n, c.depth, c.seed)
            tries: list[dict[str, Any]] = []
            for rep in range(reps):
                d = wd.new(f"sched-{c.shape}-{c.backend}-{c.latency_ms:g}-{c.n}-p{c.parallelism}-r{rep}")
                write_sim_config(d, dag, c.latency_ms)
                argv = [*strata_argv(), "apply", "-auto-approve", "-json", f"-parallelism={c.parallelism}"]
                env = strata_env()
                env["STRATA_ASYNC_BACKEND"] = c.backend
                res = run_measured(argv, d, env, stdout=d / "events.jsonl")
                events = read_events(d / "events.jsonl")
                t = op_times(events)
                if len(t.complete) != c.n:
                    raise RuntimeError(f"{d}: {len(t.complete)} of {c.n} operations completed")
                lat = c.latency_ms / 1000.0
                cp = dag.critical_path()
                bound = dag.lower_bound(lat, c.parallelism)
                mean_op = sum(t.complete[a] - t.start[a] for a in t.complete) / len(t.complete)
                row = {"shape": c.shape, "backend": c.backend, "n": c.n, "layers": c.depth, "edges": dag.edges, "latency_ms": c.latency_ms,
                       "parallelism": c.parallelism, "critical_path": cp,
                       "bound_s": round(bound, 3), "bound_term": "critical path" if cp * lat >= bound else "N/P",
                       "apply_wall_s": round(t.apply_wall, 3), "ratio": round(t.apply_wall / bound, 3),
                       "efficiency": round(bound / t.apply_wall, 3),
                       "mean_op_ms": round(mean_op * 1000, 2),
                       "ratio_op": round(t.apply_wall / dag.lower_bound(mean_op, c.parallelism), 3),
                       "ops_per_s": round(c.n / t.apply_wall), "needed_ops_per_s": round(c.parallelism / lat),
                       "process_wall_s": round(res.wall, 2), "process_cpu_s": round(res.cpu, 2),
                       "before_apply_s": round(t.first_start - parse_ts(events[0]["@timestamp"]), 2)}
                if row["bound_term"] == "critical path":  # a wide DAG's chain mostly waits for a slot
                    row.update(chain_breakdown(dag, d, t, lat))
                tries.append(row)
            # with --reps N the run with the median ratio stands for the case; every ratio is kept
            tries.sort(key=lambda r: r["ratio"])
            row = dict(tries[len(tries) // 2])
            row["ratios"] = [r["ratio"] for r in tries]
            rows.append(row)
            ctx.log(f"  {c.shape:<4} {c.backend:<7} N={c.n} P={c.parallelism:<4} L={c.latency_ms:g} ms: bound "
                    f"{row['bound_s']:6.2f} s ({row['bound_term']}), apply {row['apply_wall_s']:6.2f} s, ratio "
                    f"{row['ratio']:.3f}" + (f" (runs: {row['ratios']})" if reps > 1 else "")
                    + f"; process {row['process_wall_s']:6.2f} s (cpu {row['process_cpu_s']:.1f} s)")
    targets = []
    full = [r for r in rows if r["n"] == 10_000]
    for lat in sorted({r["latency_ms"] for r in full}):
        some = [r for r in full if r["latency_ms"] == lat]
        worst = max(some, key=lambda r: r["ratio"])
        ok = [r for r in some if r["ratio"] <= 1.05]
        targets.append(Target(f"apply wall / lower bound, N = 10k, L = {lat:g} ms", "<= 1.05",
                              f"{min(r['ratio'] for r in some):.3f} .. {worst['ratio']:.3f} "
                              f"({len(ok)} of {len(some)} runs within; worst: {worst['shape']} "
                              f"P={worst['parallelism']})", len(ok) == len(some)))
    if not full:
        targets.append(Target("apply wall / lower bound, N = 10k", "<= 1.05", "not measured", None))
    return Report(
        NAME, TITLE,
        commands=["# from the repository root (deep DAG: layered_dag(10000, 200, seed=2)):",
                  "mkdir -p /tmp/dag && python -c \"from pathlib import Path; "
                  "from benchmarks.dag import layered_dag, write_sim_config; "
                  "write_sim_config(Path('/tmp/dag'), layered_dag(10000, 10, seed=1), latency_ms=50)\"",
                  "cd /tmp/dag && [STRATA_ASYNC_BACKEND=asyncio] strata apply -auto-approve -json -parallelism=P "
                  "> events.jsonl"],
        params={"cases": [c.__dict__ for c in cases(ctx)]},
        columns=[Column("shape", "DAG"), Column("backend", "loop"), Column("n", "N", "{:,}"), Column("layers", "layers"),
                 Column("edges", "edges", "{:,}"), Column("latency_ms", "L (ms)", "{:g}"),
                 Column("parallelism", "P"), Column("bound_s", "lower bound (s)", "{:.2f}"),
                 Column("bound_term", "bound by"), Column("apply_wall_s", "apply wall (s)", "{:.2f}"),
                 Column("ratio", "wall / bound", "{:.3f}"),
                 Column("mean_op_ms", "mean op (ms)", "{:.1f}"),
                 Column("ratio_op", "wall / bound with mean op", "{:.3f}"),
                 Column("ops_per_s", "ops/s done", "{:,}"), Column("needed_ops_per_s", "ops/s the bound needs", "{:,}"),
                 Column("chain_dispatch_ms", "chain: dispatch (ms)", "{:.2f}"),
                 Column("chain_turn_ms", "chain: turn (ms)", "{:.2f}"),
                 Column("chain_durable_ms", "chain: durable (ms)", "{:.2f}"),
                 Column("process_wall_s", "whole process (s)", "{:.1f}"),
                 Column("before_apply_s", "load + plan (s)", "{:.1f}")],
        rows=rows, targets=targets,
        notes=["mean op: apply_start to apply_complete of one operation, averaged: L plus the timer's "
               "overshoot, the ledger write and the state record. The column after it puts that in the bound "
               "instead of L: what is left is the walk's own inefficiency.",
               "loop: the event loop strata runs on (STRATA_ASYNC_BACKEND; trio is the default).",
               "ops/s the bound needs: P / L, the rate at which operations must start and finish to keep P "
               "in flight; when it exceeds what the process can do on its CPU, the walk is CPU-bound.",
               "apply wall: first apply_start to last apply_complete in the -json stream (one run per case; "
               "with --reps N, the run with the median ratio, all N ratios in the JSON). An apply_complete's "
               "@timestamp is when its object's journal record became durable.",
               "chain: the critical chain (from the operation that completed last, back through the parent that "
               "completed last), per link, beyond L: dispatch = last parent durable -> apply_start (the "
               "worker's turn, the final plan); turn = apply_start + L -> the sim ledger's record of the create "
               "(the operation's turn on the CPU after its wait ended); durable = that record -> apply_complete "
               "(provider return, the result checked and put in the state, the journal fsync'd: a dependent "
               "starts only then). Their sum times the links is what the deep DAGs lose against the bound.",
               "load + plan: from the first event (version) to the first apply_start; it includes loading "
               "N individual resource blocks from main.tf.json."],
    )


def plot(report: Report, plt: Any, path: Path) -> None:
    plot_efficiency(report.rows, plt, path, "efficiency = lower bound / apply wall", "strata + sim: scheduling efficiency vs P")
