"""The report as text: what ``strata report EVENTS.jsonl`` prints."""

from __future__ import annotations

from collections import Counter

from engine.report.analysis import Analysis, Operation, Step

_BARS = " ▁▂▃▄▅▆▇█"


def time_at_or_above(steps: tuple[Step, ...], level: int, wall: float) -> float:
    """Seconds of the walk during which the step function was at ``level`` or above."""
    total = 0.0
    for a, b in zip(steps, (*steps[1:], Step(wall, 0)), strict=True):
        if a.value >= level:
            total += max(0.0, min(b.t, wall) - a.t)
    return total


def sparkline(steps: tuple[Step, ...], wall: float, top: int, width: int = 60) -> str:
    """The mean of the step function over ``width`` equal slices of the walk, as block characters
    scaled to ``top``."""
    if wall <= 0 or top <= 0:
        return ""
    out = []
    bounds = [wall * i / width for i in range(width + 1)]
    idx = 0
    for i in range(width):
        lo, hi = bounds[i], bounds[i + 1]
        area = 0.0
        while idx + 1 < len(steps) and steps[idx + 1].t <= lo:
            idx += 1
        j = idx
        while j < len(steps) and steps[j].t < hi:
            seg_lo = max(lo, steps[j].t)
            seg_hi = min(hi, steps[j + 1].t if j + 1 < len(steps) else hi)
            area += steps[j].value * max(0.0, seg_hi - seg_lo)
            j += 1
        mean = area / (hi - lo) if hi > lo else 0.0
        out.append(_BARS[min(len(_BARS) - 1, round(mean / top * (len(_BARS) - 1)))])
    return "".join(out)


def render(a: Analysis, source: str, slowest: int = 10) -> str:
    ops = a.operations
    lines = [f"Apply report: {source}", ""]
    actions = Counter(o.action for o in ops)
    failed = sum(1 for o in ops if not o.ok)
    lines.append(f"{len(ops)} operations ({', '.join(f'{n} {k}' for k, n in sorted(actions.items())) or 'none'}), "
                 f"{failed} failed; the walk took {a.wall:.3f} s; {a.events} events.")
    if not ops:
        lines.append("No apply operations in this log (was it written by strata apply -events=FILE?).")
        return "\n".join(lines) + "\n"
    cp = a.critical_path
    waits = sum(o.wait for o in cp)
    runs = sum(o.run for o in cp)
    lines += ["", f"Critical path: {len(cp)} operation(s), {cp[-1].end:.3f} s "
                  f"({runs:.3f} s running, {waits:.3f} s waiting for a slot or planning):",
              f"  {'ready':>9} {'wait':>8} {'run':>8} {'end':>9}  operation"]
    for o in cp:
        lines.append(f"  {o.ready:9.3f} {o.wait:8.3f} {o.run:8.3f} {o.end:9.3f}  {o.node}")
    lines += ["", "Parallelism (provider calls in flight, as -parallelism counts them):"]
    limit = f"limit {a.limit}" if a.limit is not None else "limit unknown"
    at_limit = (f"; at the limit {time_at_or_above(a.parallelism, a.limit, a.wall) / a.wall:.0%} of the walk"
                if a.limit and a.wall > 0 else "")
    lines.append(f"  all: {limit}, peak {a.peak}, mean {a.mean_parallelism():.2f}{at_limit}")
    top = max(a.limit or 0, a.peak)
    lines.append(f"    |{sparkline(a.parallelism, a.wall, top)}|  0..{a.wall:.2f} s, full height = {top}")
    for provider, steps in a.by_provider.items():
        peak = max((s.value for s in steps), default=0)
        mine = [o for o in ops if o.provider == provider]
        mean = sum(o.call for o in mine) / a.wall if a.wall > 0 else 0.0
        plimit = a.provider_limits.get(provider)
        lines.append(f"  provider {provider}: {len(mine)} operations, peak {peak}, mean {mean:.2f}"
                     + (f", limit {plimit}" if plimit is not None else ""))
    lines += ["", "Latency by resource type (run: provider call started to durable), seconds:",
              f"  {'type':<28} {'count':>7} {'p50':>8} {'p90':>8} {'p99':>8} {'max':>8}"]
    for lat in a.latencies:
        lines.append(f"  {lat.resource_type:<28} {lat.count:>7} {lat.p50:8.3f} {lat.p90:8.3f} {lat.p99:8.3f} "
                     f"{lat.max:8.3f}")
    lines += ["", f"Slowest operations (of {len(ops)}):"]
    for o in sorted(ops, key=lambda o: (-o.run, o.node))[:slowest]:
        lines.append(f"  {o.run:8.3f} s  {o.node}" + ("" if o.ok else "  (failed)")
                     + (f"  ({o.retries} retries)" if o.retries else ""))
    retries = [p for p in a.problems if p.kind == "retry"]
    errors = [p for p in a.problems if p.kind == "error"]
    lines += ["", f"Retries: {len(retries)}. Errors: {len(errors)}."]
    for p in [*retries, *errors][:50]:
        lines.append(f"  {p.at:9.3f}  {p.kind:<5}  {p.address or '-'}: {p.message}")
    return "\n".join(lines) + "\n"


def slowest_first(ops: tuple[Operation, ...]) -> list[Operation]:
    return sorted(ops, key=lambda o: (-o.run, o.node))
