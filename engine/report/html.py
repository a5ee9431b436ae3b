"""The report as one self-contained HTML page (no network: styles, script and data inline) with an
interactive Gantt chart: hover an operation for its times, filter by name, show the critical path
alone, zoom into a time window; and the parallelism in flight against the limit."""

from __future__ import annotations

import html

import orjson

from engine.report.analysis import Analysis, chart_rows
from engine.report.text import render

MAX_ROWS = 2000


def page(a: Analysis, source: str) -> str:
    rows, cut = chart_rows(a, MAX_ROWS)
    critical = {o.node for o in a.critical_path}
    providers = sorted({o.provider for o in a.operations})
    data = {
        "wall": a.wall, "limit": a.limit, "providers": providers, "cut": cut, "total": len(a.operations),
        "ops": [[o.node, o.provider, round(o.ready, 6), round(o.start, 6), round(o.end, 6), o.ok,
                 o.node in critical, o.retries, round(o.call, 6)] for o in rows],
        "par": [[round(s.t, 6), s.value] for s in a.parallelism],
    }
    # inside <script>: "</" would end it
    payload = orjson.dumps(data).decode().replace("</", "<\\/")
    return _TEMPLATE.replace("__TITLE__", html.escape(f"strata apply report: {source}")) \
        .replace("__TEXT__", html.escape(render(a, source))).replace("__DATA__", payload)


def write_html(a: Analysis, path: str, source: str) -> None:
    with open(path, "w", encoding="utf-8") as f:
        f.write(page(a, source))


_TEMPLATE = r"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>__TITLE__</title>
<style>
 body { font: 13px system-ui, sans-serif; margin: 16px; color: #222; }
 h1 { font-size: 18px; margin: 0 0 8px; }
 #controls { margin: 8px 0; display: flex; gap: 12px; align-items: center; flex-wrap: wrap; }
 #gantt, #par { border: 1px solid #ccc; display: block; }
 .lbl { font: 11px monospace; fill: #333; }
 #tip { position: fixed; pointer-events: none; background: #fff; border: 1px solid #888; padding: 4px 6px;
        font: 12px monospace; display: none; white-space: pre; }
 pre { background: #f6f6f6; padding: 8px; overflow-x: auto; font-size: 12px; }
 .legend span { display: inline-block; width: 12px; height: 12px; margin: 0 4px 0 10px; vertical-align: middle; }
</style></head>
<body>
<h1>__TITLE__</h1>
<div id="summary"></div>
<div id="controls">
 <label>filter <input id="filter" placeholder="address or provider"></label>
 <label><input type="checkbox" id="critical"> critical path only</label>
 <label>from <input id="from" type="number" step="any" min="0" style="width:7em"> s</label>
 <label>to <input id="to" type="number" step="any" min="0" style="width:7em"> s</label>
 <button id="reset">whole walk</button>
 <span class="legend" id="legend"></span>
</div>
<svg id="gantt" width="1200" height="100"></svg>
<h2 style="font-size:14px">Provider calls in flight</h2>
<svg id="par" width="1200" height="160"></svg>
<h2 style="font-size:14px">Report</h2>
<pre>__TEXT__</pre>
<div id="tip"></div>
<script>
const D = __DATA__;
const NS = "http://www.w3.org/2000/svg";
const COLORS = ["#1f77b4","#ff7f0e","#2ca02c","#9467bd","#8c564b","#e377c2","#7f7f7f","#bcbd22","#17becf"];
const color = p => COLORS[D.providers.indexOf(p) % COLORS.length];
const LEFT = 330, RIGHT = 20, ROW = 16;
let t0 = 0, t1 = D.wall || 1;
function el(name, attrs, parent) {
  const e = document.createElementNS(NS, name);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (parent) parent.appendChild(e);
  return e;
}
function x(t, w) { return LEFT + (t - t0) / (t1 - t0) * (w - LEFT - RIGHT); }
function axis(svg, w, y) {
  for (let i = 0; i <= 10; i++) {
    const t = t0 + (t1 - t0) * i / 10;
    el("line", {x1: x(t, w), x2: x(t, w), y1: 0, y2: y, stroke: "#eee"}, svg);
    el("text", {x: x(t, w), y: y + 12, class: "lbl", "text-anchor": "middle"}, svg).textContent = t.toFixed(2) + "s";
  }
}
const tip = document.getElementById("tip");
function drawGantt() {
  const svg = document.getElementById("gantt"), w = svg.clientWidth || 1200;
  svg.innerHTML = "";
  const f = document.getElementById("filter").value.toLowerCase();
  const crit = document.getElementById("critical").checked;
  const ops = D.ops.filter(o => (!crit || o[6]) && (!f || o[0].toLowerCase().includes(f) || o[1].toLowerCase().includes(f))
                               && o[4] >= t0 && o[2] <= t1);
  const h = ops.length * ROW + 20;
  svg.setAttribute("height", h);
  axis(svg, w, h - 20);
  ops.forEach((o, i) => {
    const y = i * ROW + 2;
    const lbl = el("text", {x: 4, y: y + 11, class: "lbl"}, svg);
    lbl.textContent = o[0].length > 48 ? o[0].slice(0, 47) + "…" : o[0];
    const a = Math.max(x(o[2], w), LEFT), b = Math.max(x(o[3], w), LEFT), c = Math.max(x(o[4], w), LEFT);
    if (b > a) el("rect", {x: a, y: y, width: b - a, height: ROW - 4, fill: "#ddd"}, svg);
    const fill = o[5] ? color(o[1]) : "#d62728";
    const r = el("rect", {x: b, y: y, width: Math.max(c - b, 1), height: ROW - 4, fill: fill, "fill-opacity": 0.35,
                          stroke: o[6] ? "#000" : "none", "stroke-width": 1.5}, svg);
    el("rect", {x: b, y: y, width: Math.max(Math.max(x(o[3] + o[8], w), LEFT) - b, 1), height: ROW - 4, fill: fill,
                "pointer-events": "none"}, svg);
    r.classList.add("op");
    r.addEventListener("mousemove", ev => {
      tip.style.display = "block"; tip.style.left = (ev.clientX + 12) + "px"; tip.style.top = (ev.clientY + 12) + "px";
      tip.textContent = `${o[0]}\nprovider ${o[1]}\nready ${o[2].toFixed(3)} s\nwait  ${(o[3]-o[2]).toFixed(3)} s\n` +
        `run   ${(o[4]-o[3]).toFixed(3)} s (provider call ${o[8].toFixed(3)} s)\nend   ${o[4].toFixed(3)} s` + (o[6] ? "\non the critical path" : "") +
        (o[5] ? "" : "\nFAILED") + (o[7] ? `\n${o[7]} retries` : "");
    });
    r.addEventListener("mouseleave", () => { tip.style.display = "none"; });
    r.addEventListener("click", () => { t0 = Math.max(0, o[2] - (o[4]-o[2])); t1 = o[4] + (o[4]-o[2]); sync(); });
  });
}
function drawPar() {
  const svg = document.getElementById("par"), w = svg.clientWidth || 1200, h = 140;
  svg.innerHTML = "";
  axis(svg, w, h);
  const top = Math.max(D.limit || 0, ...D.par.map(p => p[1]), 1);
  const y = v => h - 4 - v / top * (h - 10);
  const X = t => Math.min(Math.max(x(t, w), LEFT), w - RIGHT);
  let d = `M${X(0)},${y(0)}`;
  D.par.forEach((p, i) => {
    const nx = (i + 1 < D.par.length) ? D.par[i + 1][0] : D.wall;
    d += `V${y(p[1])}H${X(nx)}`;
  });
  el("path", {d: d, stroke: "#000", fill: "none"}, svg);
  if (D.limit) {
    el("line", {x1: LEFT, x2: w - RIGHT, y1: y(D.limit), y2: y(D.limit), stroke: "#d62728", "stroke-dasharray": "4 3"}, svg);
    el("text", {x: 4, y: y(D.limit) + 4, class: "lbl"}, svg).textContent = "limit " + D.limit;
  }
  el("text", {x: 4, y: y(0), class: "lbl"}, svg).textContent = "0";
}
function sync() {
  document.getElementById("from").value = t0.toFixed(3);
  document.getElementById("to").value = t1.toFixed(3);
  drawGantt(); drawPar();
}
document.getElementById("summary").textContent =
  `${D.total} operations, the walk took ${D.wall.toFixed(3)} s` + (D.limit ? `, parallelism limit ${D.limit}` : "") +
  (D.cut ? ` (the chart shows the critical path and the slowest ${D.ops.length})` : "");
document.getElementById("legend").innerHTML = D.providers.map(p =>
  `<span style="background:${color(p)}"></span>${p.replace(/[<&]/g, "")}`).join("") +
  '<span style="background:#ddd"></span>waiting<span style="background:#d62728"></span>failed';
["filter", "critical"].forEach(id => document.getElementById(id).addEventListener("input", drawGantt));
document.getElementById("from").addEventListener("change", e => { t0 = Math.max(0, +e.target.value); sync(); });
document.getElementById("to").addEventListener("change", e => { t1 = Math.max(t0 + 1e-6, +e.target.value); sync(); });
document.getElementById("reset").addEventListener("click", () => { t0 = 0; t1 = D.wall || 1; sync(); });
sync();
</script>
</body></html>
"""
