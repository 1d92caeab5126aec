package sink

// boardPage is the dashboard: one page, no external assets. Live it asks
// data.json every second (the token of its own address kept); frozen, its
// data is written in at /*DATA*/. Text from the run (labels, operation
// names, causes) is set as text, never as markup.
const boardPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>servbench dashboard</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222;max-width:1100px}
h1{font-size:1.4em;margin:0 0 .2em}h2{font-size:1.1em;margin:1.2em 0 .4em}
table{border-collapse:collapse}td,th{padding:.2em .7em;border-bottom:1px solid #ddd;text-align:right}
th:first-child,td:first-child{text-align:left}
#state{color:#555}svg{background:#fafafa;border:1px solid #ddd}
.figs td{font-size:1.3em;font-weight:600}
</style></head><body>
<h1 id="title">servbench</h1>
<p id="state">waiting for servbench…</p>
<div id="plan"></div>
<h2 id="run-name"></h2>
<table class="figs" id="figs"><tr><th>operations</th><th>ops/s</th><th>measured s</th><th>client CPU s</th><th>client scheduling p99 µs</th><th id="clients-h">clients</th></tr>
<tr><td id="operations">-</td><td id="throughput">-</td><td id="elapsed">-</td><td id="cpu">-</td><td id="sched">-</td><td id="clients">-</td></tr></table>
<h2>Operations</h2>
<table id="ops"><thead><tr><th>operation</th><th>count</th><th>p50 µs</th><th>p99 µs</th><th>p99.9 µs</th><th>response p99 µs</th><th>failed, by cause</th></tr></thead><tbody></tbody></table>
<h2>Throughput, ops/s, each interval</h2><svg id="tput" width="1000" height="200"></svg>
<h2>p99 service time, µs, each interval (dashed: response time)</h2><svg id="p99" width="1000" height="200"></svg>
<p id="legend"></p>
<h2>The client, µs, each interval: scheduling delay p99 (the Go runtime's), and with a target rate how late the schedule started operations (p99, dashed: max)</h2><svg id="client" width="1000" height="160"></svg>
<div id="server"></div>
<script>
"use strict";
const FROZEN = /*DATA*/null;
const colors = ["#1f77b4","#d62728","#2ca02c","#9467bd","#ff7f0e","#8c564b","#e377c2","#17becf"];
function el(tag, text) { const e = document.createElement(tag); if (text !== undefined) e.textContent = text; return e; }
function num(x, d) { return (x === undefined || x === null) ? "-" : x.toLocaleString("en-US", {minimumFractionDigits: d, maximumFractionDigits: d}); }
function set(id, text) { document.getElementById(id).textContent = text; }
function chart(id, lines, w, h) {
  const svg = typeof id === "string" ? document.getElementById(id) : id, ns = "http://www.w3.org/2000/svg";
  while (svg.firstChild) svg.removeChild(svg.firstChild);
  let xmax = 0, ymax = 0;
  for (const l of lines) for (const [x, y] of l.pts) { xmax = Math.max(xmax, x); ymax = Math.max(ymax, y); }
  if (xmax <= 0 || ymax <= 0) return;
  const W = w || 1000, H = h || 200, L = w ? 2 : 60, B = h ? 2 : 20;
  for (const f of (w ? [] : [0, 0.5, 1])) {
    const t = document.createElementNS(ns, "text");
    t.setAttribute("x", 2); t.setAttribute("y", H - B - f * (H - B - 10) + 4); t.setAttribute("font-size", "11");
    t.textContent = num(ymax * f, 0); svg.appendChild(t);
  }
  lines.forEach((l, i) => {
    if (!l.pts.length) return;
    const p = document.createElementNS(ns, "polyline");
    p.setAttribute("fill", "none"); p.setAttribute("stroke", l.color || colors[i % colors.length]); p.setAttribute("stroke-width", "1.5");
    if (l.dash) p.setAttribute("stroke-dasharray", "4 3");
    p.setAttribute("points", l.pts.map(([x, y]) => (L + x / xmax * (W - L - 10)).toFixed(1) + "," + (H - B - y / ymax * (H - B - 10)).toFixed(1)).join(" "));
    p.setAttribute("data-points", l.pts.length);
    svg.appendChild(p);
  });
}
function draw(d) {
  set("title", d.title + (d.label ? " — " + d.label : "") + (d.binding ? " on " + d.binding : ""));
  set("state", d.ended ? "ended: the figures are the result's" : "running; updated " + new Date().toLocaleTimeString());
  set("operations", num(d.operations, 0)); set("throughput", num(d.throughput, 2));
  set("elapsed", num(d.elapsed_s, 1)); set("cpu", d.client_cpu_s ? num(d.client_cpu_s, 2) : "-");
  set("sched", d.client_sched_p99_us ? num(d.client_sched_p99_us, 0) : "-");
  set("clients", d.clients_all ? (d.ended ? String(d.clients_all) : d.clients + " of " + d.clients_all + " reporting") : "1");
  const cl = d.client || [];
  chart("client", [{color: colors[0], pts: cl.map(c => [c.end_s, c.sched_p99_us || 0])},
    {color: colors[1], pts: cl.filter(c => c.lag_p99_us).map(c => [c.end_s, c.lag_p99_us])},
    {color: colors[1], dash: true, pts: cl.filter(c => c.lag_max_us).map(c => [c.end_s, c.lag_max_us])}], undefined, 160);
  const server = document.getElementById("server");
  while (server.firstChild) server.removeChild(server.firstChild);
  const srcs = (d.server_side && d.server_side.sources) || [];
  if (srcs.length) {
    server.appendChild(el("h2", "The server side, each sample (what the samplers read of the servers and their hosts)"));
    const t = el("table"); t.id = "server-series";
    const h = el("tr");
    for (const k of ["source", "series", "node", "unit", "last", "mean", "max", "over the run"]) h.appendChild(el("th", k));
    t.appendChild(h);
    for (const s of srcs) {
      if (s.error) { const r = el("tr"); r.appendChild(el("td", s.kind + " " + s.name)); const c = el("td", "failed: " + s.error); c.colSpan = 7; r.appendChild(c); t.appendChild(r); }
      for (const x of s.series || []) {
        const r = el("tr"), p = x.points || [];
        for (const v of [s.kind + " " + s.name, x.name, x.node || "", x.unit, p.length ? num(p[p.length - 1][1], 1) : "-", num(x.mean, 1), num(x.max, 1)]) r.appendChild(el("td", v));
        const c = el("td"), sv = document.createElementNS("http://www.w3.org/2000/svg", "svg");
        sv.setAttribute("width", "240"); sv.setAttribute("height", "30"); c.appendChild(sv); r.appendChild(c);
        chart(sv, [{pts: p.filter(q => q[0] > 0)}], 240, 30);
        r.dataset.series = x.name; t.appendChild(r);
      }
      if (s.dropped_series) { const r = el("tr"); r.appendChild(el("td", s.kind + " " + s.name)); const c = el("td", s.dropped_series + " more series not shown (the result keeps what the sampler kept)"); c.colSpan = 7; r.appendChild(c); t.appendChild(r); }
    }
    server.appendChild(t);
  }
  const body = document.querySelector("#ops tbody");
  while (body.firstChild) body.removeChild(body.firstChild);
  for (const o of d.ops || []) {
    const tr = el("tr");
    const failed = Object.entries(o.failed || {}).map(([k, v]) => k + " " + v).join(", ");
    for (const v of [o.name, num(o.count, 0), num(o.p50_us, 1), num(o.p99_us, 1), num(o.p999_us, 1), o.response_p99_us ? num(o.response_p99_us, 1) : "-", failed || "none"]) tr.appendChild(el("td", v));
    tr.dataset.op = o.name; body.appendChild(tr);
  }
  const pts = d.points || [];
  chart("tput", [{pts: pts.map(p => [p.end_s, p.throughput])}]);
  const names = [...new Set(pts.flatMap(p => Object.keys(p.ops || {})))].sort();
  const lines = [];
  names.forEach((n, i) => {
    const c = colors[i % colors.length];
    lines.push({color: c, pts: pts.filter(p => p.ops && p.ops[n]).map(p => [p.end_s, p.ops[n].p99_us])});
    lines.push({color: c, dash: true, pts: pts.filter(p => p.ops && p.ops[n] && p.ops[n].response_p99_us).map(p => [p.end_s, p.ops[n].response_p99_us])});
  });
  chart("p99", lines);
  set("legend", names.map((n, i) => n + ": " + colors[i % colors.length]).join("   "));
  document.getElementById("figs").style.display = (d.plan && !d.running) ? "none" : "";
  set("run-name", d.running ? (d.ended ? "The last run: " : "The run going on: ") + d.running : "");
  const plan = document.getElementById("plan");
  while (plan.firstChild) plan.removeChild(plan.firstChild);
  if (d.plan) {
    const p = d.plan;
    plan.appendChild(el("h2", "Plan"));
    const t = el("table"), h = el("tr"), r = el("tr");
    for (const k of ["runs", "done", "failed", "skipped", "left", "running", "ends about"]) h.appendChild(el("th", k));
    for (const [id, v] of [["plan-total", p.total], ["plan-done", p.done], ["plan-failed", p.failed], ["plan-skipped", p.skipped], ["plan-left", p.left], ["plan-running", p.running || "-"], ["plan-ends", p.ends_at ? new Date(p.ends_at).toLocaleString() : "-"]]) {
      const c = el("td", String(v)); c.id = id; r.appendChild(c);
    }
    t.appendChild(h); t.appendChild(r); plan.appendChild(t);
    const runs = p.runs || [];
    if (runs.length) {
      plan.appendChild(el("h2", "Throughput of the runs done so far, ops/s (by their place in the plan)"));
      const s = document.createElementNS("http://www.w3.org/2000/svg", "svg");
      s.id = "plan-runs"; s.setAttribute("width", "1000"); s.setAttribute("height", "200"); plan.appendChild(s);
      const done = runs.map((x, i) => [i + 1, x]).filter(([, x]) => x.status === "done");
      chart("plan-runs", [{pts: done.map(([i, x]) => [i, x.throughput || 0])}]);
      plan.appendChild(el("h2", "p99 of the runs so far (their slowest operation's service time), µs"));
      const q = document.createElementNS("http://www.w3.org/2000/svg", "svg");
      q.id = "plan-p99"; q.setAttribute("width", "1000"); q.setAttribute("height", "200"); plan.appendChild(q);
      chart("plan-p99", [{color: colors[1], pts: done.map(([i, x]) => [i, x.p99_us || 0])}]);
    }
  }
}
async function tick() {
  let d = null;
  try {
    const r = await fetch("data.json" + location.search, {cache: "no-store"});
    if (r.ok) d = await r.json();
  } catch (e) { /* the run ended and its server with it: the page keeps its last figures */ return; }
  if (d) {
    try { draw(d); } catch (e) { set("state", "cannot draw: " + e); throw e; }
    if (d.ended) return;
  }
  setTimeout(tick, 1000);
}
if (FROZEN) draw(FROZEN); else tick();
</script></body></html>
`
