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
    started = time.monotonic()
    results: dict[int, list[Mismatch]] = {}
    with ThreadPoolExecutor(args.jobs) as pool:
        for seed, found in zip(seeds, pool.map(check_seed, seeds), strict=True):
            results[seed] = found
            print(f"seed {seed}: {'ok' if not found else ', '.join(sorted({m.cls for m in found}))}",
                  flush=True)
    elapsed = time.monotonic() - started
    by_class: dict[str, list[int]] = defaultdict(list)
    for seed, found in results.items():
        for cls in sorted({m.cls for m in found}):
            by_class[cls].append(seed)
    failing = sum(1 for f in results.values() if deviations(f))
    tolerated = sum(1 for f in results.values() if f and not deviations(f))
    print(f"\n{len(results)} seeds ({args.start}..{args.start + args.seeds - 1}) in {elapsed:.0f} s, "
          f"jobs={args.jobs}: {len(results) - failing} agree ({tolerated} of them with a tolerated "
          f"difference only), {failing} deviate")
    for cls, s in sorted(by_class.items(), key=lambda kv: -len(kv[1])):
        print(f"  {len(s):4d}  {cls}   (seeds {', '.join(map(str, s[:8]))}{' …' if len(s) > 8 else ''})")
    shown: dict[str, int] = defaultdict(int)
    for seed, found in results.items():
        new = [c for c in {m.cls for m in found} if shown[c] < args.show]
        if new:
            for c in new:
                shown[c] += 1
            print("\n" + report(seed, found))
    if args.json:
        args.json.write_bytes(orjson.dumps(
            {"seeds": len(results), "start": args.start, "elapsed_s": round(elapsed, 1),
             "failing": failing, "tolerated_only": tolerated, "by_class": by_class,
             "results": {str(k): [str(m) for m in v] for k, v in results.items()}},
            option=orjson.OPT_INDENT_2))
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
