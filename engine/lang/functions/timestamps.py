"""Date and time functions: ``formatdate``, ``timeadd``, ``timecmp`` on RFC 3339 timestamps, and
the clock: ``timestamp()`` and ``plantimestamp()``.

``timestamp()`` is the time of the call when applying and unknown while planning, as terraform's
(its value is not known until apply). ``plantimestamp()`` is the time the plan was made, the same
for every call in one plan, and the plan's time again when a saved plan is applied. The phase and
the plan's time are the :data:`CLOCK` of the evaluation (see :func:`evaluation_clock`); left unset,
the evaluation is a plan made when the process started.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import field
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from engine.diagnostics import FunctionError
from engine.frozen import frozen
from engine.lang.functions.arguments import ArgumentError, _known, _string_arg
from engine.values import UNKNOWN


@frozen
class Clock:
    """When an evaluation happens: the plan's time, and whether it is an apply."""

    plan_time: datetime = field(default_factory=lambda: datetime.now(UTC))
    applying: bool = False


_STARTED = Clock()
CLOCK: ContextVar[Clock] = ContextVar("CLOCK", default=_STARTED)
"""The clock of the evaluation in progress."""


@contextmanager
def evaluation_clock(plan_time: datetime, applying: bool) -> Iterator[None]:
    """Evaluate with this plan's time, planning or applying, inside the ``with``."""
    token = CLOCK.set(Clock(plan_time, applying))
    try:
        yield
    finally:
        CLOCK.reset(token)


_RFC3339 = re.compile(r"(\d{4})-(\d{2})-(\d{2})([Tt])(\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})\Z")


@frozen
class _Stamp:
    at: datetime  # aware, in the timestamp's own offset
    zone: str  # "Z" or "+05:30": the offset as written


def _parse(text: str, index: int) -> _Stamp:
    """An RFC 3339 timestamp, or terraform's words for why it is not one."""
    m = _RFC3339.match(text)
    if m is None:
        raise ArgumentError(index, f"not a valid RFC3339 timestamp: {_why(text)}")
    year, month, day, _t, hour, minute, second, frac, zone = m.groups()
    if zone in ("Z", "z"):
        tz: timezone = UTC
        zone = "Z"
    else:
        sign = -1 if zone[0] == "-" else 1
        tz = timezone(sign * timedelta(hours=int(zone[1:3]), minutes=int(zone[4:6])))
        if sign * (int(zone[1:3]) * 60 + int(zone[4:6])) == 0:
            zone = "Z"
    micro = int((frac or ".0")[1:7].ljust(6, "0"))
    try:
        at = datetime(int(year), int(month), int(day), int(hour), int(minute), int(second), micro, tz)
    except ValueError:
        raise ArgumentError(index, "not a valid RFC3339 timestamp: value out of range") from None
    return _Stamp(at, zone)


def _why(text: str) -> str:
    """Go's reason for refusing a timestamp, as terraform rewords it."""
    parts = [("year", r"\d{4}"), ("-", "-"), ("month", r"\d{2}"), ("-", "-"), ("day", r"\d{2}"),
             ("T", "[Tt]"), ("hour", r"\d{2}"), (":", ":"), ("minute", r"\d{2}"), (":", ":"),
             ("second", r"\d{2}")]
    rest = text
    for name, pat in parts:
        m = re.match(pat, rest)
        if m is None:
            if name == "T":
                return "missing required time introducer 'T'"
            if len(name) == 1:
                return f'cannot use "{rest}" as "{name}"' if rest else "unexpected end of string"
            return f'cannot use "{rest}" as {name}'
        rest = rest[m.end():]
    rest = re.sub(r"^\.\d+", "", rest)
    return f'cannot use "{rest}" as UTC offset' if rest else "missing UTC offset"


def _rfc3339(at: datetime, zone: str) -> str:
    text = at.strftime("%Y-%m-%dT%H:%M:%S")
    return text + ("Z" if zone == "Z" else zone)


_VERB = re.compile(r"'(?:[^']|'')*'?|([A-Za-z])\1*|[^A-Za-z']+")


def formatdate(fmt: Any, time: Any) -> Any:
    if not _known(fmt, time):
        return UNKNOWN
    spec = _string_arg(fmt)
    tokens = [m.group(0) for m in _VERB.finditer(spec)]
    stamp = _parse(_string_arg(time), 1)
    at = stamp.at
    out: list[str] = []
    for tok in tokens:
        if tok[0] == "'":
            if len(tok) < 2 or not tok.endswith("'"):
                raise ArgumentError(0, "unterminated literal '")
            out.append(tok[1:-1].replace("''", "'"))
        elif tok[0].isalpha():
            out.append(_verb(tok, at, stamp.zone))
        else:
            out.append(tok)
    return "".join(out)


_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")
_DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def _verb(tok: str, at: datetime, zone: str) -> str:
    c, n = tok[0], len(tok)
    hour12 = at.hour % 12 or 12
    offset = at.utcoffset() or timedelta(0)
    minutes = int(offset.total_seconds()) // 60
    sign = "-" if minutes < 0 else "+"
    hh, mm = divmod(abs(minutes), 60)
    choices: dict[str, tuple[dict[int, Callable[[], str]], str]] = {
        "Y": ({2: lambda: f"{at.year % 100:02d}", 4: lambda: f"{at.year:04d}"},
              'year must either be "YY" or "YYYY"'),
        "M": ({1: lambda: str(at.month), 2: lambda: f"{at.month:02d}", 3: lambda: _MONTHS[at.month - 1][:3],
               4: lambda: _MONTHS[at.month - 1]}, 'month must be "M", "MM", "MMM", or "MMMM"'),
        "D": ({1: lambda: str(at.day), 2: lambda: f"{at.day:02d}"}, 'day of month must either be "D" or "DD"'),
        "E": ({3: lambda: _DAYS[at.weekday()][:3], 4: lambda: _DAYS[at.weekday()]},
              'day of week must either be "EEE" or "EEEE"'),
        "h": ({1: lambda: str(at.hour), 2: lambda: f"{at.hour:02d}"}, '24-hour must either be "h" or "hh"'),
        "H": ({1: lambda: str(hour12), 2: lambda: f"{hour12:02d}"}, '12-hour must either be "H" or "HH"'),
        "A": ({2: lambda: "PM" if at.hour >= 12 else "AM"}, 'must be "AA"'),
        "a": ({2: lambda: "pm" if at.hour >= 12 else "am"}, 'must be "aa"'),
        "m": ({1: lambda: str(at.minute), 2: lambda: f"{at.minute:02d}"}, 'minute must either be "m" or "mm"'),
        "s": ({1: lambda: str(at.second), 2: lambda: f"{at.second:02d}"}, 'second must either be "s" or "ss"'),
        "Z": ({1: lambda: "Z" if zone == "Z" else f"{sign}{hh:02d}:{mm:02d}",
               3: lambda: "UTC" if zone == "Z" else f"{sign}{hh:02d}{mm:02d}",
               4: lambda: f"{sign}{hh:02d}{mm:02d}", 5: lambda: f"{sign}{hh:02d}:{mm:02d}"},
              'timezone must be Z, ZZZZ, or ZZZZZ'),
    }
    if c not in choices:
        raise ArgumentError(0, f"invalid date format verb {_q(tok)}: unsupported")
    table, why = choices[c]
    if n not in table:
        raise ArgumentError(0, f"invalid date format verb {_q(tok)}: {why}")
    return table[n]()


def _q(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


_DURATION_PART = re.compile(r"([0-9]*(?:\.[0-9]*)?)([^0-9.]*)")
_UNITS = {"ns": 1, "us": 1_000, "µs": 1_000, "μs": 1_000, "ms": 1_000_000, "s": 10**9, "m": 60 * 10**9,
          "h": 3600 * 10**9}


def _duration_ns(text: str) -> int:
    """Go's time.ParseDuration, in nanoseconds."""
    s = text
    sign = 1
    if s[:1] in ("-", "+"):
        sign = -1 if s[0] == "-" else 1
        s = s[1:]
    if s == "0":
        return 0
    if not s:
        raise FunctionError(f"time: invalid duration {_q(text)}.")
    total = 0
    while s:
        m = _DURATION_PART.match(s)
        assert m is not None
        number, unit = m.group(1), m.group(2)
        if number in ("", "."):
            raise FunctionError(f"time: invalid duration {_q(text)}.")
        if not unit:
            raise FunctionError(f"time: missing unit in duration {_q(text)}.")
        if unit not in _UNITS:
            raise FunctionError(f"time: unknown unit {_q(unit)} in duration {_q(text)}.")
        whole, _, frac = number.partition(".")
        scale = _UNITS[unit]
        total += int(whole or "0") * scale
        if frac:
            total += int(frac) * scale // 10 ** len(frac)
        s = s[m.end():]
    return sign * total


def timeadd(timestamp: Any, duration: Any) -> Any:
    if not _known(timestamp, duration):
        return UNKNOWN
    try:
        stamp = _parse(_string_arg(timestamp), 0)
    except ArgumentError as exc:  # terraform reports it as the call's failure
        raise FunctionError(str(exc)) from None
    ns = _duration_ns(_string_arg(duration))
    at = stamp.at + timedelta(microseconds=ns // 1000)
    return _rfc3339(at, stamp.zone)


def timecmp(timestamp_a: Any, timestamp_b: Any) -> Any:
    if not _known(timestamp_a, timestamp_b):
        return UNKNOWN
    a = _parse(_string_arg(timestamp_a), 0).at
    b = _parse(_string_arg(timestamp_b), 1).at
    return (a > b) - (a < b)


def timestamp() -> Any:
    clock = CLOCK.get()
    if not clock.applying:
        return UNKNOWN
    return _rfc3339(datetime.now(UTC), "Z")


def plantimestamp() -> Any:
    return _rfc3339(CLOCK.get().plan_time.astimezone(UTC), "Z")


# terraform's signature of each function here (its diagnostics name the parameters): the function
SIGNATURES: dict[str, Callable[..., Any]] = {
    "formatdate(format, time)": formatdate,
    "plantimestamp()": plantimestamp,
    "timeadd(timestamp, duration)": timeadd,
    "timecmp(timestamp_a, timestamp_b)": timecmp,
    "timestamp()": timestamp,
}


def plan_timestamp() -> str:
    """The evaluation clock's plan time as a plan records it (``2026-11-26T11:13:39Z``)."""
    return CLOCK.get().plan_time.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_plan_timestamp(text: str) -> datetime | None:
    """A plan's recorded time back (None for none)."""
    if not text:
        return None
    try:
        return datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    except ValueError:
        return None
