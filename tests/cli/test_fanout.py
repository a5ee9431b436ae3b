"""engine/events/fanout.py through the command: in a large run (here from the first event,
``STRATA_JSON_WRITER_AFTER=0``) one relay process writes the ``-json`` stream and every event log,
the same lines as each writes in a small run; an event log that cannot be written stops alone."""

from __future__ import annotations

import orjson
import pytest

from tests.conftest import Workdir

CONFIG = """
resource "terraform_data" "a" {
  count = 30
  input = count.index
}
resource "terraform_data" "b" {
  input = terraform_data.a[*].id
}
output "n" {
  value = length(terraform_data.a)
}
"""

VOLATILE = ("@timestamp", "monotonic", "detail", "seq")  # and the objects' ids, new in each run


def _comparable(lines: list[bytes]) -> list[dict]:
    out = []
    for raw in lines:
        e = orjson.loads(raw)
        for k in VOLATILE:
            e.pop(k, None)
        if e["type"] == "apply_complete":  # "after 0s" or "after 1s": a moment, not a format
            e["@message"] = e["@message"].split(" after ")[0]
            e["hook"].pop("elapsed_seconds", None)
            e["hook"].pop("id_value", None)
        out.append(e)
    # in the order of their kind and resource: operations run concurrently
    return sorted(out, key=lambda e: orjson.dumps(e, option=orjson.OPT_SORT_KEYS))


def _apply(workdir: Workdir, monkeypatch: pytest.MonkeyPatch, after: str, *extra: str) -> tuple[list[bytes], ...]:
    monkeypatch.setenv("STRATA_JSON_WRITER_AFTER", after)
    for name in ("one.jsonl", "two.jsonl", "terraform.tfstate", "terraform.tfstate.backup"):
        (workdir.path / name).unlink(missing_ok=True)
    res = workdir.strata("apply", "-auto-approve", "-json", "-events=one.jsonl", "-events=two.jsonl", *extra,
                         check=True)
    return (res.stdout.encode().splitlines(), (workdir.path / "one.jsonl").read_bytes().splitlines(),
            (workdir.path / "two.jsonl").read_bytes().splitlines())


def test_the_relay_writes_the_stream_and_every_log_as_they_write_themselves(workdir: Workdir,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    workdir.write(CONFIG)
    relayed = _apply(workdir, monkeypatch, "0")
    itself = _apply(workdir, monkeypatch, "-1")
    stream, one, two = relayed
    assert len(stream) == 1 + 31 * 3 + 2 + 2  # version; 31 planned, started, complete; summaries; outputs
    assert one == two  # byte for byte: one relay wrote both
    assert [orjson.loads(x)["seq"] for x in one] == list(range(1, len(one) + 1))
    assert [_comparable(x) for x in relayed] == [_comparable(x) for x in itself]
    assert all("detail" in orjson.loads(x) for x in one if b'"type":"apply_complete"' in x)


def test_an_event_log_that_cannot_be_written_stops_alone(workdir: Workdir, monkeypatch: pytest.MonkeyPatch) -> None:
    workdir.write(CONFIG)
    monkeypatch.setenv("STRATA_JSON_WRITER_AFTER", "0")
    res = workdir.strata("apply", "-auto-approve", "-json", "-events=one.jsonl", "-events=/dev/full")
    assert res.returncode == 1, res.stderr  # output was lost: said, and the exit status says it too
    said = [x for x in res.stderr.splitlines() if x.strip()]
    assert len(said) == 1 and said[0].startswith("strata: the event log /dev/full could not be written"), said
    assert "Traceback" not in res.stderr
    assert res.of_type("change_summary")[-1]["changes"]["add"] == 31
    assert len((workdir.path / "one.jsonl").read_bytes().splitlines()) == len(res.events) + 1  # and log_start
    assert len(workdir.strata("state", "list", check=True).stdout.split()) == 31
