"""One seed end to end: generate its case, run both tools, compare; and its report."""

from __future__ import annotations

from pathlib import Path

from tests.differential.compare import Mismatch, compare
from tests.differential.generate_modules import generate
from tests.differential.run import run_case


def check_seed(seed: int, keep: Path | None = None) -> list[Mismatch]:
    """Every mismatch of ``seed``'s case (``keep``: leave the working directories there)."""
    case = generate(seed)
    tf, st = run_case(case, keep)
    return compare(case, tf, st)


def report(seed: int, found: list[Mismatch]) -> str:
    """A mismatch report that can be replayed: seed, configurations, items, command."""
    items = "\n".join(f"  {m}" for m in found)
    return (f"{generate(seed).describe()}--- mismatches\n{items}\n"
            f"--- replay: python -m tests.differential --seed {seed} --keep /tmp\n")
