"""Version constraints: a ``terraform { required_version = ... }`` checked against the terraform
whose semantics strata has, with go-version's syntax and comparisons."""

from __future__ import annotations

import re

from engine.diagnostics import Diagnostic, error
from engine.lang import expr as E
from engine.lang.hcl import Attribute


def _check_required_version(a: Attribute) -> list[Diagnostic]:
    """``required_version``: the constraint must admit the terraform whose semantics strata has."""
    from engine.events.stream import TERRAFORM_COMPAT

    text = a.expr.value if isinstance(a.expr, E.Literal) else None
    if not isinstance(text, str):
        return [error("Invalid required_version", "required_version must be a string of version constraints, "
                      'like ">= 1.5, < 2.0".', a.range)]
    for part in text.split(","):
        if "-" in part.split("+")[0].strip().lstrip("=<>!~ v"):
            return [error("Invalid required_version constraint",
                          f"Prerelease version constraints are not supported: {part.strip()}. Remove the "
                          "prerelease information from the constraint. Prerelease versions of terraform will "
                          "match constraints using their version core only.", a.range)]
    try:
        ok = version_admits(text, TERRAFORM_COMPAT)
    except ValueError as exc:
        return [error("Invalid required_version constraint", f"{exc}.", a.range)]
    if ok:
        return []
    return [error("Unsupported Terraform Core version",
                  f"This configuration does not support Terraform version {TERRAFORM_COMPAT}. To proceed, either "
                  "choose another supported Terraform version or update this version constraint. Version "
                  "constraints are normally set for good reason, so updating the constraint may lead to other "
                  "errors or unexpected behavior.", a.range)]


_SEGMENTS = 6  # versions compare segment by segment, the missing ones 0 (go-version takes more than three)


def _version(text: str) -> tuple[tuple[int, ...], str, int]:
    """The segments (padded), the prerelease, and how many segments were given."""
    m = re.fullmatch(r"v?(\d+(?:\.\d+)*)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?", text.strip())
    if m is None or m[1].count(".") >= _SEGMENTS:
        raise ValueError(f'"{text.strip()}" is not a version number')
    parts = [int(x) for x in m[1].split(".")]
    return tuple(parts + [0] * (_SEGMENTS - len(parts))), m[2] or "", len(parts)


def version_admits(constraints: str, version: str) -> bool:
    """Does ``version`` meet every comma-separated constraint (terraform's syntax: ``=``, ``!=``,
    ``>``, ``>=``, ``<``, ``<=``, ``~>``; no operator means ``=``)?"""
    v, v_pre, _ = _version(version)
    for part in constraints.split(","):
        m = re.fullmatch(r"\s*(=|!=|>=|<=|>|<|~>)?\s*(\S+)\s*", part)
        if m is None:
            raise ValueError(f'"{part.strip()}" is not a version constraint')
        op = m[1] or "="
        want, want_pre, given = _version(m[2])
        if op == "~>":  # the last given segment may grow: ~> 1.2 is 1.x from 1.2, ~> 1.2.3 is 1.2.x from 1.2.3
            i = max(given - 2, 0)
            upper = tuple(list(want[:i]) + [want[i] + 1] + [0] * (_SEGMENTS - i - 1))
            ok = want <= v < upper
        else:
            key, wkey = (v, v_pre == ""), (want, want_pre == "")
            same = key == wkey and v_pre == want_pre
            ok = {"=": same, "!=": not same, ">": key > wkey, ">=": key >= wkey, "<": key < wkey,
                  "<=": key <= wkey}[op]
        if not ok:
            return False
    return True
