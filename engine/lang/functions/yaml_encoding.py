"""``yamlencode`` and ``yamldecode`` as terraform's go-cty-yaml writes and reads YAML.

Writing: keys sorted and every string double-quoted (a string with a line break as a literal
block), numbers as cty prints them, lines folded at 80 columns; libyaml's emitter (PyYAML's C
dumper) makes the same choices as go-yaml's, which is a port of it. Reading: YAML 1.1's scalars
as go-cty-yaml resolves them (``yes``/``on`` are true, ``0x1f`` is 31, a date is an RFC 3339
string), mappings as objects, sequences as tuples, one document only.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from datetime import date, datetime
from typing import Any

from engine.diagnostics import FunctionError
from engine.lang.functions.arguments import _known, _string_arg
from engine.lang.number import parse_number, to_string
from engine.values import UNKNOWN, is_wholly_known, type_name


class _LazyYaml:
    """PyYAML, imported on first use: every command loads the function table, and PyYAML's import
    is ~20 ms of a start that yamlencode/yamldecode rarely need."""

    def __getattr__(self, name: str) -> Any:
        import yaml as real

        globals()["yaml"] = real
        return getattr(real, name)


yaml: Any = _LazyYaml()
_STR = "tag:yaml.org,2002:str"
_PLAIN = "tag:strata,plain"


def _node(v: Any) -> Any:
    if isinstance(v, str):
        return yaml.ScalarNode(_STR, v, style="|" if "\n" in v else '"')
    if isinstance(v, dict):
        return yaml.MappingNode("tag:yaml.org,2002:map", [(_node(k), _node(v[k])) for k in sorted(v)],
                                flow_style=False)
    if isinstance(v, tuple):
        return yaml.SequenceNode("tag:yaml.org,2002:seq", [_node(x) for x in v], flow_style=False)
    if v is None:
        return yaml.ScalarNode("tag:yaml.org,2002:null", "null")
    if isinstance(v, bool):
        return yaml.ScalarNode("tag:yaml.org,2002:bool", "true" if v else "false")
    if isinstance(v, (int, float)):
        text = to_string(v)
        tag = "tag:yaml.org,2002:int" if re.fullmatch(r"-?[0-9]+", text) else "tag:yaml.org,2002:float"
        return yaml.ScalarNode(tag, text)
    raise FunctionError(f"cannot encode {type_name(v)} as YAML.")


def yamlencode(value: Any) -> Any:
    if not is_wholly_known(value):
        return UNKNOWN
    root = _node(value)
    text: str = yaml.serialize(root, Dumper=getattr(yaml, "CDumper", yaml.Dumper), allow_unicode=True)
    if isinstance(root, yaml.ScalarNode) and root.style is None:
        text += "...\n"  # go-yaml ends a document that is one plain scalar explicitly
    return text


# go-cty-yaml's resolution of plain scalars (YAML 1.1's, with Go's number syntax)
_BOOLS = {**dict.fromkeys(("y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"), True),
          **dict.fromkeys(("n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"), False)}
_NULLS = frozenset(("", "~", "null", "Null", "NULL"))
_INT = re.compile(r"[-+]?(?:0|[1-9][0-9]*)\Z")
_BASED = re.compile(r"([-+]?)0([xo])([0-9a-fA-F]+)\Z")
_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?\Z")
_DATE = re.compile(r"\d{4}-\d\d?-\d\d?(?:(?:[Tt]|[ \t]+)\d\d?:\d\d:\d\d(?:\.\d*)?(?:[ \t]*(?:Z|[-+]\d\d?(?::\d\d)?))?)?\Z")


@functools.cache
def _loader_class() -> Any:
    class _Loader(yaml.SafeLoader):  # type: ignore[misc]  # PyYAML has no type hints
        """Resolves no plain scalar itself (they come out as strings): :func:`_scalar` does, as go-cty-yaml."""

        yaml_implicit_resolvers: dict[Any, Any] = {}  # noqa: RUF012 - PyYAML's class attribute
        DEFAULT_SCALAR_TAG = _PLAIN  # a plain scalar with no tag given: to be resolved by _scalar

    return _Loader


def _scalar(node: Any) -> Any:
    text: str = node.value
    if node.tag == _STR:
        return text
    if node.tag != _PLAIN and node.tag.startswith("tag:yaml.org,2002:"):
        explicit = node.tag.rsplit(":", 1)[1]
        if explicit in ("int", "float"):
            n = _number(text)
            if n is None:
                raise FunctionError(f"cannot parse {text!r} as {explicit}.")
            return n
        if explicit == "bool":
            return _BOOLS.get(text, False)
        if explicit == "null":
            return None
    if node.style is not None:
        return text
    if text in _NULLS:
        return None
    if text in _BOOLS:
        return _BOOLS[text]
    n = _number(text)
    if n is not None:
        return n
    if _DATE.match(text):
        return _timestamp(text)
    return text


def _number(text: str) -> Any:
    if _INT.match(text) or _FLOAT.match(text):
        return parse_number(text.lstrip("+"))
    m = _BASED.match(text)
    if m:
        try:
            n = int(m.group(3), {"x": 16, "o": 8}[m.group(2)])
        except ValueError:
            return None
        return -n if m.group(1) == "-" else n
    if text in (".inf", ".Inf", ".INF", "+.inf", "-.inf", ".nan", ".NaN", ".NAN"):
        raise FunctionError(f"cannot represent {text} as a number.")
    return None


def _timestamp(text: str) -> str:
    """A YAML timestamp as go-cty-yaml gives it: RFC 3339, to the second."""
    loader = yaml.SafeLoader("")
    try:
        got = loader.construct_yaml_timestamp(yaml.ScalarNode("tag:yaml.org,2002:timestamp", text))
    except ValueError:
        return text
    finally:
        loader.dispose()
    if isinstance(got, datetime):
        offset = got.utcoffset()
        if got.tzinfo is None or not offset:
            return got.strftime("%Y-%m-%dT%H:%M:%SZ")
        minutes = int(offset.total_seconds()) // 60
        sign = "-" if minutes < 0 else "+"
        hh, mm = divmod(abs(minutes), 60)
        return got.strftime("%Y-%m-%dT%H:%M:%S") + f"{sign}{hh:02d}:{mm:02d}"
    if isinstance(got, date):
        return got.strftime("%Y-%m-%dT00:00:00Z")
    return text


def _value(node: Any, depth: int = 0) -> Any:
    if depth > 10_000:
        raise FunctionError("the YAML value is nested too deeply.")
    if isinstance(node, yaml.ScalarNode):
        return _scalar(node)
    if isinstance(node, yaml.SequenceNode):
        return tuple(_value(x, depth + 1) for x in node.value)
    out: dict[str, Any] = {}
    for k, v in node.value:
        if k.tag == "tag:yaml.org,2002:merge":
            raise FunctionError("merge keys are not supported.")
        if not isinstance(k, yaml.ScalarNode):
            raise FunctionError("only strings are allowed as mapping keys.")
        key = _scalar(k)
        out[key if isinstance(key, str) else "null" if key is None else to_string(key)] = _value(v, depth + 1)
    return out


_GO_PROBLEMS = {
    "expected the node content": "did not find expected node content",
    "expected ',' or ']'": "did not find expected ',' or ']'",
    "expected ',' or '}'": "did not find expected ',' or '}'",
    "mapping values are not allowed here": "mapping values are not allowed in this context",
    "expected a single document in the stream": "unexpected extra content after value",
    "could not find expected ':'": "could not find expected ':'",
}


def _go_error(exc: yaml.MarkedYAMLError) -> str:
    """go-yaml's words for a YAML error: a scanner's without a place, a parser's at the start of the
    construct it was reading."""
    context = exc.context or ""
    problem = context if context.startswith("expected a single document") else exc.problem or context
    problem = next((go for py, go in _GO_PROBLEMS.items() if problem.startswith(py)), problem)
    mark = exc.context_mark
    if isinstance(exc, yaml.scanner.ScannerError) or mark is None:
        return f"{problem}."
    column = 1 if context.startswith("while parsing a flow node") else mark.column + 1
    return f"on line {mark.line + 1}, column {column}: {problem}."


def yamldecode(src: Any) -> Any:
    if not _known(src):
        return UNKNOWN
    text = _string_arg(src)
    try:
        loader = _loader_class()(text)
        try:
            node = loader.get_single_node()
        finally:
            loader.dispose()
    except yaml.MarkedYAMLError as exc:
        raise FunctionError(_go_error(exc)) from None
    except yaml.YAMLError as exc:
        raise FunctionError(f"{exc}.") from None
    if node is None:
        raise FunctionError("on line 1, column 1: missing start of document.")
    return _value(node)


# terraform's signature of each function here (its diagnostics name the parameters): the function
SIGNATURES: dict[str, Callable[..., Any]] = {
    "yamldecode(src)": yamldecode,
    "yamlencode(value)": yamlencode,
}
