"use strict";
// irconv show: draws the embedded graph document (schema: irconv/cli/graphdoc.py).
(function () {
  const doc = JSON.parse(document.getElementById("graph-data").textContent);
  const SVG = "http://www.w3.org/2000/svg";
  const W = 190, H = 48, GAP_X = 30, GAP_Y = 46;
  const state = { graph: 0, collapsed: new Set(), selected: null, query: "", showConsts: false, fitted: -1, view: { x: 20, y: 20, k: 1 } };
  const $ = (id) => document.getElementById(id);

  function scopeOf(name) {
    const cut = Math.max(name.lastIndexOf("/"), 0);
    return cut > 0 ? name.slice(0, cut) : "";
  }

  // Groups: nodes sharing a name scope. Repeated blocks: groups with the same op-type signature.
  // Blocks by structure, for graphs whose names have no scopes: walking the nodes in
  // topological order, a node after which every open edge starts at it is a cut point (all
  // later nodes depend on the earlier ones only through it); the nodes between two cut
  // points form a block (a residual block ends at its merge), named after its last node.
  function structuralBlocks(graph) {
    const skip = (n) => n.type === "Const";
    const fanout = new Map();
    for (const n of graph.nodes) {
      if (skip(n)) continue;
      for (const s of n.inputs) if (s && !skip(graph.nodes[s[0]])) fanout.set(s[0], (fanout.get(s[0]) || 0) + 1);
    }
    const open = new Map();
    const blocks = new Map();
    let current = [];
    for (const n of graph.nodes) {
      if (skip(n)) continue;
      for (const s of n.inputs) {
        if (!s || !open.has(s[0])) continue;
        const left = open.get(s[0]) - 1;
        if (left) open.set(s[0], left);
        else open.delete(s[0]);
      }
      if (fanout.get(n.id)) open.set(n.id, fanout.get(n.id));
      current.push(n.id);
      if (open.size === 0 || (open.size === 1 && open.has(n.id))) {
        if (current.length > 1 && n.type !== "Result") blocks.set(n.name, current);
        current = [];
      }
    }
    return blocks;
  }

  function analyse(graph) {
    let groups = new Map();
    for (const n of graph.nodes) {
      const scope = scopeOf(n.name);
      if (!scope) continue;
      if (!groups.has(scope)) groups.set(scope, []);
      groups.get(scope).push(n.id);
    }
    for (const [scope, ids] of [...groups]) if (ids.length < 2) groups.delete(scope);
    graph.blockKind = "name scopes";
    const drawn = graph.nodes.filter((n) => n.type !== "Const").length;
    let scoped = 0;
    for (const ids of groups.values()) scoped += ids.filter((i) => graph.nodes[i].type !== "Const").length;
    if (scoped < drawn / 2) {  // names say little about structure: find blocks by the edges
      groups = structuralBlocks(graph);
      graph.blockKind = "blocks between cut points";
    }
    const bySignature = new Map();
    for (const [scope, ids] of groups) {
      const sig = ids.map((i) => graph.nodes[i].type).sort().join(",");
      if (!bySignature.has(sig)) bySignature.set(sig, []);
      bySignature.get(sig).push(scope);
    }
    const repeated = new Map();
    for (const scopes of bySignature.values()) if (scopes.length > 1) for (const s of scopes) repeated.set(s, scopes.length);
    graph.groups = groups;
    graph.repeated = repeated;
    graph.groupOf = new Map();
    for (const [scope, ids] of groups) for (const i of ids) graph.groupOf.set(i, scope);
  }

  function unitOf(graph, id) {
    const scope = graph.groupOf.get(id);
    return scope !== undefined && state.collapsed.has(scope) ? "g:" + scope : "n:" + id;
  }

  function hidden(n) {
    return !state.showConsts && n.type === "Const";
  }

  function layout(graph) {
    const units = new Map();
    const edges = new Map();
    for (const n of graph.nodes) {
      if (hidden(n)) continue;
      const u = unitOf(graph, n.id);
      if (!units.has(u)) units.set(u, { key: u, nodes: [], depth: 0, preds: new Set() });
      units.get(u).nodes.push(n);
    }
    for (const n of graph.nodes) {
      if (hidden(n)) continue;
      const u = units.get(unitOf(graph, n.id));
      for (const src of n.inputs) {
        if (!src || hidden(graph.nodes[src[0]])) continue;
        const p = unitOf(graph, src[0]);
        if (p === u.key) continue;
        u.preds.add(p);
        edges.set(p + ">" + u.key, [p, u.key]);
        u.depth = Math.max(u.depth, units.get(p).depth + 1);
      }
    }
    // Sources (constants, inputs) sit just above their first consumer, not all on the top row.
    const consumers = new Map();
    for (const [a, b] of edges.values()) {
      if (!consumers.has(a)) consumers.set(a, []);
      consumers.get(a).push(units.get(b).depth);
    }
    for (const u of units.values()) {
      if (u.preds.size === 0 && consumers.has(u.key)) u.depth = Math.max(0, Math.min(...consumers.get(u.key)) - 1);
    }
    const layers = [];
    for (const u of units.values()) (layers[u.depth] = layers[u.depth] || []).push(u);
    for (const layer of layers) {
      if (!layer) continue;
      for (const u of layer) {
        const xs = [...u.preds].map((p) => units.get(p).x).filter((x) => x !== undefined);
        u.bary = xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0;
      }
      layer.sort((a, b) => a.bary - b.bary);
      let x = 0;
      for (const u of layer) {
        u.x = Math.max(x, u.bary - (W + GAP_X) * 0.0);
        x = u.x + W + GAP_X;
        u.y = u.depth * (H + GAP_Y);
      }
    }
    return { units, edges: [...edges.values()] };
  }

  function el(name, attrs, parent) {
    const e = document.createElementNS(SVG, name);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    if (parent) parent.appendChild(e);
    return e;
  }

  function draw() {
    const graph = doc.graphs[state.graph];
    const vp = $("viewport");
    vp.textContent = "";
    const { units, edges } = layout(graph);
    const q = state.query.toLowerCase();
    for (const [a, b] of edges) {
      const s = units.get(a), t = units.get(b);
      const x1 = s.x + W / 2, y1 = s.y + H, x2 = t.x + W / 2, y2 = t.y;
      const my = (y1 + y2) / 2;
      el("path", { class: "edge", d: `M${x1},${y1} C${x1},${my} ${x2},${my} ${x2},${y2}` }, vp);
    }
    let hits = 0;
    for (const u of units.values()) {
      const group = u.key.startsWith("g:");
      const first = u.nodes[0];
      const classes = ["node"];
      if (group) classes.push("group");
      else {
        if (first.type === "Const") classes.push("const");
        if (first.type === "Parameter" || first.type === "Result") classes.push("io");
        if (first.status) classes.push(first.status);
      }
      const hit = q && u.nodes.some((n) => matches(n, q));
      if (hit) { classes.push("hit"); hits++; }
      if (!group && state.selected === first.id) classes.push("selected");
      const g = el("g", { class: classes.join(" "), transform: `translate(${u.x},${u.y})`, "data-name": group ? u.key.slice(2) : first.name }, vp);
      el("rect", { width: W, height: H, rx: 6 }, g);
      const title = group ? u.key.slice(2).split("/").pop() + "  \u00d7" + u.nodes.length : first.type;
      const sub = group ? "collapsed block" : first.name;
      const shape = group ? "" : first.outputs.map((o) => o.shape + " " + o.type).join("  ");
      el("text", { x: 8, y: 15, class: "type" }, g).textContent = clip(title, 26);
      el("text", { x: 8, y: 29 }, g).textContent = clip(sub, 30);
      el("text", { x: 8, y: 42, class: "shape" }, g).textContent = clip(shape, 32);
      g.addEventListener("click", (ev) => {
        ev.stopPropagation();
        if (group) { state.collapsed.delete(u.key.slice(2)); draw(); drawGroups(); }
        else select(first.id);
      });
    }
    if (state.fitted !== state.graph) {
      state.fitted = state.graph;
      let right = 0;
      for (const u of units.values()) right = Math.max(right, u.x + W);
      const box = $("canvas").getBoundingClientRect();
      state.view.k = Math.min(1, Math.max(0.2, (box.width - 40) / Math.max(right, 1)));
      state.view.x = Math.max(20, (box.width - right * state.view.k) / 2);
      state.view.y = 20;
    }
    $("graph").setAttribute("data-node-count", String(units.size));
    // The same count as the results list: nodes matching, however many boxes show them.
    const matching = q ? graph.nodes.filter((n) => matches(n, q)).length : 0;
    const shownHits = hits === matching ? "" : ` (${hits} box${hits === 1 ? "" : "es"} shown)`;
    $("stats").textContent = `${graph.label}: ${graph.nodes.length} nodes, ${units.size} shown` +
      (q ? `, ${matching} match(es)${shownHits}` : "");
    applyView();
    drawResults(graph, q);
  }

  function matches(n, q) { return n.name.toLowerCase().includes(q) || n.type.toLowerCase().includes(q); }

  function clip(text, n) { return text.length > n ? text.slice(0, n - 1) + "\u2026" : text; }

  function row(table, k, v) {
    const tr = document.createElement("tr");
    const a = document.createElement("td"); a.textContent = k;
    const b = document.createElement("td"); b.textContent = v;
    tr.append(a, b); table.appendChild(tr);
  }

  function select(id) {
    state.selected = id;
    const graph = doc.graphs[state.graph];
    const n = graph.nodes[id];
    const box = $("details");
    box.textContent = "";
    const h = document.createElement("h3"); h.textContent = n.name; box.appendChild(h);
    const t = document.createElement("table"); box.appendChild(t);
    row(t, "type", n.type + (n.version ? " (" + n.version + ")" : ""));
    if (n.origin && n.origin !== n.name) row(t, "from", n.origin);
    if (n.status) row(t, "diff", n.status);
    n.inputs.forEach((src, i) => {
      if (!src) return row(t, "input " + i, "(none)");
      const p = graph.nodes[src[0]];
      const value = p.type === "Const" ? "  = Const " + (p.attributes.shape || "") + " " + (p.attributes.value || p.attributes.element_type || "") : "";
      row(t, "input " + i, p.name + ":" + src[1] + value);
    });
    n.outputs.forEach((o, i) => row(t, "output " + i, o.shape + " " + o.type + (o.names.length ? "  " + o.names.join(", ") : "")));
    const attrs = Object.entries(n.attributes);
    if (attrs.length) {
      const a = document.createElement("h3"); a.textContent = "attributes"; box.appendChild(a);
      const at = document.createElement("table"); box.appendChild(at);
      for (const [k, v] of attrs) row(at, k, v);
    }
    draw();
  }

  function drawResults(graph, q) {
    const box = $("results");
    box.textContent = "";
    if (!q) return;
    const found = graph.nodes.filter((n) => matches(n, q));
    const h = document.createElement("h3"); h.textContent = `${found.length} match(es)`; box.appendChild(h);
    for (const n of found.slice(0, 200)) {
      const a = document.createElement("div");
      a.className = "group-row";
      a.innerHTML = "";
      const s = document.createElement("span"); s.textContent = n.type + "  " + n.name; a.appendChild(s);
      a.style.cursor = "pointer";
      a.addEventListener("click", () => {
        if (hidden(n)) { state.showConsts = true; $("show-consts").checked = true; }
        expandFor(graph, n.id); select(n.id); center(n.id);
      });
      box.appendChild(a);
    }
  }

  function expandFor(graph, id) {
    const scope = graph.groupOf.get(id);
    if (scope !== undefined) state.collapsed.delete(scope);
  }

  function center(id) {
    const graph = doc.graphs[state.graph];
    const { units } = layout(graph);
    const u = units.get(unitOf(graph, id));
    if (!u) return;
    const box = $("canvas").getBoundingClientRect();
    state.view.x = box.width / 2 - (u.x + W / 2) * state.view.k;
    state.view.y = box.height / 2 - (u.y + H / 2) * state.view.k;
    applyView();
  }

  function drawGroups() {
    const graph = doc.graphs[state.graph];
    const box = $("groups");
    box.textContent = "";
    if (!graph.groups.size) return;
    const h = document.createElement("h3"); h.textContent = "blocks (" + graph.blockKind + ")"; box.appendChild(h);
    for (const [scope, ids] of graph.groups) {
      const line = document.createElement("label");
      line.className = "group-row";
      const cb = document.createElement("input"); cb.type = "checkbox"; cb.checked = state.collapsed.has(scope);
      cb.addEventListener("change", () => { if (cb.checked) state.collapsed.add(scope); else state.collapsed.delete(scope); draw(); });
      const name = document.createElement("span"); name.textContent = `${scope} (${ids.length})`;
      line.append(cb, name);
      if (graph.repeated.has(scope)) {
        const tag = document.createElement("span"); tag.className = "tag"; tag.textContent = "repeated \u00d7" + graph.repeated.get(scope);
        line.appendChild(tag);
      }
      box.appendChild(line);
    }
  }

  function drawChanges() {
    const box = $("changes");
    box.textContent = "";
    const ir = doc.graphs[0], src = doc.graphs[1];
    const summary = document.createElement("p");
    const added = ir.nodes.filter((n) => n.status === "added").length;
    const removed = src.nodes.filter((n) => n.status === "removed").length;
    summary.textContent = `source: ${src.nodes.length} nodes, IR: ${ir.nodes.length} nodes; ${added} added by conversion, ${removed} source nodes gone (fused or folded).`;
    box.appendChild(summary);
    const t = document.createElement("table");
    t.innerHTML = "<tr><th>phase</th><th>transform</th><th>changed</th><th>ms</th><th>nodes</th><th>delta</th></tr>";
    for (const r of doc.transforms) {
      const tr = document.createElement("tr");
      if (r.changed) tr.className = "changed";
      const d = r.nodes_after - r.nodes_before;
      for (const v of [r.phase, r.id, r.changed ? "yes" : "no", r.ms, `${r.nodes_before} \u2192 ${r.nodes_after}`, d > 0 ? "+" + d : String(d)]) {
        const td = document.createElement("td"); td.textContent = v; tr.appendChild(td);
      }
      t.appendChild(tr);
    }
    box.appendChild(t);
  }

  function applyView() {
    const v = state.view;
    $("viewport").setAttribute("transform", `translate(${v.x},${v.y}) scale(${v.k})`);
  }

  function tabs() {
    const nav = $("tabs");
    const names = doc.graphs.map((g) => g.label);
    if (doc.transforms.length && doc.graphs.length > 1) names.push("changes");
    names.forEach((label, i) => {
      const b = document.createElement("button");
      b.type = "button"; b.textContent = label;
      b.addEventListener("click", () => {
        nav.querySelectorAll("button").forEach((x) => x.classList.remove("active"));
        b.classList.add("active");
        const changes = label === "changes";
        $("changes").hidden = !changes;
        document.querySelector("main").hidden = changes;
        if (!changes) { state.graph = i; state.selected = null; state.collapsed.clear(); drawGroups(); draw(); }
      });
      if (i === 0) b.classList.add("active");
      nav.appendChild(b);
    });
  }

  // pan and zoom
  let drag = null;
  $("canvas").addEventListener("mousedown", (e) => { drag = { x: e.clientX - state.view.x, y: e.clientY - state.view.y }; });
  window.addEventListener("mouseup", () => { drag = null; });
  window.addEventListener("mousemove", (e) => { if (drag) { state.view.x = e.clientX - drag.x; state.view.y = e.clientY - drag.y; applyView(); } });
  $("canvas").addEventListener("wheel", (e) => {
    e.preventDefault();
    const f = e.deltaY < 0 ? 1.1 : 1 / 1.1;
    const r = $("canvas").getBoundingClientRect();
    const mx = e.clientX - r.left, my = e.clientY - r.top;
    state.view.x = mx - (mx - state.view.x) * f;
    state.view.y = my - (my - state.view.y) * f;
    state.view.k *= f;
    applyView();
  }, { passive: false });
  $("search").addEventListener("input", (e) => { state.query = e.target.value.trim(); draw(); });
  $("collapse-repeated").addEventListener("click", () => {
    for (const s of doc.graphs[state.graph].repeated.keys()) state.collapsed.add(s);
    drawGroups(); draw();
  });
  $("expand-all").addEventListener("click", () => { state.collapsed.clear(); drawGroups(); draw(); });
  $("show-consts").addEventListener("change", (e) => { state.showConsts = e.target.checked; draw(); });

  doc.graphs.forEach(analyse);
  // page.html#collapse=repeated opens with the repeated blocks collapsed; #search=TEXT searches
  const params = new URLSearchParams(location.hash.slice(1));
  if (params.get("collapse") === "repeated") for (const s of doc.graphs[0].repeated.keys()) state.collapsed.add(s);
  if (params.get("search")) { state.query = params.get("search"); $("search").value = state.query; }
  tabs();
  if (doc.transforms.length && doc.graphs.length > 1) drawChanges();
  drawGroups();
  draw();
  if (params.get("tab")) {  // #tab=source or #tab=changes opens that tab
    for (const b of $("tabs").querySelectorAll("button")) if (b.textContent === params.get("tab")) b.click();
  }
})();
