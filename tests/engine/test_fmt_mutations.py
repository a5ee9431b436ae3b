"""The corpus of fmt_corpus/ with its whitespace mangled (indentation, spaces around ``=`` and
``,``, tabs, trailing spaces), seeded: strata's layout of each is terraform's, or both refuse it."""

from __future__ import annotations

import os
import random
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from engine.cli.fmt_command import printed
from engine.lang.fmt import FormatError, format_source
from tests.conftest import requires_terraform

CORPUS = Path(__file__).parent / "fmt_corpus"
FILES = sorted(p for p in CORPUS.iterdir() if p.suffix in (".tf", ".tfvars"))


def mangle(text: str, rng: random.Random) -> str:
    out = []
    for line in text.split("\n"):
        r = rng.random()
        if r < 0.3:
            line = " " * rng.randint(0, 7) + line.lstrip(" \t")
        elif r < 0.4:
            line = "\t" + line
        if rng.random() < 0.3:
            line = re.sub(r" = ", lambda _: " " * rng.randint(1, 3) + "=" + " " * rng.randint(0, 3), line)
        if rng.random() < 0.2:
            line = re.sub(r", ", lambda _: "," + " " * rng.randint(0, 2), line)
        if rng.random() < 0.1:
            line += " " * rng.randint(1, 3)
        out.append(line)
    return "\n".join(out)


def mutations() -> list[tuple[str, str]]:
    rng = random.Random(23)
    return [(f"{p.name}#{k}", mangle(p.read_bytes().decode(), rng)) for p in FILES for k in range(3)]


MUTATIONS = mutations()


def ours(text: str) -> str | None:
    try:
        return printed(format_source(text))
    except FormatError:
        return None


@pytest.mark.parametrize(("name", "text"), MUTATIONS, ids=[m[0] for m in MUTATIONS])
def test_mangled_file_formats_to_a_fixed_point(name: str, text: str) -> None:
    try:
        once = format_source(text)
    except FormatError:
        return
    assert format_source(once) == once


@requires_terraform
@pytest.mark.parametrize(("name", "text"), MUTATIONS, ids=[m[0] for m in MUTATIONS])
def test_mangled_file_formats_as_terraform(name: str, text: str) -> None:
    tf = shutil.which("terraform")
    assert tf is not None
    env = dict(os.environ, TF_CLI_CONFIG_FILE="/dev/null", CHECKPOINT_DISABLE="1")
    proc = subprocess.run([tf, "fmt", "-"], input=text.encode(), capture_output=True, env=env)
    theirs = proc.stdout.decode() if proc.returncode == 0 else None
    assert ours(text) == theirs
