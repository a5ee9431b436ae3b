"""The local provider: local_file and local_sensitive_file (real files on disk), the local_file data source."""

from __future__ import annotations

import base64
import hashlib
import os
import stat

import pytest

from engine import ReadDataSourceRequest, ReadResourceRequest
from providers.local import LocalProvider, checksums
from tests.conftest import Workdir
from tests.providers.helpers import actions, apply, assert_no_changes, attrs, errors, instance, plan

LOCAL = 'provider["registry.terraform.io/hashicorp/local"]'


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _mode(path: os.PathLike[str] | str) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def _file_config(content: str, filename: str = "out/hello.txt", extra: str = "") -> str:
    return f'resource "local_file" "f" {{\n  filename = "{filename}"\n  content  = "{content}"\n{extra}}}\n'


def test_local_file_create_noop_replace_delete(workdir: Workdir) -> None:
    target = workdir.path / "out" / "hello.txt"
    workdir.write(_file_config("hello\\n"))
    assert actions(plan(workdir)) == {"local_file.f": "create"}
    assert not target.exists()  # planning writes nothing
    assert actions(apply(workdir)) == {"local_file.f": "create"}
    assert target.read_bytes() == b"hello\n"
    assert _mode(target) == 0o777 & ~_umask()
    assert _mode(target.parent) == 0o777 & ~_umask()
    inst = instance(workdir, "local_file.f")
    assert inst["provider"] == LOCAL and inst["schema_version"] == 0
    a = inst["attributes"]
    data = b"hello\n"
    assert a["id"] == hashlib.sha1(data).hexdigest() == a["content_sha1"]
    assert a["content_md5"] == hashlib.md5(data).hexdigest()
    assert a["content_sha256"] == hashlib.sha256(data).hexdigest()
    assert a["content_base64sha256"] == base64.b64encode(hashlib.sha256(data).digest()).decode()
    assert a["content_sha512"] == hashlib.sha512(data).hexdigest()
    assert a["content_base64sha512"] == base64.b64encode(hashlib.sha512(data).digest()).decode()
    assert (a["file_permission"], a["directory_permission"]) == ("0777", "0777")
    assert (a["content_base64"], a["source"], a["sensitive_content"]) == (None, None, None)
    assert_no_changes(workdir)

    workdir.write(_file_config("bye"))
    assert actions(apply(workdir)) == {"local_file.f": "replace"}
    assert target.read_text() == "bye"
    assert attrs(workdir, "local_file.f")["id"] == hashlib.sha1(b"bye").hexdigest()
    assert_no_changes(workdir)

    workdir.write(_file_config("bye", extra='  file_permission = "0640"\n'))
    assert actions(apply(workdir)) == {"local_file.f": "replace"}
    assert _mode(target) == 0o640 & ~_umask()

    workdir.write(_file_config("bye", filename="moved.txt", extra='  file_permission = "0640"\n'))
    assert actions(apply(workdir)) == {"local_file.f": "replace"}
    assert not target.exists() and (workdir.path / "moved.txt").read_text() == "bye"

    destroyed = workdir.strata("destroy", "-auto-approve", "-json", check=True)
    assert actions(destroyed) == {"local_file.f": "delete"}
    assert not (workdir.path / "moved.txt").exists()
    assert workdir.state()["resources"] == []


def test_local_file_drift_edited_and_deleted_outside(workdir: Workdir) -> None:
    target = workdir.path / "drift.txt"
    workdir.write(_file_config("configured", filename="drift.txt"))
    apply(workdir)
    original_id = attrs(workdir, "local_file.f")["id"]

    # edited outside strata: the plan replaces the file to restore the configured content
    target.write_text("edited by hand")
    res = workdir.strata("plan", "-detailed-exitcode")
    assert res.returncode == 2, res.stdout + res.stderr
    assert 'content              = "edited by hand" -> "configured" # forces replacement' in res.stdout
    assert actions(plan(workdir)) == {"local_file.f": "replace"}
    assert actions(apply(workdir)) == {"local_file.f": "replace"}
    assert target.read_text() == "configured"
    assert attrs(workdir, "local_file.f")["id"] == original_id
    assert_no_changes(workdir)

    # deleted outside strata: the plan creates it again
    target.unlink()
    res = workdir.strata("plan", "-detailed-exitcode")
    assert res.returncode == 2
    assert actions(plan(workdir)) == {"local_file.f": "create"}
    assert actions(apply(workdir)) == {"local_file.f": "create"}
    assert target.read_text() == "configured"
    assert_no_changes(workdir)

    # with -refresh=false the outside edit is not seen
    target.write_text("edited again")
    assert workdir.strata("plan", "-detailed-exitcode", "-refresh=false").returncode == 0


def test_local_file_from_base64_and_source(workdir: Workdir) -> None:
    payload = bytes(range(256))
    (workdir.path / "src.bin").write_bytes(b"from the source\n")
    workdir.write(f"""
    resource "local_file" "bin" {{
      filename       = "nested/deeper/data.bin"
      content_base64 = "{base64.b64encode(payload).decode()}"
      directory_permission = "0750"
    }}
    resource "local_file" "copy" {{
      filename = "copy.txt"
      source   = "src.bin"
    }}
    """)
    apply(workdir)
    assert (workdir.path / "nested/deeper/data.bin").read_bytes() == payload
    for d in ("nested", "nested/deeper"):
        assert _mode(workdir.path / d) == 0o750 & ~_umask()
    assert attrs(workdir, "local_file.bin")["id"] == hashlib.sha1(payload).hexdigest()
    assert (workdir.path / "copy.txt").read_bytes() == b"from the source\n"
    assert attrs(workdir, "local_file.copy")["id"] == hashlib.sha1(b"from the source\n").hexdigest()
    assert_no_changes(workdir)

    # binary drift is reported through content_base64
    (workdir.path / "nested/deeper/data.bin").write_bytes(b"\xff\xfe")
    assert actions(plan(workdir)) == {"local_file.bin": "replace"}

    # a changed source file makes the copy stale: replaced
    (workdir.path / "src.bin").write_bytes(b"new source\n")
    assert actions(apply(workdir)) == {"local_file.bin": "replace", "local_file.copy": "replace"}
    assert (workdir.path / "copy.txt").read_bytes() == b"new source\n"
    assert (workdir.path / "nested/deeper/data.bin").read_bytes() == payload
    assert_no_changes(workdir)


def test_local_sensitive_file(workdir: Workdir) -> None:
    target = workdir.path / "secret.txt"
    config = 'resource "local_sensitive_file" "s" {\n  filename = "secret.txt"\n  content = "%s"\n}\n'
    workdir.write(config % "s3cr3t")
    assert actions(apply(workdir)) == {"local_sensitive_file.s": "create"}
    assert target.read_text() == "s3cr3t" and _mode(target) == 0o700 & ~_umask()
    a = attrs(workdir, "local_sensitive_file.s")
    assert (a["file_permission"], a["directory_permission"]) == ("0700", "0700")
    assert a["id"] == hashlib.sha1(b"s3cr3t").hexdigest() and "sensitive_content" not in a
    schema = LocalProvider().get_schema()
    sattrs = schema.resources["local_sensitive_file"].attributes
    assert sattrs["content"].sensitive and sattrs["content_base64"].sensitive
    assert not schema.resources["local_file"].attributes["content"].sensitive
    assert schema.resources["local_file"].attributes["sensitive_content"].sensitive
    assert_no_changes(workdir)

    workdir.write(config % "rotated")
    assert actions(apply(workdir)) == {"local_sensitive_file.s": "replace"}
    assert target.read_text() == "rotated"
    target.write_text("tampered")
    assert actions(plan(workdir)) == {"local_sensitive_file.s": "replace"}

    workdir.write("")
    res = apply(workdir)
    assert actions(res) == {"local_sensitive_file.s": "delete"}
    assert not target.exists()


def test_local_file_validation(workdir: Workdir) -> None:
    cases = {
        'filename = "a"': "No attribute specified when one (and only one) of",
        'filename = "a"\n  content = "x"\n  source = "y"': "2 attributes specified when one (and only one) of",
        'filename = "a"\n  content = "x"\n  file_permission = "999"': "bad mode permission",
        'filename = "a"\n  content = "x"\n  directory_permission = "07777"': "bad mode permission",
        'filename = "a"\n  content_base64 = "not base64!"': "content_base64 is not valid base64",
    }
    for body, message in cases.items():
        workdir.write(f'resource "local_file" "f" {{\n  {body}\n}}\n')
        res = workdir.strata("plan", "-json")
        assert res.returncode == 1, body
        assert any(message in e for e in errors(res)), (body, errors(res))


def test_local_file_data_source_through_the_cli(workdir: Workdir) -> None:
    (workdir.path / "input.txt").write_bytes(b"read me\n")
    workdir.write("""
    data "local_file" "in" {
      filename = "input.txt"
    }
    resource "local_file" "out" {
      filename = "output.txt"
      content  = upper(data.local_file.in.content)
    }
    output "b64" { value = data.local_file.in.content_base64 }
    """)
    res = apply(workdir)
    assert res.of_type("outputs")[-1]["outputs"]["b64"]["value"] == base64.b64encode(b"read me\n").decode()
    assert (workdir.path / "output.txt").read_text() == "READ ME\n"
    d = attrs(workdir, "data.local_file.in")
    assert d["content"] == "read me\n" and d["id"] == hashlib.sha1(b"read me\n").hexdigest()
    assert_no_changes(workdir)
    (workdir.path / "input.txt").write_bytes(b"changed\n")
    assert actions(apply(workdir)) == {"local_file.out": "replace"}
    assert (workdir.path / "output.txt").read_text() == "CHANGED\n"


@pytest.mark.trio
async def test_local_file_data_sources_at_the_provider_level(tmp_path: os.PathLike[str]) -> None:
    p = LocalProvider()
    path = os.path.join(tmp_path, "bytes.bin")
    with open(path, "wb") as f:
        f.write(b"caf\xc3\xa9 \xff")
    resp = await p.read_data_source(ReadDataSourceRequest("local_file", {"filename": path}))
    assert not resp.diagnostics and resp.state is not None
    data = b"caf\xc3\xa9 \xff"
    assert resp.state == {"filename": path, "content": "café \ufffd",
                          "content_base64": base64.b64encode(data).decode(), **checksums(data)}
    sens = await p.read_data_source(ReadDataSourceRequest("local_sensitive_file", {"filename": path}))
    assert sens.state == resp.state
    assert p.get_schema().data_sources["local_sensitive_file"].attributes["content"].sensitive
    missing = await p.read_data_source(ReadDataSourceRequest("local_file", {"filename": path + ".nope"}))
    assert missing.state is None
    assert missing.diagnostics[0].summary == "Read local file data source error"


@pytest.mark.trio
async def test_local_file_read_at_the_provider_level(tmp_path: os.PathLike[str]) -> None:
    p = LocalProvider()
    path = os.path.join(tmp_path, "f.txt")
    with open(path, "w") as f:
        f.write("abc")
    state = {"filename": path, "content": "abc", "content_base64": None, "source": None,
             "sensitive_content": None, "file_permission": "0777", "directory_permission": "0777",
             **checksums(b"abc")}
    same = await p.read_resource(ReadResourceRequest("local_file", state))
    assert same.new_state == state
    with open(path, "w") as f:
        f.write("xyz")
    drifted = await p.read_resource(ReadResourceRequest("local_file", state))
    assert drifted.new_state == {**state, "content": "xyz", **checksums(b"xyz")}
    os.remove(path)
    gone = await p.read_resource(ReadResourceRequest("local_file", state))
    assert gone.new_state is None and not gone.diagnostics
