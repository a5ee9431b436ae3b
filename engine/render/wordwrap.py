"""Word wrapping as terraform's diagnostics do it (mitchellh/go-wordwrap, which terraform uses).

Lines break at whitespace so that none is longer than the limit, counted in characters; a word
longer than the limit stays whole on a line of its own. The whitespace where a line breaks is
dropped, other whitespace is kept as it is (runs of spaces included), and newlines already in
the text end lines. A no-break space (U+00A0) is part of a word.
"""

from __future__ import annotations

_NBSP = "\u00a0"


def wrap(text: str, limit: int) -> str:
    out: list[str] = []
    current = 0          # characters on the line so far, written out
    word: list[str] = []  # the word being read, not written yet
    space: list[str] = []  # the whitespace before it, not written yet
    for ch in text:
        if ch == "\n":
            _flush(out, current, space, word, limit)
            out.append("\n")
            current, word, space = 0, [], []
        elif ch.isspace() and ch != _NBSP:
            if not space or word:
                current += len(space) + len(word)
                out.extend(space)
                out.extend(word)
                space, word = [], []
            space.append(ch)
        else:
            word.append(ch)
            if current + len(space) + len(word) > limit and len(word) < limit:
                out.append("\n")
                current, space = 0, []
    _flush(out, current, space, word, limit)
    return "".join(out)


def _flush(out: list[str], current: int, space: list[str], word: list[str], limit: int) -> None:
    """What is pending at the end of a line or of the text: the word with the whitespace before it,
    or, with no word, the whitespace if it fits."""
    if word:
        out.extend(space)
        out.extend(word)
    elif current + len(space) <= limit:
        out.extend(space)
