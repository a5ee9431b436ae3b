locals {
  a = 1+2
  b = (1 + 2)*3
  c = !var.enabled
  d = var.a>0?var.a:-var.a
  e = var.list[0]
  f = var.map["key"]
  g = {a=1, b=2}
  h = [1,2,3]
  i = [ ]
  j = { }
  k = "${var.a}${var.b}"
  l = "prefix-${var.a}"
  m = "${var.x ? "a" : "b"}"
  n = "${upper("x${var.y}")}"
  o = "%{for s in var.list}${s},%{endfor}"
  p = var.enabled ? toset(["a", "b"]) : []
  q = {
    for name, cfg in var.settings :
    name => cfg
    if cfg.enabled
  }
  r = [
    for x in var.xs : {
      name = x.name
      id = x.id
    }
  ]
  s = try(var.obj.attr, null)
  t = can(regex("^a", var.s))
  u = templatefile("${path.module}/t.tpl", { name = var.name })
  v = 1.5e3
  w = var.a == null ? "" : var.a
  x = lookup(var.m, "k", "default")
  y = coalesce(
    var.a,
    var.b
  )
  z = "${
    var.enabled
    ? "on"
    : "off"
  }"
}
