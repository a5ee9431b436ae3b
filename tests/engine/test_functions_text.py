"""Encoding, hashing, path and file functions (expected values from terraform 1.11's console)."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from engine.lang.functions import FUNCTIONS, FunctionError
from engine.lang.functions_text import TEXT_FUNCTIONS
from engine.values import UNKNOWN


@pytest.mark.parametrize(("name", "args", "expected"), [
    ("base64encode", ("hi",), "aGk="),
    ("base64decode", ("aGk=",), "hi"),
    ("md5", ("a",), "0cc175b9c0f1b6a831c399e269772661"),
    ("sha1", ("a",), "86f7e437faa5a7fce15d1ddcb9eaeaea377667b8"),
    ("sha256", ("a",), "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb"),
    ("trimprefix", ("abc", "a"), "bc"),
    ("trimsuffix", ("abc", "c"), "ab"),
    ("trim", ("?!hello?!", "!?"), "hello"),
    ("chomp", ("x\n\n",), "x"),
    ("basename", ("a/b.txt",), "b.txt"),
    ("dirname", ("a/b.txt",), "a"),
    ("startswith", ("hello", "he"), True),
    ("endswith", ("hello", "lo"), True),
])
def test_function_matches_terraform(name: str, args: tuple, expected: object) -> None:
    assert FUNCTIONS[name](*args) == expected


def _arity(name: str) -> int:
    return len(inspect.signature(TEXT_FUNCTIONS[name]).parameters)


@pytest.mark.parametrize("name", sorted(TEXT_FUNCTIONS))
def test_unknown_argument_gives_unknown(name: str) -> None:
    args = (UNKNOWN,) + ("a",) * (_arity(name) - 1)
    assert FUNCTIONS[name](*args) is UNKNOWN


@pytest.mark.parametrize("name", sorted(TEXT_FUNCTIONS))
def test_a_list_where_a_string_is_needed_is_a_function_error(name: str) -> None:
    with pytest.raises(FunctionError):
        FUNCTIONS[name](*([("x",)] * _arity(name)))


def test_file_functions_read_relative_to_the_working_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "f.txt").write_text("hello\n")
    monkeypatch.chdir(tmp_path)
    assert FUNCTIONS["file"]("f.txt") == "hello\n"
    assert FUNCTIONS["filemd5"]("f.txt") == "b1946ac92492d2347c6235b4d2611184"
    assert FUNCTIONS["filebase64"]("f.txt") == "aGVsbG8K"
    assert FUNCTIONS["fileexists"]("f.txt") is True
    assert FUNCTIONS["fileexists"]("nope.txt") is False


def test_missing_file_is_a_function_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(FunctionError, match="no file exists"):
        FUNCTIONS["file"]("nope.txt")


def test_invalid_base64_is_a_function_error() -> None:
    with pytest.raises(FunctionError, match="base64"):
        FUNCTIONS["base64decode"]("not base64!")
