"""The ``random`` provider (registry.terraform.io/hashicorp/random): ``random_id``, ``random_string``,
``random_password`` and ``random_integer``.

Behaviour follows hashicorp/terraform-provider-random 3.x:

* Results are generated once, at create, and kept in state; read, update and
  delete do nothing. Every argument forces replacement: ``keepers`` through
  ``RequiresReplaceIfValuesNotNull`` (a new null element does not count),
  ``override_special`` unless it changes from ``""`` to null, the others on
  any change.
* Results come from the operating system's CSPRNG (``secrets``), except
  ``random_integer`` with a ``seed``: the same seed always gives the same
  result. Upstream seeds Go's ``math/rand`` with the seed's CRC-64 (ISO); strata
  seeds Python's Mersenne Twister with the same CRC-64, so a seeded result is
  stable in strata but not the number terraform would pick.
* ``random_string``/``random_password``: the character classes and the
  ``min_*`` guarantees are upstream's (a ``min_*`` count is honoured even when
  its class is disabled, as upstream does); ``number`` (deprecated) and
  ``numeric`` are kept in sync. ``random_password``'s ``result`` and
  ``bcrypt_hash`` are sensitive; ``bcrypt_hash`` is a ``$2a$`` cost-10 hash made
  with the ``bcrypt`` package when installed, otherwise with the C library's
  ``crypt(3)`` (libxcrypt supports bcrypt); with neither it is null.
* Import: ``random_id`` by its ``b64_url`` (optionally ``prefix,b64_url``),
  ``random_string``/``random_password`` by the result string, and
  ``random_integer`` by ``result,min,max`` (optionally ``,seed``).
* Schema versions are upstream's (``random_string`` 2, ``random_password`` 3),
  so state written by terraform is read as is; older versions are upgraded.
"""

from __future__ import annotations

import base64
import binascii
import functools
import importlib
import os
import random as _pyrandom
import re
import secrets
import warnings
from typing import Any

from engine import (
    UNKNOWN,
    ApplyContext,
    Attr,
    Diagnostic,
    FrameworkProvider,
    ModifyPlanRequest,
    Resource,
    ResourceError,
    error,
)

from ._support import map_requires_replace, same_value, whole_number_errors

STRING_MAP = ["map", "string"]

NUM_CHARS = "0123456789"
LOWER_CHARS = "abcdefghijklmnopqrstuvwxyz"
UPPER_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
SPECIAL_CHARS = "!@#$%&*()-_=+[]{}<>:?"


def _keepers() -> Attr:
    return Attr(STRING_MAP, optional=True, requires_replace_if=map_requires_replace,
                description="Arbitrary map of values that, when changed, will trigger recreation of resource.")


def _computed(description: str, sensitive: bool = False) -> Attr:
    return Attr("string", computed=True, use_state_for_unknown=True, sensitive=sensitive,
                description=description)


def _known(*values: Any) -> bool:
    return all(v is not UNKNOWN for v in values)


# ---------------------------------------------------------------------------------------------- random_id


def _raw_url_b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _id_values(data: bytes, prefix: str) -> dict[str, Any]:
    raw = _raw_url_b64(data)
    return {
        "id": raw,
        "b64_url": prefix + raw,
        "b64_std": prefix + base64.b64encode(data).decode(),
        "hex": prefix + data.hex(),
        "dec": prefix + str(int.from_bytes(data, "big")),
    }


class RandomId(Resource):
    type_name = "random_id"
    attributes = {
        "keepers": _keepers(),
        "byte_length": Attr("number", required=True, requires_replace=True,
                            description="The number of random bytes to produce. The minimum value is 1."),
        "prefix": Attr("string", optional=True, requires_replace=True,
                       description="Arbitrary string to prefix the output value with."),
        "b64_url": _computed("The generated id presented in base64, using the URL-friendly character set."),
        "b64_std": _computed("The generated id presented in base64 without additional transformations."),
        "hex": _computed("The generated id presented in padded hexadecimal digits."),
        "dec": _computed("The generated id presented in non-padded decimal digits."),
        "id": _computed("The generated id presented in base64 without additional transformations or prefix."),
    }

    async def validate(self, config: dict[str, Any]) -> list[Diagnostic]:
        out = whole_number_errors(config, ("byte_length",))
        n = config.get("byte_length")
        if isinstance(n, (int, float)) and n < 1:
            out.append(error("Invalid Attribute Value", f"Attribute byte_length value must be at least 1, got: {n}"))
        return out

    async def create(self, planned: dict[str, Any], ctx: ApplyContext) -> dict[str, Any]:
        data = secrets.token_bytes(int(planned["byte_length"]))
        return {**planned, **_id_values(data, planned.get("prefix") or "")}

    async def import_state(self, id: str) -> dict[str, Any] | None:
        prefix, sep, raw = id.rpartition(",")
        if not sep:
            prefix, raw = "", id
        try:
            if not re.fullmatch(r"[A-Za-z0-9_-]*", raw) or len(raw) % 4 == 1:
                raise ValueError(f"illegal base64 data in {raw!r}")
            data = base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4))
        except (ValueError, binascii.Error) as exc:
            raise ResourceError("Import Random ID Error",
                                "While attempting to import a random id there was a decoding error.\n\n"
                                f"Original Error: {exc}") from None
        return {"keepers": None, "byte_length": len(data), "prefix": prefix or None, **_id_values(data, prefix)}


# -------------------------------------------------------------------------------- random_string / password


def generate_string(length: int, upper: bool, min_upper: int, lower: bool, min_lower: int, numeric: bool,
                    min_numeric: int, special: bool, min_special: int, override_special: str | None) -> str:
    """Upstream's algorithm: the ``min_*`` characters of each class, the rest from the enabled classes,
    shuffled."""
    specials = override_special or SPECIAL_CHARS
    pool = ((UPPER_CHARS if upper else "") + (LOWER_CHARS if lower else "")
            + (NUM_CHARS if numeric else "") + (specials if special else ""))
    chars: list[str] = []
    for charset, n in ((NUM_CHARS, min_numeric), (LOWER_CHARS, min_lower), (UPPER_CHARS, min_upper),
                       (specials, min_special)):
        chars.extend(secrets.choice(charset) for _ in range(n))
    rest = length - len(chars)
    if rest > 0:
        if not pool:
            raise ResourceError("Random String Generation Error",
                                "At least one of upper, lower, numeric and special must be true to generate "
                                f"the remaining {rest} characters.")
        chars.extend(secrets.choice(pool) for _ in range(rest))
    secrets.SystemRandom().shuffle(chars)
    return "".join(chars)


def _override_special_replace(old: Any, new: Any) -> bool:
    """``RequiresReplaceUnlessEmptyStringToNull`` (3.4.2 wrongly defaulted override_special to "")."""
    if new is UNKNOWN:
        return False
    return new is not None or old is None or old != ""


_MIN_ATTRS = ("min_upper", "min_lower", "min_numeric", "min_special")


def _string_attributes(sensitive: bool) -> dict[str, Attr]:
    def flag(what: str) -> Attr:
        return Attr("bool", default=True, requires_replace=True,
                    description=f"Include {what} in the result. Default value is `true`.")

    def minimum(what: str) -> Attr:
        return Attr("number", default=0, requires_replace=True,
                    description=f"Minimum number of {what} in the result. Default value is `0`.")

    attrs = {
        "keepers": _keepers(),
        "length": Attr("number", required=True, requires_replace=True,
                       description="The length of the string desired. The minimum value for length is 1 and, "
                                   "length must also be >= (`min_upper` + `min_lower` + `min_numeric` + "
                                   "`min_special`)."),
        "special": flag("special characters (`!@#$%&*()-_=+[]{}<>:?`)"),
        "upper": flag("uppercase alphabet characters"),
        "lower": flag("lowercase alphabet characters"),
        "number": Attr("bool", optional=True, computed=True, requires_replace=True,
                       description="Include numeric characters in the result. Default value is `true`. "
                                   "**NOTE**: This is deprecated, use `numeric` instead."),
        "numeric": Attr("bool", optional=True, computed=True, requires_replace=True,
                        description="Include numeric characters in the result. Default value is `true`."),
        "min_numeric": minimum("numeric characters"),
        "min_upper": minimum("uppercase alphabet characters"),
        "min_lower": minimum("lowercase alphabet characters"),
        "min_special": minimum("special characters"),
        "override_special": Attr("string", optional=True, requires_replace_if=_override_special_replace,
                                 description="Supply your own list of special characters to use for string "
                                             "generation. The `special` argument must still be true for them "
                                             "to be used."),
        "result": _computed("The generated random string.", sensitive=sensitive),
    }
    return attrs


class RandomString(Resource):
    type_name = "random_string"
    version = 2
    attributes = {
        **_string_attributes(sensitive=False),
        "id": _computed("The generated random string."),
    }

    async def validate(self, config: dict[str, Any]) -> list[Diagnostic]:
        out = whole_number_errors(config, ("length", *_MIN_ATTRS))
        length = config.get("length")
        mins = [config.get(n) for n in _MIN_ATTRS]
        for n, v in zip(_MIN_ATTRS, mins, strict=True):
            if isinstance(v, (int, float)) and v < 0:
                out.append(error("Invalid Attribute Value", f"Attribute {n} value must be at least 0, got: {v}"))
        if isinstance(length, (int, float)):
            if length < 1:
                out.append(error("Invalid Attribute Value",
                                 f"Attribute length value must be at least 1, got: {length}"))
            elif _known(*mins) and length < sum(v or 0 for v in mins):
                out.append(error("Invalid Attribute Value",
                                 "Attribute length value must be at least sum of min_upper + min_lower + "
                                 f"min_numeric + min_special, got: {length}"))
        number, numeric = config.get("number"), config.get("numeric")
        if isinstance(number, bool) and isinstance(numeric, bool) and number != numeric:
            out.append(error("Number and numeric are both configured with different values",
                             "Number is deprecated, use numeric instead"))
        return out

    async def modify_plan(self, req: ModifyPlanRequest) -> None:
        if req.plan is None or req.config is None:
            return
        # number and numeric are kept in sync (NumberNumericAttributePlanModifier)
        number, numeric = req.config.get("number"), req.config.get("numeric")
        if number is None and numeric is None:
            number = numeric = True
        elif number is None:
            number = numeric
        elif numeric is None:
            numeric = number
        req.plan["number"], req.plan["numeric"] = number, numeric
        if req.state is not None:
            req.requires_replace = [p for p in req.requires_replace if p not in ("number", "numeric")]
            for name in ("number", "numeric"):
                if not same_value(req.state.get(name), req.plan[name]):
                    req.requires_replace.append(name)

    def _generate(self, planned: dict[str, Any]) -> str:
        return generate_string(
            int(planned["length"]), bool(planned["upper"]), int(planned["min_upper"]), bool(planned["lower"]),
            int(planned["min_lower"]), bool(planned["numeric"]), int(planned["min_numeric"]),
            bool(planned["special"]), int(planned["min_special"]), planned.get("override_special"))

    async def create(self, planned: dict[str, Any], ctx: ApplyContext) -> dict[str, Any]:
        result = self._generate(planned)
        return {**planned, "result": result, "id": result}

    @staticmethod
    def _imported(result: str) -> dict[str, Any]:
        return {"keepers": None, "length": len(result), "special": True, "upper": True, "lower": True,
                "number": True, "numeric": True, "min_numeric": 0, "min_upper": 0, "min_lower": 0,
                "min_special": 0, "override_special": None, "result": result}

    async def import_state(self, id: str) -> dict[str, Any] | None:
        return {**self._imported(id), "id": id}

    def upgrade_state(self, version: int, raw: dict[str, Any]) -> dict[str, Any]:
        return _upgrade_string_state(raw, list(self.attributes))


def _upgrade_string_state(raw: dict[str, Any], names: list[str]) -> dict[str, Any]:
    """Earlier schema versions: nulls left by old imports get their defaults, numeric copies number."""
    out: dict[str, Any] = {n: raw.get(n) for n in names}
    if out.get("length") is None:
        out["length"] = len(out.get("result") or "")
    for n in _MIN_ATTRS:
        if out.get(n) is None:
            out[n] = 0
    for n in ("special", "upper", "lower", "number"):
        if out.get(n) is None:
            out[n] = True
    if out.get("numeric") is None:
        out["numeric"] = out["number"]
    return out


# bcrypt -------------------------------------------------------------------------------------------------

_STD_B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_BCRYPT_B64 = "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
_TO_BCRYPT_B64 = str.maketrans(_STD_B64, _BCRYPT_B64)
BCRYPT_COST = 10  # golang.org/x/crypto/bcrypt.DefaultCost


def _optional_module(name: str) -> Any:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            return importlib.import_module(name)
    except ImportError:
        return None


@functools.cache
def bcrypt_backend() -> str | None:
    """Which bcrypt implementation is available: "bcrypt" (the package), "crypt" (crypt(3)) or None."""
    if _optional_module("bcrypt") is not None:
        return "bcrypt"
    crypt = _optional_module("crypt")
    if crypt is not None:
        probe = crypt.crypt("probe", "$2a$04$" + "a" * 22)
        if isinstance(probe, str) and probe.startswith("$2a$"):
            return "crypt"
    return None


def bcrypt_hash(password: str) -> str | None:
    """A ``$2a$`` bcrypt hash of ``password`` with cost 10, as Go's bcrypt.GenerateFromPassword makes,
    or None when no bcrypt implementation is available. Like classic bcrypt, only the first 72 bytes count."""
    backend = bcrypt_backend()
    if backend == "bcrypt":
        lib = _optional_module("bcrypt")
        hashed: bytes = lib.hashpw(password.encode()[:72], lib.gensalt(BCRYPT_COST, prefix=b"2a"))
        return hashed.decode()
    if backend == "crypt":
        crypt = _optional_module("crypt")
        salt = base64.b64encode(os.urandom(16)).decode().rstrip("=").translate(_TO_BCRYPT_B64)
        out = crypt.crypt(password, f"$2a${BCRYPT_COST:02d}${salt}")
        return out if isinstance(out, str) and out.startswith("$2a$") else None
    return None


def bcrypt_matches(password: str, hashed: str) -> bool | None:
    """Does ``hashed`` verify ``password``? None when that cannot be checked here."""
    backend = bcrypt_backend()
    if backend == "bcrypt":
        lib = _optional_module("bcrypt")
        try:
            return bool(lib.checkpw(password.encode()[:72], hashed.encode()))
        except ValueError:
            return False
    if backend == "crypt":
        out = _optional_module("crypt").crypt(password, hashed)
        return isinstance(out, str) and out == hashed
    return None


class RandomPassword(RandomString):
    type_name = "random_password"
    version = 3
    attributes = {
        **_string_attributes(sensitive=True),
        "bcrypt_hash": _computed("A bcrypt hash of the generated random string.", sensitive=True),
        "id": _computed("A static value used internally by Terraform, this should not be referenced in "
                        "configurations."),
    }

    async def create(self, planned: dict[str, Any], ctx: ApplyContext) -> dict[str, Any]:
        result = self._generate(planned)
        return {**planned, "result": result, "bcrypt_hash": bcrypt_hash(result), "id": "none"}

    async def import_state(self, id: str) -> dict[str, Any] | None:
        return {**self._imported(id), "bcrypt_hash": bcrypt_hash(id), "id": "none"}

    def upgrade_state(self, version: int, raw: dict[str, Any]) -> dict[str, Any]:
        out = _upgrade_string_state(raw, list(self.attributes))
        result = out.get("result") or ""
        hashed = out.get("bcrypt_hash")
        # v0 had no bcrypt_hash; v2's could be wrong (upstream regenerates a hash that does not verify)
        if hashed is None or (version == 2 and bcrypt_matches(result, hashed) is False):
            out["bcrypt_hash"] = bcrypt_hash(result)
        return out


# ----------------------------------------------------------------------------------------- random_integer


def crc64_iso(data: bytes) -> int:
    """Go's ``crc64.Checksum(data, crc64.MakeTable(crc64.ISO))``."""
    crc = 0xFFFFFFFFFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ 0xD800000000000000 if crc & 1 else crc >> 1
    return crc ^ 0xFFFFFFFFFFFFFFFF


def _int64(u: int) -> int:
    return u - (1 << 64) if u >= (1 << 63) else u


class RandomInteger(Resource):
    type_name = "random_integer"
    attributes = {
        "keepers": _keepers(),
        "min": Attr("number", required=True, requires_replace=True,
                    description="The minimum inclusive value of the range."),
        "max": Attr("number", required=True, requires_replace=True,
                    description="The maximum inclusive value of the range."),
        "seed": Attr("string", optional=True, requires_replace=True,
                     description="A custom seed to always produce the same value."),
        "result": Attr("number", computed=True, use_state_for_unknown=True,
                       description="The random integer result."),
        "id": _computed("The string representation of the integer result."),
    }

    async def validate(self, config: dict[str, Any]) -> list[Diagnostic]:
        out = whole_number_errors(config, ("min", "max"))
        lo, hi = config.get("min"), config.get("max")
        if isinstance(lo, (int, float)) and isinstance(hi, (int, float)) and hi < lo:
            out.append(error("Invalid Attribute Value",
                             "The minimum (min) value needs to be smaller than or equal to maximum (max) value."))
        return out

    async def create(self, planned: dict[str, Any], ctx: ApplyContext) -> dict[str, Any]:
        lo, hi = int(planned["min"]), int(planned["max"])
        if hi < lo:
            raise ResourceError("Create Random Integer Error",
                                "The minimum (min) value needs to be smaller than or equal to maximum (max) value.")
        seed = planned.get("seed") or ""
        if seed:
            number = _pyrandom.Random(_int64(crc64_iso(seed.encode()))).randrange(lo, hi + 1)
        else:
            number = lo + secrets.randbelow(hi - lo + 1)
        return {**planned, "result": number, "id": str(number)}

    async def import_state(self, id: str) -> dict[str, Any] | None:
        parts = id.split(",")
        if len(parts) not in (3, 4):
            raise ResourceError("Import Random Integer Error",
                                "Invalid import usage: expecting {result},{min},{max} or {result},{min},{max},{seed}")
        values = []
        for what, text in zip(("value", "min value", "max value"), parts[:3], strict=True):
            try:
                values.append(int(text, 10))
            except ValueError:
                raise ResourceError("Import Random Integer Error",
                                    f"The {what} supplied could not be parsed as an integer.\n\n"
                                    f'Original Error: strconv.ParseInt: parsing "{text}": invalid syntax'
                                    ) from None
        result, lo, hi = values
        return {"keepers": {}, "min": lo, "max": hi, "seed": parts[3] if len(parts) == 4 else None,
                "result": result, "id": parts[0]}


class RandomProvider(FrameworkProvider):
    source = "registry.terraform.io/hashicorp/random"
    resources = (RandomId, RandomString, RandomPassword, RandomInteger)
