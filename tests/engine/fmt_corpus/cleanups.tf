variable "v" {
  type = map
}
variable "w" {
  type = "map"
}
variable "z" {
  type = set
  default = "${var.q}"
}
resource "a" "b" {
  x = "${var.a}"
  y = "${var.a} "
  z = "${"x"}"
  w = "${var.a}${var.b}"
  variable "inner" {
    type = "string"
  }
}
locals {
  ml = "${
    var.a
  }"
  ml2 = "${(
    var.a
  )}"
}
