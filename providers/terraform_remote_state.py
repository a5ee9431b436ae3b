"""The built-in ``terraform`` provider's ``terraform_remote_state`` data source: the root module
outputs of another configuration's state, as terraform's ``dataSourceRemoteStateRead`` reads them.

* ``outputs`` is an object of every output the state records (terraform records no null output),
  over the ``defaults`` given; a sensitive output is not sensitive here, as in terraform.
* The ``local`` backend (and its old name ``_local``) is read: ``config`` takes its ``path``
  (default ``terraform.tfstate``) and ``workspace_dir`` (default ``terraform.tfstate.d``); a
  ``workspace`` other than ``default`` is ``WORKSPACE_DIR/NAME/terraform.tfstate``. Relative paths
  are relative to the working directory, as terraform's.
* A backend terraform has and strata cannot reach (``s3``, ``gcs``, ``remote``, ...) is refused
  with a diagnostic that says so; a backend terraform does not have gets terraform's words.
"""

from __future__ import annotations

import os
from typing import Any

import orjson

from engine import (
    UNKNOWN,
    AttributeSchema,
    Diagnostic,
    ReadDataSourceRequest,
    ReadDataSourceResponse,
    ResourceSchema,
    ValidateResourceConfigRequest,
    ValidateResourceConfigResponse,
    from_typed_json,
)

TYPE_NAME = "terraform_remote_state"

SCHEMA = ResourceSchema(
    attributes={
        "backend": AttributeSchema("string", required=True),
        "config": AttributeSchema("dynamic", optional=True),
        "defaults": AttributeSchema("dynamic", optional=True),
        "outputs": AttributeSchema("dynamic", computed=True),
        "workspace": AttributeSchema("string", optional=True),
    }
)

_LOCAL = ("local", "_local")
_LOCAL_ARGS = ("path", "workspace_dir")
# terraform 1.11's other backends: real, but not reachable from strata
_ELSEWHERE = frozenset({"remote", "cloud", "azurerm", "consul", "cos", "gcs", "http", "kubernetes", "oss", "pg",
                        "s3"})


def _problem(summary: str, detail: str, attribute: str) -> Diagnostic:
    return Diagnostic("error", summary, detail, attribute=(attribute,))


def _backend_problems(backend: Any, config: Any) -> list[Diagnostic]:
    """What is wrong with ``backend`` and its ``config`` (either may still be unknown)."""
    if backend is UNKNOWN or backend is None:
        return []
    if backend in _ELSEWHERE:
        return [_problem("Backend not available in strata",
                         f'strata reads terraform_remote_state from the "local" backend only; the "{backend}" '
                         "backend is not available.", "backend")]
    if backend not in _LOCAL:
        return [_problem("Invalid backend configuration", f'There is no backend type named "{backend}".',
                         "backend")]
    if config is UNKNOWN or config is None:
        return []
    invalid = f'The given configuration is not valid for backend "{backend}": '
    if not isinstance(config, dict):
        return [_problem("Invalid backend configuration", invalid + "an object is required.", "config")]
    for name, value in config.items():
        if name not in _LOCAL_ARGS:
            return [_problem("Invalid backend configuration", invalid + f'unexpected attribute "{name}".',
                             "config")]
        if value is not None and value is not UNKNOWN and not isinstance(value, (str, int, float)):
            return [_problem("Invalid backend configuration",
                             invalid + f'attribute "{name}": string required.', "config")]
    return []


def validate(req: ValidateResourceConfigRequest) -> ValidateResourceConfigResponse:
    c = req.config
    problems = _backend_problems(c.get("backend"), c.get("config"))
    defaults = c.get("defaults")
    if defaults is not None and defaults is not UNKNOWN and not isinstance(defaults, dict):
        problems.append(_problem("Invalid default values", "Defaults must be given in an object value.",
                                 "defaults"))
    return ValidateResourceConfigResponse(tuple(problems))


def _state_file(config: dict[str, Any] | None, workspace: str | None) -> str:
    args = {k: v for k, v in (config or {}).items() if v is not None}
    if workspace in (None, "default"):
        return str(args.get("path", "terraform.tfstate"))
    return os.path.join(str(args.get("workspace_dir", "terraform.tfstate.d")), str(workspace), "terraform.tfstate")


def read(req: ReadDataSourceRequest) -> ReadDataSourceResponse:
    c = req.config
    problems = _backend_problems(c.get("backend"), c.get("config"))
    if problems:
        return ReadDataSourceResponse(None, tuple(problems))
    workspace = c.get("workspace")
    path = _state_file(c.get("config"), workspace)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        data = b""
    except OSError as exc:
        return ReadDataSourceResponse(None, (_problem("Error loading state error",
                                                      f"error loading the remote state: {path}: {exc.strerror}",
                                                      "backend"),))
    outputs: dict[str, Any] = dict(c.get("defaults") or {})
    if not data.strip():
        return ReadDataSourceResponse(None, (_problem(
            "Unable to find remote state", "No stored state was found for the given workspace in the given backend.",
            "workspace"),))
    try:
        doc = orjson.loads(data)
        recorded = doc["outputs"] if isinstance(doc, dict) and "outputs" in doc else {}
        for name, out in recorded.items():
            if out.get("value") is not None:
                outputs[name] = from_typed_json(out["value"], out.get("type", "dynamic"))
    except (orjson.JSONDecodeError, TypeError, AttributeError, KeyError, ValueError) as exc:
        return ReadDataSourceResponse(None, (_problem(
            "Error loading state error", f"error loading the remote state: {path} is not a state file ({exc}).",
            "backend"),))
    return ReadDataSourceResponse({"backend": c.get("backend"), "config": c.get("config"),
                                   "defaults": c.get("defaults"), "outputs": outputs, "workspace": workspace})
