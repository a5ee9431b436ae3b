resource aws_instance web {
	ami = "ami-123"
	# comment-only line
	instance_type = "t3.micro"
	ebs_block_device { device_name = "/dev/sdh" }
	network_interface {
	}
	tags = {
		"Name"     = "héllo wörld"
		Ünïcode = 1
		x: 2
	}
	user_data = <<-EOT
	#!/bin/bash
	%{ for p in var.packages ~}
	apt-get install ${p}
	%{ endfor ~}
	EOT
	values = [<<EOT
one
EOT
	, "two"]
}

locals {
  neg = [-1, a - -1, f(-1), -var.x, 2*-3, (-1)]
  esc = "\"${a}\" $${literal} %%{x} \\ \n"
  nested = "${ {a=1}.a }"
  strip = "${~ a ~}"
  ternary = (
    var.a
    ? 1
    : 2
  )
  key = {(var.k) = 1, "s" = 2}
  long_value = {
    a = 1
    bb = {
      c = 2
    }
    ddd = 3
    e = [
      1,
    ]
    ffff = 4 # c1
    g = 5 // c2
  }
  call = merge(
    var.a, # first
    var.b, /* second */
    { c = 1 },
  )
  pf = provider::aws::arn_parse("x")
  splat = var.list[*].id
  splat2 = var.list.*.id
  legacy = foo.0.bar
  idx = var.m["k"][0]
  forobj = {for k, v in var.m: (k) => v if v != null}
  fortup = [for i, v in var.l: v]
  empty = ""
  ob = {}
  op = a+b-c*d/e%f
  cmp = a==b && c!=d || e<f || g>h || i<=j || k>=l
  not = !a
}

module "m" {
  source = "./mod"
  for_each = toset(["a"])
  depends_on = [aws_instance.web]
}
