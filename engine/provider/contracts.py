"""The promises a provider makes, checked by the core (001_34737dbf376f3bcf.txt).

Each check is a pure function returning ``None`` when the promise holds, or a short
description of the broken one (``.attr: what is wrong``) for the caller to put in an
error naming the provider and the resource address.
"""

from __future__ import annotations

from typing import Any

from engine.provider.protocol import BlockSchema, ResourceSchema
from engine.values import UNKNOWN, MapVal, SetVal, equal, is_wholly_known


def check_planned_state(schema: ResourceSchema, config: dict[str, Any], prior: dict[str, Any] | None,
                        planned: dict[str, Any] | None) -> str | None:
    """The planned-state contract (001_34737dbf376f3bcf.txt); returns ``.attr: what is wrong`` or None.

    Every non-null configuration value must be kept as configured, or as the
    prior value (normalization); only computed attributes that are null in
    configuration may be set by the provider. The same holds inside nested
    blocks and nested attribute types (single, list and map ones element by
    element; a set's elements cannot be paired up without their identity, and
    are not checked).
    """
    if planned is None:
        return ": the planned new state is null for an object that is in configuration"
    if not isinstance(planned, dict):
        return ": the planned new state is not an object"
    problem = _check_object("", schema.attributes, schema.blocks, config, prior, planned)
    if problem:
        return problem
    for name in planned:
        if name not in schema.attributes and name not in schema.blocks:
            return f".{name}: the provider planned an attribute that is not in its schema"
    return None


def _check_object(path: str, attributes: dict[str, Any], blocks: dict[str, BlockSchema], config: dict[str, Any],
                  prior: dict[str, Any] | None, planned: dict[str, Any]) -> str | None:
    for name, a in attributes.items():
        cfg = config.get(name)
        got = planned.get(name)
        if a.nested is not None and cfg is not None and cfg is not UNKNOWN:
            # a structural attribute follows the rules of a nested block of its nesting
            problem = _check_block(f"{path}.{name}", a.nested.as_block(), cfg,
                                   prior.get(name) if prior else None, got)
            if problem:
                return problem
            continue
        if cfg is UNKNOWN:
            if got is not UNKNOWN:
                return f"{path}.{name}: planned value {got!r} for a value that is unknown in configuration"
        elif cfg is not None:
            if equal(got, cfg):
                continue
            if prior is not None and equal(got, prior.get(name)):
                continue  # normalization: the provider kept an equivalent prior value
            prior_text = f" nor prior value {prior.get(name)!r}" if prior is not None else ""
            return f"{path}.{name}: planned value {got!r} does not match config value {cfg!r}{prior_text}"
        elif not a.computed and got is not None:
            return f"{path}.{name}: planned value {got!r} for a non-computed attribute that is null in configuration"
    for name, b in blocks.items():
        problem = _check_block(f"{path}.{name}", b, config.get(name), prior.get(name) if prior else None,
                               planned.get(name))
        if problem:
            return problem
    return None


def _check_block(path: str, b: BlockSchema, cfg: Any, prior: Any, got: Any) -> str | None:
    """One nested block's planned value against its configuration, element by element."""
    if cfg is None or cfg is UNKNOWN or b.nesting == "set":
        return None
    if b.nesting == "single" or b.nesting == "group":
        if not isinstance(cfg, dict):
            return None
        if not isinstance(got, dict):
            return f"{path}: planned {got!r} for a block that is in configuration"
        return _check_object(path, b.attributes, b.blocks, cfg, prior if isinstance(prior, dict) else None, got)
    if b.nesting == "list" and isinstance(cfg, tuple):
        if not isinstance(got, tuple) or len(got) != len(cfg):
            return f"{path}: planned {got!r} for {len(cfg)} block(s) in configuration"
        for i, (c, g) in enumerate(zip(cfg, got, strict=True)):
            p = prior[i] if isinstance(prior, tuple) and i < len(prior) and isinstance(prior[i], dict) else None
            if isinstance(c, dict) and isinstance(g, dict):
                problem = _check_object(f"{path}[{i}]", b.attributes, b.blocks, c, p, g)
                if problem:
                    return problem
        return None
    if b.nesting == "map" and isinstance(cfg, dict):
        if not isinstance(got, dict) or got.keys() != cfg.keys():
            return f"{path}: planned {got!r} for the blocks {sorted(cfg)} in configuration"
        for k, c in cfg.items():
            p = prior.get(k) if isinstance(prior, dict) and isinstance(prior.get(k), dict) else None
            if isinstance(c, dict) and isinstance(got[k], dict):
                problem = _check_object(f'{path}["{k}"]', b.attributes, b.blocks, c, p, got[k])
                if problem:
                    return problem
    return None


_SCALARS = (str, bool, int)  # equal() on two of the same type is ==; floats excluded (nan)


def _known_changed(path: str, v: Any, got: Any) -> str | None:
    """Where ``got`` differs from what ``v`` already knew: ``path: was .., but now ..``, or None.

    Inside a partly unknown object, map, list or tuple each known part must stay as it was (the
    elements by index; a list or tuple of known length keeps it). A partly unknown set is not
    compared: an unknown element may turn out equal to another, and the elements reorder."""
    if v is UNKNOWN or v is got:
        return None
    if is_wholly_known(v):
        return None if equal(v, got) else f"{path}: was {v!r}, but now {got!r}"
    if isinstance(v, SetVal):
        return None
    if isinstance(v, dict):
        if isinstance(got, MapVal) is not isinstance(v, MapVal) or not isinstance(got, dict) or got.keys() != v.keys():
            return f"{path}: was {v!r}, but now {got!r}"
        for k, x in v.items():
            problem = _known_changed(f'{path}["{k}"]' if isinstance(v, MapVal) else f"{path}.{k}", x, got[k])
            if problem:
                return problem
        return None
    if isinstance(v, tuple):
        if type(got) is not type(v) or len(got) != len(v):
            return f"{path}: was {v!r}, but now {got!r}"
        for i, (x, y) in enumerate(zip(v, got, strict=True)):
            problem = _known_changed(f"{path}[{i}]", x, y)
            if problem:
                return problem
    return None


def check_final_plan(initial: dict[str, Any], final: dict[str, Any]) -> str | None:
    """A value known in the initial plan must be identical in the final plan, inside a partly
    unknown value too."""
    for k, v in initial.items():
        got = final.get(k)
        if v is got or v is UNKNOWN or (type(v) is type(got) and type(v) in _SCALARS and v == got):
            continue  # hot path: once per attribute of every operation
        problem = _known_changed(f".{k}", v, got)
        if problem:
            return problem
    return None


def check_new_state(planned: dict[str, Any], new: dict[str, Any]) -> str | None:
    """The applied object: wholly known, and every value known in the plan kept, inside a partly
    unknown value too."""
    if not is_wholly_known(new):
        return "the new state contains unknown values"
    for k, v in planned.items():
        got = new.get(k)
        if v is got or v is UNKNOWN or (type(v) is type(got) and type(v) in _SCALARS and v == got):
            continue  # hot path: once per attribute of every operation
        problem = _known_changed(f".{k}", v, got)
        if problem:
            return problem
    return None
