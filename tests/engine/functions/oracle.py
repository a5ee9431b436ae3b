"""terraform as the oracle of the built-in functions: many expressions, one terraform run per kind.

The cases (:mod:`tests.engine.functions.cases`) are expressions in three kinds:

* ``VALUES``: terraform's value and type, read from ``output -json`` after an apply of a
  configuration with one output per expression;
* ``UNKNOWNS``: expressions using ``local.u``, a string known only after apply; terraform's
  ``after`` and ``after_unknown`` of each output, read from ``show -json`` of a saved plan;
* ``ERRORS``: expressions terraform refuses; each diagnostic's summary and detail, read from
  ``plan -json`` (one output per line, so a diagnostic's line says which expression it is).

``record()`` runs terraform on them all and :data:`RECORDED` (``terraform_results.json``) keeps
what it said, so the tests compare strata with terraform's answers without the binary. Run
``python -m tests.engine.functions.oracle`` to record them again after changing the cases.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from tests.engine.functions.cases import ERRORS, FILES, UNKNOWNS, VALUES

RECORDED_PATH = Path(__file__).with_name("terraform_results.json")

_PRELUDE = """
variable "s" {
  default   = "secret"
  sensitive = true
}
resource "terraform_data" "u" {
  input = "x"
}
locals {
  u   = terraform_data.u.output
  tpl = "x=$${a}"
}
"""


def write_files(where: Path) -> None:
    """The files the cases read (``file()``, ``templatefile()``, ``fileset()``), under ``where``."""
    for name, text in FILES.items():
        path = where / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def _config(exprs: list[str]) -> tuple[str, dict[int, int]]:
    """The configuration with an output per expression, and the line of each expression."""
    text = _PRELUDE
    where: dict[int, int] = {}
    for i, e in enumerate(exprs):
        where[text.count("\n") + 2] = i
        # terraform refuses to export a sensitive value from an output not declared so
        sens = "true" if "var.s" in e or "sensitive(" in e else "false"
        text += f"output \"o{i}\" {{\n  value = {e}\n  sensitive = {sens}\n}}\n"
    return text, where


def _run(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, TF_CLI_CONFIG_FILE="/dev/null", TF_IN_AUTOMATION="1", CHECKPOINT_DISABLE="1")
    return subprocess.run(["terraform", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def _fresh(exprs: list[str]) -> Path:
    d = Path(tempfile.mkdtemp(prefix="tf-functions-"))
    write_files(d)
    (d / "main.tf").write_text(_config(exprs)[0])
    _run(d, "init", "-input=false", "-no-color")
    return d


def _values() -> dict[str, Any]:
    d = _fresh(VALUES)
    try:
        res = _run(d, "apply", "-auto-approve", "-input=false", "-no-color")
        if res.returncode != 0:
            raise AssertionError(f"terraform apply of the value cases failed:\n{res.stdout}\n{res.stderr}")
        out = json.loads(_run(d, "output", "-json").stdout)
        # a null output is left out of output -json: recorded as a null of no type
        null = {"value": None, "type": None}
        return {e: {"value": out[f"o{i}"]["value"], "type": out[f"o{i}"]["type"]} if f"o{i}" in out else null
                for i, e in enumerate(VALUES)}
    finally:
        shutil.rmtree(d)


def _unknowns() -> dict[str, Any]:
    d = _fresh(UNKNOWNS)
    try:
        res = _run(d, "plan", "-out=p", "-input=false", "-no-color")
        if res.returncode != 0:
            raise AssertionError(f"terraform plan of the unknown cases failed:\n{res.stdout}\n{res.stderr}")
        changes = json.loads(_run(d, "show", "-json", "p").stdout)["output_changes"]
        return {e: {"after": changes[f"o{i}"].get("after"), "after_unknown": changes[f"o{i}"]["after_unknown"]}
                for i, e in enumerate(UNKNOWNS)}
    finally:
        shutil.rmtree(d)


def _errors() -> dict[str, Any]:
    d = _fresh(ERRORS)
    try:
        res = _run(d, "plan", "-json", "-input=false", "-no-color")
        lines = _config(ERRORS)[1]
        got: dict[str, Any] = {}
        for line in res.stdout.splitlines():
            msg = json.loads(line)
            diag = msg.get("diagnostic")
            if msg.get("@level") != "error" or not diag or "range" not in diag:
                continue
            i = lines[diag["range"]["start"]["line"]]
            got.setdefault(ERRORS[i], {"summary": diag["summary"], "detail": diag["detail"]})
        missing = [e for e in ERRORS if e not in got]
        if missing:
            raise AssertionError(f"terraform accepted these error cases: {missing}\n{res.stdout[-3000:]}")
        return {e: got[e] for e in ERRORS}
    finally:
        shutil.rmtree(d)


def record() -> dict[str, Any]:
    """What terraform says of every case now."""
    return {"values": _values(), "unknowns": _unknowns(), "errors": _errors()}


def recorded() -> dict[str, Any]:
    return json.loads(RECORDED_PATH.read_text()) if RECORDED_PATH.exists() else {}


if __name__ == "__main__":
    RECORDED_PATH.write_text(json.dumps(record(), indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    print(f"recorded {len(VALUES)} values, {len(UNKNOWNS)} unknowns, {len(ERRORS)} errors in {RECORDED_PATH}")
