/*
 * A multi-line block comment
 */

// A line comment
# a hash comment
variable "name" {   # trailing on the header
  type    = string # kind
  default = "x" // default
  description = "a longer one"   /* inline */
}

variable "legacy_list" {
  type = "list"
}

variable "legacy_map" {
  type = "map"
}

variable "settings" {
  type = object({
    name = string
    size = optional(number, 10)
    tags = optional(map(string), {})
  })
  default = null
}



variable "cond" {
  default = true
  validation {
    condition = var.cond == true || var.cond == false
    error_message = "Must be a bool."
  }
}
