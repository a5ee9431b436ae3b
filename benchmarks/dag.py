"""Random layered DAGs, their critical path, and a ``sim`` configuration (``.tf.json``) that realises one.

A DAG of ``n`` nodes in ``depth`` layers: layer widths vary by up to ±50%
around ``n / depth``; every node of layer k > 0 depends on 1..``max_parents``
random nodes of layer k-1 (so the critical path is exactly ``depth`` nodes)
and, with probability ``skip_prob``, on one random node of an earlier layer.
Node ``i`` is the resource ``sim_object.n{i}``; its first dependency is a
reference (``payload = "${sim_object.nJ.id}"``), the others are ``depends_on``.
"""

from __future__ import annotations

import json
import math
import random
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Dag:
    layers: list[list[int]]
    deps: list[list[int]]   # deps[i]: the nodes i depends on

    @property
    def n(self) -> int:
        return len(self.deps)

    @property
    def edges(self) -> int:
        return sum(len(d) for d in self.deps)

    def critical_path(self) -> int:
        """Nodes on the longest path (nodes are numbered in a topological order)."""
        longest = [0] * self.n
        for i, ds in enumerate(self.deps):
            longest[i] = 1 + max((longest[j] for j in ds), default=0)
        return max(longest, default=0)

    def lower_bound(self, latency_s: float, parallelism: int) -> float:
        """No schedule can beat the critical path, nor N operations P at a time."""
        return max(self.critical_path() * latency_s, math.ceil(self.n / parallelism) * latency_s)


def layered_dag(n: int, depth: int, seed: int = 1, max_parents: int = 3, skip_prob: float = 0.1) -> Dag:
    rng = random.Random(seed)
    depth = max(1, min(depth, n))
    weights = [rng.uniform(0.5, 1.5) for _ in range(depth)]
    total = sum(weights)
    widths = [max(1, int(n * w / total)) for w in weights]
    i = 0
    while sum(widths) < n:
        widths[i % depth] += 1
        i += 1
    while sum(widths) > n:
        j = max(range(depth), key=lambda k: widths[k])
        widths[j] -= 1
    layers: list[list[int]] = []
    deps: list[list[int]] = []
    nxt = 0
    for k, w in enumerate(widths):
        layer = list(range(nxt, nxt + w))
        nxt += w
        for _ in layer:
            if k == 0:
                deps.append([])
                continue
            prev = layers[k - 1]
            ds = rng.sample(prev, min(len(prev), rng.randint(1, max_parents)))
            if k >= 2 and rng.random() < skip_prob:
                earlier = layers[rng.randrange(0, k - 1)]
                extra = rng.choice(earlier)
                if extra not in ds:
                    ds.append(extra)
            deps.append(ds)
        layers.append(layer)
    return Dag(layers, deps)


def sim_config(dag: Dag, latency_ms: float, ledger: str = "ledger.jsonl") -> dict:
    resources = {}
    for i, ds in enumerate(dag.deps):
        body: dict[str, object] = {"name": f"n{i}"}
        if ds:
            body["payload"] = f"${{sim_object.n{ds[0]}.id}}"
        if len(ds) > 1:
            body["depends_on"] = [f"sim_object.n{j}" for j in ds[1:]]
        resources[f"n{i}"] = body
    return {"provider": {"sim": {"ledger": ledger, "latency_ms": latency_ms}},
            "resource": {"sim_object": resources}}


def write_sim_config(d: Path, dag: Dag, latency_ms: float) -> None:
    (d / "main.tf.json").write_text(json.dumps(sim_config(dag, latency_ms), separators=(",", ":")))


def critical_chain(dag: Dag, done_at: dict[int, float]) -> list[int]:
    """The chain of nodes that ended last: from the node finished last, back through the parent
    that finished last, to a node of the first layer (nodes are numbered topologically)."""
    if not done_at:
        return []
    node = max(done_at, key=done_at.__getitem__)
    chain = [node]
    while dag.deps[node]:
        node = max(dag.deps[node], key=lambda j: done_at.get(j, 0.0))
        chain.append(node)
    chain.reverse()
    return chain



@dataclass(frozen=True)
class DrawnChain:
    """The critical chain a ``sim`` apply of a DAG must show when each node takes exactly the
    latency the provider draws for its create and nothing else takes time: ``chain`` (node
    numbers, first layer first), ``end`` (ms: each node's end on that ideal schedule) and
    ``margin`` (ms: the smallest lead, over the choices that decide the chain, of the node that
    ended last over the next one; a run whose scheduling delays along competing paths differ by
    less than it names the same chain)."""

    chain: list[int]
    end: list[float]
    margin: float


def drawn_chain(dag: Dag, seed: int, mean_ms: float, mode: str = "lognormal") -> DrawnChain:
    """The chain for a ``sim`` provider with ``seed``, ``latency = mode`` and ``latency_ms =
    mean_ms`` applying :func:`sim_config`'s resources: the latencies are the provider's own
    draws (a pure function of the seed and each object's idempotency token)."""
    from providers.sim.provider import _draw, latency_sample, object_token

    lat = [latency_sample(mode, mean_ms, _draw(seed, "latency", "create",
                                               object_token("sim_object", f"n{i}", None), 0))
           for i in range(dag.n)]
    end: list[float] = []
    for i, ds in enumerate(dag.deps):
        end.append(lat[i] + max((end[j] for j in ds), default=0.0))
    chain = critical_chain(dag, dict(enumerate(end)))
    ordered = sorted(end, reverse=True)
    margin = ordered[0] - ordered[1] if len(ordered) > 1 else math.inf
    for node in chain[1:]:
        ends = sorted((end[j] for j in dag.deps[node]), reverse=True)
        if len(ends) > 1:
            margin = min(margin, ends[0] - ends[1])
    return DrawnChain(chain, end, margin)
