"""Fuzzing the state and journal readers: damaged, truncated and wrongly typed input ends in a
clear diagnostic (a StrataError) or a correct load, never another exception, and never a load that
silently lacks an object a correct load would have kept."""

from __future__ import annotations

import copy
import os
from typing import Any

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.addrs import InstanceAddr, ResourceAddr, parse_dependency, parse_provider_config_addr
from engine.diagnostics import StrataError
from engine.state import journal
from engine.state.codec import decode_state, encode_object
from engine.state.model import ObjectState, State

PROVIDER = parse_provider_config_addr('provider["terraform.io/builtin/terraform"]')
DYNAMIC = {"id": "string", "input": "dynamic", "output": "dynamic", "triggers_replace": "dynamic"}
LINEAGE = "5a7c1c36-0000-4000-8000-000000000001"
# a few seconds in the suite; STRATA_FUZZ_EXAMPLES=5000 (and a random seed) for a longer hunt
_EXAMPLES = int(os.environ.get("STRATA_FUZZ_EXAMPLES", "150"))
FUZZ = settings(max_examples=_EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow],
                derandomize=_EXAMPLES <= 150, database=None)

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2, 2**40) | st.floats(allow_nan=False) | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6)


def dynamic_attrs(type_name: str) -> dict[str, Any]:
    return DYNAMIC if type_name == "terraform_data" else {}


def obj(value: str, **kw: Any) -> ObjectState:
    return ObjectState({"id": f"id-{value}", "input": value, "output": value, "triggers_replace": None}, **kw)


def objects(state: State) -> dict[tuple[str, str | None], ObjectState]:
    return {(str(a), d): o for a, d, o, _p in state.objects()}


# ----------------------------------------------------------------------------- journals

STEPS: list[tuple[InstanceAddr, ObjectState | None, str | None]] = [
    (InstanceAddr(ResourceAddr("terraform_data", "a"), 0), obj("a0"), None),
    (InstanceAddr(ResourceAddr("terraform_data", "a"), 1), obj("a1", status="tainted"), None),
    (InstanceAddr(ResourceAddr("terraform_data", "b"), "k"), obj("bk", dependencies=(parse_dependency("terraform_data.a"),)), None),
    (InstanceAddr(ResourceAddr("terraform_data", "c")), obj("c-old"), "dep00001"),
    (InstanceAddr(ResourceAddr("terraform_data", "c")), obj("c"), None),
    (InstanceAddr(ResourceAddr("terraform_data", "a"), 1), None, None),
    (InstanceAddr(ResourceAddr("terraform_data", "d")), obj("d", create_before_destroy=True), None),
    (InstanceAddr(ResourceAddr("terraform_data", "e")), obj("e"), None),
]


def record_json(addr: InstanceAddr, o: ObjectState | None, deposed: str | None) -> bytes:
    r = addr.resource
    enc = None if o is None else encode_object(None, o, DYNAMIC)
    return orjson.dumps({"r": [r.mode, r.type, r.name], "k": addr.key, "d": deposed, "p": str(PROVIDER), "o": enc})


def journal_lines(fmt: int) -> list[bytes]:
    """The header and every record, each a whole line, in format ``fmt``."""
    bodies = [orjson.dumps({"journal": 2, "lineage": LINEAGE} if fmt == 2 else {"lineage": LINEAGE})]
    bodies += [record_json(*step) for step in STEPS]
    return [journal.frame(b) if fmt == 2 else b + b"\n" for b in bodies]


def replayed(data: bytes) -> tuple[dict[tuple[str, str | None], ObjectState], int] | None:
    """The objects a load of ``data`` yields and how many warnings it gave, or None if refused."""
    try:
        replay = journal.read(data, "terraform.tfstate.journal", dynamic_attrs)
    except StrataError:
        return None
    state = State(lineage=LINEAGE)
    journal.apply(replay, state)
    return objects(state), len(replay.warnings)


def expected_after(records: int) -> dict[tuple[str, str | None], ObjectState]:
    state = State(lineage=LINEAGE)
    for addr, o, deposed in STEPS[:records]:
        state.set_object(addr, PROVIDER, o, deposed)
    return objects(state)


FULL = expected_after(len(STEPS))


@FUZZ
@given(fmt=st.sampled_from([1, 2]), data=st.data())
def test_a_bit_flip_anywhere_in_a_journal_is_refused_or_changes_nothing(fmt: int, data: st.DataObject) -> None:
    raw = b"".join(journal_lines(fmt))
    offset = data.draw(st.integers(0, len(raw) - 1), label="offset")
    bit = data.draw(st.sampled_from([1, 2, 4, 8, 16, 32, 64, 128]), label="bit")
    flipped = raw[:offset] + bytes([raw[offset] ^ bit]) + raw[offset + 1:]
    got = replayed(flipped)
    if got is None:
        return
    loaded, warnings = got
    if fmt == 2:
        # the checksum catches every single flip: what loads is exactly what was written
        assert loaded == FULL, f"a flip at byte {offset} loaded a different state"
    else:
        # without checksums a flip inside a string goes unseen (an object may be renamed), but no
        # object may disappear unsaid
        assert len(loaded) >= len(FULL) or warnings, f"a flip at byte {offset} silently lost objects"


@FUZZ
@given(fmt=st.sampled_from([1, 2]), data=st.data())
def test_a_truncated_journal_keeps_every_whole_record_and_says_when_it_drops_one(fmt: int,
                                                                                 data: st.DataObject) -> None:
    lines = journal_lines(fmt)
    raw = b"".join(lines)
    cut = data.draw(st.integers(0, len(raw)), label="cut")
    got = replayed(raw[:cut])
    assert got is not None, f"a journal cut at byte {cut} (a crash mid-write) was refused"
    loaded, warnings = got
    ends = [sum(len(x) for x in lines[:i + 1]) - 1 for i in range(len(lines))]  # each record's end, newline excluded
    whole = sum(1 for e in ends[1:] if e <= cut)
    assert loaded == expected_after(whole), f"cut at byte {cut}: not the {whole} whole records"
    partial = cut not in [0, *ends, *(e + 1 for e in ends)]
    assert bool(warnings) == partial, f"cut at byte {cut}: torn {partial} but {warnings} warnings"


@FUZZ
@given(record=st.integers(1, len(STEPS)), field=st.sampled_from(["r", "k", "d", "p", "o", "o.attributes",
                                                                "o.status", "o.schema_version",
                                                                "o.dependencies", "o.sensitive_attributes"]),
       value=json_values)
def test_a_record_with_a_wrong_value_is_refused_or_loses_nothing_else(record: int, field: str, value: Any) -> None:
    lines = journal_lines(2)
    rec = orjson.loads(lines[record][9:])
    outer, _, inner = field.partition(".")
    if inner:
        if rec["o"] is None:
            rec["o"] = {}
        rec["o"][inner] = value
    else:
        rec[outer] = value
    lines[record] = journal.frame(orjson.dumps(rec))
    got = replayed(b"".join(lines))
    if got is None:
        return
    loaded, _ = got
    changed = str(STEPS[record - 1][0])
    kept = {k for k in FULL if k[0] != changed}
    assert set(loaded) >= kept, f"record {record}'s {field} = {value!r} lost {sorted(kept - set(loaded))}"


# ----------------------------------------------------------------------------- states

def instance(key: Any, **extra: Any) -> dict[str, Any]:
    return {"index_key": key, "schema_version": 0,
            "attributes": {"id": f"id-{key}", "input": {"value": f"x{key}", "type": "string"},
                           "output": {"value": f"x{key}", "type": "string"}, "triggers_replace": None},
            "sensitive_attributes": [], **extra}


STATE = {"version": 4, "terraform_version": "1.11.4", "serial": 7, "lineage": LINEAGE,
         "outputs": {"o": {"value": ["a", 1], "type": ["tuple", ["string", "number"]]}},
         "resources": [
             {"mode": "managed", "type": "terraform_data", "name": "a", "provider": str(PROVIDER),
              "instances": [instance(0), instance(1, status="tainted")]},
             {"mode": "managed", "type": "terraform_data", "name": "b", "provider": str(PROVIDER),
              "instances": [instance("k", dependencies=["terraform_data.a"]), instance("k", deposed="d1")]},
             {"mode": "managed", "type": "terraform_data", "name": "a", "provider": str(PROVIDER),
              "instances": [instance(2)]},
             {"mode": "data", "type": "terraform_data", "name": "x", "provider": str(PROVIDER), "instances": [instance(None)]},
         ],
         "check_results": None}
STATE_BYTES = orjson.dumps(STATE, option=orjson.OPT_INDENT_2)


def load_state(data: bytes) -> dict[tuple[str, str | None], ObjectState] | None:
    try:
        return objects(decode_state(data, "terraform.tfstate", dynamic_attrs))
    except StrataError:
        return None


STATE_OBJECTS = load_state(STATE_BYTES)


def paths(doc: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix] if prefix else []
    if isinstance(doc, dict):
        for k, v in doc.items():
            out += paths(v, (*prefix, k))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            out += paths(v, (*prefix, i))
    return out


def instances_under(path: tuple[Any, ...]) -> set[tuple[str, str | None]]:
    """The objects a change at ``path`` may rightly take away (those it can reach)."""
    if path[:1] != ("resources",):
        return set()
    if len(path) < 2:
        return set(STATE_OBJECTS or {})
    r = STATE["resources"][path[1]]
    prefix = "data." if r["mode"] == "data" else ""
    insts = r["instances"] if len(path) < 4 else [r["instances"][path[3]]]
    out = set()
    for i in insts:
        k = i["index_key"]
        key = "" if k is None else f"[{k}]" if isinstance(k, int) else f'["{k}"]'
        out.add((f"{prefix}{r['type']}.{r['name']}{key}", i.get("deposed")))
    return out


def test_the_fuzzed_state_loads_whole_when_untouched() -> None:
    assert STATE_OBJECTS is not None and len(STATE_OBJECTS) == 6, STATE_OBJECTS


@FUZZ
@given(data=st.data(), value=json_values, delete=st.booleans())
def test_a_wrong_value_anywhere_in_a_state_is_refused_or_loses_only_what_it_reached(
        data: st.DataObject, value: Any, delete: bool) -> None:
    path = data.draw(st.sampled_from(paths(STATE)), label="path")
    doc = copy.deepcopy(STATE)
    at = doc
    for step in path[:-1]:
        at = at[step]
    if delete and isinstance(at, dict):
        del at[path[-1]]
    else:
        at[path[-1]] = value
    loaded = load_state(orjson.dumps(doc))
    if loaded is None:
        return
    assert STATE_OBJECTS is not None
    kept = set(STATE_OBJECTS) - instances_under(path)
    assert set(loaded) >= kept, f"{path} = {value!r} silently lost {sorted(kept - set(loaded))}"


@FUZZ
@given(data=st.data())
def test_a_bit_flip_or_a_cut_in_a_state_is_refused_or_loses_nothing(data: st.DataObject) -> None:
    if data.draw(st.booleans(), label="cut"):
        damaged = STATE_BYTES[:data.draw(st.integers(1, len(STATE_BYTES) - 1), label="at")]
    else:
        offset = data.draw(st.integers(0, len(STATE_BYTES) - 1), label="offset")
        bit = data.draw(st.sampled_from([1, 2, 4, 8, 16, 32, 64, 128]), label="bit")
        damaged = STATE_BYTES[:offset] + bytes([STATE_BYTES[offset] ^ bit]) + STATE_BYTES[offset + 1:]
    loaded = load_state(damaged)
    if loaded is None:
        return
    assert STATE_OBJECTS is not None
    # a flip may rename an object (its name or key changed) or a field terraform ignores, but an
    # object only disappears with the "instances" or "resources" key it is under
    if len(loaded) < len(STATE_OBJECTS):
        doc = orjson.loads(damaged)
        renamed = not all("instances" in r for r in doc.get("resources") or [{}]) or "resources" not in doc
        assert renamed, f"a damaged state silently lost objects: {sorted(set(STATE_OBJECTS) - set(loaded))}"
