"""Run the differential harness from the command line.

Replay one seed (prints both configurations, the options and every mismatch)::

    python -m tests.differential --seed 17 [--keep DIR]

Shrink it to a small case that still shows one class of mismatch::

    python -m tests.differential --seed 17 --shrink "operations: final-plan no-op applied"

Run many seeds and summarise the mismatches by class (``make compat SEEDS=N``)::

    python -m tests.differential --seeds 200 [--start 0] [--jobs 2] [--json FILE]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import orjson

from tests.differential.check import check_seed, report
from tests.differential.findings import Mismatch, deviations


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.differential")
    p.add_argument("--seed", type=int, help="replay one seed")
    p.add_argument("--keep", type=Path, help="keep the working directories under this directory")
    p.add_argument("--seeds", type=int, default=int(os.environ.get("STRATA_DIFF_SEEDS", "20")))
    p.add_argument("--start", type=int, default=0)
    p.add_argument("--jobs", type=int, default=1, help="cases run at once (each runs 2 processes)")
    p.add_argument("--begin-at", type=int, default=None, metavar="SEED",
                   help="run the range from this seed, wrapping around to its start (seeds not yet run "
                        "on an engine first, to meet a new deviation early)")
    p.add_argument("--json", type=Path, help="write the per-seed results here")
    p.add_argument("--shrink", metavar="CLASS", help="with --seed: shrink the case while it shows CLASS")
    p.add_argument("--show", type=int, default=1, help="full reports printed per class")
    args = p.parse_args(argv)
    if shutil.which("terraform") is None:
        print("terraform is not on PATH: nothing to compare against", file=sys.stderr)
        return 2
    if args.seed is not None and args.shrink:
        from tests.differential.shrink import shrink

        case = shrink(args.seed, args.shrink)
        print(case.describe())
        return 0
    if args.seed is not None:
        found = check_seed(args.seed, args.keep)
        print(report(args.seed, found) if found else f"seed {args.seed}: no mismatch")
        return 1 if deviations(found) else 0

    seeds = range(args.start, args.start + args.seeds)
    record = _Record(args, seeds)
    order = list(seeds)
    if args.begin_at is not None and args.begin_at in seeds:
        i = order.index(args.begin_at)
        order = order[i:] + order[:i]
    with ThreadPoolExecutor(args.jobs) as pool:
        for seed, found in zip(order, pool.map(check_seed, order), strict=True):
            record.add(seed, found)
            print(f"seed {seed}: {'ok' if not found else ', '.join(sorted({m.cls for m in found}))}",
                  flush=True)
    record.finish()
    print("\n" + record.summary())
    shown: dict[str, int] = defaultdict(int)
    for seed, found in record.results.items():
        new = [c for c in {m.cls for m in found} if shown[c] < args.show]
        if new:
            for c in new:
                shown[c] += 1
            print("\n" + report(seed, found))
    return 1 if record.failing else 0


class _Record:
    """The results of a run, written to ``--json`` (and a Markdown summary beside it) after every
    seed, so a run stopped part way still leaves what it found, marked incomplete."""

    def __init__(self, args: argparse.Namespace, seeds: range) -> None:
        self.path: Path | None = args.json
        self.seeds, self.jobs = seeds, args.jobs
        self.begin_at: int | None = getattr(args, "begin_at", None)
        self.results: dict[int, list[Mismatch]] = {}
        self.started = time.monotonic()
        self.started_utc = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
        self.engine = _engine_commit()
        self.terraform = _terraform_version()
        self.complete = False
        self.elapsed = 0.0

    @property
    def failing(self) -> int:
        return sum(1 for f in self.results.values() if deviations(f))

    def add(self, seed: int, found: list[Mismatch]) -> None:
        self.results[seed] = found
        self.elapsed = time.monotonic() - self.started
        self._write()

    def finish(self) -> None:
        self.complete = True
        self.elapsed = time.monotonic() - self.started
        self._write()

    def by_class(self) -> dict[str, list[int]]:
        out: dict[str, list[int]] = defaultdict(list)
        for seed, found in sorted(self.results.items()):
            for cls in sorted({m.cls for m in found}):
                out[cls].append(seed)
        return dict(sorted(out.items(), key=lambda kv: -len(kv[1])))

    def summary(self) -> str:
        tolerated = sum(1 for f in self.results.values() if f and not deviations(f))
        first, last = self.seeds.start, self.seeds.stop - 1
        lines = [f"{len(self.results)} seeds ({first}..{last}) in {self.elapsed:.0f} s, jobs={self.jobs}, "
                 f"engine {self.engine}, {self.terraform}: {len(self.results) - self.failing} agree "
                 f"({tolerated} of them with a tolerated difference only), {self.failing} deviate"
                 + ("" if self.complete else " (incomplete: the run was stopped)")]
        for cls, s in self.by_class().items():
            lines.append(f"  {len(s):4d}  {cls}   (seeds {', '.join(map(str, s[:8]))}{' …' if len(s) > 8 else ''})")
        return "\n".join(lines)

    def _write(self) -> None:
        if self.path is None:
            return
        tolerated = sum(1 for f in self.results.values() if f and not deviations(f))
        doc = {"seeds": len(self.results), "start": self.seeds.start, "requested": len(self.seeds),
               "complete": self.complete, "started": self.started_utc, "elapsed_s": round(self.elapsed, 1),
               "jobs": self.jobs, "engine": self.engine, "terraform": self.terraform,
               "failing": self.failing, "tolerated_only": tolerated, "by_class": self.by_class(),
               "results": {str(k): [str(m) for m in v] for k, v in sorted(self.results.items())}}
        tmp = self.path.with_suffix(".tmp")
        tmp.write_bytes(orjson.dumps(doc, option=orjson.OPT_INDENT_2))
        tmp.replace(self.path)
        md = self.path.with_suffix(".md")
        begin = f" BEGIN_AT={self.begin_at}" if self.begin_at is not None else ""
        md.write_text("# Differential run against terraform\n\n"
                      f"Started {self.started_utc}; the command: `make compat SEEDS={len(self.seeds)} "
                      f"START={self.seeds.start} JOBS={self.jobs}{begin}`.\n\n```\n{self.summary()}\n```\n")


def _engine_commit() -> str:
    """The commit the engine under test is at, ``+dirty`` when its tree has changes."""
    import subprocess

    root = Path(__file__).resolve().parents[2]
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True,
                              text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=root,
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("+dirty" if dirty else "")


def _terraform_version() -> str:
    import subprocess

    try:
        out = subprocess.run(["terraform", "version", "-json"], capture_output=True, text=True, check=True,
                             env={**os.environ, "CHECKPOINT_DISABLE": "1"}).stdout
        return "terraform " + orjson.loads(out)["terraform_version"]
    except (OSError, subprocess.CalledProcessError, ValueError, KeyError):
        return "terraform (version unknown)"


if __name__ == "__main__":
    sys.exit(main())
