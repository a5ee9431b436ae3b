"""parse: reading a large configuration. ``validate`` of N resource blocks, each written out (no
``count``): a nested object with an interpolation, a list, a reference to the first block, and a
``lifecycle`` block, 15 lines a block. (Not a chain of references, each block to the previous:
terraform's validate of a 20,000-long chain had used 3.5 minutes of CPU and not finished.) strata and terraform alternate round by round, each
round starting with the other side; figures are medians. terraform's ``init`` is not timed.

Each block is of HCL's plainest form, so strata reads the file from its lines
(``engine/lang/hcl_lines.py``), not through tree-sitter's tree; the time then goes to start-up,
that reading, the module's decoding and validate's checks (references, the configuration graph,
types). A file with calls, operators or heredocs takes the tree's way, as before.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..common import (
    Column,
    Context,
    Report,
    Run,
    Target,
    Workdirs,
    init_terraform,
    run_measured,
    strata_argv,
    strata_env,
    summarize,
    terraform_env,
    terraform_path,
)

NAME = "parse"
TITLE = "Reading a large configuration: validate of N resource blocks"
RATIO_TARGET = 2.0
FORMS = ("plain", "calls")


def blocks_config(n: int, calls: bool = False) -> str:
    """N resource blocks as people write them, one after another; ``calls``: each block's name made
    by a function call (a file strata reads through tree-sitter's syntax tree)."""
    out = ['variable "env" {\n  default = "dev"\n}\n']
    for i in range(n):
        after = "terraform_data.r0.id" if i else '"root"'
        out.append(f'''resource "terraform_data" "r{i}" {{
  input = {{
    name  = {f'format("r%d-%s", {i}, var.env)' if calls else f'"r{i}-${{var.env}}"'}
    index = {i}
    tags  = {{ team = "core", tier = "{i % 3}" }}
    ports = [80, 443, {8000 + i % 100}]
    after = {after}
  }}
  triggers_replace = [var.env]

  lifecycle {{
    ignore_changes = [triggers_replace]
  }}
}}
''')
    return "\n".join(out)


def run(ctx: Context) -> Report:
    sizes = ctx.sizes_or([2_000, 20_000], [200])
    reps = ctx.reps_or(3, 1)
    tf = terraform_path() if ctx.terraform else None
    if ctx.terraform and tf is None:
        ctx.log("  terraform is not on PATH: strata only")
    sides = ["strata", "terraform"] if tf is not None else ["strata"]
    rows: list[dict[str, Any]] = []
    with Workdirs(ctx.keep) as wd:
        for form, n in [(f, n) for f in FORMS for n in sizes]:
            text = blocks_config(n, calls=form == "calls")
            dirs: dict[str, Path] = {}
            for side in sides:  # one directory per side, reused by the rounds (validate writes nothing)
                d = wd.new(f"parse-{form}-{side}-{n}")
                (d / "main.tf").write_text(text)
                if side == "terraform":
                    init_terraform(d)
                dirs[side] = d
            runs: dict[str, list[Run]] = {side: [] for side in sides}
            for r in range(reps):
                for side in sides[r % len(sides):] + sides[:r % len(sides)]:
                    if side == "strata":
                        res = run_measured([*strata_argv(), "validate"], dirs[side], strata_env())
                    else:
                        assert tf is not None
                        res = run_measured([tf, "validate"], dirs[side], terraform_env())
                    runs[side].append(res)
                    ctx.log(f"  {form:<5} N={n:>6,} {side:<9} rep {r + 1}: {res.wall:7.2f} s wall, "
                            f"{res.cpu:7.2f} s CPU")
            s = summarize(runs["strata"])
            row: dict[str, Any] = {"form": form, "n": n, "lines": text.count("\n"), "bytes": len(text.encode()),
                                   "strata_wall_s": s["wall_median_s"], "strata_cpu_s": s["cpu_median_s"],
                                   "strata_rss_mb": s["maxrss_mb"], "strata_runs": s["wall_s"]}
            if "terraform" in runs:
                t = summarize(runs["terraform"])
                row.update(terraform_wall_s=t["wall_median_s"], terraform_cpu_s=t["cpu_median_s"],
                           terraform_rss_mb=t["maxrss_mb"], terraform_runs=t["wall_s"],
                           ratio=round(t["wall_median_s"] / s["wall_median_s"], 2),
                           cpu_ratio=round(t["cpu_median_s"] / s["cpu_median_s"], 2))
            rows.append(row)
    return Report(
        NAME, TITLE,
        commands=["# in a fresh directory, for each N (here 2):\ncat > main.tf <<'EOF'\n" + blocks_config(2).rstrip()
                  + "\nEOF",
                  "strata validate",
                  "# terraform: TF_CLI_CONFIG_FILE=/dev/null terraform init (not timed), then terraform validate"],
        params={"sizes": sizes, "reps": reps, "terraform": tf is not None},
        columns=[Column("form", "form", "{}"), Column("n", "blocks", "{:,}"), Column("lines", "lines", "{:,}"),
                 Column("strata_wall_s", "strata wall (s)", "{:.2f}"),
                 Column("strata_cpu_s", "strata CPU (s)", "{:.2f}"),
                 Column("strata_rss_mb", "strata RSS (MB)", "{:.0f}"),
                 Column("terraform_wall_s", "terraform wall (s)", "{:.2f}"),
                 Column("terraform_cpu_s", "terraform CPU (s)", "{:.2f}"),
                 Column("ratio", "terraform / strata (wall)", "{}x"),
                 Column("cpu_ratio", "terraform / strata (CPU)", "{}x")],
        rows=rows, targets=_targets(rows),
        notes=["Wall times are medians of the rounds; ratio > 1: strata is faster. CPU = user + system time.",
               "plain: the blocks above, which strata reads from their lines (engine/lang/hcl_lines.py); the "
               "targets are theirs. calls: the same with each name made by format(), a file read through "
               "tree-sitter's syntax tree (no target: how the other way compares).",
               "Before the tree-sitter parser (python-hcl2/lark): 2,000 blocks took 5.6 s against terraform's 2.2 s."],
    )


def _targets(rows: list[dict[str, Any]]) -> list[Target]:
    targets = []
    for r in rows:
        if r.get("form", "plain") != "plain":
            continue
        name = f"validate of {r['n']:,} blocks: strata at least {RATIO_TARGET:g}x faster than terraform"
        if "ratio" not in r:
            targets.append(Target(name, f">= {RATIO_TARGET:g}x", "not measured", None))
            continue
        targets.append(Target(name, f">= {RATIO_TARGET:g}x",
                              f"{r['ratio']}x ({r['strata_wall_s']:.2f} s vs {r['terraform_wall_s']:.2f} s wall; "
                              f"CPU {r['cpu_ratio']}x)", r["ratio"] >= RATIO_TARGET))
    return targets


def plot(report: Report, plt: Any, path: Path) -> None:
    rows = report.rows
    fig, ax = plt.subplots(figsize=(6, 4.2))
    xs = range(len(rows))
    ax.bar([x - 0.2 for x in xs], [r["strata_wall_s"] for r in rows], width=0.4, label="strata")
    if any(r.get("terraform_wall_s") is not None for r in rows):
        ax.bar([x + 0.2 for x in xs], [r.get("terraform_wall_s") or 0 for r in rows], width=0.4, label="terraform")
    ax.set_xticks(list(xs))
    ax.set_xticklabels([f"{r['n']:,} {r.get('form', 'plain')}" for r in rows])
    ax.set_ylabel("validate wall time (s)")
    ax.set_title(TITLE, fontsize=9)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
