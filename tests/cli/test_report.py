"""``strata report EVENTS.jsonl``: from a recorded apply, per-resource durations, the critical path,
parallelism against the limit (per provider too), latency percentiles per resource type, retries
and errors; as text, as a PNG Gantt chart and as a self-contained HTML page."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import orjson
import pytest

from benchmarks.dag import Dag
from tests.conftest import Workdir

# a chain a -> b -> c of slow creates beside six fast independent ones: the chain decides the wall
# time, whatever the scheduling
CHAIN = """
provider "sim" {
  ledger     = "cloud.jsonl"
  latency_ms = 20
}

resource "sim_object" "a" {
  name       = "a"
  latency_ms = 150
}

resource "sim_object" "b" {
  name       = "b-${sim_object.a.id}"
  latency_ms = 150
}

resource "sim_object" "c" {
  name       = "c-${sim_object.b.id}"
  latency_ms = 100
}

resource "sim_object" "fast" {
  count = 6
  name  = "fast-${count.index}"
}
"""


def _recorded(workdir: Workdir, config: str = CHAIN, *flags: str) -> None:
    workdir.write(config)
    workdir.strata("apply", "-auto-approve", "-quiet", "-parallelism=4", "-events=events.jsonl", *flags)


def test_report_names_the_critical_path(workdir: Workdir) -> None:
    _recorded(workdir)
    res = workdir.strata("report", "events.jsonl", check=True)
    text = res.stdout
    assert "9 operations (9 create), 0 failed" in text
    section = text.split("Critical path:", 1)[1].split("\n\n", 1)[0]
    path = re.findall(r"(sim_object\.\S+) \(create\)", section)
    assert path == ["sim_object.a", "sim_object.b", "sim_object.c"], section
    # the chain's runs add up to (nearly) the whole walk
    walk = float(re.search(r"the walk took ([\d.]+) s", text).group(1))  # type: ignore[union-attr]
    runs = [float(line.split()[2]) for line in section.splitlines()[2:]]
    assert sum(runs) >= 0.4 and sum(runs) <= walk + 0.001


def test_report_shows_parallelism_against_the_limit_and_latency_percentiles(workdir: Workdir) -> None:
    _recorded(workdir)
    text = workdir.strata("report", "events.jsonl", check=True).stdout
    m = re.search(r"all: limit 4, peak (\d+), mean ([\d.]+)", text)
    assert m, text
    assert 1 <= int(m.group(1)) <= 4
    assert "provider sim: 9 operations" in text
    row = re.search(r"sim_object\s+9\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)", text)
    assert row, text
    p50, p90, p99, top = map(float, row.groups())
    assert 0.02 <= p50 <= p90 <= p99 <= top and top >= 0.15
    slowest = text.split("Slowest operations", 1)[1].splitlines()[1]
    assert "sim_object.a (create)" in slowest or "sim_object.b (create)" in slowest


def test_report_lists_errors_and_retries(workdir: Workdir) -> None:
    config = """
    provider "sim" {
      ledger       = "cloud.jsonl"
      latency_ms   = 5
      failure_rate = 0.4
      seed         = 3
    }

    resource "sim_object" "o" {
      count = 12
      name  = "o-${count.index}"
    }

    resource "sim_object" "broken" {
      name = "broken"
      fail = "create"
    }
    """
    _recorded(workdir, config, "-retries=6")
    text = workdir.strata("report", "events.jsonl", check=True).stdout
    m = re.search(r"Retries: (\d+)\. Errors: (\d+)\.", text)
    assert m, text
    assert int(m.group(1)) > 0, "a 40% failure rate over 12 creates retried nothing"
    assert int(m.group(2)) >= 1
    assert "error  sim_object.broken:" in text
    assert "sim_object.broken (create)  (failed)" in text or "1 failed" in text


def test_report_writes_a_png_gantt_chart(workdir: Workdir) -> None:
    _recorded(workdir)
    workdir.strata("report", "events.jsonl", "-png=gantt.png", check=True)
    data = (workdir.path / "gantt.png").read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    import matplotlib.image

    img = matplotlib.image.imread(str(workdir.path / "gantt.png"))
    assert img.shape[0] > 300 and img.shape[1] > 800
    # the bars: a good share of the chart is neither white nor grey
    colored = ((abs(img[..., 0] - img[..., 1]) > 0.2) | (abs(img[..., 1] - img[..., 2]) > 0.2)).mean()
    assert colored > 0.01, f"only {colored:.3%} of the chart is colored: no bars drawn"


def test_report_writes_a_self_contained_html_page(workdir: Workdir) -> None:
    _recorded(workdir)
    workdir.strata("report", "events.jsonl", "-html=report.html", check=True)
    page = (workdir.path / "report.html").read_text()
    assert not re.search(r"""(src|href)\s*=\s*["']?https?:""", page), "the page loads something from the network"
    data = orjson.loads(re.search(r"const D = (.*);\n", page).group(1))  # type: ignore[union-attr]
    assert len(data["ops"]) == 9 and data["limit"] == 4
    critical = [o[0] for o in data["ops"] if o[6]]
    assert critical == ["sim_object.a (create)", "sim_object.b (create)", "sim_object.c (create)"]


def test_report_of_a_file_that_is_not_an_event_log_is_a_diagnostic(workdir: Workdir) -> None:
    (workdir.path / "x.jsonl").write_text('{"a": 1}\n')
    res = workdir.strata("report", "x.jsonl")
    assert res.returncode == 1 and "Not an event log" in res.stderr and "Traceback" not in res.stderr
    res = workdir.strata("report", "missing.jsonl")
    assert res.returncode == 1 and "Failed to read the event log" in res.stderr


@pytest.mark.skipif(shutil.which("chromium") is None,
                    reason="chromium is not installed (make test installs Debian's chromium)")
def test_html_report_renders_its_gantt_in_a_real_browser(workdir: Workdir, tmp_path: Path) -> None:
    _recorded(workdir)
    workdir.strata("report", "events.jsonl", "-html=report.html", check=True)
    url = (workdir.path / "report.html").as_uri()
    browser = ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
               f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1280,900"]
    # the page as the browser left it once its script ran: one bar per operation
    dom = subprocess.run([*browser, "--dump-dom", url], capture_output=True, text=True, timeout=120).stdout
    assert dom.count('class="op"') == 9, "the script drew no Gantt bars"
    assert "9 operations, the walk took" in dom
    shot = tmp_path / "shot.png"
    subprocess.run([*browser, f"--screenshot={shot}", url], capture_output=True, timeout=120)
    import matplotlib.image

    img = matplotlib.image.imread(str(shot))[..., :3]
    # the provider's bars are drawn in #1f77b4: a visible share of the screen, in the chart's band
    blue = ((abs(img[..., 0] - 0x1f / 255) < 0.05) & (abs(img[..., 1] - 0x77 / 255) < 0.05)
            & (abs(img[..., 2] - 0xb4 / 255) < 0.05))
    assert blue.mean() > 0.005, f"only {blue.mean():.3%} of the screenshot shows bars"
    rows = blue.any(axis=1).nonzero()[0]
    assert rows.min() < img.shape[0] / 2, "the bars are not near the top of the page, where the chart is"


def _report_names_the_drawn_chain(workdir: Workdir, dag: Dag, mean_ms: float, seed: int, parallelism: int) -> None:
    """Apply ``dag`` as sim objects with lognormal latencies drawn from ``seed``; the report of
    its event log names the chain computed from the DAG and those draws."""
    from benchmarks.dag import drawn_chain, sim_config
    from benchmarks.scenarios.critical_path import reported_chain

    expected = drawn_chain(dag, seed, mean_ms)
    config = sim_config(dag, mean_ms)
    config["provider"]["sim"].update({"latency": "lognormal", "seed": seed})
    (workdir.path / "main.tf.json").write_text(orjson.dumps(config).decode())
    workdir.strata("apply", "-auto-approve", "-quiet", f"-parallelism={parallelism}", "-events=events.jsonl",
                   check=True)
    reported = reported_chain(workdir.strata("report", "events.jsonl", check=True).stdout)
    assert reported == expected.chain, \
        f"expected {expected.chain} (margin {expected.margin:.0f} ms), the report says {reported}"


def test_report_names_the_critical_path_the_dag_and_the_drawn_latencies_decide(workdir: Workdir) -> None:
    """A random layered DAG of sim objects with lognormal latencies, at a parallelism no layer
    fills: the report's critical path is the chain the benchmarks compute from the DAG and the
    latencies the sim provider draws (a pure function of its seed and each object's token)."""
    from benchmarks.dag import drawn_chain, layered_dag

    dag = layered_dag(120, depth=6, seed=7, max_parents=2)
    # a seed whose chain no scheduling jitter of a few ms can change
    seed = next(s for s in range(1, 200) if drawn_chain(dag, s, 60.0).margin > 25.0)
    _report_names_the_drawn_chain(workdir, dag, 60.0, seed, parallelism=200)


def test_report_names_the_critical_path_of_two_thousand_resources(workdir: Workdir) -> None:
    """The same at 2,000 resources in 8 layers (the benchmark ``critical_path`` does 10,000):
    each layer's ~250 operations start as their dependencies end, and the apply's CPU around
    them (a few seconds here) is less than the margin by which the drawn chain leads its rivals
    (the seed with the widest margin of the first 40: over a second at a mean latency of 0.5 s)."""
    from benchmarks.dag import drawn_chain, layered_dag

    dag = layered_dag(2000, depth=8, seed=7, max_parents=2)
    seed = max(range(1, 41), key=lambda s: drawn_chain(dag, s, 500.0).margin)
    assert drawn_chain(dag, seed, 500.0).margin > 1000.0, "the check needs a chain that leads by over a second"
    _report_names_the_drawn_chain(workdir, dag, 500.0, seed, parallelism=max(len(layer) for layer in dag.layers))
