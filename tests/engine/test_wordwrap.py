"""engine/wordwrap.py: go-wordwrap's rules, which terraform's diagnostics follow."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from engine.render.wordwrap import wrap


def test_breaks_at_the_last_space_that_keeps_the_line_within_the_limit() -> None:
    text = "This default value is not compatible with the variable's type constraint: a number is required."
    assert wrap(text, 75) == ("This default value is not compatible with the variable's type constraint: a\n"
                              "number is required.")
    assert wrap(text, 200) == text


def test_a_word_longer_than_the_limit_stays_whole_on_its_own_line() -> None:
    assert wrap("ab averyverylongword x", 5) == "ab\naveryverylongword\nx"


def test_the_space_at_a_break_is_dropped_other_spaces_are_kept() -> None:
    assert wrap("a  b   c", 3) == "a\nb\nc"
    assert wrap("a  b", 10) == "a  b"
    assert wrap("ends with spaces   ", 40) == "ends with spaces   "


def test_newlines_in_the_text_end_lines_and_restart_the_count() -> None:
    assert wrap("aaa bbb\nccc ddd", 7) == "aaa bbb\nccc ddd"
    assert wrap("aaa bbb ccc\nd", 7) == "aaa bbb\nccc\nd"


def test_a_no_break_space_joins_words() -> None:
    assert wrap("aaa\u00a0bbb ccc", 7) == "aaa\u00a0bbb\nccc"


def test_characters_not_bytes_are_counted() -> None:
    assert wrap("ééé ééé", 7) == "ééé ééé"


@given(st.text(alphabet="ab \n", max_size=60), st.integers(min_value=1, max_value=12))
def test_only_whitespace_changes_and_lines_fit_unless_a_word_is_as_long_as_the_limit(text: str,
                                                                                   limit: int) -> None:
    # (go-wordwrap moves a word to the next line only while it is shorter than the limit)
    out = wrap(text, limit)
    assert out.split() == text.split()
    for line in out.split("\n"):
        assert len(line) <= limit or any(len(w) >= limit for w in line.split()) or line.startswith(" ")
