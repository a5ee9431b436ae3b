"""The ``local`` provider (registry.terraform.io/hashicorp/local): ``local_file`` and
``local_sensitive_file`` resources, ``local_file`` and ``local_sensitive_file`` data sources.

Behaviour follows hashicorp/terraform-provider-local 2.x:

* The content comes from exactly one of ``content``, ``sensitive_content``
  (``local_file`` only, deprecated), ``content_base64`` or ``source`` (a file
  to copy). Create makes missing parent directories with
  ``directory_permission`` and writes the file with ``file_permission`` (both
  before the umask; an existing file keeps its mode, as with Go's
  ``os.WriteFile``). ``id`` is the SHA-1 of the content; ``content_md5``,
  ``content_sha1``, ``content_sha256``, ``content_base64sha256``,
  ``content_sha512`` and ``content_base64sha512`` are its checksums. Every
  argument forces replacement. Delete removes the file (a missing file is
  not an error).
* ``local_sensitive_file`` marks ``content`` and ``content_base64``
  sensitive and defaults both permissions to ``"0700"`` (``local_file``:
  ``"0777"``).

Deliberate differences from upstream:

* Drift. Upstream's read drops the object when the file is missing *or* its
  SHA-1 differs from ``id`` (so the plan is a create). Here a missing file
  still reads as gone, but a file edited outside strata reads as the object
  it now is: ``id`` and checksums of the bytes on disk, and the content
  argument in use (``content``, ``sensitive_content`` or ``content_base64``)
  holding those bytes, so the plan shows the difference and replaces the file
  to restore the configured content. With ``source``, the plan also compares
  the source file's current bytes with ``id`` and replaces the copy when they
  differ (upstream never notices a changed source file).
* When the content is known while planning (``content``,
  ``sensitive_content`` or ``content_base64``), ``id`` and the checksums are
  planned as known values instead of "known after apply"; with ``source``
  they stay unknown, since the source file may be written during the apply.
* An invalid ``content_base64`` is reported while planning, not at apply.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
from typing import Any

from engine import (
    UNKNOWN,
    ApplyContext,
    Attr,
    DataSource,
    Diagnostic,
    FrameworkProvider,
    ModifyPlanRequest,
    Resource,
    ResourceError,
    error,
)

CHECKSUM_ATTRS = ("content_md5", "content_sha1", "content_sha256", "content_base64sha256",
                  "content_sha512", "content_base64sha512")


def checksums(data: bytes) -> dict[str, str]:
    """``id`` and the content checksums of ``data``."""
    sha1 = hashlib.sha1(data).hexdigest()
    sha256 = hashlib.sha256(data).digest()
    sha512 = hashlib.sha512(data).digest()
    return {
        "id": sha1,
        "content_md5": hashlib.md5(data).hexdigest(),
        "content_sha1": sha1,
        "content_sha256": sha256.hex(),
        "content_base64sha256": base64.b64encode(sha256).decode(),
        "content_sha512": sha512.hex(),
        "content_base64sha512": base64.b64encode(sha512).decode(),
    }


def _decode_base64(text: str) -> bytes:
    """Go's ``base64.StdEncoding.DecodeString``: padded standard alphabet, nothing else."""
    return base64.b64decode(text.encode(), validate=True)


def _text(data: bytes) -> str:
    """Go's ``string(bytes)`` as a Terraform string: invalid UTF-8 becomes U+FFFD."""
    return data.decode("utf-8", errors="replace")


def _valid_permission(name: str, value: Any) -> list[Diagnostic]:
    if not isinstance(value, str):
        return []
    if len(value) < 3 or len(value) > 4:
        return [error("Invalid File Permission String Value",
                      f'Attribute "{name}": bad mode permission: string length should be 3 or 4 digits: {value}')]
    try:
        mode = int(value, 8)
    except ValueError:
        mode = -1
    if not value.isdigit() or mode < 0 or mode > 0o777:
        return [error("Invalid File Permission String Value",
                      f'Attribute "{name}": bad mode permission: string must be expressed in octal numeric '
                      f"notation: {value}")]
    return []


def _checksum_attrs() -> dict[str, Attr]:
    return {
        "id": Attr("string", computed=True,
                   description="The hexadecimal encoding of the SHA1 checksum of the file content."),
        "content_md5": Attr("string", computed=True, description="MD5 checksum of file content."),
        "content_sha1": Attr("string", computed=True, description="SHA1 checksum of file content."),
        "content_sha256": Attr("string", computed=True, description="SHA256 checksum of file content."),
        "content_base64sha256": Attr("string", computed=True,
                                     description="Base64 encoded SHA256 checksum of file content."),
        "content_sha512": Attr("string", computed=True, description="SHA512 checksum of file content."),
        "content_base64sha512": Attr("string", computed=True,
                                     description="Base64 encoded SHA512 checksum of file content."),
    }


def _file_resource_attrs(sensitive: bool, default_permission: str) -> dict[str, Attr]:
    attrs = {
        "filename": Attr("string", required=True, requires_replace=True,
                         description="The path to the file that will be created. Missing parent directories "
                                     "will be created. If the file already exists, it will be overridden."),
        "content": Attr("string", optional=True, requires_replace=True, sensitive=sensitive,
                        description="Content to store in the file, expected to be a UTF-8 encoded string."),
        "content_base64": Attr("string", optional=True, requires_replace=True, sensitive=sensitive,
                               description="Content to store in the file, expected to be binary encoded as "
                                           "base64 string."),
        "source": Attr("string", optional=True, requires_replace=True,
                       description="Path to file to use as source for the one we are creating."),
        "file_permission": Attr("string", default=default_permission, requires_replace=True,
                                description="Permissions to set for the output file (before umask), in numeric "
                                            f'notation. Default value is `"{default_permission}"`.'),
        "directory_permission": Attr("string", default=default_permission, requires_replace=True,
                                     description="Permissions to set for directories created (before umask), in "
                                                 f'numeric notation. Default value is `"{default_permission}"`.'),
    }
    if not sensitive:
        attrs["sensitive_content"] = Attr(
            "string", optional=True, sensitive=True, requires_replace=True,
            description="Deprecated: use the local_sensitive_file resource instead. Sensitive content to "
                        "store in the file, expected to be a UTF-8 encoded string.")
    attrs.update(_checksum_attrs())
    return attrs


class LocalFile(Resource):
    type_name = "local_file"
    attributes = _file_resource_attrs(sensitive=False, default_permission="0777")
    error_noun = "local file"

    @classmethod
    def content_attrs(cls) -> tuple[str, ...]:
        """The mutually exclusive content arguments, in upstream's order of precedence."""
        names = ("sensitive_content", "content_base64", "source", "content")
        return tuple(n for n in names if n in cls.attributes)

    async def validate(self, config: dict[str, Any]) -> list[Diagnostic]:
        out: list[Diagnostic] = []
        given = [n for n in self.content_attrs() if config.get(n) is not None]
        if len(given) != 1:
            names = ",".join(n for n in ("content", "sensitive_content", "content_base64", "source")
                             if n in self.attributes)
            count = "No attribute" if not given else f"{len(given)} attributes"
            out.append(error("Invalid Attribute Combination",
                             f"{count} specified when one (and only one) of [{names}] is required"))
        b64 = config.get("content_base64")
        if isinstance(b64, str):
            try:
                _decode_base64(b64)
            except (binascii.Error, ValueError) as exc:
                out.append(error("Invalid content_base64", f"content_base64 is not valid base64: {exc}"))
        for name in ("file_permission", "directory_permission"):
            out.extend(_valid_permission(name, config.get(name)))
        return out

    def _desired(self, values: dict[str, Any], read_source: bool) -> bytes | None:
        """The configured content when it can be known now; None otherwise."""
        for name in self.content_attrs():
            v = values.get(name)
            if v is None:
                continue
            if v is UNKNOWN:
                return None
            if name == "content_base64":
                try:
                    return _decode_base64(v)
                except (binascii.Error, ValueError):
                    return None
            if name == "source":
                if not read_source:
                    return None
                try:
                    with open(v, "rb") as f:
                        return f.read()
                except OSError:
                    return None
            return str(v).encode()
        return None

    async def modify_plan(self, req: ModifyPlanRequest) -> None:
        plan = req.plan
        if plan is None:
            return
        if req.state is None:
            data = self._desired(plan, read_source=False)
            if data is not None:
                plan.update(checksums(data))
            return
        if req.requires_replace:
            return
        # with source, the source file changed since the copy was made (an edit of the file itself
        # shows up as a changed content argument, which read reported)
        data = self._desired(plan, read_source=True)
        if data is not None and checksums(data)["id"] != req.state.get("id"):
            for name in ("id", *CHECKSUM_ATTRS):
                plan[name] = UNKNOWN
            req.requires_replace.append("id")

    def _content(self, planned: dict[str, Any]) -> bytes:
        for name in self.content_attrs():
            v = planned.get(name)
            if v is None:
                continue
            if name == "content_base64":
                try:
                    return _decode_base64(v)
                except (binascii.Error, ValueError) as exc:
                    raise ResourceError(f"Create {self.error_noun} error",
                                        "An unexpected error occurred while parsing local file content\n\n"
                                        f"Original Error: {exc}") from None
            if name == "source":
                try:
                    with open(v, "rb") as f:
                        return f.read()
                except OSError as exc:
                    raise ResourceError(f"Create {self.error_noun} error",
                                        "An unexpected error occurred while parsing local file content\n\n"
                                        f"Original Error: {exc}") from None
            return str(v).encode()
        return b""

    async def create(self, planned: dict[str, Any], ctx: ApplyContext) -> dict[str, Any]:
        data = self._content(planned)
        filename = planned["filename"]
        directory = os.path.dirname(filename)
        if directory and not os.path.exists(directory):
            try:
                _make_dirs(directory, int(planned["directory_permission"], 8))
            except OSError as exc:
                raise ResourceError(f"Create {self.error_noun} error",
                                    "An unexpected error occurred while creating file directory\n\n"
                                    f"Original Error: {exc}") from None
        try:
            fd = os.open(filename, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, int(planned["file_permission"], 8))
            with os.fdopen(fd, "wb") as f:
                f.write(data)
        except OSError as exc:
            raise ResourceError(f"Create {self.error_noun} error",
                                "An unexpected error occurred while writing the file\n\n"
                                f"Original Error: {exc}") from None
        return {**planned, **checksums(data)}

    async def read(self, state: dict[str, Any]) -> dict[str, Any] | None:
        filename = state.get("filename")
        if not isinstance(filename, str):
            return state
        try:
            with open(filename, "rb") as f:
                data = f.read()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise ResourceError(f"Read {self.error_noun} error",
                                "An unexpected error occurred while reading the file\n\n"
                                f"Original Error: {exc}") from None
        sums = checksums(data)
        if sums["id"] == state.get("id"):
            return state
        new = {**state, **sums}
        for name in self.content_attrs():
            if state.get(name) is None or name == "source":
                continue
            new[name] = base64.b64encode(data).decode() if name == "content_base64" else _text(data)
        return new

    async def delete(self, state: dict[str, Any]) -> None:
        filename = state.get("filename")
        if isinstance(filename, str):
            try:
                os.remove(filename)
            except FileNotFoundError:
                pass
            except OSError as exc:
                raise ResourceError(f"Delete {self.error_noun} error",
                                    f"An unexpected error occurred while removing the file\n\nOriginal Error: {exc}"
                                    ) from None


def _make_dirs(path: str, mode: int) -> None:
    """Go's ``os.MkdirAll(path, mode)``: every directory created gets ``mode`` (before the umask)."""
    parent = os.path.dirname(path)
    if parent and parent != path and not os.path.exists(parent):
        _make_dirs(parent, mode)
    try:
        os.mkdir(path, mode)
    except FileExistsError:
        if not os.path.isdir(path):
            raise


class LocalSensitiveFile(LocalFile):
    type_name = "local_sensitive_file"
    attributes = _file_resource_attrs(sensitive=True, default_permission="0700")
    error_noun = "local sensitive file"


class LocalFileData(DataSource):
    type_name = "local_file"
    sensitive = False
    attributes = {
        "filename": Attr("string", required=True,
                         description="Path to the file that will be read. The data source will return an "
                                     "error if the file does not exist."),
        "content": Attr("string", computed=True, description="Raw content of the file that was read, as UTF-8 "
                                                             "encoded string."),
        "content_base64": Attr("string", computed=True,
                               description="Base64 encoded version of the file content."),
        **_checksum_attrs(),
    }

    async def read(self, config: dict[str, Any]) -> dict[str, Any]:
        filename = config.get("filename")
        try:
            with open(str(filename), "rb") as f:
                data = f.read()
        except OSError as exc:
            noun = "local sensitive file" if self.sensitive else "local file"
            raise ResourceError(f"Read {noun} data source error",
                                f"The file at given path cannot be read.\n\nOriginal Error: {exc}") from None
        return {"filename": filename, "content": _text(data),
                "content_base64": base64.b64encode(data).decode(), **checksums(data)}


class LocalSensitiveFileData(LocalFileData):
    type_name = "local_sensitive_file"
    sensitive = True
    attributes = {
        **LocalFileData.attributes,
        "content": Attr("string", computed=True, sensitive=True,
                        description="Raw content of the file that was read, as UTF-8 encoded string."),
        "content_base64": Attr("string", computed=True, sensitive=True,
                               description="Base64 encoded version of the file content."),
    }


class LocalProvider(FrameworkProvider):
    source = "registry.terraform.io/hashicorp/local"
    resources = (LocalFile, LocalSensitiveFile)
    data_sources = (LocalFileData, LocalSensitiveFileData)
