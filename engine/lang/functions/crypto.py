"""Cryptographic functions: base64 digests of strings and files (``base64sha256``, ...), ``bcrypt``,
``rsadecrypt``, and the UUIDs ``uuid`` (random, so unknown while planning, as terraform's) and
``uuidv5`` (a name in a namespace, always the same)."""

from __future__ import annotations

import base64
import binascii
import hashlib
import secrets
import uuid as _uuid
import warnings
from collections.abc import Callable
from typing import Any

from engine.diagnostics import FunctionError
from engine.lang.functions.arguments import ArgumentError, _known, _string_arg
from engine.lang.functions.hashing import read_for_hash
from engine.lang.functions.timestamps import CLOCK
from engine.lang.number import whole_number
from engine.values import UNKNOWN


def _b64digest(algo: str) -> Callable[[Any], Any]:
    def digest(s: Any) -> Any:
        return base64.b64encode(hashlib.new(algo, _string_arg(s).encode()).digest()).decode() if _known(s) \
            else UNKNOWN

    digest.__name__ = "base64" + algo
    return digest


def _file_b64digest(algo: str) -> Callable[[Any], Any]:
    def digest(path: Any) -> Any:
        if not _known(path):
            return UNKNOWN
        return base64.b64encode(hashlib.new(algo, read_for_hash(path)).digest()).decode()

    digest.__name__ = "filebase64" + algo
    return digest


_BCRYPT_ALPHABET = "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


def bcrypt(s: Any, *cost: Any) -> Any:
    """The bcrypt hash of ``s`` (``$2a$``, as Go's), with a random salt: unknown while planning."""
    if len(cost) > 1:
        raise FunctionError("bcrypt() takes no more than two arguments.")
    if not _known(s, *cost):
        return UNKNOWN
    rounds = whole_number(cost[0], "cost") if cost else 10
    if rounds < 4:
        rounds = 10  # Go's bcrypt takes a cost below the minimum as the default one
    if rounds > 31:
        raise ArgumentError(1, f"crypto/bcrypt: cost {rounds} is outside allowed range (4,31)")
    if not CLOCK.get().applying:
        return UNKNOWN
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        import crypt  # the C library's bcrypt (Python has none of its own)

        salt = "".join(secrets.choice(_BCRYPT_ALPHABET) for _ in range(21)) + secrets.choice(".Oeu")
        hashed = crypt.crypt(_string_arg(s), f"$2b${rounds:02d}${salt}")
    if not hashed or not hashed.startswith("$2b$"):
        raise FunctionError("error occured generating password bcrypt is not available on this system.")
    return "$2a$" + hashed[4:]


def rsadecrypt(ciphertext: Any, privatekey: Any) -> Any:
    if not _known(ciphertext, privatekey):
        return UNKNOWN
    text, key_text = _string_arg(ciphertext), _string_arg(privatekey)
    try:
        raw = base64.b64decode(text, validate=True)
    except binascii.Error:
        raise ArgumentError(0, f'failed to decode input "{text}": cipher text must be base64-encoded') from None
    try:
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import padding, rsa
    except ImportError:  # pragma: no cover - cryptography is installed with strata
        raise FunctionError("RSA decryption is not available.") from None
    try:
        if "OPENSSH PRIVATE KEY" in key_text:
            key: Any = serialization.load_ssh_private_key(key_text.encode(), None)
        else:
            key = serialization.load_pem_private_key(key_text.encode(), None)
    except (ValueError, TypeError) as exc:
        raise ArgumentError(1, f"invalid private key: {_key_problem(key_text, exc)}") from None
    if not isinstance(key, rsa.RSAPrivateKey):
        raise ArgumentError(1, "invalid private key: not an RSA private key")
    try:
        return key.decrypt(raw, padding.PKCS1v15()).decode()
    except ValueError:
        raise FunctionError("failed to decrypt: crypto/rsa: decryption error.") from None


def _key_problem(text: str, exc: Exception) -> str:
    if "-----BEGIN" not in text:
        return "ssh: no key found"
    return str(exc) or "asn1: structure error"


def uuid() -> Any:
    return str(_uuid.uuid4()) if CLOCK.get().applying else UNKNOWN


_NAMESPACES = {"dns": _uuid.NAMESPACE_DNS, "url": _uuid.NAMESPACE_URL, "oid": _uuid.NAMESPACE_OID,
               "x500": _uuid.NAMESPACE_X500}


def uuidv5(namespace: Any, name: Any) -> Any:
    if not _known(namespace, name):
        return UNKNOWN
    ns_text = _string_arg(namespace)
    ns = _NAMESPACES.get(ns_text)
    if ns is None:
        try:
            ns = _uuid.UUID(ns_text)
        except ValueError:
            raise FunctionError(f"uuidv5() doesn't support namespace {ns_text} "
                                f"({_uuid_problem(ns_text)}).") from None
    return str(_uuid.uuid5(ns, _string_arg(name)))


def _uuid_problem(text: str) -> str:
    if len(text) not in (32, 36, 38, 41, 45):
        return f"invalid UUID length: {len(text)}"
    return "invalid UUID format"


# terraform's signature of each function here (its diagnostics name the parameters): the function
SIGNATURES: dict[str, Callable[..., Any]] = {
    "base64sha256(str)": _b64digest("sha256"),
    "base64sha512(str)": _b64digest("sha512"),
    "bcrypt(str, cost...)": bcrypt,
    "filebase64sha256(path)": _file_b64digest("sha256"),
    "filebase64sha512(path)": _file_b64digest("sha512"),
    "rsadecrypt(ciphertext, privatekey)": rsadecrypt,
    "uuid()": uuid,
    "uuidv5(namespace, name)": uuidv5,
}
