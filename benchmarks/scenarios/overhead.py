"""overhead: what the event stream and the durable (fsync'd) state journal cost, at 100k resources.

Configurations of the same apply, interleaved round by round (each round rotates which goes
first):

* ``bare``     ``-quiet -no-fsync``          no events, journal not fsync'd
* ``events``   ``-json -no-fsync > FILE``    the full ``-json`` stream to a file
* ``log``      ``-quiet -no-fsync -events=FILE``   the event log alone (seq, detail)
* ``nats``     ``-quiet -no-fsync -events=nats://...``   the NATS JetStream sink alone, to a
  ``nats-server`` started for each run on a loopback port (left out without ``nats-server``)
* ``all_events`` ``-json -no-fsync -events=FILE -events=nats://... > FILE``   the whole events path
* ``durable``  ``-quiet``                    fsync'd journal (group commit)
* ``full``     ``-json > FILE``              both: what a user gets by default with ``-json``

The overhead of a configuration is its median time over ``bare``'s, minus one. The target's pair
(``all_events`` and ``bare``) also runs back to back, ``2 * reps + 1`` times, the order
alternating: its target is the median of those pairs' ratios. Beside wall and
CPU time (strata's and its writer and publisher processes'), each run reports strata's *own* CPU
time (:mod:`benchmarks.own_cpu`): what the configuration costs the event loop, which on this
shared machine is the steadier figure (the helper processes run on the other core when it is free).
"""

from __future__ import annotations

import contextlib
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..common import (
    Column,
    Context,
    Report,
    Run,
    Target,
    Workdirs,
    alternate,
    count_config,
    run_measured,
    strata_env,
    summarize,
)

NAME = "overhead"
TITLE = "Overhead of events and durability (strata apply, N independent terraform_data)"

NATS = "-events=nats://{broker}/bench.overhead"
CONFIGS: dict[str, tuple[list[str], bool]] = {  # name -> (flags, stdout to a file)
    "bare": (["-quiet", "-no-fsync"], False),
    "events": (["-json", "-no-fsync"], True),
    "log": (["-quiet", "-no-fsync", "-events=events.log.jsonl"], False),
    "nats": (["-quiet", "-no-fsync", NATS], False),
    "all_events": (["-json", "-no-fsync", "-events=events.log.jsonl", NATS], True),
    "durable": (["-quiet"], False),
    "full": (["-json"], True),
}


@contextlib.contextmanager
def broker(wanted: bool) -> Iterator[str | None]:
    """A fresh ``nats-server`` with JetStream on a loopback port (its store in a temp directory)
    while the block runs: ``HOST:PORT``; None when not wanted."""
    if not wanted:
        yield None
        return
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with tempfile.TemporaryDirectory(prefix="strata-bench-nats-") as store:
        proc = subprocess.Popen(["nats-server", "-js", "-a", "127.0.0.1", "-p", str(port), "-sd", store],
                                stderr=subprocess.PIPE, text=True)
        try:
            assert proc.stderr is not None
            for line in proc.stderr:
                if "Server is ready" in line:
                    break
            yield f"127.0.0.1:{port}"
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=30)


def run(ctx: Context) -> Report:
    sizes = ctx.sizes_or([100_000], [1000])
    reps = ctx.reps_or(7, 1)  # the per-round ratio moves by ±10% between rounds on this machine
    # the target's pairs: one pair's ratio spread over 40 points in one run (+9..+45%, run V), so
    # the median of 5 moved by several points from run to run; more pairs, an odd number of them
    pairs = 2 * reps + 1
    rows: list[dict[str, Any]] = []
    configs = {k: v for k, v in CONFIGS.items() if shutil.which("nats-server") or NATS not in v[0]}
    with Workdirs(ctx.keep) as wd:
        for n in sizes:
            runs: dict[str, list[Run]] = {c: [] for c in configs}
            own: dict[str, list[float]] = {c: [] for c in configs}
            for r, name in alternate(list(configs), reps):
                res, own_cpu = _one(ctx, wd, configs, n, name, f"rep {r + 1}")
                runs[name].append(res)
                own[name].append(own_cpu)
            # the target's pair again, back to back, the order alternating: a round of seven
            # configurations takes minutes, and this machine's speed drifts by ±20% in that time
            adjacent: list[tuple[float, float]] = []  # all_events / bare: (wall, own CPU)
            if "all_events" in configs:
                for r in range(pairs):
                    order = ["bare", "all_events"] if r % 2 == 0 else ["all_events", "bare"]
                    got = {name: _one(ctx, wd, configs, n, name, f"pair {r + 1}") for name in order}
                    (bare, bare_own), (whole, whole_own) = got["bare"], got["all_events"]
                    adjacent.append((whole.wall / bare.wall, whole_own / bare_own))
            base = summarize(runs["bare"])
            for name, (flags, to_file) in configs.items():
                s = summarize(runs[name])
                # each round runs the four configurations back to back: the ratio within a round
                # cancels most of a slow period of this shared machine, a median of medians does not
                paired = [a.wall / b.wall for a, b in zip(runs[name], runs["bare"], strict=True)]
                paired_cpu = [a.cpu / b.cpu for a, b in zip(runs[name], runs["bare"], strict=True)]
                paired_own = [a / b for a, b in zip(own[name], own["bare"], strict=True)]
                rows.append({
                    "n": n, "config": name, "flags": " ".join(flags) + (" > events.jsonl" if to_file else ""),
                    "wall_s": s["wall_median_s"], "cpu_s": s["cpu_median_s"], "runs": s["wall_s"],
                    "overhead_wall_pct": round((s["wall_median_s"] / base["wall_median_s"] - 1) * 100, 1),
                    "overhead_cpu_pct": round((s["cpu_median_s"] / base["cpu_median_s"] - 1) * 100, 1),
                    "paired_wall_pct": round((statistics.median(paired) - 1) * 100, 1),
                    "paired_cpu_pct": round((statistics.median(paired_cpu) - 1) * 100, 1),
                    "own_cpu_s": round(statistics.median(own[name]), 3),
                    "paired_own_pct": round((statistics.median(paired_own) - 1) * 100, 1),
                    "paired_range_pct": f"{(min(paired) - 1) * 100:+.0f}..{(max(paired) - 1) * 100:+.0f}%",
                })
                if name == "all_events" and adjacent:
                    walls = [w for w, _ in adjacent]
                    rows[-1].update({
                        "adjacent_wall_pct": round((statistics.median(walls) - 1) * 100, 1),
                        "adjacent_own_pct": round((statistics.median([o for _, o in adjacent]) - 1) * 100, 1),
                        "adjacent_range_pct": f"{(min(walls) - 1) * 100:+.0f}..{(max(walls) - 1) * 100:+.0f}%",
                        "adjacent_middle_pct": "..".join(f"{(q - 1) * 100:+.0f}" for q in _middle_half(walls)) + "%",
                    })
    targets = []
    full = [r for r in rows if r["config"] == "full" and r["n"] == 100_000]
    if full:
        f = full[0]
        targets.append(Target("events + durability on vs off at 100k", "< 15%",
                              f"{f['paired_wall_pct']:+.1f}% wall, {f['paired_cpu_pct']:+.1f}% CPU (median of "
                              f"per-round ratios; rounds {f['paired_range_pct']})",
                              f["paired_wall_pct"] < 15))
    else:
        targets.append(Target("events + durability on vs off at 100k", "< 15%", "not measured", None))
    every = [r for r in rows if r["config"] == "all_events" and r["n"] == 100_000]
    if every:
        f = every[0]
        targets.append(Target("the whole events path (-json, -events=FILE, NATS) vs none at 100k", "< 15%",
                              f"{f['adjacent_wall_pct']:+.1f}% wall (median of {pairs} back-to-back pairs; middle half "
                              f"{f['adjacent_middle_pct']}, all {f['adjacent_range_pct']}; strata's own CPU {f['adjacent_own_pct']:+.1f}%); "
                              f"per round of every configuration {f['paired_wall_pct']:+.1f}% (rounds "
                              f"{f['paired_range_pct']}), {f['paired_cpu_pct']:+.1f}% CPU with the helper processes",
                              f["adjacent_wall_pct"] < 15))
    else:
        targets.append(Target("the whole events path (-json, -events=FILE, NATS) vs none at 100k", "< 15%",
                              "not measured", None))
    return Report(
        NAME, TITLE,
        commands=["# in a fresh directory for each run:\ncat > main.tf <<EOF\n" + count_config(100_000).rstrip() + "\nEOF",
                  *(f"strata apply -auto-approve {' '.join(f)}" + (" > events.jsonl" if o else "")
                    for f, o in configs.values())],
        params={"sizes": sizes, "reps": reps, "pairs": pairs, "configs": {k: v[0] for k, v in configs.items()}},
        columns=[Column("n", "N", "{:,}"), Column("config", "config"), Column("flags", "flags"),
                 Column("wall_s", "wall (s)", "{:.2f}"), Column("overhead_wall_pct", "overhead (wall)", "{:+.1f}%"),
                 Column("cpu_s", "CPU (s)", "{:.2f}"), Column("overhead_cpu_pct", "overhead (CPU)", "{:+.1f}%"),
                 Column("paired_wall_pct", "per-round overhead (wall)", "{:+.1f}%"),
                 Column("paired_cpu_pct", "per-round overhead (CPU)", "{:+.1f}%"),
                 Column("own_cpu_s", "strata's own CPU (s)", "{:.2f}"),
                 Column("paired_own_pct", "per-round overhead (own CPU)", "{:+.1f}%"),
                 Column("paired_range_pct", "rounds' range (wall)")],
        rows=rows, targets=targets,
        notes=["Overhead is relative to `bare` (-quiet -no-fsync). The configurations run back to back "
               "in each round (the order rotates); *per-round overhead* is the median over rounds of "
               "config / bare within the round, which the target uses: a slow period of this shared "
               "machine then slows both sides of a ratio. *overhead (wall)* compares medians of all runs.",
               "The target's pair (`all_events` against `bare`) then runs again, back to back, twice as many "
               "times as there are rounds and once more, the order alternating; the target uses the median of those "
               "pairs' ratios: a round of seven configurations lasts minutes, and within one run of this "
               "scenario the same `bare` apply has taken from 17.8 to 21.5 s.",
               "fsync cost is mostly wall time (waiting for the disk), not CPU.",
               "Each command runs as `python -m benchmarks.own_cpu apply ...` (the same `strata`, which "
               "writes its own CPU time at exit): *CPU* counts strata and its writer and publisher "
               "processes (and the NATS server's not at all), *strata's own CPU* strata's process alone."],
    )


def _middle_half(ratios: list[float]) -> tuple[float, float]:
    """The first and third quartiles of ``ratios`` (both the one value when there is one)."""
    if len(ratios) < 2:
        return ratios[0], ratios[0]
    q1, _, q3 = statistics.quantiles(ratios, n=4)
    return q1, q3


def _one(ctx: Context, wd: Workdirs, configs: dict[str, tuple[list[str], bool]], n: int, name: str,
         label: str) -> tuple[Run, float]:
    """One apply of ``n`` resources in configuration ``name``: its run, and strata's own CPU time."""
    flags, to_file = configs[name]
    d = wd.new(f"overhead-{n}-{name}")
    (d / "main.tf").write_text(count_config(n))
    env = strata_env()
    env["STRATA_BENCH_OWN_CPU"] = str(d / "own_cpu")
    with broker(NATS in flags) as where:
        argv = [f.format(broker=where) if f == NATS else f for f in flags]
        res = run_measured([sys.executable, "-m", "benchmarks.own_cpu", "apply", "-auto-approve", *argv],
                           d, env, stdout=d / "events.jsonl" if to_file else None)
    own_cpu = float((d / "own_cpu").read_text())
    if "NATS" in res.stderr:
        ctx.log(f"  {res.stderr.strip()}")
    ctx.log(f"  N={n:>7} {name:<10} {label}: wall {res.wall:7.2f} s  cpu {res.cpu:7.2f} s  "
            f"own cpu {own_cpu:7.2f} s")
    return res, own_cpu


def plot(report: Report, plt: Any, path: Path) -> None:
    rows = [r for r in report.rows if r["n"] == max(x["n"] for x in report.rows)]
    fig, ax = plt.subplots(figsize=(6, 4))
    names = [r["config"] for r in rows]
    xs = range(len(rows))
    ax.bar([x - 0.2 for x in xs], [r["wall_s"] for r in rows], width=0.4, label="wall")
    ax.bar([x + 0.2 for x in xs], [r["cpu_s"] for r in rows], width=0.4, label="CPU")
    for x, r in zip(xs, rows, strict=True):
        ax.annotate(f"{r['overhead_wall_pct']:+.0f}%", (x - 0.2, r["wall_s"]), ha="center",
                    textcoords="offset points", xytext=(0, 3), fontsize=8)
    ax.set_xticks(list(xs), names)
    ax.set_ylabel("time (s)")
    ax.set_title(f"events and durability at N = {rows[0]['n']:,}" if rows else "overhead")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
