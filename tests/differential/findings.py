"""What a comparison finds: a :class:`Mismatch` per deviation, and the naming of generated ids
that lets two tools' values be compared."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|(?<![\w.-])\d{12,20}(?![\w.-])")
"""An object id: ``terraform_data``'s (a UUID) or ``null_resource``'s (a random decimal integer)."""


@dataclass(frozen=True, slots=True)
class Mismatch:
    """One deviation: ``cls`` groups it with its kind, ``detail`` names the items."""

    cls: str
    detail: str

    def __str__(self) -> str:
        return f"[{self.cls}] {self.detail}"

    @property
    def tolerated(self) -> bool:
        """A difference the harness explains by a documented representation, not a deviation
        (:data:`TOLERATED_DEPENDENCIES`)."""
        return self.cls.startswith("tolerated: ")


TOLERATED_DEPENDENCIES = "tolerated: direct dependency lists under -target"
"""strata records the resources an object refers to directly and closes them over the other
objects' lists; terraform records the closure as it was when it wrote the list. Under -target
an object that is not rewritten keeps its list while what it depends on changes, so the two
differ. Tolerated only when each tool's list lies within what the other's lists said over
both applies (:func:`_same_over_time`)."""


TOLERATED_CLOSURE = "tolerated: direct dependency lists, the same once closed over the state"
"""An object whose list strata closes over the state to more than terraform's transitive list, where
the extra resources are what terraform's lists of the objects in between record: terraform's list,
closed over its own state the same way, is strata's. The two states order every destroy alike (each
tool waits through the objects in between); only the list written on the object differs (seed 715:
a final-plan no-op keeps its prior dependencies in both tools, and strata's closure of a dependent
reaches them through it)."""


def deviations(found: list[Mismatch]) -> list[Mismatch]:
    return [m for m in found if not m.tolerated]


def normalize(value: Any, names: dict[str, str]) -> Any:
    """``value`` with every id replaced by its name (unknown ids by ``<id?>``)."""
    if isinstance(value, str):
        return UUID.sub(lambda m: names.get(m.group(0), "<id?>"), value)
    if isinstance(value, list):
        return [normalize(v, names) for v in value]
    if isinstance(value, dict):
        return {k: normalize(v, names) for k, v in value.items()}
    return value
