"""``@frozen``: the value classes of the engine, as ``@dataclass(frozen=True, slots=True)`` makes
them, for a fraction of the cost of defining them.

The class it returns is what ``dataclass(frozen=True, slots=True)`` returns: a new class with
``__slots__`` and no class attributes for the fields; an ``__init__`` with the same parameters,
defaults and factories that calls ``__post_init__``; ``__repr__``, ``__eq__``, ``__hash__`` (unless
the class defines them; ``__hash__`` too when it defines only ``__eq__``), with ``order=True`` the
four comparisons; assigning or deleting a field raises ``dataclasses.FrozenInstanceError``; it
pickles and copies. ``dataclasses.fields``, ``replace``, ``asdict`` and ``is_dataclass`` work on
it, and a type checker reads it as a frozen dataclass (``dataclass_transform``).

Why: start-up is most of a small run, and a dataclass writes the source of five or six methods
per class and compiles each (``exec``) when the class is defined: the ~120 value classes a
``plan`` defines took ~80 ms of a ~250 ms run. Here each method is compiled on its first call,
from the source dataclasses would write (so it is as fast), and ``__setattr__``/``__delattr__``
are closures: most of the classes a run defines (protocol messages, expression nodes,
diagnostics) never see most of their methods called, or are never instantiated at all.

Not supported (a TypeError says so): ``InitVar``, ``KW_ONLY``, a ``__slots__`` of the class's own.
"""

from __future__ import annotations

import dataclasses
import types
from typing import TYPE_CHECKING, Any, TypeVar, dataclass_transform, overload

if TYPE_CHECKING:
    from collections.abc import Callable

_T = TypeVar("_T")


_FIELD = dataclasses._FIELD  # type: ignore[attr-defined]  # what dataclasses.fields() lists
_HAS_DEFAULT_FACTORY = dataclasses._HAS_DEFAULT_FACTORY  # type: ignore[attr-defined]
_MISSING = dataclasses.MISSING
_MUTABLE_DEFAULT = (list, dict, set)


class _Params:
    """What ``dataclass`` reads of a base class (``__dataclass_params__``)."""

    __slots__ = ("init", "repr", "eq", "order", "unsafe_hash", "frozen", "match_args", "kw_only", "slots",
                 "weakref_slot")

    def __init__(self, order: bool) -> None:
        self.init = self.repr = self.eq = self.frozen = self.match_args = self.slots = True
        self.unsafe_hash = self.kw_only = self.weakref_slot = False
        self.order = order

    def __repr__(self) -> str:
        return f"_Params(frozen=True, slots=True, order={self.order})"


@overload
def frozen(cls: type[_T], /) -> type[_T]: ...


@overload
def frozen(*, order: bool = False) -> Callable[[type[_T]], type[_T]]: ...


@dataclass_transform(frozen_default=True, field_specifiers=(dataclasses.field, dataclasses.Field))
def frozen(cls: Any = None, /, *, order: bool = False) -> Any:
    """The frozen, slotted value class of ``cls`` (see the module's docstring); ``@frozen`` or
    ``@frozen(order=True)``."""
    if cls is None:
        return lambda c: _make(c, order)
    return _make(cls, order)


def _make(cls: type, order: bool) -> type:
    own = cls.__dict__
    if "__slots__" in own:
        raise TypeError(f"{cls.__name__} already specifies __slots__")
    if "__setattr__" in own or "__delattr__" in own:
        raise TypeError(f"Cannot overwrite attribute __setattr__ or __delattr__ in class {cls.__name__}")
    fields: dict[str, dataclasses.Field[Any]] = {}
    for base in cls.__mro__[-1:0:-1]:
        inherited = base.__dict__.get("__dataclass_fields__")
        if inherited is not None:
            fields.update((f.name, f) for f in inherited.values() if f._field_type is _FIELD)
    annotations: dict[str, Any] = own.get("__annotations__", {})
    for name, ann in annotations.items():
        text = ann if isinstance(ann, str) else getattr(ann, "__name__", repr(ann))
        if text.startswith(("ClassVar", "typing.ClassVar")):
            continue
        if text.startswith(("InitVar", "dataclasses.InitVar", "KW_ONLY", "dataclasses.KW_ONLY")):
            raise TypeError(f"{cls.__name__}.{name}: @frozen does not support {text}")
        fields[name] = _field(cls, name, ann, own.get(name, _MISSING))
    seen_default = False
    for f in fields.values():
        if f.init:
            if f.default is not _MISSING or f.default_factory is not _MISSING:
                seen_default = True
            elif seen_default:
                raise TypeError(f"non-default argument {f.name!r} follows default argument")

    inherited_slots = {s for base in cls.__mro__[1:-1] for s in base.__dict__.get("__slots__", ())}
    ns: dict[str, Any] = dict(own)
    ns["__slots__"] = tuple(n for n in fields if n in annotations and n not in inherited_slots)
    for name in fields:
        ns.pop(name, None)
    ns.pop("__dict__", None)
    ns.pop("__weakref__", None)
    all_fields = tuple(fields.values())
    ns["__dataclass_fields__"] = fields
    ns["__dataclass_params__"] = _Params(order)
    ns["__match_args__"] = tuple(f.name for f in all_fields if f.init)
    if order:
        for name in _ORDER:
            if name in own:
                raise TypeError(f"Cannot overwrite attribute {name} in class {cls.__name__}. "
                                "Consider using functools.total_ordering")
    ns.setdefault("__getstate__", _getstate)
    ns.setdefault("__setstate__", _setstate)
    new: type = type(cls)(cls.__name__, cls.__bases__, ns)
    new.__qualname__ = cls.__qualname__
    # the methods the class does not define, each compiled when first called
    wanted = [n for n in ("__init__", "__repr__", "__eq__", *(_ORDER if order else ())) if n not in own]
    if "__hash__" not in own or (own["__hash__"] is None and "__eq__" in own):  # None: Python's, for __eq__
        wanted.append("__hash__")
    for name in wanted:
        type.__setattr__(new, name, _lazy(new, name))
    set_, del_ = _frozen_set_del(new, frozenset(fields))
    type.__setattr__(new, "__setattr__", set_)
    type.__setattr__(new, "__delattr__", del_)
    return new


def _field(cls: type, name: str, ann: object, default: Any) -> dataclasses.Field[Any]:
    """The field ``name`` as dataclasses describes it (``dataclasses.fields`` lists it)."""
    f: dataclasses.Field[Any]
    if isinstance(default, dataclasses.Field):
        f = default
    else:
        f = dataclasses.field(default=default)
    f.name = name
    f.type = ann
    f._field_type = _FIELD  # type: ignore[attr-defined]
    if f.kw_only is _MISSING:
        f.kw_only = False
    elif f.kw_only:
        raise TypeError(f"{cls.__name__}.{name}: @frozen does not support kw_only fields")
    if isinstance(f.default, _MUTABLE_DEFAULT) or (f.default is not _MISSING and f.default.__class__.__hash__ is None):
        raise ValueError(f"mutable default {type(f.default)} for field {name} is not allowed: use default_factory")
    return f


def _lazy(cls: type, name: str) -> Callable[..., Any]:
    """The method ``name`` of ``cls`` until its first call, which compiles the real one (as
    dataclasses writes it), puts it in its place and calls it."""

    def first_call(*args: Any, **kwargs: Any) -> Any:
        method = _compile(cls, name)
        type.__setattr__(cls, name, method)
        return method(*args, **kwargs)

    first_call.__name__ = first_call.__qualname__ = name
    return first_call


_ORDER = {"__lt__": "<", "__le__": "<=", "__gt__": ">", "__ge__": ">="}


def _compile(cls: type, name: str) -> Callable[..., Any]:
    """The method ``name`` dataclass(frozen=True, slots=True) would write for ``cls``: the same
    source, so the same speed."""
    fields: tuple[dataclasses.Field[Any], ...] = tuple(cls.__dataclass_fields__.values())  # type: ignore[attr-defined]
    compared = [f.name for f in fields if f.compare]
    scope: dict[str, Any] = {}
    if name == "__init__":
        src = _init_source(cls, fields, scope)
    elif name == "__repr__":
        shown = ", ".join(f"{f.name}={{self.{f.name}!r}}" for f in fields if f.repr)
        src = f'def __repr__(self):\n  return self.__class__.__qualname__ + f"({shown})"\n'
    elif name == "__hash__":
        hashed = [f.name for f in fields if (f.compare if f.hash is None else f.hash)]
        src = f"def __hash__(self):\n  return hash({_tuple('self', hashed)})\n"
    else:
        op = "==" if name == "__eq__" else _ORDER[name]
        src = (f"def {name}(self, other):\n  if other.__class__ is self.__class__:\n"
               f"    return {_tuple('self', compared)}{op}{_tuple('other', compared)}\n  return NotImplemented\n")
    # the names the body uses are the arguments of a function that returns it: the method reads
    # them as closure cells, as dataclasses' do
    outer = ", ".join(scope)
    body = "".join(f"  {line}\n" for line in src.splitlines())
    made: dict[str, Any] = {}
    exec(f"def __create_fn__({outer}):\n{body}  return {name}\n", {}, made)
    method: Callable[..., Any] = made["__create_fn__"](**scope)
    method.__qualname__ = f"{cls.__qualname__}.{name}"
    method.__module__ = cls.__module__
    return _recursion_guarded(method) if name == "__repr__" else method


def _tuple(obj: str, names: list[str]) -> str:
    return "(" + "".join(f"{obj}.{n}," for n in names) + ")"


def _init_source(cls: type, fields: tuple[dataclasses.Field[Any], ...], scope: dict[str, Any]) -> str:
    """``__init__``'s source (assignments through each slot's setter, or ``object.__setattr__``,
    ``__post_init__`` last);
    ``scope`` gets the names it uses."""
    self_name = "__dataclass_self__" if any(f.name == "self" for f in fields) else "self"
    scope.update(__dataclass_builtins_object__=object, _HAS_DEFAULT_FACTORY=_HAS_DEFAULT_FACTORY)
    params, body = [self_name], []
    for f in fields:
        dflt = f"_dflt_{f.name}"
        if f.default_factory is not _MISSING:
            scope[dflt] = f.default_factory
            value = f"{dflt}() if {f.name} is _HAS_DEFAULT_FACTORY else {f.name}" if f.init else f"{dflt}()"
        elif f.init:
            value = f.name
            if f.default is not _MISSING:
                scope[dflt] = f.default
        elif f.default is not _MISSING:
            scope[dflt] = f.default
            value = dflt
        else:
            continue
        if f.init:
            params.append(f.name if f.default is _MISSING and f.default_factory is _MISSING else
                          f"{f.name}={dflt}" if f.default is not _MISSING else f"{f.name}=_HAS_DEFAULT_FACTORY")
        slot = _slot(cls, f.name)
        if slot is not None:  # the slot's own setter: a third faster than object.__setattr__
            scope[f"_set_{f.name}"] = slot.__set__
            body.append(f"  _set_{f.name}({self_name},{value})")
        else:
            body.append(f"  __dataclass_builtins_object__.__setattr__({self_name},{f.name!r},{value})")
    if hasattr(cls, "__post_init__"):
        body.append(f"  {self_name}.__post_init__()")
    return f"def __init__({', '.join(params)}):\n" + ("\n".join(body) or "  pass") + "\n"


def _slot(cls: type, name: str) -> Any:
    """The member descriptor of the slot ``name`` in ``cls`` or a base (None: not a slot)."""
    for base in cls.__mro__:
        found = base.__dict__.get(name)
        if found is not None:
            return found if type(found) is types.MemberDescriptorType else None
    return None


def _recursion_guarded(repr_fn: Callable[[object], str]) -> Callable[[object], str]:
    """``repr_fn`` that says ``...`` for a value inside itself (dataclasses' recursive_repr)."""
    from _thread import get_ident

    running: set[tuple[int, int]] = set()

    def __repr__(self: object) -> str:
        key = (id(self), get_ident())
        if key in running:
            return "..."
        running.add(key)
        try:
            return repr_fn(self)
        finally:
            running.discard(key)

    __repr__.__qualname__ = repr_fn.__qualname__
    return __repr__


def _frozen_set_del(cls: type, names: frozenset[str]) -> tuple[Callable[..., None], Callable[..., None]]:
    def __setattr__(self: object, name: str, value: object) -> None:
        if type(self) is cls or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")
        object.__setattr__(self, name, value)  # a subclass's own attribute

    def __delattr__(self: object, name: str) -> None:
        if type(self) is cls or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")
        object.__delattr__(self, name)

    return __setattr__, __delattr__


def _getstate(self: object) -> list[object]:
    return [getattr(self, f.name) for f in dataclasses.fields(self)]  # type: ignore[arg-type]


def _setstate(self: object, state: list[object]) -> None:
    for f, value in zip(dataclasses.fields(self), state, strict=False):  # type: ignore[arg-type]
        object.__setattr__(self, f.name, value)
