locals {
  a = (var.x &&
      var.y)
  b = jsonencode(<<EOT
{"a": ${ var.b }}
EOT
  )
  c = [
    for s in var.subnets : s.id
    if s.public
  ]
  d = [{
    name = "x"
    value = 1
  }, {
    name = "y"
    value = 2
  }]
  e = "tab	inside"   /* multi
  line */
  f = 1
  g = func(a,
    b,
       c)
}

resource "x" "y" {
  dynamic "setting" {
    for_each = var.settings
    labels = [setting.key]
    content {
      name = setting.key
      value    =    setting.value
    }
  }
}
# final comment without newline
