"""The part of a string's known beginning that stays its beginning whatever follows: cty's
``SafeKnownPrefix``, which terraform applies to the known prefix of an unknown string (a template's
literal start, ``format``'s text before its first verb).

What follows the known text could change its end: a combining mark after ``e`` makes ``é`` (NFC
normalisation composes them), and a mark after any letter joins its grapheme cluster. So, as cty
does it:

1. the text is normalised to NFC;
2. if its last character could compose with or be changed by what follows (it is not *inert* in
   NFC: it combines forwards or backwards, has a canonical decomposition, or a combining class),
   the text is cut before its last starter: ``"ab"`` keeps ``"a"``, ``"é"`` keeps nothing;
3. otherwise its last grapheme cluster is dropped too, unless that cluster is one of the
   punctuation characters that always end a cluster: ``"app-"`` keeps ``"app-"``, ``"a1"`` keeps
   ``"a"``.

Clusters are the approximate ones of :func:`engine.lang.functions.strings.graphemes`.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

# the single characters that always end a grapheme cluster (cty's list)
_CLUSTER_ENDS = frozenset("-_:;/\\,.(){}[]|?!~ \t@#$%^&*+\"'")

# where the primary canonical composites are (Unicode 14): scanning these bands finds every
# character that composes with another; tests/engine/test_known_prefix.py checks them against a
# scan of every code point
_COMPOSITE_BANDS = ((0xC0, 0x2300), (0x3040, 0x3100), (0x11000, 0x11A00))
_HANGUL_L, _HANGUL_V, _HANGUL_T = (0x1100, 0x1113), (0x1161, 0x1176), (0x11A8, 0x11C3)


@lru_cache(maxsize=1)
def _composing() -> frozenset[str]:
    """The characters that combine, forwards or backwards, in a canonical composition."""
    found: set[str] = set()
    for lo, hi in _COMPOSITE_BANDS:
        for x in range(lo, hi):
            c = chr(x)
            d = unicodedata.decomposition(c)
            if d and d[0] != "<":
                parts = d.split()
                if len(parts) == 2 and unicodedata.normalize("NFC", c) == c:
                    found.add(chr(int(parts[0], 16)))
                    found.add(chr(int(parts[1], 16)))
    for lo, hi in (_HANGUL_L, _HANGUL_V, _HANGUL_T):  # jamo compose by rule, not by table
        found.update(chr(x) for x in range(lo, hi))
    return frozenset(found)


def _inert(c: str) -> bool:
    """Nothing after ``c`` can change it or its place in NFC (go's ``norm`` calls it inert)."""
    if unicodedata.combining(c):
        return False
    if 0xAC00 <= ord(c) <= 0xD7A3:  # a Hangul syllable decomposes (by rule) and may take a jamo
        return False
    d = unicodedata.decomposition(c)
    if d and d[0] != "<":
        return False
    return c not in _composing()


def _last_starter(text: str) -> int:
    for i in range(len(text) - 1, -1, -1):
        if not unicodedata.combining(text[i]):
            return i
    return -1


def safe_known_prefix(text: str) -> str:
    """The start of ``text`` (NFC) that no following text can change (see the module)."""
    text = unicodedata.normalize("NFC", text)
    if not text:
        return text
    if not _inert(text[-1]):
        cut = _last_starter(text)
        if cut != -1:
            return text[:cut]
    from engine.lang.functions.strings import graphemes  # the function table's: imported on need

    clusters = graphemes(text)
    last = clusters[-1]
    if last in _CLUSTER_ENDS:
        return text
    return text[:len(text) - len(last)]
