"""Fetching a module package into a directory, as go-getter does for terraform: ``git`` through the
``git`` command (``ref``, ``depth``), archives over ``http(s)`` or from files (``.tar.gz``, ``.zip``
... or ``archive=``), an ``http(s)`` URL that answers with ``X-Terraform-Get``, a local directory
(linked, not copied); and the module registry protocol (service discovery, ``versions``,
``download``).

Every failure is a :class:`FetchError` whose message is go-getter's or the registry client's; the
installer puts it into terraform's diagnostic.
"""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import tarfile
import urllib.error
import urllib.request
import zipfile
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit, urlunsplit

import orjson

from engine.diagnostics import StrataError
from engine.install.module_source import RegistrySource, getter_of, parse_remote_source

_ARCHIVES = ("tar.gz", "tgz", "tar.bz2", "tbz2", "tar.xz", "txz", "zip", "tar", "gz", "bz2", "xz")
_COMMIT = re.compile(r"[0-9a-f]{7,40}\Z")
_TIMEOUT = 30.0


class FetchError(StrataError):
    """A package or a registry answer that could not be had; ``str()`` says why."""


def fetch_package(package: str, dest: Path, workdir: Path) -> None:
    """Put the package ``package`` (a remote source's package address) at ``dest`` (which must
    not exist). ``workdir``: where the ``git`` command runs (its messages name ``dest`` relative)."""
    getter, url = getter_of(package)
    parts = urlsplit(url)
    query = parse_qsl(parts.query, keep_blank_values=True)
    archive = next((v for k, v in query if k == "archive"), None)
    if archive is None and getter in ("http", "file"):
        archive = next((ext for ext in _ARCHIVES if parts.path.endswith("." + ext)), None)
    if archive == "false":
        archive = None
    plain = urlunsplit(parts._replace(query=urlencode([(k, v) for k, v in query if k != "archive"])))
    try:
        if getter == "git":
            _git(url, dest, workdir)
        elif archive is not None and getter in ("http", "file"):
            data = _get(plain) if getter == "http" else Path(parts.path).read_bytes()
            _unpack(data, archive, dest)
        elif getter == "http":
            location = _terraform_get(plain)
            try:
                found = parse_remote_source(location)
            except ValueError:
                raise FetchError(f"invalid source string: {location}") from None
            package, subdir = found.package, found.subdir
            if not subdir:
                fetch_package(package, dest, workdir)
            else:  # the whole package fetched aside, and only its subdirectory kept (as go-getter does)
                aside = dest.with_name(dest.name + ".whole")
                shutil.rmtree(aside, ignore_errors=True)
                try:
                    fetch_package(package, aside, workdir)
                    if not (aside / subdir).is_dir():
                        raise FetchError(f"subdir {subdir!r} not found")
                    shutil.copytree(aside / subdir, dest, symlinks=True)
                finally:
                    if aside.is_symlink():
                        aside.unlink()
                    else:
                        shutil.rmtree(aside, ignore_errors=True)
        elif getter == "file":
            if not os.path.isdir(parts.path):
                raise FetchError(f"source path error: stat {parts.path}: no such file or directory")
            dest.parent.mkdir(parents=True, exist_ok=True)
            os.symlink(parts.path, dest)
        else:
            raise FetchError(f"download not supported for scheme '{getter}'")
    except FetchError as exc:
        raise FetchError(f"error downloading '{url}': {exc}") from None
    except OSError as exc:
        raise FetchError(f"error downloading '{url}': {exc}") from None


def _git(url: str, dest: Path, workdir: Path) -> None:
    parts = urlsplit(url)
    query = parse_qsl(parts.query, keep_blank_values=True)
    ref = next((v for k, v in query if k == "ref"), "")
    depth_text = next((v for k, v in query if k == "depth"), "")
    depth = int(depth_text) if depth_text.isdigit() else 0
    rest = [(k, v) for k, v in query if k not in ("ref", "depth", "sshkey")]
    clone_url = urlunsplit(parts._replace(query=urlencode(rest)))
    git = shutil.which("git")
    if git is None:
        raise FetchError('git must be available and on the PATH')
    rel = os.path.relpath(dest, workdir)
    args = [git, "clone"]
    if depth > 0:
        args += ["--depth", str(depth), "--branch", ref or _default_branch(git, clone_url, workdir)]
    args += ["--", clone_url, rel]
    try:
        _run(args, workdir)
    except FetchError as exc:
        if depth > 0 and ref and _COMMIT.match(ref):
            raise FetchError(f"{exc} (note that setting 'depth' requires 'ref' to be a branch or tag name)") from None
        raise
    if ref:
        _run([git, "checkout", ref], dest)
    args = [git, "submodule", "update", "--init", "--recursive"]
    if depth > 0:
        args += ["--depth", str(depth)]
    _run(args, dest)


def _default_branch(git: str, url: str, workdir: Path) -> str:
    try:
        out = subprocess.run([git, "ls-remote", "--symref", url, "HEAD"], cwd=workdir, capture_output=True,
                             text=True, timeout=_TIMEOUT, env=_git_env())
    except (OSError, subprocess.SubprocessError):
        return "master"
    m = re.search(r"ref: refs/heads/(\S+)\s+HEAD", out.stdout)
    return m[1] if m else "master"


def _git_env() -> dict[str, str]:
    return {**os.environ, "GIT_TERMINAL_PROMPT": "0"}


def _run(args: list[str], cwd: Path) -> None:
    try:
        done = subprocess.run(args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              timeout=10 * _TIMEOUT, env=_git_env())
    except (OSError, subprocess.SubprocessError) as exc:
        raise FetchError(f"{args[0]}: {exc}") from None
    if done.returncode != 0:
        raise FetchError(f"{args[0]} exited with {done.returncode}: {done.stdout}")


def _get(url: str, headers: dict[str, str] | None = None) -> bytes:
    return _request(url, headers)[0]


def _request(url: str, headers: dict[str, str] | None = None) -> tuple[bytes, dict[str, str]]:
    req = urllib.request.Request(url, headers={"User-Agent": "strata", **(headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=_TIMEOUT) as resp:  # noqa: S310 - the user's own source URL
            return resp.read(), {k.lower(): v for k, v in resp.headers.items()}
    except urllib.error.HTTPError as exc:
        raise FetchError(f"bad response code: {exc.code}") from None
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        raise FetchError(f'Get "{url}": {reason}') from None


def _terraform_get(url: str) -> str:
    """An http(s) URL that is no archive: the location its ``X-Terraform-Get`` header names, as
    given (go-getter resolves no relative location here, unlike the registry client)."""
    parts = urlsplit(url)
    query = parse_qsl(parts.query, keep_blank_values=True) + [("terraform-get", "1")]
    asked = urlunsplit(parts._replace(query=urlencode(query)))
    body, headers = _request(asked)
    location = headers.get("x-terraform-get")
    if location is None:
        m = re.search(rb'<meta\s+name="terraform-get"\s+content="([^"]+)"', body)
        if m is None:
            raise FetchError("no source URL was returned")
        location = m[1].decode()
    return location


def _resolve(base: str, location: str) -> str:
    if location.startswith(("/", "./", "../")):
        return urljoin(base, location)
    return location


def _unpack(data: bytes, kind: str, dest: Path) -> None:
    part = dest.with_name(dest.name + ".part")
    if part.exists():
        shutil.rmtree(part)
    part.mkdir(parents=True)
    try:
        if kind == "zip":
            with zipfile.ZipFile(io.BytesIO(data)) as zf:
                for info in zf.infolist():
                    _inside(part, info.filename)
                    zf.extract(info, part)
                    mode = info.external_attr >> 16
                    if mode and not info.is_dir():
                        os.chmod(part / info.filename, mode & 0o777)
        else:
            with tarfile.open(fileobj=io.BytesIO(data), mode="r:*") as tf:
                for member in tf.getmembers():
                    _inside(part, member.name)
                tf.extractall(part, filter="data")
    except (tarfile.TarError, zipfile.BadZipFile, ValueError) as exc:
        shutil.rmtree(part, ignore_errors=True)
        raise FetchError(f"error decompressing: {exc}") from None
    part.rename(dest)


def _inside(root: Path, name: str) -> None:
    target = os.path.realpath(root / name)
    if not (target + os.sep).startswith(os.path.realpath(root) + os.sep):
        raise FetchError(f"entry contains '..': {name}")


# --- the module registry protocol ----------------------------------------------------------------

class ModuleNotFound(FetchError):
    """The registry has no such module (``versions`` answered 404)."""


def _auth(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}


def registry_base(host: str, hosts: dict[str, dict[str, str]], token: str | None = None) -> str:
    """The ``modules.v1`` base URL of a registry host: the CLI configuration's ``host`` block
    for it, else its service discovery document (``https://HOST/.well-known/terraform.json``)."""
    services = hosts.get(host)
    if services is not None:
        base = services.get("modules.v1")
        if base is None:
            raise FetchError(f"host {host} does not provide a module registry")
        return base if base.endswith("/") else base + "/"
    url = f"https://{host}/.well-known/terraform.json"
    try:
        body, headers = _request(url, _auth(token))
    except FetchError as exc:
        if str(exc) == "bad response code: 404":  # a host with no services at all
            raise FetchError(f"host {host} does not provide a module registry") from None
        raise FetchError(f"failed to request discovery document: {exc}") from None
    content_type = headers.get("content-type", "")
    media = content_type.split(";", 1)[0].strip().lower()
    if not media:
        raise FetchError(f'discovery URL has a malformed Content-Type "{content_type}"')
    if media != "application/json":
        raise FetchError(f'discovery URL returned an unsupported Content-Type "{media}"')
    try:
        doc = orjson.loads(body)
    except orjson.JSONDecodeError:
        raise FetchError(f"failed to decode discovery document from {url}") from None
    base = doc.get("modules.v1") if isinstance(doc, dict) else None
    if not isinstance(base, str):
        raise FetchError(f"host {host} does not provide a module registry")
    base = urljoin(url, base)
    return base if base.endswith("/") else base + "/"


def registry_versions(source: RegistrySource, base: str, token: str | None = None) -> list[str]:
    """The versions the registry lists for the module (``token``: the host's, sent as terraform
    sends it)."""
    url = urljoin(base, f"{source.namespace}/{source.name}/{source.system}/versions")
    try:
        body = _get(url, _auth(token))
    except FetchError as exc:
        if str(exc) == "bad response code: 404":
            raise ModuleNotFound(str(exc)) from None
        raise
    try:
        doc = orjson.loads(body)
        return [str(v["version"]) for m in doc["modules"] for v in m["versions"]]
    except (orjson.JSONDecodeError, KeyError, TypeError) as exc:
        raise FetchError(f"invalid response from {url}: {exc}") from None


def registry_location(source: RegistrySource, version: str, base: str, token: str | None = None) -> str:
    """Where the registry says the module's package for ``version`` is (``X-Terraform-Get``,
    a relative location resolved against the download URL)."""
    url = urljoin(base, f"{source.namespace}/{source.name}/{source.system}/{version}/download")
    body, headers = _request(url, _auth(token))
    location = headers.get("x-terraform-get")
    if location is None and body.strip():
        try:
            doc = orjson.loads(body)
            location = doc.get("location") if isinstance(doc, dict) else None
        except orjson.JSONDecodeError:
            location = None
    if not location:
        raise FetchError("failed to get download URL: no X-Terraform-Get header")
    return _resolve(url, location)
