"""A resource type of a provider that is neither built in nor installed is a diagnostic, not a traceback.

Since plugins are looked for in ``.terraform/``, ``Providers.known`` answers ``self._plugin(base)
is not None`` — a bool, never None — so every name is "known", the check that gives terraform's
"Missing required provider" is skipped, and the schema lookup raises ``KeyError``. Pinned as a
strict expected failure: it passes (and must lose its mark) once ``known`` tests the bool.
"""

from __future__ import annotations

import pytest

from tests.conftest import Workdir


@pytest.mark.xfail(strict=True, reason="Providers.known() is always true since plugins are discovered")
def test_a_provider_that_is_not_installed_is_a_diagnostic(workdir: Workdir) -> None:
    workdir.write('resource "foo_x" "a" {}\n')
    res = workdir.strata("plan", "-no-color")
    assert res.returncode == 1
    assert "Traceback" not in res.stderr, res.stderr
    assert 'belongs to provider "foo", which is not installed' in res.stderr
