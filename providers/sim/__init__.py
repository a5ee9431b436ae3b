"""The ``sim`` provider: a simulated cloud for benchmarks and fault tests.

Its objects live in a ledger on disk (:mod:`providers.sim.ledger`), so "the
cloud" outlives the process and tests can count real objects and orphans:
``python -m providers.sim ls LEDGER`` prints the live objects as JSON lines.
See :mod:`providers.sim.provider` for the configuration, the resource and the
data source, and the idempotency token.
"""

from .ledger import Ledger, SimObject
from .provider import SimProvider, latency_sample, object_token

__all__ = ["Ledger", "SimObject", "SimProvider", "latency_sample", "object_token"]
