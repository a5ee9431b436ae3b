locals {
  a = <<EOT
  x
EOT
  # c
  bb = 2 # t
}
