"""The detail of apply events (engine.apply.detail): which operations' ends are recorded."""

from engine.addrs import ROOT, InstanceAddr, ResourceAddr
from engine.apply.detail import EventDetail
from engine.apply.graph import ApplyNode, Barrier
from tests.engine.graphs import graph_of


def _op(name: str, key: int | None = None) -> ApplyNode:
    return ApplyNode(InstanceAddr(ResourceAddr("terraform_data", name, "managed", ROOT), key), "create")


def test_an_end_is_read_by_what_depends_on_it_directly_or_through_barriers_only() -> None:
    a0, a1, b, c0 = _op("a", 0), _op("a", 1), _op("b"), _op("c", 0)
    a_all = Barrier(a0.addr.resource, "applied")
    c_all = Barrier(c0.addr.resource, "applied")
    g = graph_of((a0, a1, b, c0, a_all, c_all), [(a_all, a0), (a_all, a1),
                                                 (b, a_all),  # b waits for every instance of a
                                                 (c_all, c0)])  # nothing waits for c
    detail = EventDetail(g, 0.0)
    assert detail.end_read(a0) and detail.end_read(a1), "b's ready time is a's last end"
    assert not detail.end_read(c0), "c's barrier has no dependent: its end is never read"
    assert not detail.end_read(b)


def test_an_end_is_read_through_a_chain_of_barriers_and_by_an_operation_directly() -> None:
    a0, b0, d = _op("a", 0), _op("b", 0), _op("d")
    inner = Barrier(a0.addr.resource, "applied")
    outer = Barrier(a0.addr.resource, "closed")
    g = graph_of((a0, b0, d, inner, outer), [(inner, a0), (outer, inner),
                                             (d, outer),  # d waits for a through two barriers
                                             (d, b0)])  # and for b directly
    detail = EventDetail(g, 10.0)
    assert detail.end_read(a0) and detail.end_read(b0)
    assert not detail.end_read(d)
    start = detail.of(d, "terraform", [12.5], end=False)
    assert start[:4] == ("terraform_data.d (create)", "terraform",
                         ["terraform_data.a [closed]", "terraform_data.b[0] (create)"], None)
