"""Run one case through both commands, as subprocesses, and record what each did.

Only the ``strata`` and ``terraform`` commands are used (never engine internals), so the
harness keeps working while the engine changes. Each tool gets its own temporary
directory; both apply v1 then v2 at ``-parallelism=1`` with ``-json``. terraform applies
saved plans, so that ``terraform graph -type=apply -plan=FILE`` describes exactly the
apply that ran; strata too (``plan -out``, then ``apply FILE``), and ``show -json`` of each
plan is recorded for both.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from tests.differential.generate import Case
from tests.plugins.fetch import cache_dir, null_path

REPO = Path(__file__).resolve().parents[2]
TIMEOUT = 120


@dataclass
class Step:
    """One apply: its exit code, its event stream and (terraform only) its graph's edges."""

    returncode: int
    events: list[dict]
    stderr: str
    edges: list[tuple[str, str]] = field(default_factory=list)
    plan_events: list[dict] = field(default_factory=list)
    plan_json: dict | None = None  # ``show -json`` of the plan this apply applied


@dataclass
class Run:
    """What one tool did with a case."""

    tool: str
    steps: list[Step] = field(default_factory=list)
    states: list[dict] = field(default_factory=list)  # after v1, after v2
    outputs: dict | None = None
    error: str | None = None


def _events(stdout: str) -> list[dict]:
    out = []
    for line in stdout.splitlines():
        if line.startswith("{"):
            try:
                out.append(orjson.loads(line))
            except orjson.JSONDecodeError:
                pass
    return out


def _json(shown: subprocess.CompletedProcess[str]) -> dict | None:
    """The document ``show -json`` printed, or None when it failed or printed something else."""
    if shown.returncode != 0:
        return None
    try:
        doc = orjson.loads(shown.stdout)
    except orjson.JSONDecodeError:
        return None
    return doc if isinstance(doc, dict) else None


def _read_state(path: Path) -> dict:
    f = path / "terraform.tfstate"
    return orjson.loads(f.read_bytes()) if f.exists() else {}


_DOT_EDGE = re.compile(r'^\s*"((?:[^"\\]|\\.)*)"\s*->\s*"((?:[^"\\]|\\.)*)"')


def parse_graph(dot: str) -> list[tuple[str, str]]:
    """Edges ``(a, b)`` of a DOT graph: ``a`` depends on ``b`` (``[root] `` prefixes dropped)."""
    edges = []
    for line in dot.splitlines():
        m = _DOT_EDGE.match(line)
        if m:
            a, b = (s.replace('\\"', '"').removeprefix("[root] ") for s in m.groups())
            edges.append((a, b))
    return edges


def _terraform_env(path: Path) -> dict[str, str]:
    """No user CLI configuration: an empty file of our own (not /dev/null, which a
    shared machine does not always keep a device)."""
    empty = path / "empty.tfrc"
    empty.write_text("")
    return dict(os.environ, TF_CLI_CONFIG_FILE=str(empty), TF_IN_AUTOMATION="1",
                CHECKPOINT_DISABLE="1")


def _write(path: Path, case: Case, version: int) -> None:
    """Write a configuration's ``main.tf`` and (a :class:`ModularCase`'s) other files."""
    (path / "main.tf").write_text(case.v1 if version == 1 else case.v2)
    for rel, text in getattr(case, "files1" if version == 1 else "files2", ()):
        (path / rel).parent.mkdir(parents=True, exist_ok=True)
        (path / rel).write_text(text)


def _init_args(case: Case) -> tuple[str, ...]:
    """``-plugin-dir=MIRROR`` when the case uses the null plugin (both tools read the mirror
    that ``make plugins`` fills), else nothing."""
    if not getattr(case, "plugins", False):
        return ()
    mirror = cache_dir() / "mirror"
    if not null_path(mirror).exists():
        raise FileNotFoundError(f"the null plugin is not in {mirror}: run `make plugins`")
    return (f"-plugin-dir={mirror}",)


def run_terraform(case: Case, path: Path) -> Run:
    env = _terraform_env(path)

    def tf(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["terraform", *args], cwd=path, env=env, capture_output=True,
                              text=True, timeout=TIMEOUT)

    run = Run("terraform")
    _write(path, case, 1)
    init = tf("init", "-input=false", "-no-color", *_init_args(case))
    if init.returncode != 0:
        run.error = f"terraform init failed:\n{init.stderr}"
        return run
    for version, opts in ((1, ()), (2, case.options)):
        _write(path, case, version)
        plan = tf("plan", "-input=false", "-json", "-parallelism=1", "-out=step.tfplan", *opts)
        if plan.returncode != 0:
            # what terraform refuses (a cycle) is its behaviour: compared as strata's exit code,
            # state and outputs after the refusal
            run.steps.append(Step(plan.returncode, _events(plan.stdout), plan.stderr))
            run.states.append(_read_state(path))
            break
        graph = tf("graph", "-type=apply", "-plan=step.tfplan")
        shown = tf("show", "-json", "step.tfplan")
        apply = tf("apply", "-input=false", "-json", "-parallelism=1", "step.tfplan")
        step = Step(apply.returncode, _events(apply.stdout), apply.stderr, parse_graph(graph.stdout),
                    _events(plan.stdout), _json(shown))
        run.steps.append(step)
        run.states.append(_read_state(path))
    out = tf("output", "-json")
    run.outputs = orjson.loads(out.stdout) if out.returncode == 0 and out.stdout.strip() else None
    return run


def strata_argv() -> list[str]:
    return [sys.executable, "-m", "engine"]


def run_strata(case: Case, path: Path) -> Run:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env["TF_CLI_CONFIG_FILE"] = _terraform_env(path)["TF_CLI_CONFIG_FILE"]  # no user CLI configuration

    def strata(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*strata_argv(), *args], cwd=path, env=env, capture_output=True,
                              text=True, timeout=TIMEOUT)

    run = Run("strata")
    init_args = _init_args(case)
    if init_args:
        _write(path, case, 1)
        init = strata("init", "-input=false", "-no-color", *init_args)
        if init.returncode != 0:
            run.error = f"strata init failed:\n{init.stdout}{init.stderr}"
            return run
    for version, opts in ((1, ()), (2, case.options)):
        _write(path, case, version)
        plan = strata("plan", "-input=false", "-json", "-parallelism=1", "-out=step.tfplan", *opts)
        if plan.returncode != 0:
            run.steps.append(Step(plan.returncode, _events(plan.stdout), plan.stderr))
            run.states.append(_read_state(path))
            break
        shown = strata("show", "-json", "step.tfplan")
        apply = strata("apply", "-input=false", "-json", "-parallelism=1", "step.tfplan")
        run.steps.append(Step(apply.returncode, _events(apply.stdout), apply.stderr,
                              plan_events=_events(plan.stdout), plan_json=_json(shown)))
        run.states.append(_read_state(path))
    out = strata("output", "-json")
    try:
        run.outputs = orjson.loads(out.stdout) if out.returncode == 0 and out.stdout.strip() else None
    except orjson.JSONDecodeError:
        run.outputs = None
        run.error = f"strata output -json printed something that is not JSON:\n{out.stdout}"
    return run


def run_case(case: Case, keep: Path | None = None) -> tuple[Run, Run]:
    """Both tools on ``case``, side by side (two processes at a time), in fresh directories."""
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
    base = Path(tempfile.mkdtemp(prefix=f"strata-diff-{case.seed}-", dir=keep))
    try:
        (base / "terraform").mkdir()
        (base / "strata").mkdir()
        with ThreadPoolExecutor(2) as pool:
            tf = pool.submit(run_terraform, case, base / "terraform")
            st = pool.submit(run_strata, case, base / "strata")
            return tf.result(), st.result()
    finally:
        if keep is None:
            shutil.rmtree(base, ignore_errors=True)
