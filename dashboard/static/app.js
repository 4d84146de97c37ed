// ktune dashboard: the page of one run. It reads the run, its evaluations (again and again
// while the run is tuned) and the analysis of the selection from the server's JSON
// endpoints, and draws everything as SVG. No library: plain JavaScript.
"use strict";

const SVGNS = "http://www.w3.org/2000/svg";
const api = document.body.dataset.api;
const POLL_MS = 1500;

const S = {
  run: null,        // /api/runs/ID
  params: [],       // the run's parameters: {name, values, labels, numeric}
  evals: [],        // every evaluation read so far, in order
  metrics: {},      // metric name -> higher is better
  statuses: {},     // status (statusOf: found_wrong apart from ok) -> count
  wrong: new Set(), // the configurations (configKey) of the wrong_answer evaluations read so far
  devices: {},      // device that measured an evaluation ("-" for none: imports, refusals) -> count
  next: 0,          // evaluations read: the next fetch asks for those after
  pending: 0,       // fetches under way
  loaded: false,    // the first evaluations and analysis are in
  analysis: null,   // the last analysis answer, or {error}
  analysisCtl: null,
  analysisTimer: 0,
  waiting: false,   // an analysis is asked for, to start after a pause
  lastAnalysis: 0,
  pinned: -1,       // the evaluation whose details stay shown
  // the selection, read from and written to the page's address
  sel: {x: "order", y: "objective", color: "objective", logy: false, best: false,
        objective: "", params: null, hide: {}, hideStatus: new Set(), hideDevice: new Set()},
};

const $ = id => document.getElementById(id);

function el(name, attrs, parent) {
  const e = document.createElementNS(SVGNS, name);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (parent) parent.appendChild(e);
  return e;
}

function html(name, attrs, text) {
  const e = document.createElement(name);
  for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
  if (text !== undefined) e.textContent = text;
  return e;
}

async function getJSON(url, signal) {
  S.pending++;
  try {
    const r = await fetch(url, {signal, cache: "no-store"});
    const body = await r.json().catch(() => ({error: r.status + " " + r.statusText}));
    if (!r.ok) throw new Error(body.error || r.statusText);
    return body;
  } finally {
    S.pending--;
  }
}

// ---- the selection in the address, so that a link shows the same view

function readAddress() {
  const q = new URLSearchParams(location.search);
  const s = S.sel;
  for (const k of ["x", "y", "color", "objective"]) if (q.has(k)) s[k] = q.get(k);
  s.logy = q.get("logy") === "1";
  s.best = q.get("best") === "1";
  if (q.has("params")) s.params = q.get("params") === "" ? [] : q.get("params").split(",");
  for (const kv of q.getAll("hide")) {
    const i = kv.indexOf("=");
    if (i < 0) continue;
    const name = kv.slice(0, i);
    (s.hide[name] = s.hide[name] || new Set()).add(kv.slice(i + 1));
  }
  for (const st of q.getAll("hidestatus")) s.hideStatus.add(st);
  for (const d of q.getAll("hidedevice")) s.hideDevice.add(d);
}

function writeAddress() {
  const s = S.sel, q = new URLSearchParams();
  q.set("x", s.x); q.set("y", s.y); q.set("color", s.color);
  if (s.logy) q.set("logy", "1");
  if (s.best) q.set("best", "1");
  if (s.objective) q.set("objective", s.objective);
  if (s.params) q.set("params", s.params.join(","));
  for (const name in s.hide) for (const l of s.hide[name]) q.append("hide", name + "=" + l);
  for (const st of s.hideStatus) q.append("hidestatus", st);
  for (const d of s.hideDevice) q.append("hidedevice", d);
  history.replaceState(null, "", location.pathname + "?" + q.toString());
}

// ---- values of the axes: "order", "objective", "status", "p:NAME", "m:NAME"

function fields() {
  const out = [{key: "order", label: "evaluation order"}, {key: "objective", label: S.run.objective + " (objective)"}];
  for (const m of Object.keys(S.metrics).sort()) if (m !== S.run.objective) out.push({key: "m:" + m, label: m});
  for (const p of S.params) out.push({key: "p:" + p.name, label: p.name});
  out.push({key: "status", label: "status"});
  if (severalDevices()) out.push({key: "device", label: "device"});
  return out;
}

// NO_DEVICE is the device of the evaluations no device measured (an import, a
// configuration refused over a device limit before compiling), as the analysis endpoint's
// device filter names them
const NO_DEVICE = "-";

function deviceOf(e) { return e.device || NO_DEVICE; }

// severalDevices says whether devices measured the run's evaluations: only then are
// the device field and filter offered
function severalDevices() {
  return Object.keys(S.devices).filter(d => d !== NO_DEVICE).length > 1;
}

// FOUND_WRONG is the status of a success of a configuration found wrong in the run (a
// wrong_answer evaluation of the same configuration, read before or after it, as a check
// after dynamic tuning stores one): no success, counted apart from ok as the list of runs
// and the status line count it, and the analysis's status filter names it
const FOUND_WRONG = "found_wrong";
// its colour in every colouring: neither the ramp's nor a category's, nor a failure's red
const FOUND_WRONG_COLOUR = "#ff00ff";

// configKey matches the evaluations of one configuration (kept on e: the statuses are
// counted again as evaluations arrive)
function configKey(e) { return e.key ?? (e.key = JSON.stringify(e.config)); }

// statusOf is e's status in the status field and filter: FOUND_WRONG for an ok one whose
// configuration has a wrong_answer evaluation among those read
function statusOf(e) {
  return e.status === "ok" && S.wrong.has(configKey(e)) ? FOUND_WRONG : e.status;
}

// categoryLabel is how a category of a field is written (ticks, legend, filter)
function categoryLabel(key, c) {
  if (key === "status" && c === FOUND_WRONG) return "found wrong";
  return key === "device" && c === NO_DEVICE ? "no device" : c;
}

function fieldLabel(key) {
  const f = fields().find(f => f.key === key);
  return f ? f.label : key;
}

// kind says how a field is drawn: "number" on a linear scale, "category" by position
function fieldKind(key) {
  if (key === "status" || key === "device") return "category";
  if (key.startsWith("p:")) {
    const p = S.params.find(p => p.name === key.slice(2));
    return p && p.numeric ? "number" : "category";
  }
  return "number";
}

function categories(key) {
  if (key === "status") {
    // ok first, then found wrong, then the failures
    const rank = st => st === "ok" ? 0 : st === FOUND_WRONG ? 1 : 2;
    return Object.keys(S.statuses).sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
  }
  if (key === "device") return Object.keys(S.devices).sort();
  const p = S.params.find(p => p.name === key.slice(2));
  return p ? p.labels : [];
}

function value(e, key) {
  if (key === "order") return e.index;
  if (key === "objective") return e.objective === null ? NaN : e.objective;
  if (key === "status") return categories("status").indexOf(statusOf(e));
  if (key === "device") return categories("device").indexOf(deviceOf(e));
  if (key.startsWith("m:")) {
    const v = e.metrics ? e.metrics[key.slice(2)] : undefined;
    return v === undefined || v === null ? NaN : v;
  }
  if (key.startsWith("p:")) {
    const i = S.params.findIndex(p => p.name === key.slice(2));
    if (i < 0) return NaN;
    const p = S.params[i];
    if (!p.numeric) return e.at[i];
    const v = e.config[i];
    return typeof v === "boolean" ? (v ? 1 : 0) : v;
  }
  return NaN;
}

function valueText(e, key) {
  if (key === "status") return categoryLabel("status", statusOf(e));
  if (key.startsWith("p:")) {
    const i = S.params.findIndex(p => p.name === key.slice(2));
    return i < 0 ? "" : S.params[i].labels[e.at[i]] ?? String(e.config[i]);
  }
  return fmt(value(e, key));
}

function fmt(v) {
  if (typeof v !== "number" || !isFinite(v)) return "-";
  if (Number.isInteger(v) && Math.abs(v) < 1e9) return String(v);
  const a = Math.abs(v);
  return a !== 0 && (a < 1e-3 || a >= 1e6) ? v.toExponential(3) : String(+v.toPrecision(4));
}

// ---- filters

function visible(e) {
  if (S.sel.hideStatus.has(statusOf(e))) return false;
  if (devicesFiltered() && S.sel.hideDevice.has(deviceOf(e))) return false;
  for (let i = 0; i < S.params.length; i++) {
    const h = S.sel.hide[S.params[i].name];
    if (h && h.size && h.has(S.params[i].labels[e.at[i]])) return false;
  }
  return true;
}

// devicesFiltered says whether the device filter applies: only while it is offered, so
// that a link that left a device out does not hide, without a box to tick, the
// evaluations of a run whose evaluations one device measured
function devicesFiltered() {
  return severalDevices() && S.sel.hideDevice.size > 0;
}

// emptyFilter says which filter has every box unticked, leaving nothing to analyse (the
// server is not asked); "" when none has
function emptyFilter() {
  const statuses = Object.keys(S.statuses);
  if (statuses.length && statuses.every(st => S.sel.hideStatus.has(st))) return "every status is filtered out: show at least one to analyse";
  if (devicesFiltered() && Object.keys(S.devices).every(d => S.sel.hideDevice.has(d))) return "every device is filtered out: show at least one to analyse";
  for (const p of S.params) {
    const h = S.sel.hide[p.name];
    if (h && p.labels.every(l => h.has(l))) return `every value of ${p.name} is filtered out: show at least one to analyse`;
  }
  return "";
}

// checkAddress drops what the address names that the run does not have: parameters to
// analyse or filter that it lacks, values its parameters do not take, filters on a
// parameter of one value (which the page offers no box for). What is left is what the
// page shows, and what it writes back.
function checkAddress() {
  const s = S.sel;
  if (s.params) s.params = s.params.filter(n => S.params.some(p => p.name === n));
  for (const name of Object.keys(s.hide)) {
    const p = S.params.find(p => p.name === name);
    const h = p && p.labels.length > 1 ? new Set([...s.hide[name]].filter(l => p.labels.includes(l))) : new Set();
    if (h.size) s.hide[name] = h; else delete s.hide[name];
  }
}

// ---- scales

function niceTicks(lo, hi, n) {
  if (!(hi > lo)) return [lo];
  const raw = (hi - lo) / n, mag = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = [1, 2, 5, 10].map(m => m * mag).find(s => s >= raw);
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(+v.toPrecision(12));
  return out;
}

function scale(key, vals, lo, hi, log) {
  const kind = fieldKind(key);
  if (kind === "category") {
    const cats = categories(key), n = Math.max(cats.length, 1);
    const f = v => lo + (hi - lo) * (v + 0.5) / n;
    f.ticks = cats.map((c, i) => ({v: i, label: categoryLabel(key, c)}));
    return f;
  }
  let finite = vals.filter(v => isFinite(v) && (!log || v > 0));
  let a = Math.min(...finite), b = Math.max(...finite);
  if (!finite.length) { a = 0; b = 1; }
  if (a === b) { a -= Math.abs(a) * 0.5 || 0.5; b += Math.abs(b) * 0.5 || 0.5; }
  if (log) {
    const la = Math.log10(a), lb = Math.log10(b), pad = (lb - la) * 0.04;
    const f = v => lo + (hi - lo) * (Math.log10(v) - la + pad) / (lb - la + 2 * pad);
    const ticks = [];
    for (let k = Math.floor(la); k <= Math.ceil(lb); k++) {
      for (const m of [1, 2, 5]) {
        const v = m * Math.pow(10, k);
        if (v >= a / 1.0001 && v <= b * 1.0001) ticks.push({v, label: fmt(v)});
      }
    }
    f.ticks = ticks.length ? ticks : [{v: a, label: fmt(a)}, {v: b, label: fmt(b)}];
    return f;
  }
  const pad = (b - a) * 0.04;
  const f = v => lo + (hi - lo) * (v - a + pad) / (b - a + 2 * pad);
  f.ticks = niceTicks(a, b, 6).map(v => ({v, label: fmt(v)}));
  return f;
}

// continuous colours: a perceptually ordered scale from dark blue through green to yellow
const RAMP = ["#30123b", "#4145ab", "#4675ed", "#39a2fc", "#1bcfd4", "#24eca6", "#61fc6c", "#a4fc3b", "#d1e834", "#f3c63a", "#fe9b2d", "#f36315", "#d93806", "#b11901", "#7a0403"];
// categories: distinct colours, ok first
const PALETTE = ["#1f77b4", "#d62728", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#2ca02c", "#aec7e8", "#ffbb78"];

function ramp(t) {
  t = Math.min(1, Math.max(0, t));
  const x = t * (RAMP.length - 1), i = Math.min(Math.floor(x), RAMP.length - 2), f = x - i;
  const a = hex(RAMP[i]), b = hex(RAMP[i + 1]);
  return rgb(a.map((c, k) => c + (b[k] - c) * f));
}

function hex(h) { return [1, 3, 5].map(i => parseInt(h.slice(i, i + 2), 16)); }
function rgb(c) { return "rgb(" + c.map(Math.round).join(",") + ")"; }

// colourer returns the colour of a point by field key, with its legend. A success found
// wrong has FOUND_WRONG_COLOUR whatever the field, and its value is left out of the
// ramp's range, whose end would otherwise mark it as the best.
function colourer(key, shown) {
  const wrong = shown.some(e => statusOf(e) === FOUND_WRONG);
  const wrongEntry = {label: categoryLabel("status", FOUND_WRONG), colour: FOUND_WRONG_COLOUR};
  if (fieldKind(key) === "category") {
    // the palette's colours go to the other categories, in order: ok keeps the first
    const cats = categories(key).filter(c => key !== "status" || c !== FOUND_WRONG);
    const f = e => {
      const st = statusOf(e);
      if (st === FOUND_WRONG) return FOUND_WRONG_COLOUR;
      const v = key === "status" ? cats.indexOf(st) : value(e, key);
      return v >= 0 ? PALETTE[v % PALETTE.length] : "#999";
    };
    const entries = cats.map((c, i) => ({label: categoryLabel(key, c), colour: PALETTE[i % PALETTE.length]}));
    // found wrong after ok among the statuses (first where none is ok), last otherwise
    if (wrong) entries.splice(key !== "status" ? entries.length : cats[0] === "ok" ? 1 : 0, 0, wrongEntry);
    f.legend = {kind: "category", cats: entries};
    return f;
  }
  const vals = shown.filter(e => statusOf(e) !== FOUND_WRONG).map(e => value(e, key)).filter(isFinite);
  const lo = Math.min(...vals), hi = Math.max(...vals);
  const f = e => {
    if (statusOf(e) === FOUND_WRONG) return FOUND_WRONG_COLOUR;
    const v = value(e, key);
    if (!isFinite(v)) return "#bbb";
    return ramp(hi > lo ? (v - lo) / (hi - lo) : 0.5);
  };
  f.legend = {kind: "number", lo, hi, label: fieldLabel(key), cats: wrong ? [wrongEntry] : []};
  return f;
}

// ---- the scatter plot

function drawScatter() {
  const svg = $("scatter");
  const W = Math.max(svg.parentNode.clientWidth, 320), H = 420;
  svg.setAttribute("width", W);
  svg.setAttribute("height", H);
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  svg.replaceChildren();
  const s = S.sel;
  const shown = S.evals.filter(visible);
  const xs = shown.map(e => value(e, s.x)), ys = shown.map(e => value(e, s.y));
  const log = s.logy && fieldKind(s.y) === "number";
  const M = {l: 74, r: 16, t: 26, b: 46};
  const X = scale(s.x, xs, M.l, W - M.r, false), Y = scale(s.y, ys, H - M.b, M.t, log);
  const colour = colourer(s.color, shown);

  // frame, ticks, grid
  el("rect", {x: M.l, y: M.t, width: W - M.l - M.r, height: H - M.t - M.b, class: "frame"}, svg);
  const thinX = Math.ceil(X.ticks.length / Math.max(1, Math.floor((W - M.l - M.r) / 60)));
  X.ticks.forEach((t, i) => {
    const x = X(t.v);
    if (x < M.l - 0.5 || x > W - M.r + 0.5) return;
    el("line", {x1: x, x2: x, y1: M.t, y2: H - M.b, class: "grid"}, svg);
    if (i % thinX === 0) el("text", {x, y: H - M.b + 16, class: "tick", "text-anchor": "middle"}, svg).textContent = t.label;
  });
  const thinY = Math.ceil(Y.ticks.length / Math.max(1, Math.floor((H - M.t - M.b) / 22)));
  Y.ticks.forEach((t, i) => {
    const y = Y(t.v);
    if (y < M.t - 0.5 || y > H - M.b + 0.5) return;
    el("line", {x1: M.l, x2: W - M.r, y1: y, y2: y, class: "grid"}, svg);
    if (i % thinY === 0) el("text", {x: M.l - 6, y: y + 4, class: "tick", "text-anchor": "end"}, svg).textContent = t.label;
  });
  el("text", {x: (M.l + W - M.r) / 2, y: H - 8, class: "axis", "text-anchor": "middle"}, svg).textContent = fieldLabel(s.x);
  el("text", {x: 14, y: (M.t + H - M.b) / 2, class: "axis", "text-anchor": "middle",
    transform: `rotate(-90 14 ${(M.t + H - M.b) / 2})`}, svg).textContent = fieldLabel(s.y) + (log ? " (log)" : "");
  // the evaluations without a value of an axis (failed ones) in a band along it
  const noY = M.t - 12, noX = M.l - 60;
  if (ys.some(v => !isFinite(v) || (log && v <= 0))) el("text", {x: W - M.r, y: noY - 6, class: "tick", "text-anchor": "end"}, svg).textContent = "no " + fieldLabel(s.y) + " (failed) \u2193";

  const g = el("g", {class: "points"}, svg);
  shown.forEach((e, k) => {
    let x = xs[k], y = ys[k];
    const hasX = isFinite(x), hasY = isFinite(y) && (!log || y > 0);
    const cx = hasX ? X(x) : noX, cy = hasY ? Y(y) : noY;
    const st = statusOf(e);
    const c = el("circle", {cx: cx.toFixed(1), cy: cy.toFixed(1), r: hasX && hasY ? 4 : 3.5, "data-i": e.index,
      class: "pt" + (hasX && hasY ? "" : " nv") + (st === "ok" ? "" : st === FOUND_WRONG ? " wrong" : " failed")}, g);
    c.setAttribute("fill", hasX && hasY ? colour(e) : "none");
    if (!(hasX && hasY)) c.setAttribute("stroke", st === "ok" || st === FOUND_WRONG ? colour(e) : "#d62728");
  });

  if (s.best) drawBest(svg, shown, X, Y, log);
  if (S.pinned >= 0) {
    const e = S.evals[S.pinned];
    if (e && visible(e)) {
      const c = g.querySelector(`circle[data-i="${S.pinned}"]`);
      if (c) el("circle", {cx: c.getAttribute("cx"), cy: c.getAttribute("cy"), r: 8, class: "pin"}, svg);
    }
  }
  svg.dataset.points = shown.length;
  drawLegend(colour.legend);
  const hidden = S.evals.length - shown.length;
  $("scatter-caption").textContent = `${shown.length} evaluations` + (hidden ? ` shown, ${hidden} filtered out` : "") +
    `: ${fieldLabel(s.y)} against ${fieldLabel(s.x)}, coloured by ${fieldLabel(s.color)}`;
}

// the best so far of the y field in evaluation order, as a step line (x must be the order);
// a configuration found wrong anywhere in the run (a wrong_answer evaluation, shown or
// filtered out) is never the best, however fast its successes ran
function drawBest(svg, shown, X, Y, log) {
  const s = S.sel;
  if (s.x !== "order" || fieldKind(s.y) !== "number" || s.y === "order") return;
  const maximize = s.y === "objective" ? S.run.maximize : !!S.metrics[s.y.slice(2)];
  let best = NaN, pts = [];
  for (const e of shown) {
    const v = value(e, s.y);
    if (!isFinite(v) || (log && v <= 0) || S.wrong.has(configKey(e))) continue;
    if (!isFinite(best) || (maximize ? v > best : v < best)) {
      if (isFinite(best)) pts.push([X(e.index), Y(best)]);
      best = v;
      pts.push([X(e.index), Y(best)]);
    }
  }
  if (!pts.length) return;
  const last = shown[shown.length - 1];
  pts.push([X(last.index), Y(best)]);
  el("polyline", {points: pts.map(p => p[0].toFixed(1) + "," + p[1].toFixed(1)).join(" "), class: "best"}, svg);
}

function drawLegend(l) {
  const box = $("legend");
  box.replaceChildren();
  if (l.kind !== "category" && isFinite(l.lo)) {
    const bar = html("span", {class: "rampbar"});
    bar.style.background = "linear-gradient(to right," + RAMP.join(",") + ")";
    box.append(html("span", {class: "lo"}, l.label + ": " + fmt(l.lo)), bar, html("span", {class: "hi"}, fmt(l.hi)));
  }
  for (const c of l.cats) {
    const item = html("span", {class: "sw"});
    const dot = html("i");
    dot.style.background = c.colour;
    item.append(dot, document.createTextNode(c.label));
    box.appendChild(item);
  }
}

// ---- details of a point

function showTip(e, cx, cy) {
  const tip = $("tip");
  tip.replaceChildren();
  const st = statusOf(e);
  tip.appendChild(html("b", {}, `evaluation ${e.index}: ${categoryLabel("status", st)}`));
  const t = html("table");
  const row = (k, v) => { const r = html("tr"); r.append(html("th", {}, k), html("td", {}, v)); t.appendChild(r); };
  S.params.forEach((p, i) => row(p.name, p.labels[e.at[i]] ?? String(e.config[i])));
  row(S.run.objective, fmt(e.objective));
  if (e.device) row("device", e.device);
  for (const m of Object.keys(e.metrics || {}).sort()) if (m !== S.run.objective) row(m, fmt(e.metrics[m] ?? NaN));
  tip.appendChild(t);
  if (e.message) tip.appendChild(html("p", {class: "msg"}, e.message.length > 400 ? e.message.slice(0, 400) + "\u2026" : e.message));
  if (st === FOUND_WRONG) tip.appendChild(html("p", {class: "msg"}, "it ran, but a wrong_answer evaluation of this configuration in the run found it wrong: no success"));
  tip.hidden = false;
  const box = tip.parentNode.getBoundingClientRect();
  let left = cx + 12, top = cy + 12;
  if (left + tip.offsetWidth > box.width) left = Math.max(0, cx - tip.offsetWidth - 12);
  if (top + tip.offsetHeight > box.height) top = Math.max(0, cy - tip.offsetHeight - 12);
  tip.style.left = left + "px";
  tip.style.top = top + "px";
}

function pointAt(ev) {
  const t = ev.target;
  if (!t.classList || !t.classList.contains("pt")) return null;
  return S.evals[+t.dataset.i];
}

function setupTips() {
  const svg = $("scatter");
  svg.addEventListener("mousemove", ev => {
    const e = pointAt(ev);
    if (e) showTip(e, +ev.target.getAttribute("cx"), +ev.target.getAttribute("cy"));
    else if (S.pinned < 0) $("tip").hidden = true;
  });
  svg.addEventListener("mouseleave", () => {
    if (S.pinned >= 0) {
      const c = svg.querySelector(`circle.pt[data-i="${S.pinned}"]`);
      if (c) { showTip(S.evals[S.pinned], +c.getAttribute("cx"), +c.getAttribute("cy")); return; }
    }
    $("tip").hidden = true;
  });
  svg.addEventListener("click", ev => {
    const e = pointAt(ev);
    S.pinned = e && e.index !== S.pinned ? e.index : -1;
    drawScatter();
    if (e && S.pinned >= 0) showTip(e, +ev.target.getAttribute("cx"), +ev.target.getAttribute("cy"));
    else $("tip").hidden = true;
  });
}

// ---- the analysis charts

// diverging colours for a correlation: red for positive, blue for negative, paler near 0
function diverging(r) {
  const t = Math.min(1, Math.abs(r));
  const white = [247, 247, 247], red = [178, 24, 43], blue = [33, 102, 172];
  const end = r >= 0 ? red : blue;
  return rgb(white.map((c, k) => c + (end[k] - c) * (0.25 + 0.75 * t)));
}

// distinct colours per parameter: the same parameter keeps its colour whatever is selected
function paramColour(name) {
  const i = S.params.findIndex(p => p.name === name);
  return PALETTE[(i < 0 ? 0 : i) % PALETTE.length];
}

function chartFrame(svg, rows) {
  const W = Math.max(svg.parentNode.clientWidth - 2, 260), rowH = 26;
  const H = 34 + rowH * Math.max(rows, 1);
  svg.setAttribute("width", W);
  svg.setAttribute("height", H);
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  svg.replaceChildren();
  return {W, H, rowH};
}

function labelWidth() {
  return Math.min(150, 12 + 7 * Math.max(4, ...S.params.map(p => p.name.length)));
}

function drawSignificance() {
  const svg = $("significance"), note = $("significance-note"), a = S.analysis;
  if (!a || a.error) {
    chartFrame(svg, 0);
    note.textContent = a ? a.error : "computing\u2026";
    return;
  }
  const rows = a.significance;
  const {W, rowH} = chartFrame(svg, rows.length);
  const L = labelWidth(), R = W - 56, mid = (L + R) / 2, half = (R - L) / 2;
  for (const v of [-1, -0.5, 0, 0.5, 1]) {
    const x = mid + v * half;
    el("line", {x1: x, x2: x, y1: 6, y2: 10 + rowH * rows.length, class: v === 0 ? "zero" : "grid"}, svg);
    el("text", {x, y: 24 + rowH * rows.length, class: "tick", "text-anchor": "middle"}, svg).textContent = v;
  }
  rows.forEach((c, i) => {
    const y = 8 + i * rowH, r = c.pearson;
    el("text", {x: L - 8, y: y + rowH / 2 + 2, class: "tick", "text-anchor": "end"}, svg).textContent = c.param;
    const ok = typeof r === "number";
    const w = ok ? Math.abs(r) * half : 0;
    const bar = el("rect", {x: ok && r < 0 ? mid - w : mid, y: y + 3, width: w.toFixed(1), height: rowH - 8, class: "bar", "data-param": c.param}, svg);
    bar.setAttribute("fill", ok ? diverging(r) : "none");
    el("title", {}, bar).textContent = `${c.param}: Pearson ${ok ? fmt(r) : "undefined (constant)"}, Spearman ${typeof c.spearman === "number" ? fmt(c.spearman) : "undefined"}, ${c.n} configurations` + (c.ordinal ? "; string values by their position" : "");
    el("text", {x: R + 6, y: y + rowH / 2 + 2, class: "val"}, svg).textContent = ok ? r.toFixed(2) : "n/a";
  });
  const better = a.maximize ? "higher" : "lower";
  note.textContent = `red: larger values of the parameter go with larger ${a.objective}, blue: with smaller (${better} is better); ` +
    `over ${a.valid} configurations with a value of ${a.objective}` + (a.evaluations < a.run_evaluations ? ` (of the ${a.evaluations} of the run's ${a.run_evaluations} evaluations that match the filters)` : "");
}

function drawSensitivity() {
  const svg = $("sensitivity"), note = $("sensitivity-note"), a = S.analysis;
  if (!a || a.error) {
    chartFrame(svg, 0);
    note.textContent = a ? "" : "computing\u2026";
    return;
  }
  const sob = a.sobol;
  if (!sob) {
    chartFrame(svg, 0);
    note.textContent = (a.warnings || []).join("\n") || "no Sobol indices"; // a line each
    return;
  }
  const {W, rowH} = chartFrame(svg, sob.params.length);
  const L = labelWidth(), R = W - 84;
  const top = Math.max(1, ...sob.first.concat(sob.total).map(iv => typeof iv.value === "number" ? iv.value : 0));
  const X = v => L + (R - L) * Math.max(0, v) / top;
  for (const v of niceTicks(0, top, 4)) {
    el("line", {x1: X(v), x2: X(v), y1: 6, y2: 10 + rowH * sob.params.length, class: v === 0 ? "zero" : "grid"}, svg);
    el("text", {x: X(v), y: 24 + rowH * sob.params.length, class: "tick", "text-anchor": "middle"}, svg).textContent = v;
  }
  sob.params.forEach((p, i) => {
    const y = 8 + i * rowH, f = sob.first[i].value, t = sob.total[i].value, col = paramColour(p);
    el("text", {x: L - 8, y: y + rowH / 2 + 2, class: "tick", "text-anchor": "end"}, svg).textContent = p;
    const g = el("g", {class: "bar", "data-param": p}, svg);
    const num = v => typeof v === "number" ? v : 0;
    el("rect", {x: L, y: y + 2, width: (X(num(t)) - L).toFixed(1), height: rowH - 6, fill: col, "fill-opacity": 0.35, class: "total"}, g);
    el("rect", {x: L, y: y + 6, width: (X(num(f)) - L).toFixed(1), height: rowH - 14, fill: col, class: "first"}, g);
    el("title", {}, g).textContent = `${p}: first-order ${fmt(f)}, total-order ${fmt(t)}`;
    el("text", {x: R + 6, y: y + rowH / 2 + 2, class: "val"}, svg).textContent = `${two(f)} / ${two(t)}`;
  });
  note.textContent = `${sob.method} indices over ${sob.samples} configurations. ${sob.note || ""}`;
}

function two(v) { return typeof v === "number" ? v.toFixed(2) : "n/a"; }

function drawWarnings() {
  const a = S.analysis;
  // a line each: the warnings are phrases, with no full stop to part them
  $("warnings").textContent = a && !a.error && a.warnings && a.warnings.length ? "Analysis:\n" + a.warnings.join("\n") : "";
}

// ---- the analysis request

function analysisURL() {
  const s = S.sel, q = new URLSearchParams();
  if (s.objective) q.set("objective", s.objective);
  q.set("params", selectedParams().join(","));
  for (const p of S.params) {
    const h = s.hide[p.name];
    if (h && h.size) for (const l of p.labels) if (!h.has(l)) q.append("keep", p.name + "=" + l);
  }
  // the statuses and devices seen so far that are kept (emptyFilter sees to it that one
  // is): one seen only later in a live run is in the next analysis, asked for once its
  // evaluations are read
  const statuses = Object.keys(S.statuses);
  if (statuses.some(st => s.hideStatus.has(st))) q.set("status", statuses.filter(st => !s.hideStatus.has(st)).join(","));
  const devices = Object.keys(S.devices);
  if (devicesFiltered() && devices.some(d => s.hideDevice.has(d))) q.set("device", devices.filter(d => !s.hideDevice.has(d)).join(","));
  return api + "/analysis?" + q.toString();
}

function selectedParams() {
  if (S.sel.params) return S.sel.params.filter(n => S.params.some(p => p.name === n));
  return S.params.filter(p => p.values.length > 1).map(p => p.name);
}

function requestAnalysis(delay) {
  clearTimeout(S.analysisTimer);
  S.waiting = true;
  S.analysisTimer = setTimeout(runAnalysis, delay === undefined ? 120 : delay);
}

async function runAnalysis() {
  S.waiting = false;
  if (S.analysisCtl) S.analysisCtl.abort();
  if (!selectedParams().length) {
    S.analysis = {error: "select at least one parameter to analyse"};
    drawAnalysis();
    return;
  }
  const empty = emptyFilter();
  if (empty) {
    S.analysis = {error: empty};
    drawAnalysis();
    return;
  }
  const ctl = S.analysisCtl = new AbortController();
  S.lastAnalysis = Date.now();
  try {
    S.analysis = await getJSON(analysisURL(), ctl.signal);
  } catch (err) {
    if (err.name === "AbortError") return;
    S.analysis = {error: err.message};
  }
  if (ctl === S.analysisCtl) S.analysisCtl = null;
  drawAnalysis();
}

function drawAnalysis() {
  drawSignificance();
  drawSensitivity();
  drawWarnings();
}

// ---- the sidebar

function fillSelect(id, options, current) {
  const sel = $(id);
  sel.replaceChildren();
  for (const o of options) sel.appendChild(html("option", {value: o.key}, o.label));
  sel.value = options.some(o => o.key === current) ? current : options[0].key;
  return sel.value;
}

function buildControls() {
  const s = S.sel, fs = fields();
  s.x = fillSelect("x", fs, s.x);
  s.y = fillSelect("y", fs, s.y);
  s.color = fillSelect("color", fs, s.color);
  const objectives = [{key: S.run.objective, label: S.run.objective}].concat(
    Object.keys(S.metrics).sort().filter(m => m !== S.run.objective).map(m => ({key: m, label: m})));
  const o = fillSelect("objective", objectives, s.objective || S.run.objective);
  s.objective = o === S.run.objective ? "" : o;
  $("logy").checked = s.logy;
  $("bestline").checked = s.best;
  $("bestline").disabled = s.x !== "order";

  const box = $("params");
  box.replaceChildren();
  const chosen = selectedParams();
  for (const p of S.params) {
    const cb = html("input", {type: "checkbox", value: p.name});
    cb.checked = chosen.includes(p.name);
    cb.addEventListener("change", () => {
      S.sel.params = [...box.querySelectorAll("input:checked")].map(c => c.value);
      changed(true);
    });
    const l = html("label", {class: "inline", title: p.values.length === 1 ? "one value: nothing to analyse" : ""});
    l.append(cb, document.createTextNode(" " + p.name));
    box.appendChild(l);
  }
  buildStatusFilter();
  buildDeviceFilter();
  const filters = $("filters");
  filters.replaceChildren();
  S.params.forEach(p => {
    if (p.values.length < 2) return;
    const d = html("details", {class: "filter"});
    const hidden = s.hide[p.name] || new Set();
    if (hidden.size) d.open = true;
    d.appendChild(html("summary", {}, p.name + (hidden.size ? ` (${p.labels.length - hidden.size} of ${p.labels.length})` : "")));
    const checks = html("div", {class: "checks"});
    for (const l of p.labels) {
      const cb = html("input", {type: "checkbox", value: l, "data-param": p.name});
      cb.checked = !hidden.has(l);
      cb.addEventListener("change", () => {
        const h = S.sel.hide[p.name] = new Set([...checks.querySelectorAll("input:not(:checked)")].map(c => c.value));
        d.querySelector("summary").textContent = p.name + (h.size ? ` (${p.labels.length - h.size} of ${p.labels.length})` : "");
        changed(true);
      });
      const lab = html("label", {class: "inline"});
      lab.append(cb, document.createTextNode(" " + l));
      checks.appendChild(lab);
    }
    const all = html("button", {type: "button"}, "all"), none = html("button", {type: "button"}, "none");
    all.addEventListener("click", () => { checks.querySelectorAll("input").forEach(c => c.checked = true); checks.querySelector("input").dispatchEvent(new Event("change")); });
    none.addEventListener("click", () => { checks.querySelectorAll("input").forEach(c => c.checked = false); checks.querySelector("input").dispatchEvent(new Event("change")); });
    d.append(checks, all, none);
    filters.appendChild(d);
  });
}

function buildStatusFilter() {
  const box = $("statuses");
  box.replaceChildren();
  for (const st of categories("status")) {
    const cb = html("input", {type: "checkbox", value: st});
    cb.checked = !S.sel.hideStatus.has(st);
    cb.addEventListener("change", () => {
      if (cb.checked) S.sel.hideStatus.delete(st); else S.sel.hideStatus.add(st);
      changed(true);
    });
    const l = html("label", {class: "inline st-" + st});
    l.append(cb, document.createTextNode(` ${categoryLabel("status", st)} (${S.statuses[st]})`));
    box.appendChild(l);
  }
}

// the devices to show, once several measured: a check box each, with its count
function buildDeviceFilter() {
  const box = $("devices");
  box.replaceChildren();
  $("device-filter").hidden = !severalDevices();
  if (!severalDevices()) return;
  for (const d of categories("device")) {
    const cb = html("input", {type: "checkbox", value: d});
    cb.checked = !S.sel.hideDevice.has(d);
    cb.addEventListener("change", () => {
      if (cb.checked) S.sel.hideDevice.delete(d); else S.sel.hideDevice.add(d);
      changed(true);
    });
    const l = html("label", {class: "inline"});
    l.append(cb, document.createTextNode(` ${categoryLabel("device", d)} (${S.devices[d]})`));
    box.appendChild(l);
  }
}

function setupControls() {
  for (const id of ["x", "y", "color"]) $(id).addEventListener("change", ev => {
    S.sel[id] = ev.target.value;
    $("bestline").disabled = S.sel.x !== "order";
    changed(false);
  });
  $("logy").addEventListener("change", ev => { S.sel.logy = ev.target.checked; changed(false); });
  $("bestline").addEventListener("change", ev => { S.sel.best = ev.target.checked; changed(false); });
  $("objective").addEventListener("change", ev => {
    S.sel.objective = ev.target.value === S.run.objective ? "" : ev.target.value;
    changed(true);
  });
  window.addEventListener("resize", () => { drawScatter(); drawAnalysis(); });
}

function changed(analyse) {
  writeAddress();
  drawScatter();
  if (analyse) {
    S.analysis = null;
    drawAnalysis();
    requestAnalysis();
  }
}

// ---- the run's evaluations, live while it runs

function status() {
  const r = S.run;
  // a success of a configuration found wrong in the run is none: the server counts it apart
  const ok = `${r.succeeded} ok` + (r.found_wrong ? `, ${r.found_wrong} found wrong` : "");
  const parts = [r.kind, r.failed ? "failed" : r.status, `${r.evaluations} evaluations (${ok})`];
  if (r.best_objective !== null && r.best_objective !== undefined) {
    const cfg = (r.best_configuration || []).map((v, i) => S.params[i] ? S.params[i].name + "=" + (S.params[i].labels[S.params[i].values.findIndex(w => w === v)] ?? v) : v).join(", ");
    parts.push(`best ${r.objective} ${fmt(r.best_objective)}${r.objective === "time" ? " ms" : ""} at ${cfg}`);
  }
  if (r.status === "running") parts.push("live: updated " + new Date().toLocaleTimeString());
  const line = $("live");
  line.textContent = parts.join(" \u00b7 ");
  line.className = "sub st-" + (r.failed ? "failed" : r.status);
}

function absorb(body) {
  S.run = Object.assign(S.run || {}, body.run, {params: S.run ? S.run.params : body.run.params});
  let newMetric = false, newStatus = false;
  for (const m in body.metrics) if (!(m in S.metrics)) { S.metrics[m] = body.metrics[m]; newMetric = true; }
  for (const e of body.evaluations) {
    if (e.index !== S.evals.length) continue; // a repeat of one read already
    S.evals.push(e);
    if (e.status === "wrong_answer") S.wrong.add(configKey(e));
    const d = deviceOf(e);
    if (!(d in S.devices)) { S.devices[d] = 0; newMetric = true; } // a new field and filter to choose
    S.devices[d]++;
  }
  if (body.evaluations.length) {
    // the statuses counted again: a configuration found wrong now turns its successes
    // read before, ok until now, into found wrong (and may leave no ok)
    const counts = {}, names = o => Object.keys(o).sort().join(",");
    for (const e of S.evals) { const st = statusOf(e); counts[st] = (counts[st] || 0) + 1; }
    newStatus = names(counts) !== names(S.statuses);
    S.statuses = counts;
  }
  S.next = S.evals.length;
  return {added: body.evaluations.length, newMetric, newStatus};
}

async function poll() {
  try {
    const body = await getJSON(`${api}/evaluations?after=${S.next}`);
    const {added, newMetric, newStatus} = absorb(body);
    if (newMetric) buildControls(); else if (newStatus || added) { buildStatusFilter(); buildDeviceFilter(); }
    status();
    if (added) {
      drawScatter();
      // the analysis follows a live run, at most every few seconds
      requestAnalysis(Math.max(0, 3000 - (Date.now() - S.lastAnalysis)));
    }
  } catch (err) {
    $("live").textContent = "cannot reach the dashboard's server: " + err.message;
  }
  if (S.run.status === "running") setTimeout(poll, POLL_MS);
}

async function start() {
  readAddress();
  try {
    const run = await getJSON(api);
    S.params = run.params.map(p => Object.assign(p, {numeric: p.values.every(v => typeof v === "number" || typeof v === "boolean")}));
    S.run = run;
    const body = await getJSON(`${api}/evaluations?after=0`);
    absorb(body);
    checkAddress();
  } catch (err) {
    $("live").textContent = err.message;
    S.loaded = true;
    return;
  }
  buildControls();
  setupControls();
  setupTips();
  status();
  writeAddress();
  drawScatter();
  drawAnalysis();
  await runAnalysis();
  S.loaded = true;
  if (S.run.status === "running") setTimeout(poll, POLL_MS);
}

// settled resolves once the page has drawn what it has fetched and no fetch is under way:
// what a test (or a screenshot) waits for.
window.dashboard = {
  settled() {
    return new Promise(resolve => {
      const check = () => S.loaded && S.pending === 0 && !S.analysisCtl && !S.waiting ? resolve() : setTimeout(check, 50);
      setTimeout(check, 200);
    });
  },
  state: S,
};

start();
