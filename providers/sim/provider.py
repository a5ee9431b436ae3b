"""``SimProvider``: a simulated cloud whose objects live in a :class:`~providers.sim.ledger.Ledger`.

Configuration::

    provider "sim" {
      ledger           = "PATH"     # required; relative to strata's working directory (see -chdir)
      latency_ms       = 20         # mean latency of a create / update / delete
      latency          = "fixed"    # "fixed" | "uniform" (0..2x mean) | "lognormal" (sigma 0.5, same mean)
      failure_rate     = 0.0        # probability that a create / update / delete fails (retryable error)
      seed             = 1          # latency and failures are a pure function of seed and ledger history
      rate_limit_per_s = 0          # create / update / delete calls per second, per provider; 0 = unlimited
    }

Only mutating calls are simulated (latency, failures, rate limit): reads —
refresh, import and the data source — are answered from the ledger at once.
A rate-limited call waits for its slot (client-side throttling), it does not fail.

Determinism: the random draw for an operation is a hash of ``seed``, the
operation, its key (the idempotency token for a create, the id otherwise),
and how many attempts of that operation the ledger has recorded (successes
and simulated failures alike). It does not depend on scheduling, so a run with
any parallelism is reproducible, and a retry (in this run or the next)
gets a fresh draw.

Resource ``sim_object``: ``name`` (required), ``payload`` (updated in place),
``zone`` (forces replacement), computed ``id`` and ``created_at``; and for
fault tests ``latency_ms`` (overrides the provider's mean) and ``fail``:

* ``"create"`` / ``"update"``: that operation fails (not retryable), the ledger is untouched;
  the value is read from the planned state, so the update that sets ``fail = "update"`` fails too;
* ``"delete"``: deleting fails; the value is read from the prior state, so set
  ``fail = null`` (an in-place update) before the object can be destroyed;
* ``"hang"``: create, update and delete never return until cancelled.

Idempotency token: ``sha256("sim_object" NUL name NUL zone-or-empty)``, first
32 hex digits. The core tells a provider nothing else that identifies a
resource instance, so ``name`` must be unique per zone: a create whose token
is already in the ledger *adopts* that object (updating ``payload``,
``latency_ms`` and ``fail`` to the planned values) instead of making a
duplicate — exactly what a create retried after a crash needs. A rename
(in place) re-keys the token; renaming onto a taken name fails.

``generation`` (computed) counts the creates that claimed the object: 1 when
made, +1 each time a create adopts it. A delete whose state carries an older
generation leaves the object alone (and succeeds): a newer create owns it.
That is what happens when create_before_destroy replaces an object without
changing its name or zone (``-replace``, taint): the new create adopts the
object, and the deposed old object's delete must not remove it.
"""

from __future__ import annotations

import hashlib
import math
import os
import statistics
import time
from datetime import UTC, datetime
from typing import Any

import anyio

from engine import (
    ApplyContext,
    Attr,
    DataSource,
    Diagnostic,
    FrameworkProvider,
    ModifyPlanRequest,
    Resource,
    ResourceError,
    error,
)

from .clock import precise_sleep
from .ledger import Ledger, SimObject

OBJECT_TYPE = "sim_object"
FAIL_MODES = ("create", "update", "delete", "hang")
LATENCY_MODES = ("fixed", "uniform", "lognormal")
LOGNORMAL_SIGMA = 0.5
STORED = ("name", "payload", "zone", "latency_ms", "fail")
_NORMAL = statistics.NormalDist()


def object_token(type_name: str, name: str, zone: str | None) -> str:
    """The idempotency token of a create: type, name and zone (null zone = empty)."""
    raw = f"{type_name}\0{name}\0{zone or ''}".encode()
    return hashlib.sha256(raw).hexdigest()[:32]


def _draw(seed: Any, *parts: Any) -> float:
    """A uniform number in [0, 1) that depends only on the arguments."""
    if isinstance(seed, float) and seed.is_integer():
        seed = int(seed)
    digest = hashlib.blake2b(repr((seed, *parts)).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") / 2.0**64


def latency_sample(mode: str, mean_ms: float, u: float) -> float:
    """Milliseconds of latency for the uniform draw ``u`` (mean ``mean_ms`` for every mode)."""
    if mean_ms <= 0:
        return 0.0
    if mode == "uniform":
        return 2.0 * mean_ms * u
    if mode == "lognormal":
        z = _NORMAL.inv_cdf(min(max(u, 1e-12), 1 - 1e-12))
        return mean_ms * math.exp(LOGNORMAL_SIGMA * z - LOGNORMAL_SIGMA**2 / 2)
    return float(mean_ms)


_NOW_PREFIX: dict[int, str] = {}


def _now() -> str:
    """The time as ``2026-11-21T23:40:00.123Z`` (the per-second prefix is cached: once per create)."""
    sec, ms = divmod(int(time.time() * 1000), 1000)
    prefix = _NOW_PREFIX.get(sec)
    if prefix is None:
        _NOW_PREFIX.clear()
        prefix = _NOW_PREFIX[sec] = datetime.fromtimestamp(sec, UTC).strftime("%Y-%m-%dT%H:%M:%S.")
    return f"{prefix}{ms:03d}Z"


def _state(obj: SimObject) -> dict[str, Any]:
    return dict(obj.attributes)


class _RateLimiter:
    """At most ``rate`` calls per second (no burst): each call reserves the next free slot."""

    def __init__(self, rate: float) -> None:
        self.interval = 1.0 / rate if rate > 0 else 0.0
        self._next = 0.0

    async def wait(self) -> None:
        if self.interval <= 0:
            return
        now = time.monotonic()
        slot = max(now, self._next)
        self._next = slot + self.interval
        if slot > now:
            await anyio.sleep(slot - now)


class SimObjectResource(Resource):
    type_name = OBJECT_TYPE
    provider: SimProvider
    attributes = {
        "id": Attr("string", computed=True, use_state_for_unknown=True,
                   description="The object's id in the ledger, assigned at create."),
        "name": Attr("string", required=True,
                     description="Unique per zone: with the zone it makes the create's idempotency token."),
        "payload": Attr("string", optional=True, description="Arbitrary data; updated in place."),
        "zone": Attr("string", optional=True, requires_replace=True,
                     description="Where the object lives; a change forces replacement."),
        "created_at": Attr("string", computed=True, use_state_for_unknown=True,
                           description="RFC 3339 time of creation."),
        "generation": Attr("number", computed=True, use_state_for_unknown=True,
                           description="How many creates have claimed the object (adoption adds one)."),
        "latency_ms": Attr("number", optional=True,
                           description="Overrides the provider's mean latency for this object."),
        "fail": Attr("string", optional=True,
                     description='Fault injection: "create", "update", "delete" or "hang".'),
    }

    async def validate(self, config: dict[str, Any]) -> list[Diagnostic]:
        out: list[Diagnostic] = []
        if "name" in config and config["name"] is None:
            out.append(error("Missing name", '"name" must not be null: it identifies the object.'))
        fail = config.get("fail")
        if isinstance(fail, str) and fail not in FAIL_MODES:
            out.append(error("Invalid fail mode", f'"fail" must be one of {", ".join(FAIL_MODES)}; '
                                                  f'got "{fail}".'))
        lat = config.get("latency_ms")
        if isinstance(lat, (int, float)) and not isinstance(lat, bool) and lat < 0:
            out.append(error("Invalid latency", f'"latency_ms" must not be negative; got {lat}.'))
        return out

    async def modify_plan(self, req: ModifyPlanRequest) -> None:
        if req.config is not None:  # values unknown at validation are known by the final plan at apply
            req.diagnostics.extend(await self.validate(req.config))

    async def create(self, planned: dict[str, Any], ctx: ApplyContext) -> dict[str, Any]:
        p = self.provider
        ledger = p.ledger()
        name, zone = planned["name"], planned.get("zone")
        token = object_token(self.type_name, name, zone)
        await p.simulate("create", token, planned, ctx)
        wanted = {k: planned.get(k) for k in STORED}
        async with ledger.locked():
            obj = ledger.by_token(token)
            if obj is not None:  # a retried create: adopt the object, bring it to the plan
                generation = obj.attributes.get("generation") or 1
                attrs = {**obj.attributes, **wanted, "generation": generation + 1}
                ledger.append({"op": "update", "id": obj.id, "name": name, "token": token,
                               "attributes": attrs, "adopted": True})
            else:
                id = "sim-" + os.urandom(10).hex()
                attrs = {"id": id, **wanted, "created_at": _now(), "generation": 1}
                ledger.append({"op": "create", "id": id, "type": self.type_name, "name": name,
                               "token": token, "attributes": attrs})
                obj = ledger.get(id)
            assert obj is not None
            return _state(ledger.get(obj.id) or obj)

    async def read(self, state: dict[str, Any]) -> dict[str, Any] | None:
        ledger = self.provider.ledger()
        ledger.catch_up()
        obj = ledger.get(str(state.get("id")))
        return _state(obj) if obj is not None and obj.type == self.type_name else None

    async def update(self, prior: dict[str, Any], planned: dict[str, Any], ctx: ApplyContext
                     ) -> dict[str, Any]:
        p = self.provider
        ledger = p.ledger()
        id = str(prior["id"])
        await p.simulate("update", id, planned, ctx)
        name, zone = planned["name"], planned.get("zone")
        token = object_token(self.type_name, name, zone)
        async with ledger.locked():
            obj = ledger.get(id)
            if obj is None:
                raise ResourceError("Object not found",
                                    f"{self.type_name} {id} no longer exists in the ledger {ledger.path}.")
            holder = ledger.by_token(token)
            if holder is not None and holder.id != id:
                raise ResourceError("Name already in use",
                                    f'{self.type_name} {holder.id} is already named "{name}" in zone '
                                    f'"{zone or ""}".')
            attrs = {**obj.attributes, **{k: planned.get(k) for k in STORED}}
            ledger.append({"op": "update", "id": id, "name": name, "token": token, "attributes": attrs})
            new = ledger.get(id)
            assert new is not None
            return _state(new)

    async def delete(self, state: dict[str, Any]) -> None:
        p = self.provider
        ledger = p.ledger()
        id = str(state["id"])
        await p.simulate("delete", id, state, None)
        async with ledger.locked():
            obj = ledger.get(id)
            if obj is None:
                return  # already gone (deleted out of band): success
            claimed = obj.attributes.get("generation")
            if _number(state.get("generation")) and _number(claimed) and claimed > state["generation"]:
                return  # a newer create adopted the object: it is no longer this state's to delete
            ledger.append({"op": "delete", "id": id})

    async def import_state(self, id: str) -> dict[str, Any] | None:
        ledger = self.provider.ledger()
        ledger.catch_up()
        obj = ledger.get(id)
        if obj is None or obj.type != self.type_name:
            raise ResourceError("Cannot import non-existent remote object",
                                f"There is no {self.type_name} with id {id} in the ledger {ledger.path}.")
        return _state(obj)


class SimObjectData(DataSource):
    type_name = OBJECT_TYPE
    provider: SimProvider
    attributes = {
        "name": Attr("string", required=True),
        "zone": Attr("string", optional=True, computed=True,
                     description="Narrows the lookup when objects of the same name live in several zones."),
        "id": Attr("string", computed=True),
        "payload": Attr("string", computed=True),
        "created_at": Attr("string", computed=True),
    }

    async def read(self, config: dict[str, Any]) -> dict[str, Any]:
        ledger = self.provider.ledger()
        ledger.catch_up()
        name, zone = config.get("name"), config.get("zone")
        found = [o for o in ledger.by_name(OBJECT_TYPE, str(name))
                 if zone is None or o.attributes.get("zone") == zone]
        where = f' in zone "{zone}"' if zone is not None else ""
        if not found:
            raise ResourceError("Object not found", f'No {OBJECT_TYPE} named "{name}"{where} exists in the '
                                                    f"ledger {ledger.path}.")
        if len(found) > 1:
            zones = ", ".join(sorted(str(o.attributes.get("zone")) for o in found))
            raise ResourceError("Several objects match",
                                f'{len(found)} {OBJECT_TYPE} objects are named "{name}" (zones: {zones}); '
                                'set "zone" to choose one.')
        a = found[0].attributes
        return {"name": a.get("name"), "zone": a.get("zone"), "id": a.get("id"),
                "payload": a.get("payload"), "created_at": a.get("created_at")}


class SimProvider(FrameworkProvider):
    source = "strata.local/builtin/sim"
    resources = (SimObjectResource,)
    data_sources = (SimObjectData,)
    provider_attributes = {
        "ledger": Attr("string", required=True, description="Path of the ledger file (created if missing)."),
        "latency_ms": Attr("number", optional=True, default=20,
                           description="Mean latency of a create, update or delete, in milliseconds."),
        "latency": Attr("string", optional=True, default="fixed",
                        description='Latency distribution: "fixed", "uniform" or "lognormal".'),
        "failure_rate": Attr("number", optional=True, default=0.0,
                             description="Probability that a create, update or delete fails (retryable)."),
        "seed": Attr("number", optional=True, default=1,
                     description="Makes latency and failures reproducible."),
        "rate_limit_per_s": Attr("number", optional=True, default=0,
                                 description="Creates, updates and deletes per second; 0 = unlimited."),
    }

    def __init__(self) -> None:
        super().__init__()
        self._ledger: Ledger | None = None
        self._limiter = _RateLimiter(0)

    async def configure(self, config: dict[str, Any]) -> tuple[Diagnostic, ...]:
        await super().configure(config)
        c = self.config
        diags: list[Diagnostic] = []
        path = c.get("ledger")
        if not isinstance(path, str) or not path:
            diags.append(error("Missing required argument",
                               'The sim provider needs "ledger": the path of its ledger file.'))
        if c["latency"] not in LATENCY_MODES:
            diags.append(error("Invalid latency distribution",
                               f'"latency" must be one of {", ".join(LATENCY_MODES)}; got "{c["latency"]}".'))
        for n in ("latency_ms", "rate_limit_per_s"):
            if not _number(c[n]) or c[n] < 0:
                diags.append(error(f"Invalid {n}", f'"{n}" must be a number >= 0; got {c[n]!r}.'))
        if not _number(c["failure_rate"]) or not 0 <= c["failure_rate"] <= 1:
            diags.append(error("Invalid failure_rate",
                               f'"failure_rate" must be between 0 and 1; got {c["failure_rate"]!r}.'))
        if not _number(c["seed"]):
            diags.append(error("Invalid seed", f'"seed" must be a number; got {c["seed"]!r}.'))
        if diags:
            return tuple(diags)
        assert isinstance(path, str)
        self._limiter = _RateLimiter(float(c["rate_limit_per_s"]))
        path = os.path.abspath(path)
        if self._ledger is None or self._ledger.path != path:
            old = self._ledger
            try:
                self._ledger = await anyio.to_thread.run_sync(Ledger, path)
            except OSError as exc:
                return (error("Cannot open the ledger", f"{path}: {exc}"),)
            if old is not None:
                old.close()
        return ()

    def ledger(self) -> Ledger:
        if self._ledger is None:
            raise ResourceError("Provider not configured",
                                'The sim provider has no ledger: configure it with provider "sim" '
                                '{ ledger = "PATH" }.')
        return self._ledger

    async def simulate(self, op: str, key: str, attrs: dict[str, Any], ctx: ApplyContext | None) -> None:
        """The cloud's behaviour before it acts: throttling, latency, injected and random failures."""
        c = self.config
        ledger = self.ledger()
        if self._limiter.interval > 0:  # no coroutine per operation when unlimited
            await self._limiter.wait()
        attempt = ledger.attempts.get(f"{op}:{key}", 0)
        own = attrs.get("latency_ms")
        mean = float(own) if own is not None and _number(own) else float(c.get("latency_ms") or 0)
        mode = c.get("latency") or "fixed"
        # a fixed latency needs no draw (each draw is a hash: skipped on the hot path)
        u = _draw(c.get("seed"), "latency", op, key, attempt) if mode != "fixed" else 0.0
        delay_ms = latency_sample(mode, mean, u)
        await self._sleep(delay_ms / 1000.0, op, ctx)
        fail = attrs.get("fail")
        if fail == "hang":
            if ctx is not None:
                ctx.progress('hanging until cancelled (fail = "hang")')
            await anyio.sleep_forever()
        if fail == op:
            raise ResourceError(f"Simulated {op} failure",
                                f'{OBJECT_TYPE} "{attrs.get("name")}" has fail = "{op}".')
        rate = float(c.get("failure_rate") or 0)
        if rate > 0 and _draw(c.get("seed"), "fail", op, key, attempt) < rate:
            async with ledger.locked():
                ledger.append({"op": "fail", "key": f"{op}:{key}"})
            raise ResourceError(f"Simulated transient {op} failure",
                                f"The sim cloud failed the {op} (failure_rate = {rate}, attempt "
                                f"{attempt + 1}); retrying may succeed.", retryable=True)

    async def _sleep(self, seconds: float, op: str, ctx: ApplyContext | None) -> None:
        if seconds <= 0:
            return
        if ctx is None or seconds < 1.0:
            await precise_sleep(seconds)
            return
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            ctx.progress(f"simulated {op} latency: {left:.1f}s left")
            await precise_sleep(min(left, 1.0))


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
