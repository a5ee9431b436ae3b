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

BUILTIN_SOURCES: dict[str, str] = {
    "terraform": "terraform.io/builtin/terraform",
    "null": "registry.terraform.io/hashicorp/null",
    "random": "registry.terraform.io/hashicorp/random",
    "local": "registry.terraform.io/hashicorp/local",
    "sim": "strata.local/builtin/sim",
}
"""Each built-in's source address (its class's ``source``), known without importing it: a plugin
installed for the same source serves it instead."""
