"""Module sources and ``strata init`` through the ``strata`` command: git repositories the tests
create (``git::file://``, ``?ref=``, ``//subdir``, ``?depth=``), a module registry served on
loopback (named by the CLI configuration's ``host`` block), archives; installed under
``.terraform/modules`` with terraform's ``modules.json``. With terraform present each
configuration is installed by both, the manifests compared byte for byte, and each tool plans
no changes on the other's state and installation."""

from __future__ import annotations

import io
import os
import re
import shutil
import ssl
import subprocess
import tarfile
import textwrap
import threading
import zipfile
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import orjson
import pytest

from tests.conftest import Result, Workdir, requires_terraform, terraform_available

MANIFEST = Path(".terraform") / "modules" / "modules.json"


def _git(cwd: Path, *args: str) -> str:
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@example.com", GIT_CONFIG_GLOBAL="/dev/null")
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text))


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git repository: v1.0.0 (tag) and main with a module at the top calling ``./inner``, and
    one in ``sub`` calling ``../inner``; main's second commit changes what the top one says."""
    r = tmp_path / "repo"
    r.mkdir()
    _git(r, "init", "-q", "-b", "main")
    _write(r, {
        "main.tf": """
            variable "x" {
              default = "a"
            }
            module "inner" {
              source = "./inner"
            }
            output "o" {
              value = "top-v1-${var.x}-${module.inner.o}"
            }
            """,
        "inner/main.tf": """
            resource "terraform_data" "d" {
              input = "inner"
            }
            output "o" {
              value = terraform_data.d.output
            }
            """,
        "sub/main.tf": """
            module "deep" {
              source = "../inner"
            }
            output "o" {
              value = "sub-${module.deep.o}"
            }
            """,
    })
    _git(r, "add", "-A")
    _git(r, "commit", "-qm", "one")
    _git(r, "tag", "v1.0.0")
    (r / "main.tf").write_text((r / "main.tf").read_text().replace("top-v1", "top-v2"))
    _git(r, "commit", "-qam", "two")
    return r


def _strata(w: Workdir, *args: str, config: Path | None = None) -> Result:
    old = os.environ.get("TF_CLI_CONFIG_FILE")
    os.environ["TF_CLI_CONFIG_FILE"] = str(config) if config else os.devnull
    try:
        return w.strata(*args)
    finally:
        if old is None:
            del os.environ["TF_CLI_CONFIG_FILE"]
        else:
            os.environ["TF_CLI_CONFIG_FILE"] = old


def _terraform(w: Workdir, *args: str, config: Path | None = None) -> Result:
    env = dict(os.environ, TF_CLI_CONFIG_FILE=str(config) if config else os.devnull, TF_IN_AUTOMATION="1",
               CHECKPOINT_DISABLE="1")
    proc = subprocess.run(["terraform", *args], cwd=w.path, env=env, capture_output=True, text=True, timeout=300)
    return Result(proc.returncode, proc.stdout, proc.stderr)


def _module_lines(stdout: str) -> list[str]:
    """init's lines about modules (terraform's and strata's are the same)."""
    return [x for x in stdout.splitlines() if x.startswith(("Initializing modules", "Upgrading modules",
                                                             "Downloading ", "- "))
            and " is built in to " not in x]


def _pair(tmp_path: Path, files: dict[str, str]) -> tuple[Workdir, Workdir]:
    """The same files in ``st`` (strata's) and ``tf`` (terraform's)."""
    out = []
    for name in ("st", "tf"):
        (tmp_path / name).mkdir()
        _write(tmp_path / name, files)
        out.append(Workdir(tmp_path / name))
    return out[0], out[1]


def _git_config(repo: Path) -> dict[str, str]:
    return {
        "main.tf": f"""
            module "l" {{
              source = "./loc"
            }}
            module "g" {{
              source = "git::file://{repo}?ref=v1.0.0"
            }}
            module "s" {{
              source = "git::file://{repo}//sub?ref=main&depth=1"
            }}
            output "g" {{
              value = module.g.o
            }}
            output "s" {{
              value = module.s.o
            }}
            output "l" {{
              value = module.l.o
            }}
            """,
        "loc/main.tf": f"""
            module "g" {{
              source = "git::{repo}//sub"
            }}
            output "o" {{
              value = module.g.o
            }}
            """,
    }


def test_init_installs_git_modules_into_terraforms_layout(tmp_path: Path, repo: Path) -> None:
    st, tf = _pair(tmp_path, _git_config(repo))
    res = _strata(st, "init", "-no-color")
    assert res.returncode == 0, res.stderr
    assert _module_lines(res.stdout) == [
        "Initializing modules...",
        f"Downloading git::file://{repo}?ref=v1.0.0 for g...",
        "- g in .terraform/modules/g",
        "- g.inner in .terraform/modules/g/inner",
        "- l in loc",
        f"Downloading git::file://{repo} for l.g...",
        "- l.g in .terraform/modules/l.g/sub",
        "- l.g.deep in .terraform/modules/l.g/inner",
        f"Downloading git::file://{repo}?ref=main&depth=1 for s...",
        "- s in .terraform/modules/s/sub",
        "- s.deep in .terraform/modules/s/inner",
    ]
    records = orjson.loads((st.path / MANIFEST).read_bytes())["Modules"]
    assert [(r["Key"], r["Source"], r["Dir"]) for r in records] == [
        ("", "", "."),
        ("g", f"git::file://{repo}?ref=v1.0.0", ".terraform/modules/g"),
        ("g.inner", "./inner", ".terraform/modules/g/inner"),
        ("l", "./loc", "loc"),
        ("l.g", f"git::file://{repo}//sub", ".terraform/modules/l.g/sub"),
        ("l.g.deep", "../inner", ".terraform/modules/l.g/inner"),
        ("s", f"git::file://{repo}//sub?ref=main&depth=1", ".terraform/modules/s/sub"),
        ("s.deep", "../inner", ".terraform/modules/s/inner"),
    ]
    assert not (st.path / ".terraform" / "modules" / "l").exists(), "a local module is not copied"
    if terraform_available():
        t = _terraform(tf, "init", "-no-color")
        assert t.returncode == 0, t.stderr
        assert _module_lines(t.stdout) == _module_lines(res.stdout)
        assert (st.path / MANIFEST).read_bytes() == (tf.path / MANIFEST).read_bytes()


def test_ref_selects_a_tag_a_branch_or_a_commit(tmp_path: Path, repo: Path) -> None:
    first = _git(repo, "rev-list", "--max-parents=0", "HEAD").strip()
    w = Workdir(tmp_path / "w")
    _write(w.path, {"main.tf": f"""
        module "tag" {{
          source = "git::file://{repo}?ref=v1.0.0"
        }}
        module "branch" {{
          source = "git::file://{repo}?ref=main"
        }}
        module "sha" {{
          source = "git::file://{repo}?ref={first}"
        }}
        output "all" {{
          value = [module.tag.o, module.branch.o, module.sha.o]
        }}
        """})
    assert _strata(w, "init").returncode == 0
    res = _strata(w, "apply", "-auto-approve", "-no-color")
    assert res.returncode == 0, res.stderr
    out = orjson.loads(_strata(w, "output", "-json").stdout)
    assert out["all"]["value"] == ["top-v1-a-inner", "top-v2-a-inner", "top-v1-a-inner"]


@requires_terraform
def test_each_tool_plans_no_changes_on_the_others_state_and_modules(tmp_path: Path, repo: Path) -> None:
    st, tf = _pair(tmp_path, _git_config(repo))
    assert _strata(st, "init").returncode == 0
    res = _strata(st, "apply", "-auto-approve", "-no-color")
    assert res.returncode == 0, res.stderr
    t = _terraform(st, "plan", "-detailed-exitcode", "-no-color")  # strata's install and state
    assert t.returncode == 0, t.stdout + t.stderr
    assert _terraform(tf, "init").returncode == 0
    t = _terraform(tf, "apply", "-auto-approve", "-no-color")
    assert t.returncode == 0, t.stderr
    res = _strata(tf, "plan", "-detailed-exitcode", "-no-color")  # terraform's install and state
    assert res.returncode == 0, res.stdout + res.stderr
    assert _strata(tf, "output", "-json").stdout == _terraform(tf, "output", "-json").stdout
    assert _strata(st, "state", "list").stdout == _terraform(tf, "state", "list").stdout


def _diagnostic(res: Result) -> str:
    """The diagnostics' words (wrapping aside), with strata's name where terraform says its own."""
    return " ".join(res.stderr.split()).replace('"terraform init"', '"strata init"').replace("Terraform", "strata")


def test_plan_before_init_says_the_module_is_not_installed(tmp_path: Path, repo: Path) -> None:
    st, tf = _pair(tmp_path, {"main.tf": f'module "g" {{\n  source = "git::file://{repo}?ref=v1.0.0"\n}}\n'})
    res = _strata(st, "plan", "-no-color")
    assert res.returncode == 1
    assert "Traceback" not in res.stderr
    assert "Error: Module not installed" in res.stderr
    assert "on main.tf line 1:" in res.stderr
    assert 'Run "strata init" to install all modules' in res.stderr.replace("\n", " ")
    if terraform_available():
        t = _terraform(tf, "plan", "-no-color")
        assert _diagnostic(res) == _diagnostic(t)


def test_a_changed_source_asks_for_init_again(tmp_path: Path, repo: Path) -> None:
    st, tf = _pair(tmp_path, {"main.tf": f'module "g" {{\n  source = "git::file://{repo}?ref=v1.0.0"\n}}\n'})
    assert _strata(st, "init").returncode == 0
    for w in (st, tf):
        (w.path / "main.tf").write_text((w.path / "main.tf").read_text().replace("v1.0.0", "main"))
    res = _strata(st, "validate", "-no-color")
    assert res.returncode == 1
    assert "Error: Module source has changed" in res.stderr
    assert 'on main.tf line 2, in module "g":' in res.stderr
    if terraform_available():
        shutil.copytree(st.path / ".terraform", tf.path / ".terraform")
        t = _terraform(tf, "validate", "-no-color")
        assert _diagnostic(res) == _diagnostic(t)
    res = _strata(st, "init", "-no-color")
    assert res.returncode == 0, res.stderr
    assert f"Downloading git::file://{repo}?ref=main for g..." in res.stdout
    assert _strata(st, "validate").returncode == 0


def test_init_again_keeps_what_is_installed_and_upgrade_fetches_it_again(tmp_path: Path, repo: Path) -> None:
    w = Workdir(tmp_path / "w")
    _write(w.path, {"main.tf": f'module "g" {{\n  source = "git::file://{repo}"\n}}\n'})
    assert _strata(w, "init").returncode == 0
    again = _strata(w, "init", "-no-color")
    assert _module_lines(again.stdout) == ["Initializing modules..."]
    upgraded = _strata(w, "init", "-upgrade", "-no-color")
    assert _module_lines(upgraded.stdout) == ["Upgrading modules...", f"Downloading git::file://{repo} for g...",
                                              "- g in .terraform/modules/g", "- g.inner in .terraform/modules/g/inner"]


def test_get_installs_the_modules(tmp_path: Path, repo: Path) -> None:
    w = Workdir(tmp_path / "w")
    _write(w.path, {"main.tf": f'module "g" {{\n  source = "git::file://{repo}//sub"\n}}\n'})
    res = _strata(w, "get", "-no-color")
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines() == [f"Downloading git::file://{repo} for g...", "- g in .terraform/modules/g/sub",
                                       "- g.deep in .terraform/modules/g/inner"]
    assert (w.path / MANIFEST).exists()
    assert _strata(w, "get", "-no-color").stdout == "", "what is installed stays"
    again = _strata(w, "get", "-update", "-no-color")
    assert again.stdout == res.stdout, "-update fetches it again"


@pytest.mark.parametrize(("suffix", "wording"), [
    ("?ref=nope", "error: pathspec 'nope' did not match any file(s) known to git"),
    ("-missing?ref=v1.0.0", "does not appear to be a git repository"),
])
def test_a_source_that_cannot_be_had_is_a_diagnostic_naming_module_and_source(
        tmp_path: Path, repo: Path, suffix: str, wording: str) -> None:
    st, tf = _pair(tmp_path, {"main.tf": f'module "g" {{\n  source = "git::file://{repo}{suffix}"\n}}\n'})
    res = _strata(st, "init", "-no-color")
    assert res.returncode == 1
    assert "Traceback" not in res.stderr
    flat = " ".join(res.stderr.split())
    assert "Error: Failed to download module" in flat
    assert "on main.tf line 1:" in res.stderr
    assert f'Could not download module "g" (main.tf:1) source code from "git::file://{repo}{suffix}"' in flat
    assert wording in flat
    if terraform_available():
        t = _terraform(tf, "init", "-no-color")
        assert t.returncode == 1
        assert _diagnostic(t).replace("/usr/bin/git", shutil.which("git") or "git") == _diagnostic(res)


def test_a_package_must_hold_its_local_modules_and_its_subdirectory(tmp_path: Path) -> None:
    r = tmp_path / "repo"
    r.mkdir()
    _git(r, "init", "-q", "-b", "main")
    _write(r, {"a/main.tf": 'module "x" {\n  source = "../../elsewhere"\n}\n', "main.tf": ""})
    _git(r, "add", "-A")
    _git(r, "commit", "-qm", "one")
    files = {"main.tf": f'module "g" {{\n  source = "git::file://{r}//a"\n}}\n'
                        f'module "h" {{\n  source = "git::file://{r}//nope"\n}}\n'}
    st, tf = _pair(tmp_path, files)
    res = _strata(st, "init", "-no-color")
    assert res.returncode == 1
    assert "Error: Local module path escapes module package" in res.stderr
    assert "module.g.module.x would be outside of its containing package" in " ".join(res.stderr.split())
    assert 'subdir "nope" not found' in res.stderr
    if terraform_available():
        t = _terraform(tf, "init", "-no-color")
        assert _module_lines(res.stdout) == _module_lines(t.stdout)
        assert _diagnostic(res) == _diagnostic(t)
        assert (st.path / MANIFEST).read_bytes() == (tf.path / MANIFEST).read_bytes()


@pytest.mark.parametrize(("source", "version", "summary"), [
    ("foo bar", None, "Invalid module source address"),
    ("./x", '"1.0.0"', "Invalid registry module source address"),
    ("git::https://example.com/x.git", '"1.0.0"', "Invalid registry module source address"),
    ("ns/name/prov", '"not a version"', "Invalid version constraint"),
])
def test_invalid_sources_are_terraforms_diagnostics(tmp_path: Path, source: str, version: str | None,
                                                    summary: str) -> None:
    text = f'module "m" {{\n  source = "{source}"\n' + (f"  version = {version}\n" if version else "") + "}\n"
    st, tf = _pair(tmp_path, {"main.tf": text, "x/main.tf": ""})
    res = _strata(st, "validate", "-no-color")
    assert res.returncode == 1
    assert f"Error: {summary}" in res.stderr
    assert "Traceback" not in res.stderr
    init = _strata(st, "init", "-no-color")
    assert init.returncode == 1
    assert _diagnostic(init) == _diagnostic(res), "init reports the call as validate does"
    if terraform_available() and summary != "Invalid version constraint":  # terraform asks the registry too
        t = _terraform(tf, "init", "-no-color")
        assert _diagnostic(init) == _diagnostic(t)


# --- the module registry ---------------------------------------------------------------------------

def _tarball(files: dict[str, str]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as t:
        for name, text in files.items():
            data = textwrap.dedent(text).encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def _zip(files: dict[str, str]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, text in files.items():
            z.writestr(name, textwrap.dedent(text))
    return buf.getvalue()


_PACKAGE = {
    "main.tf": """
        variable "n" {
          default = "x"
        }
        resource "terraform_data" "r" {
          input = var.n
        }
        output "o" {
          value = "VERSION-${terraform_data.r.output}"
        }
        """,
    "modules/part/main.tf": """
        output "o" {
          value = "part"
        }
        """,
}


class Registry:
    """A module registry on a loopback port: ``ns/name/prov`` in versions 1.0.0, 1.2.0 (a tarball)
    and 2.0.0 (the git repository ``git_repo`` at v1.0.0); ``ns/zipped/prov`` 0.1.0 (a zip);
    ``/files/pkg.tar.gz`` a tarball at a URL of its own."""

    def __init__(self, git_repo: Path, tls: tuple[Path, Path] | None = None) -> None:
        registry = self
        self.requests: list[str] = []
        self.authorization: list[tuple[str, str | None]] = []

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                registry.requests.append(self.path)
                registry.authorization.append((self.path.split("?")[0], self.headers.get("Authorization")))
                path = self.path.split("?")[0]
                if path == "/.well-known/terraform.json":
                    return self.reply(200, b'{"modules.v1":"/v1/modules/"}', "application/json")
                m = re.fullmatch(r"/v1/modules/ns/(name|zipped)/prov/versions", path)
                if m is not None:
                    versions = ["1.0.0", "1.2.0", "2.0.0"] if m[1] == "name" else ["0.1.0"]
                    body = orjson.dumps({"modules": [{"versions": [{"version": v} for v in versions]}]})
                    return self.reply(200, body)
                m = re.fullmatch(r"/v1/modules/ns/(name|zipped)/prov/([^/]+)/download", path)
                if m is not None:
                    if m[2] == "2.0.0":
                        where = f"git::file://{git_repo}?ref=v1.0.0"
                    elif m[1] == "zipped":
                        where = "/files/pkg?archive=zip"
                    else:
                        where = f"./pkg-{m[2]}.tar.gz"
                    self.send_response(204)
                    self.send_header("X-Terraform-Get", where)
                    self.end_headers()
                    return None
                m = re.fullmatch(r"/v1/modules/ns/name/prov/([^/]+)/pkg-[^/]+\.tar\.gz", path)
                if m is not None:
                    files = {k: v.replace("VERSION", m[1]) for k, v in _PACKAGE.items()}
                    return self.reply(200, _tarball(files))
                if path == "/files/pkg":
                    return self.reply(200, _zip({k: v.replace("VERSION", "zip") for k, v in _PACKAGE.items()}))
                if path == "/files/redirect":  # no archive: where the package is, as go-getter asks
                    self.send_response(200)
                    self.send_header("X-Terraform-Get", f"{registry.url}/files/pkg.tar.gz//modules/part")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return None
                if path == "/files/pkg.tar.gz":
                    return self.reply(200, _tarball({k: v.replace("VERSION", "url") for k, v in _PACKAGE.items()}))
                return self.reply(404, b"not found")

            def reply(self, code: int, body: bytes, content_type: str = "application/octet-stream") -> None:
                self.send_response(code)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        if tls is not None:
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(str(tls[0]), str(tls[1]))
            self.server.socket = ctx.wrap_socket(self.server.socket, server_side=True)
            self.url = f"https://127.0.0.1:{self.port}"

    def cli_config(self, path: Path, host: str = "example.com", token: str | None = None) -> Path:
        text = f'host "{host}" {{\n  services = {{\n    "modules.v1" = "{self.url}/v1/modules/"\n  }}\n}}\n'
        if token is not None:
            text += f'credentials "{host}" {{\n  token = "{token}"\n}}\n'
        path.write_text(text)
        return path


def _serving(reg: Registry) -> Iterator[Registry]:
    thread = threading.Thread(target=reg.server.serve_forever, daemon=True)
    thread.start()
    try:
        yield reg
    finally:
        reg.server.shutdown()
        reg.server.server_close()
        thread.join()


@pytest.fixture
def registry(repo: Path) -> Iterator[Registry]:
    yield from _serving(Registry(repo))


@pytest.fixture
def tls_registry(tmp_path: Path, repo: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Registry]:
    """The registry over https with a certificate for 127.0.0.1 that both tools trust
    (``SSL_CERT_FILE``): found by service discovery, as a registry on the network is."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not on PATH")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out",
                    str(cert), "-days", "2", "-subj", "/CN=127.0.0.1", "-addext",
                    "subjectAltName=IP:127.0.0.1"], check=True, capture_output=True)
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    yield from _serving(Registry(repo, (cert, key)))


_REGISTRY_CONFIG = {
    "main.tf": """
        module "r" {
          source  = "example.com/ns/name/prov"
          version = "~> 1.0"
        }
        module "part" {
          source  = "example.com/ns/name/prov//modules/part"
          version = "1.0.0"
        }
        module "git" {
          source  = "example.com/ns/name/prov"
          version = ">= 2.0"
        }
        module "z" {
          source  = "example.com/ns/zipped/prov"
          version = "0.1.0"
        }
        output "all" {
          value = [module.r.o, module.part.o, module.git.o, module.z.o]
        }
        """,
}


def test_init_installs_registry_modules_at_the_newest_version_admitted(tmp_path: Path, registry: Registry,
                                                                       repo: Path) -> None:
    config = registry.cli_config(tmp_path / "cli.tfrc")
    st, tf = _pair(tmp_path, _REGISTRY_CONFIG)
    res = _strata(st, "init", "-no-color", config=config)
    assert res.returncode == 0, res.stderr
    assert _module_lines(res.stdout) == [
        "Initializing modules...",
        "Downloading example.com/ns/name/prov 2.0.0 for git...",
        "- git in .terraform/modules/git",
        "- git.inner in .terraform/modules/git/inner",
        "Downloading example.com/ns/name/prov 1.0.0 for part...",
        "- part in .terraform/modules/part/modules/part",
        "Downloading example.com/ns/name/prov 1.2.0 for r...",
        "- r in .terraform/modules/r",
        "Downloading example.com/ns/zipped/prov 0.1.0 for z...",
        "- z in .terraform/modules/z",
    ]
    records = {r["Key"]: r for r in orjson.loads((st.path / MANIFEST).read_bytes())["Modules"]}
    assert records["r"] == {"Key": "r", "Source": "example.com/ns/name/prov", "Version": "1.2.0",
                            "Dir": ".terraform/modules/r"}
    assert records["part"]["Source"] == "example.com/ns/name/prov//modules/part"
    res = _strata(st, "apply", "-auto-approve", "-no-color", config=config)
    assert res.returncode == 0, res.stderr
    out = orjson.loads(_strata(st, "output", "-json", config=config).stdout)
    assert out["all"]["value"] == ["1.2.0-x", "part", "top-v1-a-inner", "zip-x"]
    if terraform_available():
        t = _terraform(tf, "init", "-no-color", config=config)
        assert t.returncode == 0, t.stderr
        assert (st.path / MANIFEST).read_bytes() == (tf.path / MANIFEST).read_bytes()
        t = _terraform(st, "plan", "-detailed-exitcode", "-no-color", config=config)
        assert t.returncode == 0, t.stdout + t.stderr


@requires_terraform
def test_registry_install_lines_are_terraforms(tmp_path: Path, registry: Registry) -> None:
    config = registry.cli_config(tmp_path / "cli.tfrc")
    st, tf = _pair(tmp_path, _REGISTRY_CONFIG)
    ours = _strata(st, "init", "-no-color", config=config)
    theirs = _terraform(tf, "init", "-no-color", config=config)
    assert theirs.returncode == 0, theirs.stderr
    assert _module_lines(ours.stdout) == _module_lines(theirs.stdout)


def test_the_default_registry_host_can_be_pointed_at_a_registry(tmp_path: Path, registry: Registry) -> None:
    config = registry.cli_config(tmp_path / "cli.tfrc", host="registry.terraform.io")
    st, tf = _pair(tmp_path, {"main.tf": 'module "r" {\n  source  = "ns/name/prov"\n  version = "< 1.1"\n}\n'})
    res = _strata(st, "init", "-no-color", config=config)
    assert res.returncode == 0, res.stderr
    assert "Downloading registry.terraform.io/ns/name/prov 1.0.0 for r..." in res.stdout
    assert orjson.loads((st.path / MANIFEST).read_bytes())["Modules"][1]["Source"] == \
        "registry.terraform.io/ns/name/prov"
    assert _strata(st, "validate", config=config).returncode == 0
    if terraform_available():
        assert _terraform(tf, "init", config=config).returncode == 0
        assert (st.path / MANIFEST).read_bytes() == (tf.path / MANIFEST).read_bytes()


def test_a_version_constraint_no_version_meets_is_terraforms_error(tmp_path: Path, registry: Registry) -> None:
    config = registry.cli_config(tmp_path / "cli.tfrc")
    text = 'module "r" {\n  source  = "example.com/ns/name/prov"\n  version = "~> 3.0"\n}\n'
    st, tf = _pair(tmp_path, {"main.tf": text})
    res = _strata(st, "init", "-no-color", config=config)
    assert res.returncode == 1
    assert "Error: Unresolvable module version constraint" in res.stderr
    assert "The newest available version is 2.0.0." in " ".join(res.stderr.split())
    if terraform_available():
        t = _terraform(tf, "init", "-no-color", config=config)
        assert _diagnostic(res) == _diagnostic(t)


def test_an_unknown_registry_module_is_a_diagnostic(tmp_path: Path, registry: Registry) -> None:
    config = registry.cli_config(tmp_path / "cli.tfrc")
    text = 'module "r" {\n  source  = "example.com/ns/missing/prov"\n  version = "1.0.0"\n}\n'
    st, tf = _pair(tmp_path, {"main.tf": text})
    res = _strata(st, "init", "-no-color", config=config)
    assert res.returncode == 1
    assert "Traceback" not in res.stderr
    assert "Error: Module not found" in res.stderr
    if terraform_available():
        t = _terraform(tf, "init", "-no-color", config=config)
        assert _diagnostic(res) == _diagnostic(t)


def test_a_changed_version_constraint_asks_for_init_again(tmp_path: Path, registry: Registry) -> None:
    config = registry.cli_config(tmp_path / "cli.tfrc")
    w = Workdir(tmp_path / "w")
    _write(w.path, {"main.tf": 'module "r" {\n  source  = "example.com/ns/name/prov"\n  version = "~> 1.0"\n}\n'})
    assert _strata(w, "init", config=config).returncode == 0
    (w.path / "main.tf").write_text((w.path / "main.tf").read_text().replace("~> 1.0", "~> 2.0"))
    res = _strata(w, "plan", "-no-color", config=config)
    assert res.returncode == 1
    assert "Error: Module version requirements have changed" in res.stderr
    assert "installed version (1.2.0) is no longer acceptable" in " ".join(res.stderr.split())


def test_an_archive_url_is_unpacked(tmp_path: Path, registry: Registry) -> None:
    st, tf = _pair(tmp_path, {"main.tf": f"""
        module "a" {{
          source = "{registry.url}/files/pkg.tar.gz"
        }}
        module "b" {{
          source = "{registry.url}/files/pkg.tar.gz//modules/part"
        }}
        module "z" {{
          source = "{registry.url}/files/pkg?archive=zip"
        }}
        module "x" {{
          source = "{registry.url}/files/redirect"
        }}
        output "all" {{
          value = [module.a.o, module.b.o, module.z.o, module.x.o]
        }}
        """})
    res = _strata(st, "init", "-no-color")
    assert res.returncode == 0, res.stderr
    assert "- b in .terraform/modules/b/modules/part" in res.stdout
    assert _strata(st, "apply", "-auto-approve").returncode == 0
    assert orjson.loads(_strata(st, "output", "-json").stdout)["all"]["value"] == ["url-x", "part", "zip-x", "part"]
    if terraform_available():
        assert _terraform(tf, "init").returncode == 0
        assert (st.path / MANIFEST).read_bytes() == (tf.path / MANIFEST).read_bytes()


def test_a_registry_host_is_found_by_service_discovery(tmp_path: Path, tls_registry: Registry) -> None:
    host = f"127.0.0.1:{tls_registry.port}"
    text = f'module "r" {{\n  source  = "{host}/ns/name/prov"\n  version = "1.0.0"\n}}\n'
    st, tf = _pair(tmp_path, {"main.tf": text})
    res = _strata(st, "init", "-no-color")
    assert res.returncode == 0, res.stderr
    assert f"Downloading {host}/ns/name/prov 1.0.0 for r..." in res.stdout
    assert "/.well-known/terraform.json" in tls_registry.requests
    if terraform_available():
        t = _terraform(tf, "init", "-no-color")
        assert t.returncode == 0, t.stderr
        assert (st.path / MANIFEST).read_bytes() == (tf.path / MANIFEST).read_bytes()


@pytest.mark.parametrize("where", ["credentials block", "TF_TOKEN_ variable"])
def test_the_registry_is_sent_the_hosts_token(tmp_path: Path, registry: Registry, where: str,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    if where == "credentials block":
        config = registry.cli_config(tmp_path / "cli.tfrc", token="from-file")
    else:
        config = registry.cli_config(tmp_path / "cli.tfrc")
        monkeypatch.setenv("TF_TOKEN_example_com", "from-env")
    token = "Bearer from-file" if where == "credentials block" else "Bearer from-env"
    text = 'module "r" {\n  source  = "example.com/ns/name/prov"\n  version = "1.0.0"\n}\n'
    st, tf = _pair(tmp_path, {"main.tf": text})
    assert _strata(st, "init", config=config).returncode == 0
    ours = list(registry.authorization)
    assert ours == [("/v1/modules/ns/name/prov/versions", token), ("/v1/modules/ns/name/prov/1.0.0/download", token),
                    ("/v1/modules/ns/name/prov/1.0.0/pkg-1.0.0.tar.gz", None)]
    if terraform_available():
        registry.authorization.clear()
        assert _terraform(tf, "init", config=config).returncode == 0
        assert registry.authorization == ours


def test_an_unreachable_registry_is_a_diagnostic_naming_the_module(tmp_path: Path) -> None:
    config = tmp_path / "cli.tfrc"
    config.write_text('host "example.com" {\n  services = {\n    "modules.v1" = "http://127.0.0.1:1/v1/modules/"\n'
                      "  }\n}\n")
    w = Workdir(tmp_path / "w")
    _write(w.path, {"main.tf": 'module "r" {\n  source  = "example.com/ns/name/prov"\n  version = "1.0.0"\n}\n'})
    res = _strata(w, "init", "-no-color", config=config)
    assert res.returncode == 1
    assert "Traceback" not in res.stderr
    flat = " ".join(res.stderr.split())
    assert "Error: Error accessing remote module registry" in flat
    assert 'Failed to retrieve available versions for module "r" (main.tf:1) from example.com:' in flat
    assert "http://127.0.0.1:1/v1/modules/ns/name/prov/versions" in flat
