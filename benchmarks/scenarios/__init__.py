"""The benchmark scenarios. Each module has ``NAME``, ``TITLE``, ``run(ctx) -> Report`` and ``plot(report, plt, path)``."""

from types import ModuleType

from . import (
                                                   critical_path,
                                                   e2e,
                                                   lifecycle,
                                                   overhead,
                                                   parse,
                                                   pipelining,
                                                   plugins,
                                                   scaling,
                                                   scheduling,
                                                   small,
                                                   walker,
)

SCENARIOS: dict[str, ModuleType] = {m.NAME: m for m in (e2e, small, parse, scaling, lifecycle, overhead, pipelining,
                                                   scheduling, walker, critical_path, plugins)}
