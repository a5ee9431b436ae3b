region = "eu-west-1"
instance_count = 3
tags = {
  Team = "infra"
  CostCenter = "42"
}
zones = ["a","b"]
