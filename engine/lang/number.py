"""Numbers as the Terraform language has them: cty's decimal semantics on Python ints and floats.

A number is an ``int`` when whole, else the nearest ``float``; arithmetic that
must be exact goes through :class:`decimal.Decimal`. Parsing follows cty's
``ParseNumberVal``, printing its ``%g``-like shortest form. Used by the
functions, expression evaluation, type conversion and the HCL reader.
"""

from __future__ import annotations

import math
import re
from decimal import Context, Decimal
from typing import Any

from engine.diagnostics import FunctionError
from engine.values import type_name

# Number literals in the grammar cty's ParseNumberVal accepts (decimal only, no spaces).
_NUMBER_RE = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_INT_RE = re.compile(r"[+-]?[0-9]+")
# Whole numbers with more digits than this stay floats (Python refuses to print longer ints).
_MAX_INT_DIGITS = 4000
DECIMAL_CONTEXT = Context(prec=80)


def number_from_decimal(d: Decimal) -> Any:
    """Our representation of a decimal number: ``int`` when whole, else the nearest ``float``."""
    if d.is_finite() and d == d.to_integral_value(context=DECIMAL_CONTEXT) and d.adjusted() < _MAX_INT_DIGITS:
        return int(d)
    f = float(d)
    if math.isinf(f) or math.isnan(f):
        raise FunctionError("the number is too large to represent.")
    return f


def to_decimal(n: Any) -> Decimal:
    """The exact decimal a number stands for (a float by its shortest round-trip digits,
    which are the digits of the literal it was parsed from)."""
    if type(n) is int:
        return Decimal(n)
    return Decimal(repr(float(n)))


def exact_decimal(n: Any) -> Decimal | None:
    """The decimal a number stands for when it is exact: an int, or a float whose shortest
    digits are at most 15 (so it is the literal it was parsed from); None for a float with
    16-17 digits, which is the inexact result of a computation (``2/3``)."""
    if type(n) is int:
        return Decimal(n)
    d = Decimal(repr(float(n)))
    return d if len(d.as_tuple().digits) <= 15 else None


def parse_number(s: str) -> Any:
    """A decimal number literal (``"12"``, ``"1.5"``, ``"1e3"``) as int or float, or None."""
    if _INT_RE.fullmatch(s):
        return int(s) if len(s) < _MAX_INT_DIGITS else None
    if not _NUMBER_RE.fullmatch(s):
        return None
    d = Decimal(s)
    if d.adjusted() > _MAX_INT_DIGITS or d.adjusted() < -_MAX_INT_DIGITS:
        return None
    try:
        return number_from_decimal(d)
    except FunctionError:
        return None


def _digits(n: Any) -> tuple[bool, str, int]:
    """``(negative, mantissa, exp)`` with ``|n| = 0.mantissa × 10**exp`` and the mantissa
    free of leading and trailing zeros ("" for zero): Go's ``big`` decimal form."""
    if type(n) is int:
        neg = n < 0
        s = str(-n if neg else n)
        if s == "0":
            return neg, "", 0
        return neg, s.rstrip("0"), len(s)
    f = float(n)
    neg = math.copysign(1.0, f) < 0
    sign, digits, exponent = Decimal(repr(abs(f))).as_tuple()
    s = "".join(map(str, digits)).lstrip("0")
    if not s:
        return neg, "", 0
    assert isinstance(exponent, int)
    return neg, s.rstrip("0"), len(s) + exponent


def _binary_side(mant: str, exp: int) -> int:
    """Whether cty's 512-bit binary number nearest the decimal ``0.mant × 10**exp`` lies above
    (1), below (-1) or exactly on (0) it: what decides a decimal tie when formatting."""
    m, e10 = int(mant), exp - len(mant)
    num, den = (m * 10**e10, 1) if e10 >= 0 else (m, 10**-e10)
    k = 512 - (num.bit_length() - den.bit_length())
    for _ in range(4):
        n_, d_ = (num << k, den) if k >= 0 else (num, den << -k)
        if n_ >= d_ << 512:
            k -= 1
        elif n_ < d_ << 511:
            k += 1
        else:
            break
    q, r = divmod(n_, d_)
    if 2 * r > d_ or (2 * r == d_ and q & 1):
        q += 1
    diff = q * d_ - n_
    return (diff > 0) - (diff < 0)


def _round_digits(mant: str, exp: int, n: int) -> tuple[str, int]:
    """Round the decimal ``0.mant × 10**exp`` to ``n`` digits as Go's decimal.round does for
    the 512-bit number cty holds: a decimal tie goes the way the binary value lies, and
    only a tie that is exact in binary too goes to even."""
    if n < 0 or n >= len(mant):
        return mant, exp
    if mant[n] == "5" and n + 1 == len(mant):
        side = _binary_side(mant, exp)
        up = side > 0 or (side == 0 and n > 0 and int(mant[n - 1]) % 2 == 1)
    else:
        up = mant[n] >= "5"
    if not up:
        return mant[:n].rstrip("0"), exp
    while n > 0 and mant[n - 1] == "9":
        n -= 1
    if n == 0:
        return "1", exp + 1
    return mant[:n - 1] + chr(ord(mant[n - 1]) + 1), exp


def _fmt_e(mant: str, exp: int, prec: int, e: str) -> str:
    out = mant[0] if mant else "0"
    if prec > 0:
        frac = mant[1:prec + 1]
        out += "." + frac + "0" * (prec - len(frac))
    x = exp - 1 if mant else 0
    return f"{out}{e}{'-' if x < 0 else '+'}{abs(x):02d}"


def _fmt_f(mant: str, exp: int, prec: int) -> str:
    if exp > 0:
        out = mant[:exp] + "0" * (exp - len(mant))
    else:
        out = "0"
    if prec > 0:
        frac = "".join(mant[exp + i] if 0 <= exp + i < len(mant) else "0" for i in range(prec))
        out += "." + frac
    return out


def number_text(n: Any, fmt: str, prec: int) -> tuple[bool, str]:
    """``(negative, text of |n|)`` as Go's ``big.Float.Text(fmt, prec)`` writes it."""
    neg, mant, exp = _digits(n)
    shortest = prec < 0
    if shortest:
        if fmt in "eE":
            prec = len(mant) - 1
        elif fmt == "f":
            prec = max(len(mant) - exp, 0)
        else:
            prec = len(mant)
    elif fmt in "eE":
        mant, exp = _round_digits(mant, exp, 1 + prec)
    elif fmt == "f":
        mant, exp = _round_digits(mant, exp, exp + prec)
    else:
        if prec == 0:
            prec = 1
        mant, exp = _round_digits(mant, exp, prec)
    if fmt in "eE":
        return neg, _fmt_e(mant, exp, prec, fmt)
    if fmt == "f":
        return neg, _fmt_f(mant, exp, prec)
    eprec = prec
    if eprec > len(mant) and len(mant) >= exp:
        eprec = len(mant)
    if shortest:
        eprec = 6
    if exp - 1 < -4 or exp - 1 >= eprec:
        return neg, _fmt_e(mant, exp, min(prec, len(mant)) - 1, "e" if fmt == "g" else "E")
    if prec > exp:
        prec = len(mant)
    return neg, _fmt_f(mant, exp, max(prec - exp, 0))


def _float_to_string(v: float) -> str:
    if math.isinf(v) or math.isnan(v):
        raise FunctionError("cannot convert an infinite number to string.")
    if v.is_integer() and abs(v) < 2**53:
        return str(int(v))
    neg, text = number_text(v, "f", -1)
    return "-" + text if neg and text != "0" else text


def to_string(v: Any) -> str:
    if isinstance(v, str):
        return v
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return _float_to_string(v)
    raise FunctionError(f"Cannot convert {type_name(v)} to string.")


def to_number(v: Any) -> Any:
    if isinstance(v, bool):
        raise FunctionError("A number is required, not bool.")
    if isinstance(v, (int, float)):
        return v
    if isinstance(v, str):
        n = parse_number(v)
        if n is None:
            raise FunctionError(f'Cannot convert "{v}" to number: the given string must be a '
                                "decimal representation of a number.")
        return n
    raise FunctionError(f"A number is required, not {type_name(v)}.")


def whole_number(v: Any, what: str) -> int:
    """A number argument that must be a whole number."""
    n = to_number(v)
    if type(n) is int:
        return n
    if math.isfinite(n) and n.is_integer():
        return int(to_decimal(n))
    raise FunctionError(f"{what} must be a whole number.")
