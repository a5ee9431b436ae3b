"""jsondecode's errors in Go's words (engine/lang/functions/go_json.py), as terraform 1.11.4's
console printed them for the same documents (compared live in tests/cli/test_terraform_text.py)."""

from __future__ import annotations

import pytest

from engine.diagnostics import FunctionError
from engine.lang.functions.encoding import jsondecode

GO_ERRORS = [
    ("", "EOF."),
    ("  ", "EOF."),
    ("{", "EOF."),
    ("[1,2", "EOF."),
    ('{"a"', "EOF."),
    ("nul", "unexpected EOF."),
    ('"abc', "unexpected EOF."),
    ("-", "unexpected EOF."),
    ("1.", "unexpected EOF."),
    ("1e", "unexpected EOF."),
    ('{"a":1,}', "invalid character '}' looking for beginning of object key string."),
    ('{"a" 1}', "invalid character '1' after object key."),
    ('{"a":1 "b":2}', "invalid character '\"' after object key:value pair."),
    ("[1,]", "invalid character ']' looking for beginning of value."),
    ("[1 2]", "invalid character '2' after array element."),
    ("[1x]", "invalid character 'x' after array element."),
    ("{1}", "invalid character '1'."),
    ("}", "invalid character '}' looking for beginning of value."),
    ("'a'", "invalid character '\\'' looking for beginning of value."),
    ("é", "invalid character 'Ã' looking for beginning of value."),
    ("01", "extraneous data after JSON object."),
    ("1 2", "extraneous data after JSON object."),
    ('{"a":tru}', "invalid character '}' in literal true (expecting 'e')."),
    ("nulx", "invalid character 'x' in literal null (expecting 'l')."),
    ("1.x", "invalid character 'x' after decimal point in numeric literal."),
    ("-a", "invalid character 'a' in numeric literal."),
    ('"\\x"', "invalid character 'x' in string escape code."),
    ('["\\u12x4"]', "invalid character 'x' in \\u hexadecimal character escape."),
    ('"a\nb"', "invalid character '\\n' in string literal."),
]


@pytest.mark.parametrize(("document", "message"), GO_ERRORS)
def test_a_malformed_document_is_reported_in_gos_words(document: str, message: str) -> None:
    with pytest.raises(FunctionError) as got:
        jsondecode(document)
    assert str(got.value) == message


@pytest.mark.parametrize(("document", "value"), [("{} ]", {}), ("[1,2]]", (1, 2)), ('{"a":1,"a":2}', {"a": 1 + 1}),
                                                 ('"\\u00e9"', "é"), (" 7 ", 7)])
def test_what_gos_decoder_accepts_is_decoded(document: str, value: object) -> None:
    assert jsondecode(document) == value
