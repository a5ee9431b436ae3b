settings = {
  web = {
    size = 2
    ports = [80,443]
  }
  db = { size = 1, ports = [] }
}
enabled=true
