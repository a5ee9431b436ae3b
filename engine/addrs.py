"""Addresses of module instances, resources and resource instances.

``module.net[0].module.subnet`` is a :class:`ModulePath`; ``module.net[0].terraform_data.a`` a
:class:`ResourceAddr` in it, and ``module.net[0].terraform_data.a["k"]`` an :class:`InstanceAddr`.
Everything in the root module has the path :data:`ROOT`, whose string is empty. A provider is
known by its :class:`ProviderSource` (``registry.terraform.io/hashicorp/null``), and one of its
configurations by a :class:`ProviderConfigAddr` (``provider["registry.terraform.io/hashicorp/null"].west``).
These are the in-memory forms; the state's ``module``, ``provider`` and ``dependencies`` fields,
the plan file, the journal and the event stream are encodings of them, made and read at those
edges with ``str()`` and the parsers here.
"""

from __future__ import annotations

import re
from dataclasses import field

import orjson

from engine.frozen import frozen

InstanceKey = int | str | None
"""``None`` for a resource without count/for_each, ``int`` for count, ``str`` for for_each."""


@frozen
class ModulePath:
    """A module instance: the steps from the root, each a module call's name and the instance
    key its count or for_each gave (``None`` for a single instance). The root is ``()``.

    Invariant: a step's key is ``None``, an ``int`` (count) or a ``str`` (for_each)."""

    steps: tuple[tuple[str, InstanceKey], ...] = ()
    _str: str | None = field(default=None, init=False, repr=False, compare=False)
    _sort: tuple[tuple[str, int, int | str], ...] | None = field(default=None, init=False, repr=False,
                                                                 compare=False)

    @property
    def is_root(self) -> bool:
        return not self.steps

    def child(self, name: str, key: InstanceKey = None) -> ModulePath:
        return ModulePath(self.steps + ((name, key),))

    @property
    def parent(self) -> ModulePath:
        if not self.steps:
            raise ValueError("the root module has no parent")
        return ModulePath(self.steps[:-1])

    def sort_key(self) -> tuple[tuple[str, int, int | str], ...]:
        got = self._sort
        if got is None:  # every address of a module instance sorts by it: once
            got = tuple((n, *_key_sort(k)) for n, k in self.steps)
            object.__setattr__(self, "_sort", got)
        return got

    def __lt__(self, other: ModulePath) -> bool:
        return self.sort_key() < other.sort_key()

    def __str__(self) -> str:
        got = self._str
        if got is None:
            got = ".".join(f"module.{n}{format_key(k)}" for n, k in self.steps)
            object.__setattr__(self, "_str", got)
        return got


ROOT = ModulePath()
"""The root module's path: every address outside a module has it."""


def _key_sort(k: InstanceKey) -> tuple[int, int | str]:
    if k is None:
        return (0, 0)
    if isinstance(k, int):
        return (1, k)
    return (2, k)


@frozen(order=True)
class ResourceAddr:
    """A resource: ``TYPE.NAME`` (``data.TYPE.NAME`` for data resources), in the module instance
    ``module`` (``module.a[0].TYPE.NAME``; the root for everything outside a module)."""

    type: str
    name: str
    mode: str = "managed"
    module: ModulePath = ROOT
    _hash: int = field(default=0, init=False, repr=False, compare=False)
    _str: str = field(default="", init=False, repr=False, compare=False)
    _instances: dict[InstanceKey, InstanceAddr] = field(default_factory=dict, init=False, repr=False,
                                                        compare=False)

    def __post_init__(self) -> None:
        # addresses are dict keys on every hot path: hash once
        h = hash((self.type, self.name, self.mode))
        object.__setattr__(self, "_hash", h if self.module is ROOT else hash((h, self.module)))

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        # the generated __eq__ builds and compares two tuples; this one is on every dict lookup
        # with an equal but distinct address (graph building: 3% of a 10k apply)
        if self is other:
            return True
        if type(other) is not ResourceAddr:
            return NotImplemented
        return (self._hash == other._hash and self.name == other.name and self.type == other.type
                and self.mode == other.mode and (self.module is other.module or self.module == other.module))

    def __str__(self) -> str:
        s = self._str
        if not s:  # made once: every object the state writes names its dependencies by it
            prefix = "data." if self.mode == "data" else ""
            if self.module is not ROOT and self.module.steps:
                prefix = f"{self.module}.{prefix}"
            s = f"{prefix}{self.type}.{self.name}"
            object.__setattr__(self, "_str", s)
        return s

    def instance(self, key: InstanceKey = None) -> InstanceAddr:
        """The instance's address, one object per key of this ResourceAddr: the state, the
        refresh, the plan and the apply share it, and with it its string and its UI JSON, each
        built once (a fresh address per use was a tenth of a no-change plan at 100k)."""
        got = self._instances.get(key)
        if got is None:
            got = self._instances[key] = InstanceAddr(self, key)
        return got


_INTERNED: dict[tuple[str, str, str, ModulePath], ResourceAddr] = {}


def resource_addr(type_: str, name: str, mode: str = "managed", module: ModulePath = ROOT) -> ResourceAddr:
    """The one ResourceAddr of a resource: the configuration, references, the state and the plan
    all get the same object, so a dict lookup by it hits on identity (no Python-level __eq__).
    Hot path; the table grows with the number of distinct resources (a CLI run's lifetime)."""
    k = (type_, name, mode, module)
    a = _INTERNED.get(k)
    if a is None:
        if module == ROOT:
            module = ROOT  # one root object: equality of root addresses stays an identity test
        a = _INTERNED[k] = ResourceAddr(type_, name, mode, module)
    return a


def format_key(key: InstanceKey) -> str:
    if key is None:
        return ""
    if isinstance(key, int):
        return f"[{key}]"
    return "[" + orjson.dumps(key).decode() + "]"


@frozen
class InstanceAddr:
    """One instance of a resource: ``TYPE.NAME``, ``TYPE.NAME[0]`` or ``TYPE.NAME["k"]``."""

    resource: ResourceAddr
    key: InstanceKey = None
    _hash: int = field(default=0, init=False, repr=False, compare=False)
    _str: str = field(default="", init=False, repr=False, compare=False)
    _ui: dict[str, object] | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_hash", hash((self.resource._hash, self.key)))

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if type(other) is not InstanceAddr:
            return NotImplemented
        return self._hash == other._hash and self.key == other.key and self.resource == other.resource

    def __str__(self) -> str:
        s = self._str
        if not s:
            s = str(self.resource) + format_key(self.key)
            object.__setattr__(self, "_str", s)
        return s

    def sort_key(self) -> tuple[object, ...]:
        r = self.resource
        k = self.key
        # the root's instances first, then by module depth, as terraform's ModuleInstance.Less
        m = () if r.module is ROOT else (len(r.module.steps), r.module.sort_key())
        if k is None:
            return (m, r.type, r.name, 0, 0)
        if isinstance(k, int):
            return (m, r.type, r.name, 1, k)
        return (m, r.type, r.name, 2, k)


_KEY = r'(?:\[(?:(\d+)|"((?:[^"\\]|\\.)*)")\])?'
_MODULE_STEP_RE = re.compile(r'module\.([A-Za-z_][A-Za-z0-9_-]*)' + _KEY + r'(?:\.|$)')
_ADDR_RE = re.compile(r'^(?:(data)\.)?([A-Za-z_][A-Za-z0-9_-]*)\.([A-Za-z_][A-Za-z0-9_-]*)' + _KEY + '$')


def _key_of(index: str | None, name: str | None) -> InstanceKey:
    if index is not None:
        return int(index)
    if name is not None:
        key: str = orjson.loads('"' + name + '"')
        return key
    return None


def split_module_path(text: str) -> tuple[ModulePath, str]:
    """``module.a[0].module.b.rest`` → (that module path, ``rest``); text without a ``module.``
    prefix is in the root. Raises ``ValueError`` for a malformed module step."""
    steps: list[tuple[str, InstanceKey]] = []
    pos = 0
    while text.startswith("module.", pos):
        m = _MODULE_STEP_RE.match(text, pos)
        if not m:
            raise ValueError(f'invalid module address in "{text}"')
        steps.append((m.group(1), _key_of(m.group(2), m.group(3))))
        pos = m.end()
    return (ModulePath(tuple(steps)) if steps else ROOT), text[pos:]


def parse_module_path(text: str) -> ModulePath:
    """``module.a[0].module.b`` (as in the state's ``module`` field); ``""`` is the root."""
    path, rest = split_module_path(text.strip())
    if rest:
        raise ValueError(f'invalid module address "{text}"')
    return path


def module_contains(target: ModulePath, path: ModulePath) -> bool:
    """Is the module instance ``path`` (or a module under it) in ``target``, as a ``-target`` or
    ``state rm`` of a module names it? A step of ``target`` without a key takes every instance of
    its call (``module.a`` is ``module.a[0]`` and ``module.a[1]`` too), as terraform's."""
    if len(target.steps) > len(path.steps):
        return False
    for (tn, tk), (pn, pk) in zip(target.steps, path.steps, strict=False):
        if tn != pn or (tk is not None and tk != pk):
            return False
    return True


def parse_target(text: str) -> InstanceAddr | ModulePath:
    """A ``-target`` (or ``state rm``) address: a resource or instance (``module.a.TYPE.NAME[0]``)
    or a whole module (``module.a``, ``module.a[0].module.b``). Raises ``ValueError``."""
    try:
        path, rest = split_module_path(text.strip())
    except ValueError:
        raise ValueError(f'invalid resource address "{text}"') from None
    if not rest and path.steps:
        return path
    return parse_instance_addr(text)


def parse_instance_addr(text: str) -> InstanceAddr:
    """Parse an instance address as a user types it on the command line, module path included
    (``module.a[0].TYPE.NAME["k"]``).

    Raises ``ValueError`` with a message naming the text when it is not an address.
    """
    try:
        module, rest = split_module_path(text.strip())
    except ValueError:
        raise ValueError(f'invalid resource instance address "{text}"') from None
    m = _ADDR_RE.match(rest)
    if not m:
        raise ValueError(f'invalid resource instance address "{text}"')
    mode = "data" if m.group(1) else "managed"
    if mode == "managed" and m.group(2) == "data":
        raise ValueError(f'invalid resource instance address "{text}": a data resource is data.TYPE.NAME')
    res = resource_addr(m.group(2), m.group(3), mode, module)
    if m.group(4) is not None:
        return InstanceAddr(res, int(m.group(4)))
    if m.group(5) is not None:
        return InstanceAddr(res, orjson.loads('"' + m.group(5) + '"'))
    return InstanceAddr(res, None)


def parse_resource_addr(s: str) -> ResourceAddr | None:
    """``TYPE.NAME`` or ``data.TYPE.NAME``, after a module path if any, as recorded in state
    ``dependencies``; None otherwise."""
    module: ModulePath = ROOT
    if s.startswith("module."):
        try:
            module, s = split_module_path(s)
        except ValueError:
            return None
    parts = s.split(".")
    if len(parts) == 2:
        return resource_addr(parts[0], parts[1], "managed", module)
    if len(parts) == 3 and parts[0] == "data":
        return resource_addr(parts[1], parts[2], "data", module)
    return None


def config_text(r: ResourceAddr) -> str:
    """``r`` as the state's ``dependencies`` record it: its module path without instance keys
    (terraform's ConfigResource: ``module.m.terraform_data.a`` for every instance of ``m``)."""
    if r.module is ROOT or not r.module.steps:
        return str(r)
    mod = ".".join(f"module.{n}" for n, _k in r.module.steps)
    return f"{mod}.{'data.' if r.mode == 'data' else ''}{r.type}.{r.name}"


DATA_SCHEMA_PREFIX = "data."


def schema_key(r: ResourceAddr) -> str:
    """The key ``r``'s schema is asked by where only a type name is passed (the state codec's
    attribute types): its type, prefixed ``data.`` for a data source, whose schema is not its
    managed namesake's (``terraform_remote_state``'s dynamic ``outputs`` is stored with its
    type, as terraform's)."""
    return r.type if r.mode == "managed" else DATA_SCHEMA_PREFIX + r.type


def config_resource(r: ResourceAddr) -> ResourceAddr:
    """``r`` as a configuration resource, terraform's ConfigResource: its module path without
    instance keys (``module.m.terraform_data.a`` for every instance of ``m``). What the state's
    ``dependencies`` name; ``str()`` of the result is :func:`config_text` of ``r``."""
    if r.module is ROOT or not any(k is not None for _n, k in r.module.steps):
        return r
    return resource_addr(r.type, r.name, r.mode, ModulePath(tuple((n, None) for n, _k in r.module.steps)))


_DEPENDENCIES: dict[str, ResourceAddr] = {}


def parse_dependencies(texts: list[str]) -> tuple[ResourceAddr, ...]:
    """A state ``dependencies`` list (:func:`parse_dependency` of each). Hot path: once per object
    of a state loaded, each text met before found without a call."""
    known = _DEPENDENCIES
    return tuple([known.get(t) or parse_dependency(t) for t in texts])


def dependency_texts(deps: tuple[ResourceAddr, ...]) -> list[str]:
    """``deps`` as the state's ``dependencies`` record them. Hot path: once per object written."""
    return [r._str or str(r) for r in deps]


def parse_dependency(text: str) -> ResourceAddr:
    """A state ``dependencies`` entry (``module.m.data.TYPE.NAME``) as the configuration resource
    it names (:func:`config_resource`: module instance keys, if any, dropped as terraform drops
    them). Raises ``ValueError`` for anything else, an instance key on the resource included.
    Hot path (every object of a state loaded): each distinct text is parsed once."""
    got = _DEPENDENCIES.get(text)
    if got is None:
        module, rest = ROOT, text
        if text.startswith("module."):
            try:
                module, rest = split_module_path(text)
            except ValueError:
                raise ValueError(f'invalid resource address "{text}"') from None
        m = _ADDR_RE.match(rest)
        if not m or m.group(4) is not None or m.group(5) is not None \
                or (m.group(1) is None and m.group(2) == "data"):
            raise ValueError(f'invalid resource address "{text}"')
        got = resource_addr(m.group(2), m.group(3), "data" if m.group(1) else "managed", module)
        if module is not ROOT:
            got = config_resource(got)
        _DEPENDENCIES[text] = got
    return got


DEFAULT_REGISTRY_HOST = "registry.terraform.io"
BUILTIN_HOST = "terraform.io"
_PROVIDER_PART = re.compile(r"[0-9a-z](?:[0-9a-z-]*[0-9a-z])?\Z")
_HOST_LABEL = re.compile(r"[0-9a-z](?:[0-9a-z-]*[0-9a-z])?\Z")


@frozen(order=True)
class ProviderSource:
    """A provider's source address, ``HOST/NAMESPACE/TYPE`` (``registry.terraform.io/hashicorp/null``):
    what the lock file, ``.terraform/providers`` and the state's ``provider["…"]`` name. Always in
    terraform's normal form: lower case, the host in its ASCII (punycode) form, never the legacy
    namespace ``-`` (but in the address of a provider configuration read from a state older than
    terraform 0.13: :class:`ProviderConfigAddr`). ``str()`` is the full address; :meth:`for_display` leaves out the default host."""

    host: str
    namespace: str
    type: str

    def __str__(self) -> str:
        return f"{self.host}/{self.namespace}/{self.type}"

    def for_display(self) -> str:
        """terraform's short form: ``hashicorp/null``, the host only when it is not the registry's."""
        short = f"{self.namespace}/{self.type}"
        return short if self.host == DEFAULT_REGISTRY_HOST else f"{self.host}/{short}"

    @property
    def is_builtin(self) -> bool:
        """``terraform.io/builtin/TYPE``: served by terraform itself, never installed."""
        return self.host == BUILTIN_HOST and self.namespace == "builtin"


def implied_provider_source(local_name: str) -> ProviderSource:
    """The source terraform gives a provider no ``required_providers`` entry names: ``hashicorp/NAME``,
    and ``terraform.io/builtin/terraform`` for ``terraform``."""
    if local_name == "terraform":
        return ProviderSource(BUILTIN_HOST, "builtin", "terraform")
    return ProviderSource(DEFAULT_REGISTRY_HOST, "hashicorp", local_name)


def parse_provider_source(text: str) -> ProviderSource:
    """``[HOST/][NAMESPACE/]TYPE`` in terraform's normal form (lower case; the namespace
    ``hashicorp`` and the host ``registry.terraform.io`` where left out). What terraform refuses is
    a ValueError whose ``args`` are terraform's summary and detail (addrs is below the error tree,
    so the caller makes the diagnostic)."""
    parts = text.split("/")
    if not text or len(parts) > 3 or any(p == "" for p in parts):
        raise ValueError("Invalid provider source string",
                                  'The "source" attribute must be in the format "[hostname/][namespace/]name"')
    type_ = parts[-1].lower()
    if not _PROVIDER_PART.match(type_):
        raise ValueError("Invalid provider type",
                                  f'Invalid provider type "{parts[-1]}" in source "{text}": must contain only '
                                  "letters, digits, and dashes, and may not use leading or trailing dashes\"")
    namespace = "hashicorp"
    if len(parts) >= 2:
        namespace = parts[-2].lower()
        if namespace == "-":
            if len(parts) == 3 and parts[0].lower() != DEFAULT_REGISTRY_HOST:
                raise ValueError("Invalid provider namespace",
                                          'The legacy provider namespace "-" can be used only with hostname '
                                          f"{DEFAULT_REGISTRY_HOST}.")
            raise ValueError("Invalid legacy provider address",
                                      f'This configuration or its associated state refers to the unqualified '
                                      f'provider "{type_}".\n\nYou must complete the Terraform 0.13 upgrade '
                                      "process before upgrading to later versions.")
        if not _PROVIDER_PART.match(namespace):
            # terraform's message shows the namespace as "" (it formats the failed result, not the input)
            raise ValueError("Invalid provider namespace",
                                      f'Invalid provider namespace "" in source "{text}": must contain only '
                                      "letters, digits, and dashes, and may not use leading or trailing "
                                      'dashes"')
    host = DEFAULT_REGISTRY_HOST
    if len(parts) == 3:
        host = _normal_host(parts[0], text)
    if type_.startswith("terraform-"):
        if type_.startswith("terraform-provider-") and _PROVIDER_PART.match(type_[len("terraform-provider-"):]):
            suggested = ProviderSource(host, namespace, type_[len("terraform-provider-"):])
            raise ValueError("Invalid provider type",
                                      f'Provider source "{ProviderSource(host, namespace, type_).for_display()}" '
                                      'has a type with the prefix "terraform-provider-", which isn\'t valid. '
                                      "Although that prefix is often used in the names of version control "
                                      "repositories for Terraform providers, provider source strings should not "
                                      f'include it.\n\nDid you mean "{suggested.for_display()}"?')
        raise ValueError("Invalid provider type",
                                  f'Provider source "{ProviderSource(host, namespace, type_)}" has a type with '
                                  'the prefix "terraform-", which isn\'t allowed because it would be redundant '
                                  "to name a Terraform provider with that prefix. If you are the author of this "
                                  "provider, rename it to not include the prefix.")
    return ProviderSource(host, namespace, type_)


def _normal_host(given: str, text: str) -> str:
    """A hostname (an optional ``:port``) as terraform compares them: IDNA, lower case."""
    name, _, port = given.partition(":")
    try:
        ascii_name = name.encode("idna").decode("ascii").lower() if not name.isascii() else name.lower()
    except UnicodeError as exc:
        ascii_name, problem = "", str(exc)
    else:
        bad = next((c for c in ascii_name if not (c.isalnum() or c in "-.")), None)
        problem = f"idna: disallowed rune U+{ord(bad):04X}" if bad else ""
        if not problem and not all(_HOST_LABEL.match(label) for label in ascii_name.split(".")):
            problem = "idna: invalid label"
        if not problem and port and not (port.isdigit() and 0 < int(port) < 65536):
            problem = f"invalid port {port!r}"
    if problem:
        raise ValueError("Invalid provider source hostname",
                                  f'Invalid provider source hostname namespace "" in source "{text}": {problem}"')
    return ascii_name + (f":{port}" if port and port != "443" else "")


@frozen
class ProviderConfigAddr:
    """A provider configuration, terraform's AbsProviderConfig: the provider ``source``, in the
    module ``module`` (a path without instance keys), with its ``alias`` (None: the default
    configuration). ``str()`` is terraform's syntax, as the state's ``provider`` field, the plan
    file and the JSON outputs record it: ``provider["registry.terraform.io/hashicorp/aws"]``,
    ``module.m.provider["registry.terraform.io/hashicorp/aws"].west``.

    Invariant: ``module`` has no instance keys; ``alias`` is None or not empty. A legacy address of
    a state written before terraform 0.13 (``provider.aws``) has the namespace ``-``, as terraform
    reads it (and writes it back: ``provider["registry.terraform.io/-/aws"]``)."""

    source: ProviderSource
    alias: str | None = None
    module: ModulePath = ROOT
    _str: str = field(default="", init=False, repr=False, compare=False)

    def __str__(self) -> str:
        s = self._str
        if not s:  # hot path: once per record of the state journal
            s = f'provider["{self.source}"]'
            if self.alias is not None:
                s = f"{s}.{self.alias}"
            if self.module is not ROOT and self.module.steps:
                s = f"{self.module}.{s}"
            object.__setattr__(self, "_str", s)
        return s

    @property
    def local_key(self) -> str:
        """The key terraform implies for it: the provider's type, then the alias (``aws.west``), as
        a ``provider`` argument names it (:meth:`engine.provider.registry.Providers.key_for`
        prefers the local name ``required_providers`` gives its source)."""
        return f"{self.source.type}.{self.alias}" if self.alias is not None else self.source.type


_PROVIDER_CONFIG_RE = re.compile(r'provider(?:\["([^"]*)"\]|\.([0-9A-Za-z_-]+))(?:\.([A-Za-z_][0-9A-Za-z_-]*))?\Z')
_PROVIDER_CONFIGS: dict[str, ProviderConfigAddr] = {}


def provider_config_addr(source: ProviderSource, alias: str | None = None,
                         module: ModulePath = ROOT) -> ProviderConfigAddr:
    """The address of a provider configuration; the root's path is :data:`ROOT` itself."""
    if module == ROOT:
        module = ROOT
    return ProviderConfigAddr(source, alias or None, module)


def parse_provider_config_addr(text: str) -> ProviderConfigAddr:
    """terraform's syntax of a provider configuration's address, as in the state's ``provider``
    field (:class:`ProviderConfigAddr`), the legacy ``provider.TYPE[.ALIAS]`` of old states
    included. Raises ``ValueError`` naming ``text``. Hot path (every resource of a state loaded,
    every journal record replayed): each distinct text is parsed once, and gives one object."""
    got = _PROVIDER_CONFIGS.get(text)
    if got is not None:
        return got
    bad = ValueError(f'invalid provider configuration address "{text}"')
    try:
        module, rest = split_module_path(text)
    except ValueError:
        raise bad from None
    m = _PROVIDER_CONFIG_RE.match(rest)
    if not m or any(k is not None for _n, k in module.steps):
        raise bad
    quoted, legacy, alias = m.groups()
    if legacy is not None:
        source = ProviderSource(DEFAULT_REGISTRY_HOST, "-", legacy.lower())
    else:
        parts = quoted.split("/")
        if len(parts) == 3 and all(parts) and quoted == quoted.lower():
            source = ProviderSource(*parts)  # the normal form: as written (the common case)
        else:
            try:
                source = parse_provider_source(quoted)
            except ValueError:
                raise bad from None
    got = _PROVIDER_CONFIGS[text] = provider_config_addr(source, alias, module)
    return got


def provider_source_of(text: str) -> ProviderSource:
    """A provider's ``source`` as it states it (``registry.terraform.io/hashicorp/null``): taken as
    written when it has its three parts, else completed as a ``required_providers`` source is."""
    parts = text.split("/")
    if len(parts) == 3 and all(parts):
        return ProviderSource(*parts)
    return parse_provider_source(text)
