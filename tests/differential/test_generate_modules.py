"""The module and null-plugin layout of generated cases, and compare's module addresses
(no command is run)."""

from __future__ import annotations

from tests.differential import generate as plain
from tests.differential.compare import _name_of, _resource_of, config_edges, present_resources
from tests.differential.generate_modules import ModularCase, generate


def test_a_seed_without_module_or_null_plugin_is_the_plain_case() -> None:
    laid_out = [generate(seed) for seed in range(200)]
    assert all(c == plain.generate(c.seed) for c in laid_out if not isinstance(c, ModularCase))
    assert sum(isinstance(c, ModularCase) for c in laid_out) in range(60, 140)


def test_layout_is_the_same_for_the_same_seed() -> None:
    assert [generate(seed) for seed in range(40)] == [generate(seed) for seed in range(40)]


def test_module_cases_call_the_module_and_name_its_instances_in_options() -> None:
    cases = [c for c in map(generate, range(200)) if isinstance(c, ModularCase) and c.files1]
    assert cases, "no seed in 0..199 places resources in a module"
    for c in cases:
        assert 'module "m" {\n  source = "./m"' in c.v1 and [p for p, _ in c.files1] == ["m/main.tf"]
    module_opts = [o for c in cases for o in c.options if "=module.m" in o]
    assert module_opts, "no -replace/-target names a resource in the module"


def test_null_cases_require_the_null_plugin_and_use_triggers() -> None:
    cases = [c for c in map(generate, range(200)) if isinstance(c, ModularCase) and c.plugins]
    assert cases
    for c in cases:
        text = c.v1 + "".join(t for _, t in c.files1)
        assert 'source = "hashicorp/null", version = "2.1.2"' in text
        assert 'resource "null_resource"' in text and "triggers = {" in text


def test_module_addresses_name_resources_without_instance_keys() -> None:
    assert _resource_of('module.m["x"].terraform_data.r1["a"]') == "module.m.terraform_data.r1"
    assert _name_of("module.m[0].null_resource.r12[2]") == "r12"
    state = {"resources": [{"module": "module.m[1]", "type": "null_resource", "name": "r2",
                            "instances": [{"index_key": 0}]}]}
    assert present_resources(state) == {"module.m.null_resource.r2"}


def test_config_edges_follow_references_through_module_variables_and_outputs() -> None:
    root = ('resource "terraform_data" "r3" {\n  input = {\n    r1_id = module.m[*].r1_id\n'
            '    r2_output = terraform_data.r2.output\n  }\n}\n')
    inner = 'resource "null_resource" "r1" {\n  triggers = {\n    r0_id = jsonencode(var.r0_id)\n  }\n}\n'
    assert config_edges(root, inner) == {("r3", "r1"), ("r3", "r2"), ("r1", "r0")}
