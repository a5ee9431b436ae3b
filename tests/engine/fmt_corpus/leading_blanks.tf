


locals {}

