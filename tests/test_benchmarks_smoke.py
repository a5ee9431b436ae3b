"""Every benchmark scenario runs at a tiny size and writes its JSON result. No timing is asserted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.cli import main
from benchmarks.scenarios import SCENARIOS

ROW_KEYS = {
    "e2e": {"n", "strata_wall_s", "strata_cpu_s", "strata_rss_mb"},
    "scaling": {"shape", "n", "wall_s", "wall_per_resource_us", "cpu_s", "maxrss_mb"},
    "overhead": {"n", "config", "wall_s", "cpu_s", "overhead_wall_pct", "overhead_cpu_pct", "own_cpu_s", "paired_own_pct"},
    "pipelining": {"provider", "n", "b0_start_s", "a_done_s", "b0_before_a_done", "apply_wall_s"},
    "scheduling": {"shape", "n", "parallelism", "latency_ms", "critical_path", "bound_s", "apply_wall_s",
                   "ratio", "efficiency"},
    "walker": {"shape", "n", "parallelism", "bound_s", "wall_s", "ratio", "efficiency"},
    "lifecycle": {"n", "step", "strata_wall_s", "strata_cpu_s", "strata_rss_mb"},
    "small": {"n", "step", "strata_wall_s", "strata_cpu_s", "strata_rss_mb"},
    "parse": {"form", "n", "lines", "strata_wall_s", "strata_cpu_s", "strata_rss_mb"},
    "plugins": {"case", "n"},
    "critical_path": {"n", "seed", "margin_ms", "expected_chain", "reported_chain", "same_chain"},
}


def test_every_scenario_is_smoke_tested() -> None:
    assert set(ROW_KEYS) == set(SCENARIOS)


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("bench")
    assert main([*SCENARIOS, "--quick", "--sizes", "5", "--reps", "1", "--no-terraform", "--no-plots",
                 "--out", str(out)]) == 0
    return out


@pytest.mark.parametrize("scenario", sorted(ROW_KEYS))
def test_scenario_writes_its_result(results: Path, scenario: str) -> None:
    data = json.loads((results / f"{scenario}.json").read_text())
    assert data["scenario"] == scenario
    assert {"title", "date", "machine", "calibration_ms", "commands", "params", "rows", "targets", "notes"} <= set(data)
    assert data["calibration_ms"]["before"] > 0 and data["calibration_ms"]["after"] > 0
    assert data["rows"], "no measurements"
    for row in data["rows"]:
        assert ROW_KEYS[scenario] <= set(row), sorted(ROW_KEYS[scenario] - set(row))
        assert row["n"] == 5
    for t in data["targets"]:
        assert {"name", "target", "value", "met"} <= set(t)
    assert (results / f"{scenario}.md").read_text().startswith("## ")
    assert not (results / f"{scenario}.png").exists()  # --no-plots


def test_summary_lists_every_scenario(results: Path) -> None:
    text = (results / "summary.md").read_text()
    for name in ROW_KEYS:
        assert f"| {name} |" in text


def test_sizes_parse() -> None:
    from benchmarks.cli import _sizes

    assert _sizes("1k,10k 100_000") == [1000, 10_000, 100_000]


def test_deep_scheduling_rows_break_the_critical_chain_down(results: Path) -> None:
    rows = json.loads((results / "scheduling.json").read_text())["rows"]
    deep = [r for r in rows if r["bound_term"] == "critical path"]
    assert deep, "the quick run has a deep DAG bound by its critical path"
    for r in deep:
        assert 1 <= r["chain_links"] <= r["critical_path"], r
        # each part is a wait after the previous step: it cannot be (much) below zero
        assert min(r["chain_dispatch_ms"], r["chain_turn_ms"], r["chain_durable_ms"]) > -1.0, r


def test_critical_chain_follows_the_parent_that_finished_last() -> None:
    from benchmarks.dag import Dag, critical_chain

    # 0 -> 2, 1 -> 2, 2 -> 3; node 1 finished after node 0
    dag = Dag(layers=[[0, 1], [2], [3]], deps=[[], [], [0, 1], [2]])
    assert critical_chain(dag, {0: 1.0, 1: 2.0, 2: 3.0, 3: 4.0}) == [1, 2, 3]
    assert critical_chain(dag, {}) == []


def test_lifecycle_runs_each_step_on_the_state_the_last_left(results: Path) -> None:
    rows = json.loads((results / "lifecycle.json").read_text())["rows"]
    assert [r["step"] for r in rows] == ["create", "no-op", "update", "destroy"]


def test_lifecycle_update_changes_every_input() -> None:
    from benchmarks.common import count_config
    from benchmarks.scenarios.lifecycle import updated_config

    assert updated_config(3) != count_config(3) and 'input = "v2-${count.index}"' in updated_config(3)


def test_small_runs_every_step_on_the_state_the_last_left(results: Path) -> None:
    rows = json.loads((results / "small.json").read_text())["rows"]
    assert [r["step"] for r in rows] == ["version", "create", "plan", "apply", "destroy"]
