"""``python -m benchmarks.own_cpu ARGS...``: ``strata ARGS...``, and at its exit, its own CPU time
(user + system seconds of that process alone: not its writer or publisher processes, which run
on the other core) written to the file ``$STRATA_BENCH_OWN_CPU``.

What a configuration costs the event loop, as opposed to the machine: on this shared 2-core
machine wall times follow the other tenants' load, and the CPU time ``wait4`` reports includes
the helper processes.
"""

from __future__ import annotations

import atexit
import os
import resource
import runpy
import sys


def _write() -> None:
    r = resource.getrusage(resource.RUSAGE_SELF)
    with open(os.environ["STRATA_BENCH_OWN_CPU"], "w") as f:
        f.write(f"{r.ru_utime + r.ru_stime:.4f}\n")


if __name__ == "__main__":
    atexit.register(_write)
    sys.argv = ["strata", *sys.argv[1:]]
    runpy.run_module("engine", run_name="__main__", alter_sys=True)
