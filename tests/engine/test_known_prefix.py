"""cty's safe known prefix (``engine.lang.known_prefix``): what of a string's known start no
following text can change. The cases marked *terraform* were checked against terraform 1.11's plan
(``"PREFIX${unknown}" == "OTHER"``, in ``tests/engine/functions/cases.py``)."""

from __future__ import annotations

import unicodedata

import pytest

from engine.lang import known_prefix
from engine.lang.known_prefix import safe_known_prefix

CASES = [
    ("", ""),
    ("ab", "a"),  # terraform: "ab${u}" == "x" is false, startswith(.., "ab") unknown
    ("a", ""),  # terraform: "a${u}" == "a" unknown
    ("x", ""),  # terraform: "x${...}" == "ya" unknown
    ("a-", "a-"),  # a character that always ends a cluster is kept
    ("app-", "app-"),
    ("ab-", "ab-"),  # terraform: "ab-${u}" == "ab" is false
    ("1-", "1-"),  # terraform: "1-${u}" == "2" is false
    ("1", ""),  # terraform: "${1}${u}" == "2" unknown
    ("a1", "a"),  # a digit composes with nothing, but its cluster may grow
    ("a=", "a"),  # "=" composes with U+0338 (≠)
    ("é", ""),  # terraform: "é${u}" == "x" unknown
    ("e\u0301", ""),  # normalised to é first
    ("\u00e9-", "\u00e9-"),  # terraform: "é-${u}" == "e" is false
    ("e\u0301-", "\u00e9-"),  # terraform: "e\u0301-${u}" == "e" is false
    ("arn:aws:s3:::", "arn:aws:s3:::"),  # terraform: startswith(.., "arn:aws") true
    ("abc def", "abc de"),
    ("a ", "a "),
    ("\u0301", ""),  # only a mark: no starter to cut at, and its cluster dropped
]


@pytest.mark.parametrize(("text", "want"), CASES)
def test_safe_known_prefix(text: str, want: str) -> None:
    assert safe_known_prefix(text) == want


def test_a_prefix_is_a_prefix_of_the_normalised_text() -> None:
    for text in ("hello world", "naïve-", "日本語", "a\u0308b", "Ω-x", "\U0001f600-"):
        got = safe_known_prefix(text)
        assert unicodedata.normalize("NFC", text).startswith(got), text


def test_the_bands_scanned_hold_every_canonical_composition() -> None:
    """The composing characters are found in a few bands of code points (a full scan takes ~0.4 s):
    a full scan finds no other."""
    everything: set[str] = set()
    for x in range(0x110000):
        c = chr(x)
        d = unicodedata.decomposition(c)
        if d and d[0] != "<":
            parts = d.split()
            if len(parts) == 2 and unicodedata.normalize("NFC", c) == c:
                everything.update(chr(int(p, 16)) for p in parts)
    assert everything <= known_prefix._composing()
