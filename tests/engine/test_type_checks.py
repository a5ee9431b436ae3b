"""validate's type checks skip what cannot hold a type mistake (``_nothing_to_find``): literals,
tuples, objects, templates and traversals from names whose types say nothing or one step from a
typed name. Every expression skipped is one the checker finds nothing in."""

from __future__ import annotations

import pytest

from engine.config.type_checks import _nothing_to_find
from engine.lang.hcl import parse_expression
from tests.engine.test_typecheck import _types

SKIPPED = ['"plain"', "1", "[1, var.s]", '{ a = var.l, b = { c = local.upper } }', '"x-${var.n}-${aws_instance.a.id}"',
           "aws_instance.a.tags[\"k\"].v", "each.value.name", "count.index", "path.module", "data.x.y.z[0]",
           "module.m.out.deeper", "aws_instance.a[var.n]", '[{ k = "${var.o}" }]', "var.any"]
CHECKED = ["var.s.x", "var.l[0]", "var.o.b", "local.bad.y", "count.index.x", "path.module.x", "terraform.workspace.x",
           '{ a = 1 }.b', "[1][3]", "upper(var.s)", "var.n + 1", "!var.b", "var.b ? 1 : 2", "[for x in var.l : x]",
           "var.objs[*].id", '"${var.s.x}"', '{ (var.s) = var.l[0] }']


@pytest.mark.parametrize("src", SKIPPED + CHECKED)
def test_what_is_skipped_holds_no_mistake(src: str) -> None:
    e = parse_expression(src, "t.tf", 1)
    if _nothing_to_find(e):
        assert _types().mistakes(e) == [], src


@pytest.mark.parametrize("src", SKIPPED)
def test_plain_arguments_are_skipped(src: str) -> None:
    assert _nothing_to_find(parse_expression(src, "t.tf", 1))


@pytest.mark.parametrize("src", CHECKED)
def test_anything_that_can_be_wrong_is_checked(src: str) -> None:
    assert not _nothing_to_find(parse_expression(src, "t.tf", 1))
