"""Unit tests of engine/graph.py: the domain-free DAG.

Edges point from a node to what it depends on: ``add_edge(b, a)`` means "b waits for a".
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.diagnostics import CycleError
from tests.engine.graphs import graph_of


@st.composite
def dags(draw, max_nodes: int = 12):
    """(nodes, edges) of a random DAG: edges only from a higher to a lower index, nodes shuffled."""
    n = draw(st.integers(0, max_nodes))
    edges = [(i, j) for i in range(n) for j in range(i) if draw(st.booleans())]
    order = draw(st.permutations(range(n)))
    return list(order), edges


@st.composite
def digraphs(draw, max_nodes: int = 9):
    """(nodes, edges) of a random directed graph, cycles allowed (no self-loops)."""
    n = draw(st.integers(0, max_nodes))
    pairs = [(i, j) for i in range(n) for j in range(n) if i != j]
    edges = [p for p in pairs if draw(st.integers(0, 3)) == 0]
    return list(range(n)), edges


def mutual_reachability_components(nodes, edges) -> list[list[str]]:
    """The strongly connected components with more than one node, by brute force."""
    reach = {n: {n} for n in nodes}
    for n, d in edges:
        reach[n].add(d)
    changed = True
    while changed:
        changed = False
        for n in nodes:
            new = set().union(*(reach[m] for m in reach[n]))
            if new != reach[n]:
                reach[n] = new
                changed = True
    comps = {frozenset(m for m in nodes if m in reach[n] and n in reach[m]) for n in nodes}
    return sorted(sorted(str(m) for m in c) for c in comps if len(c) > 1)


# ---------------------------------------------------------------- topological order


@settings(max_examples=150, deadline=None)
@given(dags())
def test_topological_order_puts_every_dependency_before_its_dependent(dag):
    nodes, edges = dag
    order = graph_of(nodes, edges).topological_order()
    pos = {n: i for i, n in enumerate(order)}
    for n, d in edges:
        assert pos[d] < pos[n], f"{n} depends on {d} but comes at {pos[n]}, before it at {pos[d]}: {order}"


@settings(max_examples=150, deadline=None)
@given(dags())
def test_topological_order_lists_every_node_exactly_once(dag):
    nodes, edges = dag
    order = graph_of(nodes, edges).topological_order()
    assert sorted(order) == sorted(nodes), f"order {order} is not a permutation of the nodes {nodes}"


def test_topological_order_raises_cycle_error_on_a_cycle():
    g = graph_of(["a", "b", "c", "d"], [("a", "b"), ("b", "c"), ("c", "a"), ("d", "a")])
    with pytest.raises(CycleError) as exc:
        g.topological_order()
    assert exc.value.cycles == [["a", "b", "c"]], f"wrong cycles reported: {exc.value.cycles}"


def test_add_edge_to_itself_is_ignored():
    g = graph_of(["a"], [("a", "a")])
    assert g.edge_count() == 0, "a self-edge was recorded"
    assert g.cycles() == [], f"a self-edge made a cycle: {g.cycles()}"
    assert g.topological_order() == ["a"]


def test_add_is_idempotent_and_keeps_edges():
    g = graph_of(["a", "b"], [("b", "a")])
    g.add("a")
    g.add("b")
    assert len(g) == 2, f"re-adding nodes changed the node count to {len(g)}"
    assert g.deps["b"] == {"a"} and g.dependents["a"] == {"b"}, "re-adding a node dropped its edges"


# ---------------------------------------------------------------- cycles


def test_cycles_is_empty_for_a_dag():
    g = graph_of("abcd", [("b", "a"), ("c", "a"), ("d", "b"), ("d", "c")])
    assert g.cycles() == [], f"a diamond DAG reported cycles {g.cycles()}"


def test_cycles_reports_every_strongly_connected_component():
    edges = [
        ("c", "b"), ("b", "a"), ("a", "c"),  # one 3-cycle
        ("y", "x"), ("x", "y"),  # one 2-cycle
        ("z", "y"), ("c", "z"),  # acyclic links between the components and a loose node
    ]
    g = graph_of(["z", "c", "y", "a", "x", "b", "loose"], edges)
    assert g.cycles() == [["a", "b", "c"], ["x", "y"]], f"wrong components: {g.cycles()}"


def test_cycles_merges_overlapping_cycles_into_one_component():
    # a<->b and b->c->d->b share b: one component {a, b, c, d}
    g = graph_of("dcba", [("a", "b"), ("b", "a"), ("b", "c"), ("c", "d"), ("d", "b")])
    assert g.cycles() == [["a", "b", "c", "d"]], f"overlapping cycles not merged: {g.cycles()}"


def test_cycles_sorts_names_within_and_across_components():
    g = graph_of(["n2", "n10", "m", "k"], [("n2", "n10"), ("n10", "n2"), ("m", "k"), ("k", "m")])
    # names are compared as strings: "n10" < "n2"
    assert g.cycles() == [["k", "m"], ["n10", "n2"]], f"names not sorted as strings: {g.cycles()}"


def test_cycles_names_nodes_by_str():
    class Named:
        def __init__(self, name):
            self.name = name

        def __str__(self):
            return f"node {self.name}"

    a, b = Named("a"), Named("b")
    g = graph_of([a, b], [(a, b), (b, a)])
    assert g.cycles() == [["node a", "node b"]], f"cycle not named by str(): {g.cycles()}"


def test_cycles_is_independent_of_insertion_order():
    edges = [("a", "b"), ("b", "c"), ("c", "a"), ("x", "y"), ("y", "x"), ("c", "x")]
    nodes = ["a", "b", "c", "x", "y"]
    results = {
        tuple(map(tuple, graph_of(perm, edge_perm).cycles()))
        for perm in itertools.permutations(nodes)
        for edge_perm in (edges, edges[::-1])
    }
    assert len(results) == 1, f"insertion order changed cycles(): {results}"


def test_cycles_handles_a_cycle_longer_than_the_recursion_limit():
    n = 20_000
    g = graph_of(range(n), [(i, (i + 1) % n) for i in range(n)])
    cycles = g.cycles()
    assert len(cycles) == 1 and len(cycles[0]) == n, "a 20000-node ring is not one component"


@settings(max_examples=150, deadline=None)
@given(digraphs())
def test_cycles_equals_the_mutual_reachability_classes(graph):
    nodes, edges = graph
    got = graph_of(nodes, edges).cycles()
    want = mutual_reachability_components(nodes, edges)
    assert got == want, f"cycles() = {got}, brute-force components = {want}, edges = {edges}"


# ---------------------------------------------------------------- check_acyclic


def test_check_acyclic_passes_a_dag():
    graph_of("abc", [("b", "a"), ("c", "b")]).check_acyclic()


def test_check_acyclic_raises_cycle_error_naming_every_node_in_the_cycle():
    g = graph_of(["web", "db", "net", "ok"], [("web", "db"), ("db", "net"), ("net", "web"), ("ok", "web")])
    with pytest.raises(CycleError) as exc:
        g.check_acyclic()
    assert exc.value.cycles == [["db", "net", "web"]], f"wrong cycles: {exc.value.cycles}"
    assert str(exc.value) == "Cycle: db, net, web", f"message does not name exactly the cycle: {str(exc.value)!r}"


def test_check_acyclic_message_lists_each_cycle():
    g = graph_of("abxy", [("a", "b"), ("b", "a"), ("x", "y"), ("y", "x")])
    with pytest.raises(CycleError) as exc:
        g.check_acyclic()
    assert str(exc.value) == "Cycle: a, b; Cycle: x, y", f"unexpected message {str(exc.value)!r}"


# ---------------------------------------------------------------- to_dot


def test_to_dot_renders_sorted_nodes_and_edges():
    g = graph_of(["b", "c", "a"], [("c", "b"), ("b", "a"), ("c", "a")])
    assert g.to_dot("demo") == (
        'digraph "demo" {\n'
        '  rankdir = "BT";\n'
        '  "a";\n'
        '  "b";\n'
        '  "c";\n'
        '  "b" -> "a";\n'
        '  "c" -> "a";\n'
        '  "c" -> "b";\n'
        "}\n"
    ), "to_dot output changed"


def test_to_dot_uses_the_default_label():
    assert graph_of([], []).to_dot() == 'digraph "strata" {\n  rankdir = "BT";\n}\n'


def test_to_dot_escapes_quotes_and_backslashes():
    g = graph_of(['aws_x.a["k"]', "back\\slash"], [('aws_x.a["k"]', "back\\slash")])
    dot = g.to_dot()
    assert '  "aws_x.a[\\"k\\"]";' in dot, f"quotes not escaped in {dot!r}"
    assert '  "back\\\\slash";' in dot, f"backslash not escaped in {dot!r}"
    assert '  "aws_x.a[\\"k\\"]" -> "back\\\\slash";' in dot, f"edge not escaped in {dot!r}"


def test_to_dot_is_independent_of_insertion_order():
    edges = [("c", "b"), ("b", "a"), ("c", "a")]
    dots = {graph_of(p, edges).to_dot() for p in itertools.permutations("abc")}
    assert len(dots) == 1, f"insertion order changed to_dot(): {dots}"
