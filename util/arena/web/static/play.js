// The play page: a game against an agent, its analysis and search tree. The server owns the game.
"use strict";

let GAMES = [];
let view = null;  // the server's view of the current session

const $ = (id) => document.getElementById(id);

function setStatus(text, cls) {
  $("status").textContent = text;
  $("status").className = cls || "";
}

function currentGame() {
  return GAMES.find((g) => g.name === $("game").value);
}

function fillGameForm() {
  const g = currentGame();
  $("game-doc").textContent = g.doc;
  const params = $("params");
  params.innerHTML = "";
  for (const p of g.params) {
    params.append(el("label", {}, `${p.name} `, el("input", {"data-param": p.name, "data-type": p.type, value: p.default, size: 4, title: p.help})));
  }
  const agent = $("agent");
  agent.innerHTML = "";
  for (const a of g.agents) agent.append(el("option", {value: a}, a));
  if (g.agents.includes("mcts")) agent.value = "mcts";
}

function gameParams() {
  const out = {};
  document.querySelectorAll("#params input").forEach((inp) => {
    const t = inp.dataset.type;
    out[inp.dataset.param] = t === "int" ? parseInt(inp.value, 10) : t === "float" ? parseFloat(inp.value) : inp.value;
  });
  return out;
}

async function newGame() {
  const spec = $("agent-spec").value.trim() || $("agent").value;
  try {
    view = await api("POST", "/api/sessions", {
      game: $("game").value, params: gameParams(), agent: spec,
      time: parseFloat($("time").value), human: parseInt($("human").value, 10),
    });
    $("analysis").innerHTML = "";
    $("tree-view").innerHTML = "";
    $("tree-info").textContent = "";
    render();
    await maybeAgentMove();
  } catch (e) {
    setStatus(e.message, "error");
  }
}

function render() {
  if (!view) return;
  $("title").textContent = `${view.game} against ${view.agent}`;
  if (view.terminal) setStatus(`Game over: ${view.result}`, "over");
  else if (view.agent_to_move) setStatus("The agent is thinking…", "busy");
  else setStatus(`Your move (you are player ${view.human})`, "yours");

  const byCell = new Map();
  const loose = [];
  for (const m of view.legal) {
    if (m.cell) {
      const key = view.click_whole_column ? `c${m.cell[1]}` : `${m.cell[0]},${m.cell[1]}`;
      if (!byCell.has(key)) byCell.set(key, []);
      byCell.get(key).push(m);
    } else loose.push(m);
  }
  const keyOf = (r, c) => (view.click_whole_column ? `c${c}` : `${r},${c}`);
  const target = new Set(view.legal.filter((m) => m.cell).map((m) => `${m.cell[0]},${m.cell[1]}`));
  const board = $("board");
  board.innerHTML = "";
  $("choices").innerHTML = "";
  if (view.grid) {
    board.append(drawGrid(view.grid, (r, c) => {
      const ms = byCell.get(keyOf(r, c));
      if (!ms) return;
      if (ms.length === 1) move(ms[0].action);
      else chooseAmong(ms);
    }, (r, c) => target.has(`${r},${c}`)));
  }
  for (const m of loose) {
    $("choices").append(el("button", {class: "action", "data-action": m.action, onclick: () => move(m.action)}, m.text));
  }
  const extra = $("extra");
  extra.innerHTML = "";
  for (const [k, v] of Object.entries(view.extra || {})) extra.append(el("div", {}, el("b", {}, `${k}: `), String(v)));
  const hist = $("history");
  hist.innerHTML = "";
  view.history.forEach((h) => hist.append(el("li", {}, h)));
  $("text").textContent = view.grid ? "" : view.text;
  $("undo").disabled = view.history.length === 0;
  if (view.last_analysis) showAnalysis(view.last_analysis, "The agent's last move");
}

function chooseAmong(moves) {
  const box = $("choices");
  box.innerHTML = "";
  box.append(el("span", {class: "muted"}, "Which one? "));
  for (const m of moves) box.append(el("button", {class: "action", "data-action": m.action, onclick: () => move(m.action)}, m.text));
}

async function move(action) {
  try {
    view = await api("POST", `/api/sessions/${view.id}/move`, {action});
    render();
    await maybeAgentMove();
  } catch (e) {
    setStatus(e.message, "error");
  }
}

async function maybeAgentMove() {
  if (!view || !view.agent_to_move) return;
  try {
    view = await api("POST", `/api/sessions/${view.id}/agent`);
    render();
  } catch (e) {
    setStatus(e.message, "error");
  }
}

async function undo() {
  try {
    view = await api("POST", `/api/sessions/${view.id}/undo`);
    render();
    await maybeAgentMove();
  } catch (e) {
    setStatus(e.message, "error");
  }
}

function showAnalysis(a, title) {
  const box = $("analysis");
  box.innerHTML = "";
  box.append(el("h3", {}, title));
  const facts = [];
  if (a.agent) facts.push(`agent ${a.agent}`);
  if (a.action_text) facts.push(`best ${a.action_text}`);
  if (a.value !== undefined) facts.push(`value ${fmt(a.value)}${a.exact ? " (exact)" : ""}`);
  if (a.depth !== undefined) facts.push(`depth ${a.depth}`);
  if (a.simulations !== undefined) facts.push(`${a.simulations} simulations`);
  if (a.nodes !== undefined) facts.push(`${a.nodes} nodes`);
  facts.push(`${fmt(a.seconds)} s`);
  box.append(el("p", {class: "facts"}, facts.join(" · ")));
  if (a.pv && a.pv.length) box.append(el("p", {}, el("b", {}, "Expected line: "), a.pv.join(" ")));
  const rows = new Map();
  for (const v of a.action_values || []) rows.set(v.action, {text: v.text, value: v.value});
  for (const v of a.visits || []) {
    const r = rows.get(v.action) || {text: v.text};
    r.visits = v.value;
    rows.set(v.action, r);
  }
  if (rows.size) {
    const t = el("table", {class: "values"}, el("tr", {}, el("th", {}, "move"), el("th", {}, "value"), el("th", {}, "visits")));
    const sorted = [...rows.entries()].sort((x, y) => (y[1].visits ?? y[1].value ?? 0) - (x[1].visits ?? x[1].value ?? 0));
    for (const [action, r] of sorted) {
      const tr = el("tr", {class: action === a.action ? "chosen" : ""}, el("td", {}, r.text),
        el("td", {}, r.value === undefined ? "" : fmt(r.value)), el("td", {}, r.visits === undefined ? "" : String(r.visits)));
      t.append(tr);
    }
    box.append(t);
  }
}

async function analyze() {
  if (!view) return;
  $("analysis").innerHTML = "<p class='muted'>Thinking…</p>";
  try {
    const body = {time: parseFloat($("an-time").value)};
    if ($("an-agent").value.trim()) body.agent = $("an-agent").value.trim();
    const a = await api("POST", `/api/sessions/${view.id}/analyze`, body);
    showAnalysis(a, "Analysis of the position");
  } catch (e) {
    $("analysis").innerHTML = "";
    $("analysis").append(el("p", {class: "error"}, e.message));
  }
}

async function drawTree() {
  if (!view) return;
  $("tree-info").textContent = "Searching…";
  try {
    const res = await api("GET", `/api/sessions/${view.id}/tree?depth=${$("tree-depth").value}&algorithm=${$("tree-algo").value}`);
    $("tree-view").innerHTML = "";
    $("tree-view").append(treeSvg(res.tree));
    const blob = new Blob([res.dot], {type: "text/vnd.graphviz"});
    $("tree-info").innerHTML = "";
    $("tree-info").append(`${countNodes(res.tree)} nodes, heuristic ${res.heuristic ?? "none"}; values for the side to move at each node, in outcome units (1 = a win; heuristic estimates are far smaller), blue: the root's side; grey dashed = cut off. `,
      el("a", {href: URL.createObjectURL(blob), download: "tree.dot"}, "Download DOT"));
  } catch (e) {
    $("tree-info").textContent = e.message;
  }
}

function countNodes(n) {
  return 1 + (n.children || []).reduce((s, c) => s + countNodes(c), 0);
}

// A layered drawing: leaves spread left to right, a parent above the middle of its children.
function treeSvg(root) {
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
      {textContent: `${n.text}: ${n.cut ? "cut off" : bound + fmt(n.value)} (value for the side to move there)`}));
    add("text", {x: n._x, y: n._y + 4, class: "value"}, n.cut ? "✂" : bound + fmt(n.value));
  }
  return svg;
}

async function init() {
  try {
    GAMES = (await api("GET", "/api/games")).games;
  } catch (e) {
    setStatus(`cannot load the games: ${e.message}`, "error");
    return;
  }
  for (const g of GAMES) $("game").append(el("option", {value: g.name}, g.name));
  $("game").value = GAMES.some((g) => g.name === "connectx") ? "connectx" : GAMES[0].name;
  fillGameForm();
  $("game").addEventListener("change", fillGameForm);
  $("new").addEventListener("click", newGame);
  $("undo").addEventListener("click", undo);
  $("agent-move").addEventListener("click", maybeAgentMove);
  $("analyze").addEventListener("click", analyze);
  $("tree").addEventListener("click", drawTree);
  setStatus("Choose a game and press New game.");
}

init();
