# hi
resource aws_instance "web"   {
	  ami = "${var.ami}"   // the image
  instance_type="t3.micro" # size
  count   =   2
  tags   = {
    Name = "web"
    Environment    = "${var.env}-x"
  }

  user_data = <<EOT
  hello ${ var.x }
    world
EOT
  list = [for a in var.b: upper(a) if a != ""] 
 m = {for k, v in var.m : k => v...}
  n = -1 + 2 * -x
  o = [
    1,
      2,
  ]
  /* block */
  lifecycle {
  ignore_changes = [tags]
	  }
      }   
	
variable "x" {
 type ="string" 
  }
variable "y" {
  type = list
 }
   locals {
	  a = x.*.id
   b = x[*].id
    c = a ? b : c
  d = f(a,b...)
  e = "${
    a ? b : c
  }"
   f = "a%{ if x ~}b%{~ endif}"
} 
    