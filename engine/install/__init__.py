"""Provider installation, as terraform's ``init`` does it: the requirements' versions and source
addresses, filesystem mirrors (both layouts), the CLI configuration that names them, the package
hashes, the dependency lock file and ``.terraform/providers``; and, on every later run, whether what
is installed is what the lock file selected. Module installation likewise: module source addresses,
git, archive and registry packages fetched into ``.terraform/modules``, and its ``modules.json``."""
