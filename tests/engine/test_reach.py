"""Closures through pass-through resources (engine/apply/reach.py) against a brute-force search,
on random dependency relations with cycles, asked in every order (a cycle's closures must not
depend on which of its resources is asked first)."""

from __future__ import annotations

import random

import pytest

from engine.addrs import ResourceAddr
from engine.apply.reach import Reach


def _brute(deps: dict[ResourceAddr, frozenset[ResourceAddr]], through: set[ResourceAddr],
           wanted: set[ResourceAddr], root: ResourceAddr) -> frozenset[ResourceAddr]:
    seen: set[ResourceAddr] = set()
    out: set[ResourceAddr] = set()
    todo = [root]
    while todo:
        n = todo.pop()
        for e in deps.get(n, ()):
            if e == n:
                continue
            if e in wanted:
                out.add(e)
            if e in through and e not in seen:
                seen.add(e)
                todo.append(e)
    return frozenset(out)


@pytest.mark.parametrize("seed", range(0, 2000, 100))
def test_closures_equal_a_brute_force_search_in_any_order(seed: int) -> None:
    for s in range(seed, seed + 100):
        rnd = random.Random(s)
        rs = [ResourceAddr("t", f"r{i}") for i in range(rnd.randint(1, 9))]
        deps = {r: frozenset(x for x in rs if rnd.random() < 0.35) for r in rs}
        through = {r for r in rs if rnd.random() < 0.7}
        wanted = {r for r in rs if rnd.random() < 0.5}
        reach = Reach(deps, through.__contains__, wanted)
        order = rs[:]
        rnd.shuffle(order)
        for r in order:
            assert reach.closure(r) == _brute(deps, through, wanted, r), (s, r)


def test_a_cycle_of_resources_reaches_the_same_whichever_is_asked_first() -> None:
    m1, m2, z = (ResourceAddr("t", n) for n in ("m1", "m2", "z"))
    deps = {m1: frozenset({m2, z}), m2: frozenset({m1})}
    for first in (m1, m2):
        reach = Reach(deps, lambda r: r != z, {z})
        reach.closure(first)
        assert reach.closure(m1) == reach.closure(m2) == {z}


def test_a_chain_ten_thousand_deep_needs_no_recursion() -> None:
    rs = [ResourceAddr("t", f"r{i}") for i in range(10_000)]
    deps = {a: frozenset({b}) for a, b in zip(rs, rs[1:], strict=False)}
    reach = Reach(deps, lambda r: r != rs[-1], {rs[-1]})
    assert reach.closure(rs[0]) == {rs[-1]}
