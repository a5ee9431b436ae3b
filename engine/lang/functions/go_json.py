"""Where a JSON document ends, or why it is not one, in Go's words: ``jsondecode`` reads a
document as cty does, token by token with Go's ``encoding/json.Decoder`` (``Token``, then
``More``), and terraform reports the decoder's error as it is ("invalid character '}' looking
for beginning of object key string", "unexpected EOF", "extraneous data after JSON object").

:func:`document_end` follows that decoder's states (its ``tokenState`` and, inside a scalar, its
scanner's): it works on the UTF-8 bytes, as Go does, so a character is quoted as Go quotes the
byte it stops at. What it accepts, Python's ``json`` decodes (up to the end it returns: Go
stops there too, ignoring a stray ``]`` or ``}`` after the document)."""

from __future__ import annotations

import string

from engine.diagnostics import FunctionError, StrataError

# the decoder's states between tokens (encoding/json's tokenState)
_TOP, _ARRAY_START, _ARRAY_VALUE, _ARRAY_COMMA, _OBJECT_START, _OBJECT_KEY, _OBJECT_COLON, _OBJECT_VALUE, \
    _OBJECT_COMMA = range(9)
_CONTEXT = {_TOP: " looking for beginning of value", _ARRAY_START: " looking for beginning of value",
            _ARRAY_VALUE: " looking for beginning of value", _OBJECT_VALUE: " looking for beginning of value",
            _ARRAY_COMMA: " after array element", _OBJECT_KEY: " looking for beginning of object key string",
            _OBJECT_COLON: " after object key", _OBJECT_COMMA: " after object key:value pair"}
_VALUE_ALLOWED = frozenset({_TOP, _ARRAY_START, _ARRAY_VALUE, _OBJECT_VALUE})
_SPACE = b" \t\r\n"
_DIGITS = b"0123456789"
_HEX = string.hexdigits.encode()
_ESCAPES = b'"\\/bfnrtu'


class _Unexpected(StrataError):
    """The input ended inside a value (Go's io.ErrUnexpectedEOF)."""


def quote_char(c: int) -> str:
    """Go's quoteChar: the byte as a rune, in single quotes, escaped as strconv.Quote does."""
    if c == 0x27:
        return "'\\''"
    if c == 0x22:
        return "'\"'"
    ch = chr(c)
    named = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v",
             "\\": "\\\\"}
    if ch in named:
        return f"'{named[ch]}'"
    if ch.isprintable():
        return f"'{ch}'"
    return f"'\\x{c:02x}'" if c < 0x80 else f"'\\u{c:04x}'"


def _fail(c: int, context: str) -> FunctionError:
    return FunctionError(f"invalid character {quote_char(c)}{context}.")


def document_end(src: bytes) -> int:
    """The offset just past the first JSON document in ``src``; FunctionError in Go's words."""
    stack: list[int] = []  # the states to go back to after each open container
    state = _TOP
    i, n = 0, len(src)
    try:
        while True:
            while i < n and src[i] in _SPACE:
                i += 1
            if i == n:  # between tokens: Go's decoder says EOF (inside a value: unexpected EOF)
                raise FunctionError("EOF.")
            c = src[i]
            if c in b"[{":
                if state not in _VALUE_ALLOWED:
                    raise _fail(c, _CONTEXT.get(state, ""))
                stack.append(state)
                state = _ARRAY_START if c == 0x5B else _OBJECT_START
                i += 1
                continue
            if c in b"]}":
                if (c == 0x5D and state not in (_ARRAY_START, _ARRAY_COMMA)) or (
                        c == 0x7D and state not in (_OBJECT_START, _OBJECT_COMMA)):
                    raise _fail(c, _CONTEXT.get(state, ""))
                i += 1
                state = _after_value(stack.pop())
            elif c == 0x3A:  # :
                if state != _OBJECT_COLON:
                    raise _fail(c, _CONTEXT.get(state, ""))
                i, state = i + 1, _OBJECT_VALUE
                continue
            elif c == 0x2C:  # ,
                if state == _ARRAY_COMMA:
                    i, state = i + 1, _ARRAY_VALUE
                elif state == _OBJECT_COMMA:
                    i, state = i + 1, _OBJECT_KEY
                else:
                    raise _fail(c, _CONTEXT.get(state, ""))
                continue
            elif c == 0x22 and state in (_OBJECT_START, _OBJECT_KEY):
                i, state = _string(src, i), _OBJECT_COLON
                continue
            else:
                if state not in _VALUE_ALLOWED:
                    raise _fail(c, _CONTEXT.get(state, ""))
                i = _scalar(src, i)
                state = _after_value(state)
            if state == _TOP and not stack:
                # cty's check after the document: more of it, other than a closing bracket
                j = i
                while j < n and src[j] in _SPACE:
                    j += 1
                if j < n and src[j] not in b"]}":
                    raise FunctionError("extraneous data after JSON object.")
                return i
    except _Unexpected:
        raise FunctionError("unexpected EOF.") from None


def _after_value(state: int) -> int:
    """The decoder's state once a value ended in ``state`` (its tokenValueEnd)."""
    if state in (_ARRAY_START, _ARRAY_VALUE):
        return _ARRAY_COMMA
    if state == _OBJECT_VALUE:
        return _OBJECT_COMMA
    return state


def _scalar(src: bytes, i: int) -> int:
    c = src[i]
    if c == 0x22:
        return _string(src, i)
    if c == 0x2D or c in _DIGITS:
        return _number(src, i)
    for word in (b"true", b"false", b"null"):
        if c == word[0]:
            return _literal(src, i, word)
    raise _fail(c, " looking for beginning of value")


def _string(src: bytes, i: int) -> int:
    n = len(src)
    i += 1
    while i < n:
        c = src[i]
        if c == 0x22:
            return i + 1
        if c == 0x5C:
            if i + 1 >= n:
                raise _Unexpected
            e = src[i + 1]
            if e not in _ESCAPES:
                raise _fail(e, " in string escape code")
            i += 2
            if e == 0x75:  # u
                for k in range(4):
                    if i + k >= n:
                        raise _Unexpected
                    if src[i + k] not in _HEX:
                        raise _fail(src[i + k], " in \\u hexadecimal character escape")
                i += 4
            continue
        if c < 0x20:
            raise _fail(c, " in string literal")
        i += 1
    raise _Unexpected


def _number(src: bytes, i: int) -> int:
    n = len(src)

    def at(k: int) -> int:
        if k >= n:
            raise _Unexpected
        return src[k]

    if src[i] == 0x2D:
        i += 1
        if at(i) not in _DIGITS:
            raise _fail(src[i], " in numeric literal")
    if src[i] == 0x30:
        i += 1
    else:
        while i < n and src[i] in _DIGITS:
            i += 1
    if i < n and src[i] == 0x2E:
        i += 1
        if at(i) not in _DIGITS:
            raise _fail(src[i], " after decimal point in numeric literal")
        while i < n and src[i] in _DIGITS:
            i += 1
    if i < n and src[i] in b"eE":
        i += 1
        if at(i) in b"+-":
            i += 1
        if at(i) not in _DIGITS:
            raise _fail(src[i], " in exponent of numeric literal")
        while i < n and src[i] in _DIGITS:
            i += 1
    return i


def _literal(src: bytes, i: int, word: bytes) -> int:
    for k in range(1, len(word)):
        if i + k >= len(src):
            raise _Unexpected
        if src[i + k] != word[k]:
            raise _fail(src[i + k], f" in literal {word.decode()} (expecting {quote_char(word[k])})")
    return i + len(word)
