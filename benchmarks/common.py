"""What every scenario shares: running a command and measuring it, configurations, events, reports.

Measuring a run: the command is started with :class:`subprocess.Popen` and
reaped with :func:`os.wait4`, which returns the resource usage of *that*
child alone — wall time (``perf_counter`` around start and reap), CPU time
(user + system) and peak RSS (``ru_maxrss``, KiB on Linux). On a shared
machine the wall time is noisy; the CPU time is reported next to it because
it is not inflated by other tenants' load.

Nothing here asserts a timing: scenarios report figures and compare ratios
measured in the same run, alternating the sides so that noise hits both.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

REPO = Path(__file__).resolve().parent.parent
RESULTS = Path(__file__).resolve().parent / "results"


# --------------------------------------------------------------------------- context


@dataclass
class Context:
    """How a scenario should run: sizes, repetitions, where results go, what to skip."""

    out: Path = RESULTS
    sizes: list[int] | None = None     # overrides a scenario's default sizes
    quick: bool = False
    reps: int | None = None            # overrides a scenario's default repetitions
    terraform: bool = True             # compare with terraform where it is on PATH
    plots: bool = True
    keep: bool = False                 # keep the temporary work directories
    log: Callable[[str], None] = field(default=lambda s: print(s, flush=True))

    def sizes_or(self, full: Sequence[int], quick: Sequence[int]) -> list[int]:
        if self.sizes:
            return list(self.sizes)
        return list(quick if self.quick else full)

    def reps_or(self, full: int, quick: int = 1) -> int:
        if self.reps is not None:
            return max(1, self.reps)
        return quick if self.quick else full


# --------------------------------------------------------------------------- running


@dataclass
class Run:
    """One measured process."""

    argv: list[str]
    returncode: int
    wall: float          # seconds
    cpu: float           # user + system seconds of the child
    maxrss_kb: int       # peak resident set size of the child, KiB
    stderr: str = ""

    @property
    def maxrss_mb(self) -> float:
        return self.maxrss_kb / 1024.0


def strata_argv() -> list[str]:
    """The ``strata`` command of this interpreter's environment (``.venv/bin/strata``)."""
    script = Path(sys.executable).parent / "strata"
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "engine"]


def warm_up() -> None:
    """One untimed ``strata`` apply first: fills the bytecode cache and the page cache."""
    d = Path(tempfile.mkdtemp(prefix="strata-bench-warm-"))
    try:
        (d / "main.tf").write_text(count_config(3))
        run_measured([*strata_argv(), "apply", "-auto-approve", "-quiet"], d, strata_env(), check=False)
    finally:
        shutil.rmtree(d, ignore_errors=True)


def terraform_path() -> str | None:
    return shutil.which("terraform")


PYCACHE = Path(tempfile.gettempdir()) / "strata-bench-pycache"


def strata_env() -> dict[str, str]:
    """The environment of a measured ``strata``: what a user's shell would give it.

    ``PYTHONUNBUFFERED`` (set in some CI and agent environments) makes stdout
    unbuffered, so every ``-json`` event becomes its own write(2);
    ``PYTHONDONTWRITEBYTECODE`` makes every start recompile strata's modules.
    Both are dropped; bytecode is cached under the temp directory
    (``PYTHONPYCACHEPREFIX``) so the source tree stays clean.
    """
    env = dict(os.environ)
    for var in ("PYTHONUNBUFFERED", "PYTHONDONTWRITEBYTECODE", "PYTHONPROFILEIMPORTTIME", "PYTHONDEVMODE",
                "PYTHONTRACEMALLOC", "PYTHONASYNCIODEBUG"):
        env.pop(var, None)
    env["PYTHONPYCACHEPREFIX"] = str(PYCACHE)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def terraform_env() -> dict[str, str]:
    env = dict(os.environ)
    env.update(TF_CLI_CONFIG_FILE="/dev/null", TF_IN_AUTOMATION="1", CHECKPOINT_DISABLE="1",
               TF_INPUT="0")
    env.pop("TF_LOG", None)
    return env


GNU_TIME = "/usr/bin/time"


def _gnu_time() -> str | None:
    """GNU time, to measure a child's peak RSS on its own (see :func:`run_measured`)."""
    if not os.path.exists(GNU_TIME):
        return None
    try:
        r = subprocess.run([GNU_TIME, "-f", "%M", "true"], capture_output=True, text=True, timeout=10)
    except OSError:
        return None
    return GNU_TIME if r.returncode == 0 and r.stderr.strip().isdigit() else None


def run_measured(argv: list[str], cwd: Path, env: dict[str, str] | None = None,
                 stdout: Path | None = None, timeout: float = 3600.0, check: bool = True) -> Run:
    """Run ``argv`` in ``cwd``; stdout goes to the file ``stdout`` (or /dev/null).

    Peak RSS: ``ru_maxrss`` of a child that Python starts with vfork + exec is at
    least the *parent's* RSS at that moment (Linux records the high-water mark of
    the address space exec replaces), so the command runs under GNU time
    (``/usr/bin/time -f %M``), a small process whose own child's figure is exact.
    Without GNU time, ``wait4``'s figure is used (a floor of this process's RSS).
    """
    gnu_time = _gnu_time()
    out = open(stdout, "wb") if stdout is not None else subprocess.DEVNULL
    with tempfile.TemporaryDirectory(prefix="strata-bench-run-") as tmp:
        rss_file = Path(tmp) / "maxrss"
        full = [gnu_time, "-f", "%M", "-o", str(rss_file), *argv] if gnu_time else list(argv)
        try:
            with open(Path(tmp) / "stderr", "w+b") as err:
                # untimed: write back what earlier runs left dirty (a 100k apply leaves ~200 MB of
                # events and state), so the kernel does not flush it during this run, on the same
                # two CPUs and ahead of this run's fsyncs in the disk's queue
                os.sync()
                t0 = time.perf_counter()
                proc = subprocess.Popen(full, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
                deadline = t0 + timeout
                while True:
                    pid, status, ru = os.wait4(proc.pid, os.WNOHANG)
                    if pid:
                        break
                    if time.perf_counter() > deadline:
                        proc.kill()
                        pid, status, ru = os.wait4(proc.pid, 0)
                        break
                    time.sleep(0.002)
                wall = time.perf_counter() - t0
                proc.returncode = os.waitstatus_to_exitcode(status)
                err.seek(0)
                stderr = err.read().decode(errors="replace")
        finally:
            if stdout is not None:
                out.close()  # type: ignore[union-attr]
        maxrss = ru.ru_maxrss
        if gnu_time:
            text = rss_file.read_text().strip().splitlines() if rss_file.exists() else []
            if text and text[-1].strip().isdigit():
                maxrss = int(text[-1])
    run = Run(list(argv), proc.returncode, wall, ru.ru_utime + ru.ru_stime, maxrss, stderr[-4000:])
    if check and run.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} (in {cwd}) exited {run.returncode}:\n{run.stderr}")
    return run


class Workdirs:
    """Fresh temporary work directories, removed at the end unless ``keep``."""

    def __init__(self, keep: bool = False) -> None:
        self.keep = keep
        self.root = Path(tempfile.mkdtemp(prefix="strata-bench-"))
        self._n = 0

    def new(self, name: str) -> Path:
        self._n += 1
        d = self.root / f"{self._n:03d}-{name}"
        d.mkdir()
        return d

    def __enter__(self) -> Workdirs:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.keep:
            print(f"(work directories kept under {self.root})", flush=True)
        else:
            shutil.rmtree(self.root, ignore_errors=True)


def alternate(sides: Sequence[str], reps: int) -> list[tuple[int, str]]:
    """An interleaved order of (rep, side): each round rotates which side goes first."""
    order: list[tuple[int, str]] = []
    for r in range(reps):
        k = r % len(sides)
        for s in list(sides[k:]) + list(sides[:k]):
            order.append((r, s))
    return order


# --------------------------------------------------------------------------- configurations


def count_config(n: int, name: str = "x") -> str:
    """``n`` independent ``terraform_data`` (count = n)."""
    return f'resource "terraform_data" "{name}" {{\n  count = {n}\n  input = count.index\n}}\n'


def init_terraform(d: Path) -> None:
    tf = terraform_path()
    assert tf is not None
    subprocess.run([tf, "init", "-input=false", "-no-color"], cwd=d, env=terraform_env(), check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


# --------------------------------------------------------------------------- events


def parse_ts(s: str) -> float:
    return _dt.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()


def read_events(path: Path) -> list[dict[str, Any]]:
    out = []
    with open(path, "rb") as f:
        for line in f:
            if line.startswith(b"{"):
                out.append(orjson.loads(line))
    return out


@dataclass
class OpTimes:
    """Per-address start and completion times of the apply operations in a ``-json`` stream."""

    start: dict[str, float]
    complete: dict[str, float]

    @property
    def first_start(self) -> float:
        return min(self.start.values())

    @property
    def last_complete(self) -> float:
        return max(self.complete.values())

    @property
    def apply_wall(self) -> float:
        """From the first ``apply_start`` to the last ``apply_complete``."""
        return self.last_complete - self.first_start


def op_times(events: Iterable[dict[str, Any]]) -> OpTimes:
    start: dict[str, float] = {}
    complete: dict[str, float] = {}
    for e in events:
        t = e.get("type")
        if t == "apply_start":
            start[e["hook"]["resource"]["addr"]] = parse_ts(e["@timestamp"])
        elif t == "apply_complete":
            complete[e["hook"]["resource"]["addr"]] = parse_ts(e["@timestamp"])
    return OpTimes(start, complete)


# --------------------------------------------------------------------------- statistics


def median(xs: Sequence[float]) -> float:
    return float(statistics.median(xs)) if xs else float("nan")


def summarize(runs: Sequence[Run]) -> dict[str, Any]:
    return {
        "runs": len(runs),
        "wall_s": [round(r.wall, 4) for r in runs],
        "wall_median_s": round(median([r.wall for r in runs]), 4),
        "wall_min_s": round(min(r.wall for r in runs), 4),
        "cpu_median_s": round(median([r.cpu for r in runs]), 4),
        "maxrss_mb": round(max(r.maxrss_mb for r in runs), 1),
    }


# --------------------------------------------------------------------------- reports


@dataclass
class Target:
    name: str
    target: str
    value: str
    met: bool | None  # None: not measured in this run

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "target": self.target, "value": self.value, "met": self.met}


@dataclass
class Column:
    key: str
    title: str
    fmt: str = "{}"


@dataclass
class Report:
    scenario: str
    title: str
    commands: list[str]
    params: dict[str, Any]
    columns: list[Column]
    rows: list[dict[str, Any]]
    targets: list[Target] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
    started: float = field(default_factory=time.time)
    duration_s: float = 0.0
    calibration_ms: tuple[float, float] | None = None  # calibrate() before and after the scenario

    def to_json(self) -> dict[str, Any]:
        return {
            "scenario": self.scenario,
            "title": self.title,
            "date": _dt.datetime.fromtimestamp(self.started, _dt.UTC).isoformat(timespec="seconds"),
            "duration_s": round(self.duration_s, 1),
            "machine": machine(),
            **({"calibration_ms": {"before": self.calibration_ms[0], "after": self.calibration_ms[1]}}
               if self.calibration_ms else {}),
            "commands": self.commands,
            "params": self.params,
            "rows": self.rows,
            "targets": [t.to_json() for t in self.targets],
            "notes": self.notes,
            **({"extra": self.extra} if self.extra else {}),
        }

    def table(self) -> str:
        head = "| " + " | ".join(c.title for c in self.columns) + " |"
        sep = "|" + "|".join("---" for _ in self.columns) + "|"
        lines = [head, sep]
        for row in self.rows:
            cells = []
            for c in self.columns:
                v = row.get(c.key)
                cells.append("–" if v is None else _fmt(c.fmt, v))
            lines.append("| " + " | ".join(cells) + " |")
        return "\n".join(lines)

    def targets_table(self) -> str:
        if not self.targets:
            return ""
        lines = ["| target | wanted | measured | met |", "|---|---|---|---|"]
        for t in self.targets:
            met = "n/a" if t.met is None else ("yes" if t.met else "**no**")
            lines.append(f"| {t.name} | {t.target} | {t.value} | {met} |")
        return "\n".join(lines)

    def markdown(self) -> str:
        m = machine()
        parts = [f"## {self.title}", "",
                 f"Measured {self.to_json()['date']} at strata {m['strata_commit']} on {m['cpus']} CPU(s), "
                 f"Python {m['python']}, "
                 f"load average {m['loadavg']} at the end; took {self.duration_s:.0f} s."
                 + (f" CPU calibration (a fixed Python loop; lower is faster): {self.calibration_ms[0]:g} ms "
                    f"before, {self.calibration_ms[1]:g} ms after." if self.calibration_ms else ""), ""]
        parts += ["Command(s):", "", "```sh", *self.commands, "```", ""]
        parts += [self.table(), ""]
        if self.targets:
            parts += [self.targets_table(), ""]
        for n in self.notes:
            parts += [f"- {n}"]
        return "\n".join(parts).rstrip() + "\n"

    def print(self, log: Callable[[str], None]) -> None:
        log("")
        log(self.table())
        if self.targets:
            log("")
            log(self.targets_table())
        for n in self.notes:
            log(f"  note: {n}")

    def save(self, out: Path) -> list[Path]:
        out.mkdir(parents=True, exist_ok=True)
        j = out / f"{self.scenario}.json"
        j.write_text(json.dumps(self.to_json(), indent=2) + "\n")
        md = out / f"{self.scenario}.md"
        md.write_text(self.markdown())
        return [j, md]


def _fmt(fmt: str, v: Any) -> str:
    if isinstance(v, bool):
        return "yes" if v else "no"
    try:
        return fmt.format(v)
    except (ValueError, TypeError):
        return str(v)


_MACHINE: dict[str, Any] | None = None


def _git_commit() -> str | None:
    """HEAD of the repository, with ``+dirty`` when engine/ or providers/ have uncommitted changes."""
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True,
                              timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "engine", "providers"], cwd=REPO,
                               capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return (head + ("+dirty" if dirty else "")) or None


def calibrate() -> float:
    """Milliseconds a fixed pure-Python workload takes now (best of 5): how fast this shared
    machine runs Python at the moment. Two runs of a scenario compare only where this agrees;
    on this project's machine it has been seen to move by 20% within an hour."""
    best = math.inf
    for _ in range(5):
        t = time.perf_counter()
        d: dict[int, int] = {}
        for i in range(200_000):
            k = i % 1024
            d[k] = d.get(k, 0) + i
        best = min(best, time.perf_counter() - t)
    return round(best * 1000, 1)


def machine() -> dict[str, Any]:
    global _MACHINE
    if _MACHINE is None:
        tf = terraform_path()
        tf_version = None
        if tf:
            try:
                r = subprocess.run([tf, "version", "-json"], capture_output=True, text=True, timeout=30,
                                   env=terraform_env())
                tf_version = json.loads(r.stdout).get("terraform_version")
            except (OSError, ValueError, subprocess.SubprocessError):
                tf_version = "unknown"
        _MACHINE = {"cpus": os.cpu_count(), "python": platform.python_version(),
                    "platform": platform.platform(), "terraform": tf_version, "strata_commit": _git_commit()}
    try:
        load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        load = "?"
    return {**_MACHINE, "loadavg": load}


# --------------------------------------------------------------------------- plots


def have_matplotlib() -> bool:
    import importlib.util

    return importlib.util.find_spec("matplotlib") is not None


def pyplot(log: Callable[[str], None]) -> Any:
    """matplotlib.pyplot with a non-interactive backend, or None (with a message) when it is missing."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        log("  (matplotlib is not installed: no plots; `pip install -e '.[bench]'` adds it)")
        return None
    return plt


def fmt_s(x: float) -> str:
    return f"{x:.2f} s" if x >= 1 else f"{x * 1000:.0f} ms"


def plot_efficiency(rows: list[dict[str, Any]], plt: Any, path: Path, ylabel: str, title: str) -> None:
    """Efficiency (lower bound / wall) against P, one line per DAG shape, event loop and latency,
    for the runs of random layered DAGs (scheduling, walker)."""
    fig, ax = plt.subplots(figsize=(6, 4.2))
    markers = {("wide", "trio"): "o-", ("wide", "asyncio"): "^--", ("deep", "trio"): "s", ("deep", "asyncio"): "D"}
    groups = sorted({(r["shape"], r.get("backend", "trio"), r["latency_ms"]) for r in rows})
    for shape, backend, lat in groups:
        some = sorted((r for r in rows if r["shape"] == shape and r.get("backend", "trio") == backend
                       and r["latency_ms"] == lat), key=lambda r: r["parallelism"])
        marker = markers.get((shape, backend), "x")
        if lat != min(g[2] for g in groups) and "-" in marker:
            marker = marker.replace("-", ":")  # a second latency: the same shape, dotted
        ax.plot([r["parallelism"] for r in some], [r["efficiency"] for r in some], marker,
                label=f"{shape}, {backend} ({some[0]['layers']} layers, N={some[0]['n']:,}, L={lat:g} ms)")
    ax.axhline(1 / 1.05, color="gray", linestyle=":", label="target (bound / 1.05)")
    ax.set_xscale("log")
    ax.set_ylim(0, 1.05)
    ax.set_xlabel("parallelism (P)")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
