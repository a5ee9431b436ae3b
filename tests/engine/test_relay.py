"""engine/events/relay.py: one process formats a large run's events for every output at once,
byte for byte as each output formats them itself; an output that fails stops alone; a NATS
publisher that does not read is never waited for."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.events import json_sink, jsonline, relay
from engine.events import stream as ev
from engine.events.fanout import _encoded
from engine.events.log import log_line
from tests.engine.test_events import _every_kind_of_event

DETAIL = ("a.b (create)", 'provider["x"]', ["a.c (create)"], "a.c (create)", 0.25, 0.0, 1.5, 1.0)
HUGE = ev.Event("x", "big", {"n": 2**70}, timestamp=1.5)  # beyond orjson: formatted by strata


def _events() -> list[ev.Event]:
    out = []
    for i, e in enumerate(_every_kind_of_event()):
        out.append(e.with_detail(DETAIL) if i % 2 else e)
    return out


def _input(events: list[ev.Event], json_flag: int = 1, per_line: int = 7) -> bytes:
    """The relay's input as the fan-out encodes it, ``per_line`` events a batch."""
    entries = [(json_flag, seq, seq / 10, e) for seq, e in enumerate(events, 1)]
    return b"".join(_encoded(entries[i:i + per_line]) for i in range(0, len(entries), per_line))


def _run(spec: dict[str, object], data: bytes, pass_fds: tuple[int, ...] = (),
         stdout: int | None = None) -> subprocess.CompletedProcess[bytes]:
    r, w = os.pipe()
    try:
        proc = subprocess.run([sys.executable, "-P", relay.__file__, str(w)], input=json.dumps(spec).encode() + b"\n" + data,
                              timeout=60,
                              stdout=subprocess.PIPE if stdout is None else stdout, stderr=subprocess.PIPE,
                              pass_fds=(w, *pass_fds))
        assert os.read(r, 1) == b"1"  # it said it runs
    finally:
        os.close(r)
        os.close(w)
    return proc


def test_the_relay_writes_each_output_as_the_output_itself_would(tmp_path) -> None:  # type: ignore[no-untyped-def]
    events = _events() * 500
    logs = [tmp_path / "one.jsonl", tmp_path / "two.jsonl"]
    fds = [os.open(p, os.O_WRONLY | os.O_CREAT, 0o644) for p in logs]
    try:
        res = _run({"json": True, "logs": [[fd, str(p)] for fd, p in zip(fds, logs, strict=True)]},
                   _input(events), pass_fds=tuple(fds))
    finally:
        for fd in fds:
            os.close(fd)
    assert res.returncode == 0 and res.stderr == b"", res.stderr
    assert res.stdout == b"".join(jsonline.json_line(e) for e in events)
    expected = b"".join(log_line(seq, seq / 10, e) for seq, e in enumerate(events, 1))
    assert [p.read_bytes() for p in logs] == [expected, expected]


def test_recorded_only_events_and_human_only_ones_stay_out_of_the_json_stream(tmp_path) -> None:  # type: ignore[no-untyped-def]
    log = tmp_path / "log.jsonl"
    fd = os.open(log, os.O_WRONLY | os.O_CREAT, 0o644)
    events = _events()
    try:
        res = _run({"json": True, "logs": [[fd, str(log)]]}, _input(events, json_flag=0), pass_fds=(fd,))
    finally:
        os.close(fd)
    assert res.returncode == 0 and res.stdout == b""
    assert len(log.read_bytes().splitlines()) == len(events)


def test_a_line_formatted_by_strata_passes_through_to_each_output(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from engine.events.fanout import _formatted

    log = tmp_path / "log.jsonl"
    fd = os.open(log, os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        res = _run({"json": True, "logs": [[fd, str(log)]]}, _formatted((1, 7, 0.5, HUGE)), pass_fds=(fd,))
    finally:
        os.close(fd)
    assert res.returncode == 0
    assert json.loads(res.stdout) == HUGE.to_json()
    # compact, as every other line (and terraform's)
    assert b", " not in res.stdout and b'": ' not in res.stdout and b", " not in log.read_bytes()
    line = json.loads(log.read_bytes())
    assert line["seq"] == 7 and line["n"] == 2**70


def test_an_output_that_fails_stops_alone_and_says_so_once(tmp_path) -> None:  # type: ignore[no-untyped-def]
    good = tmp_path / "good.jsonl"
    fds = [os.open(good, os.O_WRONLY | os.O_CREAT, 0o644), os.open("/dev/full", os.O_WRONLY)]
    events = _events() * 200
    try:
        res = _run({"json": True, "logs": [[fds[0], str(good)], [fds[1], "/dev/full"]]}, _input(events),
                   pass_fds=tuple(fds))
    finally:
        for fd in fds:
            os.close(fd)
    assert res.returncode == jsonline.OUTPUT_FAILED_STATUS
    said = res.stderr.decode().splitlines()
    assert len(said) == 1 and said[0].startswith("strata: the event log /dev/full could not be written ("), said
    assert res.stdout == b"".join(jsonline.json_line(e) for e in events)
    assert len(good.read_bytes().splitlines()) == len(events)


def test_a_publisher_that_does_not_read_is_not_waited_for_beyond_its_time() -> None:
    r, w = os.pipe()  # nobody reads r: the pipe fills, then the queue, then lines are dropped
    events = _events() * 3000
    try:
        res = _run({"json": True, "logs": [], "nats": [w], "queue": 1 << 16, "close_timeout": 0.5},
                   _input(events), pass_fds=(w,))
    finally:
        os.close(w)
        os.close(r)
    assert res.returncode == 0, res.stderr
    assert res.stdout == b"".join(jsonline.json_line(e) for e in events)


def test_a_publisher_that_is_gone_is_no_failure_of_the_relay() -> None:
    r, w = os.pipe()
    os.close(r)
    try:
        res = _run({"json": True, "nats": [w]}, _input(_events()), pass_fds=(w,))
    finally:
        os.close(w)
    assert res.returncode == 0 and res.stderr == b""


def test_lines_that_come_with_the_spec_are_written_before_any_more_input() -> None:
    # the hand-over sends the spec and what came meanwhile in one write; a reader of the live
    # stream must see those lines then, not when the next event comes (an operation later)
    events = _events()[:3]
    r, w = os.pipe()
    proc = subprocess.Popen([sys.executable, "-P", relay.__file__, str(w)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, pass_fds=(w,))
    try:
        os.close(w)
        assert os.read(r, 1) == b"1"
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(json.dumps({"json": True}).encode() + b"\n" + _input(events))
        proc.stdin.flush()  # and the input stays open
        expected = b"".join(jsonline.json_line(e) for e in events)
        got = b""
        while len(got) < len(expected) and jsonline.wait(proc.stdout.fileno(), select.POLLIN, timeout=10):
            chunk = os.read(proc.stdout.fileno(), 1 << 16)
            if not chunk:
                break
            got += chunk
        assert got == expected
    finally:
        os.close(r)
        proc.kill()
        proc.wait()
        if proc.stdin is not None:
            proc.stdin.close()
        if proc.stdout is not None:
            proc.stdout.close()


def test_an_event_orjson_cannot_encode_leaves_the_rest_of_its_batch_to_the_relay(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # one batch: ordinary events, one with an integer beyond 64 bits, and one only people see
    people = ev.Event("import_start", "x: Importing...", {}, timestamp=2.5)
    events = [*_events()[:3], HUGE, people, *_events()[3:6]]
    log = tmp_path / "log.jsonl"
    fd = os.open(log, os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        res = _run({"json": True, "logs": [[fd, str(log)]]}, _input(events, per_line=len(events)), pass_fds=(fd,))
    finally:
        os.close(fd)
    assert res.returncode == 0, res.stderr
    in_json = [e for e in events if e[0] != "import_start"]
    assert [json.loads(x) for x in res.stdout.splitlines()] == [e.to_json() for e in in_json]
    logged = [json.loads(x) for x in log.read_bytes().splitlines()]
    assert [x["seq"] for x in logged] == list(range(1, len(events) + 1))
    assert logged[3]["n"] == 2**70 and logged[4]["type"] == "import_start"


def test_a_batch_of_plain_tuples_is_encoded_as_a_batch_of_events() -> None:
    # the fan-out's batch holds each event as a plain tuple (event[:]): the same input, also
    # for an event orjson cannot encode, formatted by strata
    entries = [(seq % 2, seq, seq / 10, e) for seq, e in enumerate([*_events()[:4], HUGE], 1)]
    assert _encoded([(f, s, t, e[:]) for f, s, t, e in entries]) == _encoded(entries)


def test_what_orjson_cannot_encode_is_not_passed_off_as_an_array() -> None:
    # only an Event becomes an array: a set in a payload fails, as it fails in strata's own lines
    bad = ev.Event("x", "m", {"s": {1, 2}}, timestamp=1.5)
    with pytest.raises(TypeError):
        _encoded([(1, 1, 0.5, bad)])
    with pytest.raises(TypeError):
        json_sink._line_here(bad)


def test_the_slow_way_writes_the_same_line_as_the_fast_way() -> None:
    # an integer beyond 64 bits: formatted by json, with the log's own monotonic and detail shapes
    line = log_line(7, 0.5, HUGE.with_detail(DETAIL))
    assert line.startswith(b'{"seq":7,"monotonic":0.500000,"@level":"info"') and line.endswith(b"}\n")
    doc = json.loads(line)
    assert doc["detail"] == dict(zip(jsonline.DETAIL_FIELDS, DETAIL, strict=True)) and doc["n"] == 2**70
    small = ev.Event("x", "big", {"n": 1}, timestamp=1.5).with_detail(DETAIL)
    fast = log_line(7, 0.5, small)
    assert line.replace(b"%d" % 2**70, b"1") == fast


_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)  # orjson refuses lone surrogates
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.floats(allow_nan=False, allow_infinity=False)
    | _TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXT, inner, max_size=3),
    max_leaves=8)
_DETAIL = st.none() | st.tuples(_TEXT, _TEXT, st.lists(_TEXT, max_size=3), st.none() | _TEXT,
                                st.floats(0, 1e6), st.floats(0, 1e6)).flatmap(
    lambda d: st.just(d) | st.tuples(st.floats(0, 1e6), st.floats(0, 1e6)).map(lambda rc: (*d, *rc))
) | st.dictionaries(_TEXT, _JSON, max_size=4)


@settings(max_examples=300, deadline=None)
@given(type_=st.sampled_from(["apply_start", "apply_complete", "planned_change", "outputs", "import_start", "x"]),
       message=_TEXT, payload=st.dictionaries(_TEXT, _JSON, max_size=4), level=st.sampled_from(["info", "warn"]),
       timestamp=st.floats(0, 4e9), seq=st.integers(1, 2**40), monotonic=st.floats(0, 1e7),
       flags=st.sampled_from([0, 1]), detail=_DETAIL)
def test_a_batch_is_formatted_from_its_parts_as_the_formatters_make_each_line(  # type: ignore[no-untyped-def]
        type_, message, payload, level, timestamp, seq, monotonic, flags, detail) -> None:
    # the relay pastes the bytes strata's orjson made of the payload, the message and the detail
    # where the formatters encode them again: the same lines, byte for byte
    event = ev.Event(type_, message, payload, level, timestamp)
    if detail is not None:
        event = event.with_detail(detail)
    second = ev.Event("outputs", "Outputs: 0", {}, "info", timestamp + 1)
    data = _encoded([(flags, seq, monotonic, event[:]), (1, seq + 1, monotonic, second[:])])
    json_lines: list[bytes] = []
    log_lines: list[bytes] = []
    relay.format_batch(data.rstrip(b"\n"), json_lines, log_lines)
    in_stream = [jsonline.json_line(event)] if flags and type_ not in jsonline.HUMAN_ONLY else []
    assert json_lines == [*in_stream, jsonline.json_line(second)]
    assert log_lines == [log_line(seq, monotonic, event), log_line(seq + 1, monotonic, second)]


_ADDR = st.sampled_from(["terraform_data.x", 'module.m["k"].null_resource.y[3]', 'aws_s3_bucket.b["caf\u00e9 \\"q\\""]'])


@settings(max_examples=300, deadline=None)
@given(end=st.booleans(), addr=_ADDR, action=st.sampled_from(["create", "update", "delete", "read"]),
       elapsed=st.floats(0, 1e5), id_key=st.none() | _TEXT, id_value=st.none() | _TEXT,
       deposed=st.none() | st.sampled_from(["", "0a1b2c3d"]), timestamp=st.floats(0, 4e9),
       seq=st.integers(1, 2**40), monotonic=st.floats(0, 1e7), detail=_DETAIL)
def test_an_operation_given_as_its_parts_is_worded_and_formatted_as_its_event(  # type: ignore[no-untyped-def]
        end, addr, action, elapsed, id_key, id_value, deposed, timestamp, seq, monotonic, detail) -> None:
    # what EventBus.operation hands the relay: the relay words it from engine.events.hooks, as
    # strata's own constructors do, and the lines are those of the event strata would have made
    from engine.addrs import parse_instance_addr

    resource = ev.resource_json(parse_instance_addr(addr))
    parts = (ev.OPERATION_ENDED if end else ev.OPERATION_STARTED, seq, monotonic, timestamp, resource["addr"],
             resource, action, elapsed, id_key, id_value, deposed, detail)
    event = ev.operation_event(end, resource, action, elapsed, id_key, id_value, deposed, timestamp, detail)
    json_lines: list[bytes] = []
    log_lines: list[bytes] = []
    relay.format_batch(_encoded([parts]).rstrip(b"\n"), json_lines, log_lines)
    assert json_lines == [jsonline.json_line(event)]
    assert log_lines == [log_line(seq, monotonic, event)]


def test_an_operation_orjson_cannot_encode_is_formatted_by_strata_as_its_event() -> None:
    from engine.addrs import parse_instance_addr

    resource = ev.resource_json(parse_instance_addr("terraform_data.x[1]"))
    parts = (ev.OPERATION_ENDED, 9, 0.5, 1.5, resource["addr"], resource, "create", 2.0, "id", "abc", None,
             {"n": 2**70})
    doc = json.loads(_encoded([parts]))
    event = ev.operation_event(True, resource, "create", 2.0, "id", "abc", None, 1.5, {"n": 2**70})
    assert doc == {"s": 9, "j": jsonline.json_line(event).decode(), "l": log_line(9, 0.5, event).decode()}


@settings(max_examples=100, deadline=None)
@given(addr=_ADDR, action=st.sampled_from(["create", "update", "delete", "replace"]), timestamp=st.floats(0, 4e9),
       seq=st.integers(1, 2**40), monotonic=st.floats(0, 1e7))
def test_a_plain_planned_change_given_as_its_parts_is_formatted_as_its_event(  # type: ignore[no-untyped-def]
        addr, action, timestamp, seq, monotonic) -> None:
    from engine.addrs import parse_instance_addr

    resource = ev.resource_json(parse_instance_addr(addr))
    event = ev.plain_planned_change(resource, action, timestamp)
    json_lines: list[bytes] = []
    log_lines: list[bytes] = []
    relay.format_batch(_encoded([(ev.PLANNED, seq, monotonic, timestamp, resource["addr"], resource, action)]
                                ).rstrip(b"\n"), json_lines, log_lines)
    assert json_lines == [jsonline.json_line(event)]
    assert log_lines == [log_line(seq, monotonic, event)]
