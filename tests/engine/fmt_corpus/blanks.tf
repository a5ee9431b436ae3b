resource "null_resource" "x" {}
resource "null_resource" "y" {
}



resource "null_resource" "z" {
  triggers = {}
}


