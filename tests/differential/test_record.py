"""What ``python -m tests.differential --seeds N --json FILE`` (``make compat``) records: written
after every seed, so a run stopped part way leaves what it found, marked incomplete; the engine's
commit and terraform's version beside the counts. No command is run but git and terraform's
``version``."""

from __future__ import annotations

import argparse
from pathlib import Path

import orjson

from tests.differential.__main__ import _Record
from tests.differential.findings import Mismatch


def _record(path: Path) -> _Record:
    return _Record(argparse.Namespace(json=path, jobs=2), range(10, 13))


def test_a_run_stopped_part_way_leaves_its_results_marked_incomplete(tmp_path: Path) -> None:
    rec = _record(tmp_path / "compat.json")
    rec.add(10, [])
    doc = orjson.loads((tmp_path / "compat.json").read_bytes())
    assert (doc["complete"], doc["seeds"], doc["requested"], doc["failing"]) == (False, 1, 3, 0)
    assert "incomplete" in (tmp_path / "compat.md").read_text()


def test_deviations_and_tolerated_differences_are_counted_apart(tmp_path: Path) -> None:
    rec = _record(tmp_path / "compat.json")
    rec.add(10, [Mismatch("order: x", "a before b")])
    rec.add(11, [Mismatch("tolerated: direct dependency lists", "b")])
    rec.add(12, [])
    rec.finish()
    doc = orjson.loads((tmp_path / "compat.json").read_bytes())
    assert (doc["complete"], doc["seeds"], doc["failing"], doc["tolerated_only"]) == (True, 3, 1, 1)
    assert doc["by_class"] == {"order: x": [10], "tolerated: direct dependency lists": [11]}
    assert doc["results"]["10"] == ["[order: x] a before b"]
    assert doc["engine"] and doc["terraform"].startswith("terraform")
    summary = (tmp_path / "compat.md").read_text()
    assert "3 seeds (10..12)" in summary and "1 deviate" in summary and "incomplete" not in summary
    assert "make compat SEEDS=3 START=10 JOBS=2" in summary
