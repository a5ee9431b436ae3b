data "aws_iam_policy_document" "assume" {
  statement {
    sid = "AssumeRole"
    actions = ["sts:AssumeRole"]

    principals {
      type = "Service"
      identifiers = ["ec2.amazonaws.com"]
    }

    condition {
      test     = "StringEquals"
      variable = "aws:SourceAccount"
      values = [
        data.aws_caller_identity.current.account_id
      ]
    }
  }
}

resource "aws_iam_policy" "p" {
  name   = "p"
  policy = <<-POLICY
    {
      "Version": "2012-10-17",
      "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "${aws_s3_bucket.b.arn}"}]
    }
  POLICY
}

resource "aws_iam_role_policy" "inline" {
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [
      {
        Action = ["ec2:Describe*"]
        Effect   = "Allow"
        Resource = "*"
      },
    ]
  })
}
