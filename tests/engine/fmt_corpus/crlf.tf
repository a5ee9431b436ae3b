locals {
  a = 1
  bb = "two"
}
