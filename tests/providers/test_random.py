"""The random provider: random_id, random_string, random_password, random_integer."""

from __future__ import annotations

import base64
import json
import string

import pytest

from engine import (
    UNKNOWN,
    ApplyResourceChangeRequest,
    ImportResourceStateRequest,
    PlanResourceChangeRequest,
    UpgradeResourceStateRequest,
    ValidateResourceConfigRequest,
)
from providers.random import (
    SPECIAL_CHARS,
    RandomProvider,
    bcrypt_backend,
    bcrypt_matches,
    crc64_iso,
    generate_string,
)
from tests.conftest import Workdir
from tests.providers.helpers import (
    actions,
    apply,
    assert_no_changes,
    attrs,
    errors,
    instance,
    plan,
)

RANDOM = 'provider["registry.terraform.io/hashicorp/random"]'


def _destroy(workdir: Workdir, *expected: str) -> None:
    res = workdir.strata("destroy", "-auto-approve", "-json", check=True)
    assert actions(res) == dict.fromkeys(expected, "delete")
    assert workdir.state()["resources"] == []


# ------------------------------------------------------------------------------------------------ random_id


def test_random_id_create_noop_replace_delete(workdir: Workdir) -> None:
    config = """
    resource "random_id" "a" {
      byte_length = %d
      prefix      = "p-"
      keepers     = { ami = "%s" }
    }
    """
    workdir.write(config % (8, "ami-1"))
    assert actions(apply(workdir)) == {"random_id.a": "create"}
    inst = instance(workdir, "random_id.a")
    assert inst["provider"] == RANDOM and inst["schema_version"] == 0
    a = inst["attributes"]
    raw = base64.urlsafe_b64decode(a["id"] + "==")
    assert len(raw) == 8 and "=" not in a["id"]
    assert a["b64_url"] == "p-" + a["id"]
    assert a["b64_std"] == "p-" + base64.b64encode(raw).decode()
    assert a["hex"] == "p-" + raw.hex()
    assert a["dec"] == "p-" + str(int.from_bytes(raw, "big"))
    assert a["keepers"] == {"ami": "ami-1"} and a["byte_length"] == 8
    assert_no_changes(workdir)

    workdir.write(config % (8, "ami-2"))
    assert actions(apply(workdir)) == {"random_id.a": "replace"}
    after_keepers = attrs(workdir, "random_id.a")
    assert after_keepers["id"] != a["id"] and after_keepers["keepers"] == {"ami": "ami-2"}

    workdir.write(config % (4, "ami-2"))
    assert actions(apply(workdir)) == {"random_id.a": "replace"}
    assert len(attrs(workdir, "random_id.a")["hex"]) == len("p-") + 8
    assert_no_changes(workdir)
    _destroy(workdir, "random_id.a")


# -------------------------------------------------------------------------------------- random_string


def test_random_string_create_noop_replace_update_delete(workdir: Workdir) -> None:
    config = """
    resource "random_string" "s" {
      length           = %d
      min_upper        = 4
      min_numeric      = 3
      override_special = %s
    }
    resource "random_string" "plain" {
      length  = 12
      special = false
      upper   = false
      number  = false
    }
    """
    workdir.write(config % (24, '"_"'))
    assert actions(apply(workdir)) == {"random_string.s": "create", "random_string.plain": "create"}
    inst = instance(workdir, "random_string.s")
    assert inst["schema_version"] == 2
    s = inst["attributes"]
    result = s["result"]
    assert s["id"] == result and len(result) == 24
    assert sum(c.isupper() for c in result) >= 4 and sum(c.isdigit() for c in result) >= 3
    assert set(result) <= set(string.ascii_letters + string.digits + "_")
    assert (s["special"], s["upper"], s["lower"], s["number"], s["numeric"]) == (True,) * 5
    assert (s["min_lower"], s["min_special"], s["keepers"]) == (0, 0, None)
    plain = attrs(workdir, "random_string.plain")
    assert set(plain["result"]) <= set(string.ascii_lowercase) and len(plain["result"]) == 12
    assert (plain["number"], plain["numeric"]) == (False, False)  # the deprecated name and the new one agree
    assert_no_changes(workdir)

    # number = false → numeric = false is the same configuration
    workdir.write((config % (24, '"_"')).replace("number  = false", "numeric = false"))
    assert_no_changes(workdir)

    # override_special "" → null is not a replacement (RequiresReplaceUnlessEmptyStringToNull)...
    workdir.write(config % (24, '""'))
    assert actions(apply(workdir)) == {"random_string.s": "replace"}
    before = attrs(workdir, "random_string.s")["result"]
    workdir.write(config % (24, "null"))
    assert actions(apply(workdir)) == {"random_string.s": "update"}
    assert attrs(workdir, "random_string.s")["result"] == before
    assert attrs(workdir, "random_string.s")["override_special"] is None

    # ...any other change is
    workdir.write(config % (30, "null"))
    assert actions(apply(workdir)) == {"random_string.s": "replace"}
    assert len(attrs(workdir, "random_string.s")["result"]) == 30
    assert_no_changes(workdir)
    _destroy(workdir, "random_string.s", "random_string.plain")


def test_random_string_validation(workdir: Workdir) -> None:
    workdir.write('resource "random_string" "s" {\n  length = 3\n  min_upper = 2\n  min_lower = 2\n}\n')
    res = workdir.strata("plan", "-json")
    assert res.returncode == 1
    assert any("length value must be at least sum of min_upper + min_lower" in e for e in errors(res))
    workdir.write('resource "random_string" "s" {\n  length = 3\n  number = true\n  numeric = false\n}\n')
    res = workdir.strata("plan", "-json")
    assert res.returncode == 1
    assert any("Number and numeric are both configured with different values" in e for e in errors(res))
    workdir.write('resource "random_id" "i" {\n  byte_length = 0\n}\n')
    res = workdir.strata("plan", "-json")
    assert res.returncode == 1
    assert any("byte_length value must be at least 1" in e for e in errors(res))


def test_generate_string_honours_every_minimum() -> None:
    for _ in range(200):
        s = generate_string(10, upper=True, min_upper=2, lower=False, min_lower=2, numeric=True, min_numeric=2,
                            special=True, min_special=2, override_special=None)
        assert len(s) == 10
        assert sum(c.isupper() for c in s) >= 2 and sum(c.islower() for c in s) >= 2  # even with lower = false
        assert sum(c.isdigit() for c in s) >= 2 and sum(c in SPECIAL_CHARS for c in s) >= 2
    assert set(generate_string(50, False, 0, False, 0, False, 0, True, 0, "#")) == {"#"}


# ------------------------------------------------------------------------------------ random_password


def test_random_password_create_noop_replace_delete(workdir: Workdir) -> None:
    config = """
    resource "random_password" "p" {
      length  = 20
      keepers = { rotate = "%s" }
    }
    """
    workdir.write(config % "1")
    assert actions(apply(workdir)) == {"random_password.p": "create"}
    inst = instance(workdir, "random_password.p")
    assert inst["schema_version"] == 3
    p = inst["attributes"]
    assert p["id"] == "none" and len(p["result"]) == 20
    if bcrypt_backend() is None:
        assert p["bcrypt_hash"] is None
    else:
        assert p["bcrypt_hash"].startswith("$2a$10$")
        assert bcrypt_matches(p["result"], p["bcrypt_hash"]) is True
        assert bcrypt_matches(p["result"] + "x", p["bcrypt_hash"]) is False
    schema = RandomProvider().get_schema().resources["random_password"]
    assert schema.attributes["result"].sensitive and schema.attributes["bcrypt_hash"].sensitive
    assert not RandomProvider().get_schema().resources["random_string"].attributes["result"].sensitive
    assert_no_changes(workdir)

    workdir.write(config % "2")
    assert actions(apply(workdir)) == {"random_password.p": "replace"}
    assert attrs(workdir, "random_password.p")["result"] != p["result"]
    assert_no_changes(workdir)
    _destroy(workdir, "random_password.p")


# ------------------------------------------------------------------------------------- random_integer


def test_random_integer_create_noop_replace_delete(workdir: Workdir) -> None:
    config = """
    resource "random_integer" "seeded" {
      min  = 1
      max  = %d
      seed = "hello"
    }
    resource "random_integer" "same_seed" {
      min  = 1
      max  = %d
      seed = "hello"
    }
    resource "random_integer" "free" {
      min = -5
      max = 5
    }
    """
    workdir.write(config % (1000, 1000))
    apply(workdir)
    seeded = attrs(workdir, "random_integer.seeded")
    assert 1 <= seeded["result"] <= 1000 and seeded["id"] == str(seeded["result"])
    assert attrs(workdir, "random_integer.same_seed")["result"] == seeded["result"]  # same seed, same result
    free = attrs(workdir, "random_integer.free")
    assert -5 <= free["result"] <= 5 and free["seed"] is None and free["keepers"] is None
    assert_no_changes(workdir)

    workdir.write(config % (1000, 999))
    res = apply(workdir)
    assert actions(res) == {"random_integer.same_seed": "replace"}
    assert 1 <= attrs(workdir, "random_integer.same_seed")["result"] <= 999
    assert_no_changes(workdir)
    _destroy(workdir, "random_integer.seeded", "random_integer.same_seed", "random_integer.free")


def test_random_integer_min_above_max_is_an_error(workdir: Workdir) -> None:
    workdir.write('resource "random_integer" "i" {\n  min = 10\n  max = 1\n}\n')
    res = workdir.strata("plan", "-json")
    assert res.returncode == 1
    assert any("minimum (min) value needs to be smaller than or equal to maximum (max)" in e for e in errors(res))


def test_keepers_null_element_updates_in_place(workdir: Workdir) -> None:
    workdir.write('resource "random_integer" "i" {\n  min = 1\n  max = 9\n  keepers = { a = "1" }\n}\n')
    apply(workdir)
    before = attrs(workdir, "random_integer.i")["result"]
    workdir.write('resource "random_integer" "i" {\n  min = 1\n  max = 9\n  keepers = { a = "1", b = null }\n}\n')
    assert actions(plan(workdir)) == {"random_integer.i": "update"}
    apply(workdir)
    assert attrs(workdir, "random_integer.i")["result"] == before


def test_crc64_iso_matches_go() -> None:
    assert crc64_iso(b"123456789") == 0xB90956C775A41001  # the CRC-64/GO-ISO check value
    assert crc64_iso(b"") == 0


# ----------------------------------------------------------------------------------- import and upgrade


@pytest.mark.trio
async def test_import_random_id() -> None:
    p = RandomProvider()
    resp = await p.import_resource_state(ImportResourceStateRequest("random_id", "p-9hUg"))
    # no comma: the whole string is the base64 id; "p-9hUg" decodes to 4 bytes
    assert resp.state is not None and resp.state["byte_length"] == 4 and resp.state["prefix"] is None
    resp = await p.import_resource_state(ImportResourceStateRequest("random_id", "my,prefix-,gFij6JtCZPY"))
    s = resp.state
    assert not resp.diagnostics and s is not None
    assert s == {"keepers": None, "byte_length": 8, "prefix": "my,prefix-", "id": "gFij6JtCZPY",
                 "b64_url": "my,prefix-gFij6JtCZPY", "b64_std": "my,prefix-gFij6JtCZPY=",
                 "hex": "my,prefix-8058a3e89b4264f6", "dec": "my,prefix-9248322054237873398"}
    bad = await p.import_resource_state(ImportResourceStateRequest("random_id", "not base64!"))
    assert bad.state is None and bad.diagnostics[0].summary == "Import Random ID Error"


@pytest.mark.trio
async def test_import_random_string_and_password() -> None:
    p = RandomProvider()
    resp = await p.import_resource_state(ImportResourceStateRequest("random_string", "s3cr3t!"))
    assert resp.state == {"keepers": None, "length": 7, "special": True, "upper": True, "lower": True,
                          "number": True, "numeric": True, "min_numeric": 0, "min_upper": 0, "min_lower": 0,
                          "min_special": 0, "override_special": None, "result": "s3cr3t!", "id": "s3cr3t!"}
    resp = await p.import_resource_state(ImportResourceStateRequest("random_password", "s3cr3t!"))
    s = resp.state
    assert s is not None and s["id"] == "none" and s["result"] == "s3cr3t!" and s["length"] == 7
    if bcrypt_backend() is not None:
        assert bcrypt_matches("s3cr3t!", s["bcrypt_hash"]) is True


@pytest.mark.trio
async def test_import_random_integer() -> None:
    p = RandomProvider()
    resp = await p.import_resource_state(ImportResourceStateRequest("random_integer", "15,1,20"))
    assert resp.state == {"keepers": {}, "min": 1, "max": 20, "seed": None, "result": 15, "id": "15"}
    resp = await p.import_resource_state(ImportResourceStateRequest("random_integer", "15,1,20,abc"))
    assert resp.state is not None and resp.state["seed"] == "abc"
    for bad, detail in (("15,1", "Invalid import usage"), ("x,1,2", "value supplied could not be parsed"),
                        ("1,1,y", "max value supplied could not be parsed")):
        resp = await p.import_resource_state(ImportResourceStateRequest("random_integer", bad))
        assert resp.state is None and detail in resp.diagnostics[0].detail


@pytest.mark.trio
async def test_upgrade_old_password_state() -> None:
    p = RandomProvider()
    v0 = {"id": "none", "keepers": None, "length": None, "special": None, "upper": None, "lower": None,
          "number": None, "min_numeric": None, "min_upper": None, "min_lower": None, "min_special": None,
          "override_special": None, "result": "abcdef"}
    resp = await p.upgrade_resource_state(UpgradeResourceStateRequest("random_password", 0, v0))
    s = resp.upgraded_state
    assert s is not None
    assert (s["length"], s["number"], s["numeric"], s["min_upper"], s["special"]) == (6, True, True, 0, True)
    if bcrypt_backend() is not None:
        assert bcrypt_matches("abcdef", s["bcrypt_hash"]) is True
    v1 = {**v0, "length": 6, "number": False}
    resp = await p.upgrade_resource_state(UpgradeResourceStateRequest("random_string", 1, v1))
    assert resp.upgraded_state is not None and resp.upgraded_state["numeric"] is False


@pytest.mark.trio
async def test_validation_at_the_provider_level() -> None:
    p = RandomProvider()
    base = {"keepers": None, "length": 4, "special": None, "upper": None, "lower": None, "number": None,
            "numeric": None, "min_numeric": None, "min_upper": None, "min_lower": None, "min_special": None,
            "override_special": None, "result": None, "id": None}
    ok = await p.validate_resource_config(ValidateResourceConfigRequest("random_string", base))
    assert ok.diagnostics == ()
    frac = await p.validate_resource_config(ValidateResourceConfigRequest("random_string", {**base, "length": 4.5}))
    assert frac.diagnostics and frac.diagnostics[0].summary == "Value Conversion Error"


@pytest.mark.trio
async def test_seeded_integer_is_deterministic() -> None:
    p = RandomProvider()

    async def result(seed: str | None) -> int:
        cfg = {"keepers": None, "min": 0, "max": 10**9, "seed": seed, "result": None, "id": None}
        planned = (await p.plan_resource_change(PlanResourceChangeRequest("random_integer", None, cfg, cfg)))
        assert planned.planned_state is not None and planned.planned_state["result"] is UNKNOWN
        resp = await p.apply_resource_change(
            ApplyResourceChangeRequest("random_integer", None, planned.planned_state, cfg))
        assert resp.new_state is not None and not resp.diagnostics
        return int(resp.new_state["result"])

    assert await result("a") == await result("a")
    assert await result("a") != await result("b")


def test_state_from_an_older_provider_version_is_upgraded(workdir: Workdir) -> None:
    # random_string schema version 1 (hashicorp/random before 3.4) had no "numeric"
    workdir.write('resource "random_string" "s" {\n  length = 6\n  number = false\n}\n')
    old = {"id": "abcdef", "keepers": None, "length": 6, "lower": True, "min_lower": 0, "min_numeric": 0,
           "min_special": 0, "min_upper": 0, "number": False, "override_special": None, "result": "abcdef",
           "special": True, "upper": True}
    state = {"version": 4, "terraform_version": "1.5.0", "serial": 1, "lineage": "l", "outputs": {},
             "resources": [{"mode": "managed", "type": "random_string", "name": "s", "provider": RANDOM,
                            "instances": [{"schema_version": 1, "attributes": old, "sensitive_attributes": []}]}]}
    (workdir.path / "terraform.tfstate").write_text(json.dumps(state))
    assert_no_changes(workdir)


def test_sensitive_result_is_hidden_from_state_show_and_json_outputs(workdir: Workdir) -> None:
    workdir.write('resource "random_password" "p" {\n  length = 12\n}\n'
                  'output "o" {\n  value     = random_password.p.result\n  sensitive = true\n}\n')
    res = workdir.strata("apply", "-auto-approve", "-json", check=True)
    out = res.of_type("outputs")[-1]["outputs"]["o"]
    assert out["sensitive"] is True and "value" not in out, out
    shown = workdir.strata("state", "show", "random_password.p", check=True).stdout
    secret = workdir.state()["resources"][0]["instances"][0]["attributes"]["result"]
    assert secret not in shown and "(sensitive value)" in shown
