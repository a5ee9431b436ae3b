"""terraform's (and HCL's) words for a name that is not declared, with its "Did you mean"
suggestion of the nearest one that is (:func:`engine.diagnostics.name_suggestion`): arguments
and blocks a schema does not take, references to variables and locals not declared."""

from __future__ import annotations

from collections.abc import Iterable

from engine.diagnostics import name_suggestion


def unsupported_argument(name: str, attributes: Iterable[str], blocks: Iterable[str] = ()) -> str:
    """HCL's detail for an argument the body's schema does not take: the nearest argument, or a
    block type of that very name."""
    suggestion = name_suggestion(name, sorted(attributes))
    if suggestion:
        return f'An argument named "{name}" is not expected here. Did you mean "{suggestion}"?'
    if name in set(blocks):
        return f'An argument named "{name}" is not expected here. Did you mean to define a block of type "{name}"?'
    return f'An argument named "{name}" is not expected here.'


def unsupported_block(type_: str, blocks: Iterable[str], attributes: Iterable[str] = ()) -> str:
    """HCL's detail for a nested block of a type the body's schema does not take: the nearest
    block type, or an argument of that very name."""
    suggestion = name_suggestion(type_, sorted(blocks))
    if suggestion:
        return f'Blocks of type "{type_}" are not expected here. Did you mean "{suggestion}"?'
    if type_ in set(attributes):
        return (f'Blocks of type "{type_}" are not expected here. Did you mean to define argument "{type_}"? '
                "If so, use the equals sign to assign it a value.")
    return f'Blocks of type "{type_}" are not expected here.'


def undeclared_variable(name: str, declared: Iterable[str]) -> str:
    """terraform's detail for a reference to an input variable not declared: the nearest name
    declared, or how to declare it."""
    suggestion = name_suggestion(name, sorted(declared))
    if suggestion:
        return f'An input variable with the name "{name}" has not been declared. Did you mean "{suggestion}"?'
    return (f'An input variable with the name "{name}" has not been declared. This variable can be declared '
            f'with a variable "{name}" {{}} block.')


def undeclared_local(name: str, declared: Iterable[str]) -> str:
    """terraform's detail for a reference to a local value not declared, with the nearest name."""
    suggestion = name_suggestion(name, sorted(declared))
    mean = f' Did you mean "{suggestion}"?' if suggestion else ""
    return f'A local value with the name "{name}" has not been declared.{mean}'
