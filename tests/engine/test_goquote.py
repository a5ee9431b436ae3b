"""engine/goquote.py: Go's strconv.Quote, which terraform's messages and output values use."""

from __future__ import annotations

from engine.lang.quote import go_quote


def test_quotes_as_go_does() -> None:
    assert go_quote('tab\there "q" \x01 é <b>') == '"tab\\there \\"q\\" \\x01 é <b>"'
    assert go_quote("\a\b\f\n\r\v\\") == '"\\a\\b\\f\\n\\r\\v\\\\"'
    assert go_quote("\x7f\u200b\U000e0001") == '"\\x7f\\u200b\\U000e0001"'
