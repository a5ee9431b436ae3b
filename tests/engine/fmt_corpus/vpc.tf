terraform {
  required_version = ">= 1.3"
  required_providers {
    aws = {
      source = "hashicorp/aws"
      version = ">= 5.0"
    }
  }
}

locals {
  azs = slice(data.aws_availability_zones.available.names, 0, 3)
  public_subnets  =  [for k, v in local.azs : cidrsubnet(var.vpc_cidr, 8, k)]
  private_subnets = [for k, v in local.azs : cidrsubnet(var.vpc_cidr, 8, k + 10)]
	tags = merge(var.tags, {
		Name = var.name
		"kubernetes.io/cluster/${var.cluster}" = "shared"
	})
}

resource "aws_subnet" "public" {
  count = length(local.public_subnets)

  vpc_id = aws_vpc.this.id
  cidr_block = local.public_subnets[count.index]
  availability_zone = element(local.azs, count.index)
  map_public_ip_on_launch = true   # public

  tags = merge(
    local.tags,
    {
      Name = format("%s-public-%s", var.name, element(local.azs, count.index))
    },
  )
}

resource "aws_security_group" "this" {
  name = "${var.name}-sg"
  dynamic "ingress" {
    for_each = var.ingress_rules
    iterator = rule
    content {
      from_port = rule.value.from
      to_port = rule.value.to
      protocol = "tcp"
      cidr_blocks = rule.value.cidrs
    }
  }
  egress { 
    from_port = 0 
    to_port = 0
  }
}

output "subnet_ids" {
  value = aws_subnet.public[*].id
  description = "The IDs"
}
output "first" { value = "${aws_subnet.public.0.id}" }
