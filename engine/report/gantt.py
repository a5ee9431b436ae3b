"""The report as a PNG: a Gantt chart of the operations (waiting, then running; the critical path
outlined) over the parallelism in flight against the limit. matplotlib is imported here only."""

from __future__ import annotations

from engine.report.analysis import Analysis, chart_rows

MAX_ROWS = 150


def write_png(a: Analysis, path: str, title: str = "strata apply") -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows, cut = chart_rows(a, MAX_ROWS)
    critical = {o.node for o in a.critical_path}
    providers = sorted({o.provider for o in a.operations})
    colors = {p: plt.get_cmap("tab10")(i % 10) for i, p in enumerate(providers)}
    height = min(40.0, 2.5 + 0.18 * max(1, len(rows)))
    fig, (ax, par) = plt.subplots(2, 1, figsize=(12, height + 2.5), sharex=True,
                                  gridspec_kw={"height_ratios": [height, 2.5]})
    for i, o in enumerate(rows):
        y = len(rows) - 1 - i
        if o.wait > 0:
            ax.barh(y, o.wait, left=o.ready, height=0.6, color="#d9d9d9")
        c = colors[o.provider] if o.ok else "#d62728"
        ax.barh(y, max(o.run, 1e-6), left=o.start, height=0.6, color=c, alpha=0.35,
                edgecolor="black" if o.node in critical else "none", linewidth=1.2)
        ax.barh(y, max(o.call, 1e-6), left=o.start, height=0.6, color=c)
    labels = [o.node for o in rows]
    ax.set_yticks(range(len(rows)), list(reversed(labels)), fontsize=6 if len(rows) > 40 else 8)
    ax.set_title(f"{title}: {len(a.operations)} operations, walk {a.wall:.2f} s"
                 + (f" (showing the critical path and the slowest, {len(rows)} rows)" if cut else "")
                 + "; critical path outlined; grey: waiting, pale: the state making it durable")
    xs = [s.t for s in a.parallelism] + [a.wall]
    ys = [s.value for s in a.parallelism] + [0]
    par.step(xs, ys, where="post", label="all", color="black")
    if len(providers) > 1:
        for p, steps in a.by_provider.items():
            par.step([s.t for s in steps] + [a.wall], [s.value for s in steps] + [0], where="post",
                     label=p, color=colors[p], alpha=0.7)
    if a.limit is not None:
        par.axhline(a.limit, color="#d62728", linestyle="--", label=f"limit {a.limit}")
    par.set_ylabel("in flight")
    par.set_xlabel("seconds since the walk began")
    par.legend(loc="upper right", fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
