"""The ``null`` provider (registry.terraform.io/hashicorp/null): ``null_resource`` and ``null_data_source``.

Behaviour follows hashicorp/terraform-provider-null 3.x:

* ``null_resource``: ``id`` is a random non-negative decimal integer chosen at
  create (Go's ``rand.Int()``), kept across plans; ``triggers`` is a map of
  strings whose change forces replacement (``RequiresReplaceIfValuesNotNull``:
  new null elements, and null ↔ a map of only nulls, do not). Read, update and
  delete do nothing.
* ``null_data_source`` (deprecated upstream, still present): ``outputs`` is a
  copy of ``inputs``, ``random`` a fresh random decimal on every read,
  ``has_computed_default`` its configured value or ``"default"``, ``id`` is
  ``"static"``.
"""

from __future__ import annotations

import secrets
from typing import Any

from engine import ApplyContext, Attr, DataSource, FrameworkProvider, Resource

from ._support import map_requires_replace

STRING_MAP = ["map", "string"]


def _go_rand_int() -> str:
    """Go's ``fmt.Sprintf("%d", rand.Int())``: a non-negative 63-bit integer."""
    return str(secrets.randbits(63))


class NullResource(Resource):
    type_name = "null_resource"
    attributes = {
        "triggers": Attr(STRING_MAP, optional=True, requires_replace_if=map_requires_replace,
                         description="A map of arbitrary strings that, when changed, will force the null "
                                     "resource to be replaced, re-running any associated provisioners."),
        "id": Attr("string", computed=True, use_state_for_unknown=True,
                   description="This is set to a random value at create time."),
    }

    async def create(self, planned: dict[str, Any], ctx: ApplyContext) -> dict[str, Any]:
        return {**planned, "id": _go_rand_int()}


class NullDataSource(DataSource):
    type_name = "null_data_source"
    attributes = {
        "inputs": Attr(STRING_MAP, optional=True,
                       description="A map of arbitrary strings that is copied into the `outputs` attribute, "
                                   "and accessible directly for interpolation."),
        "outputs": Attr(STRING_MAP, computed=True,
                        description='After the data source is "read", a copy of the `inputs` map.'),
        "random": Attr("string", computed=True, description="A random value."),
        "has_computed_default": Attr("string", optional=True, computed=True,
                                     description='If set, its literal value will be stored and returned. '
                                                 'If not, its value defaults to `"default"`.'),
        "id": Attr("string", computed=True,
                   description="Only present for legacy compatibility; should not be used."),
    }

    async def read(self, config: dict[str, Any]) -> dict[str, Any]:
        inputs = config.get("inputs")
        hcd = config.get("has_computed_default")
        return {
            "inputs": inputs,
            "outputs": None if inputs is None else dict(inputs),
            "random": _go_rand_int(),
            "has_computed_default": "default" if hcd is None else hcd,
            "id": "static",
        }


class NullProvider(FrameworkProvider):
    source = "registry.terraform.io/hashicorp/null"
    resources = (NullResource,)
    data_sources = (NullDataSource,)
