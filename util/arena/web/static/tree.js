// The search tree panel: a depth-limited minimax or alpha-beta from the position on the board.
"use strict";

async function drawTree() {
  if (!view) return;
  $("tree-info").textContent = "Searching…";
  try {
    const res = await api("GET", `/api/sessions/${view.id}/tree?depth=${$("tree-depth").value}&algorithm=${$("tree-algo").value}`);
    $("tree-view").innerHTML = "";
    const scale = treeScale(res.tree);
    $("tree-view").append(treeSvg(res.tree, scale));
    const blob = new Blob([res.dot], {type: "text/vnd.graphviz"});
    $("tree-info").innerHTML = "";
    $("tree-info").append(`${countNodes(res.tree)} nodes, heuristic ${res.heuristic ?? "none"}; values for the side to move at each node, in outcome units (1 = a win)${scale.k ? `, heuristic estimates (below 0.5) shown ×10^${scale.k}` : ""}; blue: the root's side; grey dashed = cut off. `,
      el("a", {href: URL.createObjectURL(blob), download: "tree.dot"}, "Download DOT"));
  } catch (e) {
    $("tree-info").textContent = e.message;
  }
}

// Heuristic estimates are tiny beside a win (1): written ×10^k so that they read as numbers.
function treeScale(root) {
  let top = 0;
  (function walk(n) {
    if (!n.cut && Number.isFinite(n.value) && Math.abs(n.value) < 0.5) top = Math.max(top, Math.abs(n.value));
    (n.children || []).forEach(walk);
  })(root);
  const k = top > 0 && top < 0.1 ? -Math.floor(Math.log10(top)) : 0;
  return {k, label: (v) => (Math.abs(v) >= 0.5 || !k ? fmt(v) : fmt(Math.round(v * 10 ** k * 100) / 100))};
}

function countNodes(n) {
  return 1 + (n.children || []).reduce((s, c) => s + countNodes(c), 0);
}

// A layered drawing: leaves spread left to right, a parent above the middle of its children.
function treeSvg(root, scale) {
  const NS = "http://www.w3.org/2000/svg";
  const dx = 46, dy = 70;
  let leaf = 0;
  const nodes = [];
  (function place(n, depth) {
    const kids = n.children || [];
    kids.forEach((k) => place(k, depth + 1));
    n._x = kids.length ? (kids[0]._x + kids[kids.length - 1]._x) / 2 : leaf++ * dx;
    n._y = depth * dy;
    nodes.push(n);
  })(root, 0);
  const width = Math.max(leaf * dx, dx) + 40, height = Math.max(...nodes.map((n) => n._y)) + 60;
  const svg = document.createElementNS(NS, "svg");
  svg.setAttribute("width", width);
  svg.setAttribute("height", height);
  svg.setAttribute("class", "tree");
  const g = document.createElementNS(NS, "g");
  g.setAttribute("transform", "translate(20,20)");
  svg.append(g);
  const add = (tag, attrs, text) => {
    const e = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    g.append(e);
    return e;
  };
  for (const n of nodes) for (const k of n.children || []) {
    add("line", {x1: n._x, y1: n._y, x2: k._x, y2: k._y, class: k.cut ? "cut" : ""});
    add("text", {x: (n._x + k._x) / 2 + 3, y: (n._y + k._y) / 2, class: "edge"}, k.text);
  }
  for (const n of nodes) {
    const c = add("circle", {cx: n._x, cy: n._y, r: 14, class: n.cut ? "cut" : (n.player === root.player ? "max" : "min")});
    const bound = n.bound === "upper" ? "≤" : n.bound === "lower" ? "≥" : "";
    c.append(Object.assign(document.createElementNS(NS, "title"),
      {textContent: `${n.text}: ${n.cut ? "cut off" : bound + n.value} (value for the side to move there)`}));
    add("text", {x: n._x, y: n._y + 4, class: "value"}, n.cut ? "✂" : bound + scale.label(n.value));
  }
  return svg;
}

