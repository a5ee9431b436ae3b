"""critical_path: does ``strata report`` name the chain that decided a large apply's wall time?

A random layered DAG of N ``sim_object`` resources (:mod:`benchmarks.dag`), each create taking
the latency the ``sim`` provider draws for it (``latency = "lognormal"``: a pure function of the
provider's seed and the object's idempotency token). From the DAG and those draws alone the
benchmark computes the chain an ideal schedule ends with (:func:`benchmarks.dag.drawn_chain`:
every node starts when its last dependency ends); the apply runs with ``-events=FILE`` at a
parallelism no layer fills, and ``strata report FILE`` must name the same chain, node for node.

The provider's seed is the one, among the first few, whose chain leads its rivals by the widest
margin: the real schedule adds dispatch, fsync and CPU time to every operation, and a chain
that led by less than those could honestly change. The margin is reported with the result.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import orjson

from ..common import (
    Column,
    Context,
    Report,
    Target,
    Workdirs,
    run_measured,
    strata_argv,
    strata_env,
)
from ..dag import critical_chain, drawn_chain, layered_dag, sim_config

NAME = "critical_path"
TITLE = "The report's critical path: a sim apply with lognormal latencies, against the DAG and the draws"

SEEDS = range(1, 41)
"""The provider seeds tried (the chain with the widest margin is applied): 3 s of draws at 10k."""


def _shape(n: int, quick: bool) -> tuple[int, float]:
    """(layers, mean latency in ms): at 10k, 10 layers of ~1,000 and 1 s, so that the chain's
    ~20 s dwarf the ~10 s of CPU the apply takes around it."""
    if quick or n < 1000:
        return max(2, min(6, n // 2)), 100.0
    return 10, 1000.0


def reported_chain(report_text: str) -> list[int]:
    """The node numbers of the critical path in ``strata report``'s text."""
    section = report_text.split("Critical path:", 1)[1].split("\n\n", 1)[0]
    return [int(m) for m in re.findall(r"sim_object\.n(\d+) \(create\)", section)]


def observed_chain(events_log: Path, n: int, dag: Any) -> list[int]:
    """The chain the apply's own completion times give (the log's monotonic clock), computed as
    the benchmarks compute it: what tells, on a mismatch, whether the report or the schedule
    differs from the draws."""
    done: dict[int, float] = {}
    for line in events_log.read_bytes().splitlines():
        if b'"apply_complete"' not in line:
            continue
        e = orjson.loads(line)
        addr = e["hook"]["resource"]["addr"]
        if addr.startswith("sim_object.n"):
            done[int(addr.removeprefix("sim_object.n"))] = e["monotonic"]
    return critical_chain(dag, done) if len(done) == n else []


def run(ctx: Context) -> Report:
    rows: list[dict[str, Any]] = []
    with Workdirs(ctx.keep) as wd:
        for n in ctx.sizes_or([10_000], [200]):
            depth, mean_ms = _shape(n, ctx.quick)
            dag = layered_dag(n, depth, seed=7, max_parents=2)
            seed, drawn = max(((s, drawn_chain(dag, s, mean_ms)) for s in SEEDS), key=lambda t: t[1].margin)
            parallelism = max(len(layer) for layer in dag.layers)  # no layer waits for a slot
            d = wd.new(f"critical-path-{n}")
            config = sim_config(dag, mean_ms)
            config["provider"]["sim"].update({"latency": "lognormal", "seed": seed})
            (d / "main.tf.json").write_text(orjson.dumps(config).decode())
            env = strata_env()
            apply = run_measured([*strata_argv(), "apply", "-auto-approve", "-quiet", f"-parallelism={parallelism}",
                                  "-events=events.jsonl"], d, env)
            report = run_measured([*strata_argv(), "report", "events.jsonl"], d, env, stdout=d / "report.txt")
            reported = reported_chain((d / "report.txt").read_text())
            observed = observed_chain(d / "events.jsonl", n, dag)
            rows.append({
                "n": n, "layers": depth, "edges": dag.edges, "parallelism": parallelism, "latency_ms": mean_ms,
                "seed": seed, "margin_ms": round(drawn.margin, 1), "ideal_end_s": round(max(drawn.end) / 1000, 3),
                "expected_chain": [f"n{i}" for i in drawn.chain], "reported_chain": [f"n{i}" for i in reported],
                "chain_links": len(drawn.chain), "same_chain": reported == drawn.chain,
                "observed_same": observed == drawn.chain,
                "apply_wall_s": round(apply.wall, 2), "apply_cpu_s": round(apply.cpu, 2),
                "report_wall_s": round(report.wall, 2), "report_rss_mb": round(report.maxrss_mb, 1)})
            r = rows[-1]
            ctx.log(f"  N={n} layers={depth} P={parallelism} L~{mean_ms:g} ms seed={seed}: margin "
                    f"{r['margin_ms']:.0f} ms, chain of {r['chain_links']}; report names "
                    f"{'the same chain' if r['same_chain'] else 'ANOTHER chain: ' + str(r['reported_chain'])}; "
                    f"apply {r['apply_wall_s']:.1f} s, report {r['report_wall_s']:.1f} s")
    full = [r for r in rows if r["n"] >= 10_000]
    targets = [Target("report's critical path = the DAG's with the drawn latencies, N = 10k", "same nodes",
                      ", ".join(f"{'same' if r['same_chain'] else 'different'} ({r['chain_links']} links, margin "
                                f"{r['margin_ms']:.0f} ms)" for r in full) or "not measured",
                      all(r["same_chain"] for r in full) if full else None)]
    return Report(
        NAME, TITLE,
        commands=["# from the repository root: the DAG, the seed with the widest margin, the configuration",
                  "python -m benchmarks critical_path   # or, by hand:",
                  "python -c \"import orjson; from benchmarks.dag import layered_dag, drawn_chain, sim_config; "
                  "dag = layered_dag(10000, 10, seed=7, max_parents=2); "
                  "s = max(range(1, 41), key=lambda s: drawn_chain(dag, s, 1000).margin); "
                  "c = sim_config(dag, 1000); c['provider']['sim'].update(latency='lognormal', seed=s); "
                  "open('/tmp/cp/main.tf.json', 'wb').write(orjson.dumps(c))\"",
                  "cd /tmp/cp && strata apply -auto-approve -quiet -parallelism=P -events=events.jsonl",
                  "strata report events.jsonl"],
        params={"sizes": ctx.sizes_or([10_000], [200]), "dag_seed": 7, "max_parents": 2,
                "provider_seeds": [SEEDS.start, SEEDS.stop - 1]},
        columns=[Column("n", "N", "{:,}"), Column("layers", "layers"), Column("edges", "edges", "{:,}"),
                 Column("parallelism", "P"), Column("latency_ms", "mean L (ms)", "{:g}"), Column("seed", "seed"),
                 Column("chain_links", "chain links"), Column("margin_ms", "margin (ms)", "{:.0f}"),
                 Column("ideal_end_s", "ideal end (s)", "{:.2f}"), Column("same_chain", "report names it"),
                 Column("observed_same", "apply's own times give it"),
                 Column("apply_wall_s", "apply wall (s)", "{:.1f}"), Column("apply_cpu_s", "apply CPU (s)", "{:.1f}"),
                 Column("report_wall_s", "report wall (s)", "{:.1f}"),
                 Column("report_rss_mb", "report peak RSS (MB)", "{:.0f}")],
        rows=rows, targets=targets,
        notes=["expected chain: from the DAG and the latencies the sim provider draws, every node ending its "
               "latency after its last dependency ends (benchmarks.dag.drawn_chain); the chain is the node that "
               "ends last, back through the dependency that ended last.",
               "margin: the smallest lead of the chosen node over the runner-up, over every choice that decides "
               "the chain (the last node, and each link with more than one dependency). The apply's dispatch, "
               "fsync and CPU time shift ends by less than this, or the chain could honestly differ.",
               "P: the widest layer, so that no operation waits for a slot (the ideal schedule has none).",
               "apply's own times: the same chain computed from the event log's apply_complete times; with "
               "'report names it' it tells a report bug from a schedule that differed from the ideal one.",
               "The full chains are in the JSON (expected_chain, reported_chain)."],
    )


def plot(report: Report, plt: Any, path: Path) -> None:
    """No chart: the result is a yes or no per size (``strata report -png`` draws an apply's Gantt)."""
