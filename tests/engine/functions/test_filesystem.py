"""engine/lang/functions/filesystem.py: filesystem functions (file, fileexists, ...) reading relative to the working directory, against terraform 1.11's results."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.diagnostics import FunctionError
from engine.lang.functions.registry import FUNCTIONS


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
