"""Provider versions and version constraints, as terraform reads them (apparentlymart/go-versions):
``=``, ``!=``, ``>``, ``>=``, ``<``, ``<=``, ``~>``, several separated by commas, and their normal
form, the one the lock file records (``>= 2.0.0, < 3.0.0``)."""

from __future__ import annotations

import re

from engine.frozen import frozen


@frozen(order=True)
class Version:
    """A provider's version: three numbers, a prerelease (``""``: none) and build metadata (ignored
    when comparing: ``order`` compares the numbers, then a release above any of its prereleases)."""

    major: int
    minor: int
    patch: int
    release: bool = True  # no prerelease: sorts above the prereleases of the same numbers
    prerelease: str = ""
    metadata: str = ""

    def __str__(self) -> str:
        text = f"{self.major}.{self.minor}.{self.patch}"
        if self.prerelease:
            text += f"-{self.prerelease}"
        if self.metadata:
            text += f"+{self.metadata}"
        return text

    @property
    def core(self) -> tuple[int, int, int]:
        return (self.major, self.minor, self.patch)


_VERSION = re.compile(r"(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:\.(\d+(?:\.\d+)*))?(?:-([0-9A-Za-z.-]+))?(?:\+([0-9A-Za-z.-]+))?\Z")


def parse_version(text: str) -> Version:
    """``2.1.2``, ``2.1`` (2.1.0), ``3.0.0-beta1``; ValueError for anything else."""
    v, _ = _parse_boundary(text.strip(), text)
    return v


def _parse_boundary(text: str, spec: str) -> tuple[Version, int]:
    """A version and how many of its numbers were given."""
    if text.startswith("v"):
        raise ValueError('a "v" prefix should not be used')
    m = _VERSION.match(text)
    if m is None:
        raise ValueError("syntax")
    if m[4] is not None:
        raise ValueError(f'invalid specification "{spec}": too many numbered portions; only three are allowed '
                         "(major, minor, patch)")
    given = 1 + (m[2] is not None) + (m[3] is not None)
    return Version(int(m[1]), int(m[2] or 0), int(m[3] or 0), not m[5], m[5] or "", m[6] or ""), given


# the operators in go-versions' order (their runes): how terraform sorts constraints on one version
_OP_ORDER = {"<": 0, "=": 1, ">": 2, "~>": 3, "~>minor": 4, "!=": 5, "<=": 6, ">=": 7}


@frozen
class Constraint:
    """One term: ``op`` is ``=``, ``!=``, ``>``, ``>=``, ``<``, ``<=``, ``~>`` (only the patch may
    grow: ``~> 2.1.0``) or ``~>minor`` (the minor may grow: ``~> 2.1``, and ``~> 2`` as ``~> 2.0``)."""

    op: str
    version: Version

    def __str__(self) -> str:
        v = self.version
        if self.op == "~>minor":
            text = f"~> {v.major}.{v.minor}"
        else:
            text = ("" if self.op == "=" else self.op + " ") + f"{v.major}.{v.minor}.{v.patch}"
        if v.prerelease:
            text += f"-{v.prerelease}"
        if v.metadata:
            text += f"+{v.metadata}"
        return text


Constraints = tuple[Constraint, ...]
"""Every term must admit a version (an empty tuple admits every release)."""


def parse_constraints(text: str) -> Constraints:
    """``">= 2.0, < 3.0"``; ValueError with terraform's detail for anything it refuses."""
    out: list[Constraint] = []
    for part in text.split(","):
        m = re.fullmatch(r"\s*(=|!=|>=|<=|>|<|~>)?\s*(\S+)\s*", part)
        if m is None:
            raise ValueError("This string does not use correct version constraint syntax.")
        op = m[1] or "="
        try:
            version, given = _parse_boundary(m[2], part.strip())
        except ValueError as exc:
            if str(exc) == "syntax":
                raise ValueError("This string does not use correct version constraint syntax.") from None
            raise ValueError(f"Incorrect version constraint syntax: {exc}.") from None
        if op == "~>" and given < 3:
            op = "~>minor"
        out.append(Constraint(op, version))
    return tuple(out)


def normal_form(constraints: Constraints) -> str:
    """The constraints as terraform writes them (lock file, ``providers``, init's "Finding" line):
    each term normalised, sorted by version then operator, duplicates once."""
    ordered = sorted(set(constraints), key=lambda c: (c.version.core, c.version.prerelease, c.version.metadata,
                                                      _OP_ORDER[c.op]))
    return ", ".join(str(c) for c in ordered)


def admits(constraints: Constraints, v: Version) -> bool:
    """Whether every term admits ``v``; a prerelease only where a term names it exactly."""
    if v.prerelease and not any(c.version.prerelease and c.version.core == v.core and c.op not in ("!=", "<", "<=")
                                for c in constraints):
        return False
    return all(_admits_term(c, v) for c in constraints)


def _admits_term(c: Constraint, v: Version) -> bool:
    b = c.version
    key, bkey = (v.core, v.release, v.prerelease), (b.core, b.release, b.prerelease)
    if c.op == "=":
        return key == bkey
    if c.op == "!=":
        return key != bkey
    if c.op == ">":
        return key > bkey
    if c.op == ">=":
        return key >= bkey
    if c.op == "<":
        return key < bkey
    if c.op == "<=":
        return key <= bkey
    if c.op == "~>":
        return key >= bkey and v.core < (b.major, b.minor + 1, 0)
    return key >= bkey and v.core < (b.major + 1, 0, 0)  # ~>minor


def newest(available: list[Version] | set[Version], constraints: Constraints) -> Version | None:
    """The newest version the constraints admit, as terraform selects one; None when there is none."""
    ok = [v for v in available if admits(constraints, v)]
    return max(ok) if ok else None
