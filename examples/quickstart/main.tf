# A small configuration exercising the core: variables, count, for_each,
# references between instances, create_before_destroy and outputs.
variable "env" {
  default = "dev"
}

locals {
  services = toset(["api", "web"])
}

resource "terraform_data" "network" {
  input = { name = "net-${var.env}", cidr = "10.0.0.0/16" }
}

resource "terraform_data" "node" {
  count            = 3
  input            = format("node-%d.%s", count.index, var.env)
  triggers_replace = [terraform_data.network.id]
}

resource "terraform_data" "service" {
  for_each = local.services
  input    = "${upper(each.key)} on ${join(",", terraform_data.node[*].output)}"

  lifecycle {
    create_before_destroy = true
  }
}

output "node_ids" {
  value = terraform_data.node[*].id
}

output "services" {
  value = { for k, s in terraform_data.service : k => s.output }
}
