"""Built-in providers. Each uses only the public API of ``engine``, exactly as a third-party provider would.

``BUILTIN`` maps a provider's local name to ``module:Class``; modules are imported on first use.
"""

BUILTIN: dict[str, str] = {
    "terraform": "providers.terraform:TerraformProvider",
    "null": "providers.null:NullProvider",
    "random": "providers.random:RandomProvider",
    "local": "providers.local:LocalProvider",
    "sim": "providers.sim:SimProvider",
}
