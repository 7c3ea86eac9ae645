// The play page: a game against an agent drawn by its game's renderer (board.js, game-*.js),
// the agent's thinking, replay, export and links. The server owns the game.
"use strict";

let GAMES = [];
let DEFAULT_GAME = "";  // the server's default game (GET /api/games)
let view = null;  // the server's view of the current session
let replayPly = null;  // null: the live position; else the ply shown
let replayPic = null;
let openedFrom = null;  // a replay's own link (a stored game: /?stored=ID), or its file's name (a Kaggle episode)
const ui = {active: false, sel: null, cursor: null, kbd: false, move: (a) => move(a), redraw: () => drawBoard()};

const $ = (id) => document.getElementById(id);

function setStatus(text, cls) {
  $("status-text").textContent = text;
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
  fillAgents(g.agents.map((name) => ({name, params: []})));
  refreshAgents();
}

let AGENTS = [];  // the agents the game with the form's parameters accepts, with their parameters (POST /api/agents)
function fillAgents(agents) {
  const g = currentGame();
  const agent = $("agent");
  const before = agent.value;
  AGENTS = agents;
  agent.innerHTML = "";
  const names = agents.map((a) => a.name);
  for (const a of names) agent.append(el("option", {value: a}, a));
  if (names.includes(before)) agent.value = before;
  else if (g.turns) agent.value = names.includes("greedy") ? "greedy" : names.includes("pimc") ? "pimc" : "random";  // a turn of many moves: a planner
  else if (names.includes("mcts")) agent.value = "mcts";
  else if (names.includes("ismcts")) agent.value = "ismcts";  // a game of hidden information
  fillAgentParams();
}

// The game's parameters decide which agents it accepts (fog=1 hides information): asked of the server.
async function refreshAgents() {
  try {
    const listed = await api("POST", "/api/agents", {game: $("game").value, params: gameParams()});
    fillAgents(listed.agents);
  } catch (e) {
    setStatus(e.message, "error");
  }
}

function fillAgentParams() {
  const box = $("agent-params");
  box.innerHTML = "";
  const a = AGENTS.find((x) => x.name === $("agent").value);
  for (const p of (a && a.params) || []) {
    const value = p.default === null || p.default === undefined ? "" : String(p.default);
    const bounds = p.min !== null && p.max !== null ? ` (${p.min} to ${p.max})` : "";
    box.append(el("label", {class: "agent-param"}, `${p.name} `, el("input", {"data-aparam": p.name, "data-default": value, value, size: 6,
      title: `${p.help || p.name}${bounds}`})));
  }
}

// The opponent's spec: the free-form spec when given, else the chosen agent with the parameters changed in the form.
function agentSpec() {
  const typed = $("agent-spec").value.trim();
  if (typed) return typed;
  const changed = [...document.querySelectorAll("#agent-params input")].filter((inp) => inp.value.trim() !== inp.dataset.default)
    .map((inp) => `${inp.dataset.aparam}=${inp.value.trim()}`);
  return changed.length ? `${$("agent").value}:${changed.join(",")}` : $("agent").value;
}

function gameParams() {
  const out = {};
  document.querySelectorAll("#params input").forEach((inp) => {
    const t = inp.dataset.type;
    out[inp.dataset.param] = t === "int" ? parseInt(inp.value, 10) : t === "float" ? parseFloat(inp.value) : inp.value;
  });
  return out;
}

// --- a running clock while the server works (the agent thinking, an analysis) -------------------
let busyTimer = null;
let warmingNote = null;  // the server's 503 while the agent warms up (common.js's api asks again): shown instead of the clock
function onWarmingUp(message) {  // eslint-disable-line no-unused-vars
  warmingNote = message.replace(/: try again.*$/, "");  // the page asks again itself
}
async function whileBusy(label, work, budget) {
  const t0 = performance.now();
  $("status").className = "busy";
  $("spinner").hidden = false;
  $("think-bar").hidden = !budget;
  const tick = () => {
    if (warmingNote) {  // until the request is served: the warm-up, then the agent's own time
      $("status-text").textContent = `${warmingNote} (then: ${label.toLowerCase()})… ${((performance.now() - t0) / 1000).toFixed(1)} s`;
      return;
    }
    const s = (performance.now() - t0) / 1000;
    $("status-text").textContent = `${label}… ${s.toFixed(1)} s${budget ? ` of ${budget} s` : ""}`;
    if (budget) $("think-bar").firstChild.style.width = `${Math.min(100, (100 * s) / budget)}%`;
  };
  tick();
  busyTimer = setInterval(tick, 100);
  try {
    return await work();
  } finally {
    warmingNote = null;
    clearInterval(busyTimer);
    $("spinner").hidden = true;
    $("think-bar").hidden = true;
  }
}

async function newGame(moves) {
  const spec = agentSpec();
  try {
    const body = {game: $("game").value, params: gameParams(), agent: spec,
      time: parseFloat($("time").value), human: parseInt($("human").value, 10)};
    if (moves && moves.length) body.moves = moves;
    view = await api("POST", "/api/sessions", body);
    openedFrom = null;
    $("analysis").innerHTML = "";
    $("tree-view").innerHTML = "";
    $("tree-info").textContent = "";
    replayPly = null;
    ui.cursor = null;
    render();
    $("board").focus({preventScroll: true});  // Enter and Space go to the board, not the button just pressed
    await maybeAgentMove();
  } catch (e) {
    setStatus(e.message, "error");
  }
}

function who(p) {
  return view.picture.players[p];
}

function statusLine() {
  const pic = view.picture;
  if (view.terminal) {
    const winner = pic.winner === null || pic.winner === undefined ? "a draw" : `${who(pic.winner)} wins`;
    return [`Game over: ${winner}${pic.note ? ` (${pic.note.replace(/^\w+ wins: /, "")})` : ""}; ${view.result}`, "over"];
  }
  const die = pic.die ? `; the die shows ${pic.die}` : "";
  if (view.agent_to_move) return [`The agent (${who(view.to_move)}) is to move${die}`, "busy"];
  const r = RENDERERS[pic.kind];
  const hint = r && r.hint ? `: ${r.hint(pic, ui)}` : "";
  return [`Your move, ${who(view.human)}${die}${hint}`, "yours"];
}

function render() {
  if (!view) return;
  $("title").textContent = `${view.game} against ${view.agent}`;
  ui.sel = null;
  const [text, cls] = statusLine();
  setStatus(text, cls);
  drawBoard();
  const hist = $("history");
  hist.innerHTML = "";
  const starts = new Map((view.turns || []).map((t, k) => [t.ply, [t, k]]));
  view.history.forEach((h, i) => {
    if (starts.has(i)) {  // a game of many moves a turn: each turn under its heading
      const [t, k] = starts.get(i);
      const next = k + 1 < view.turns.length ? view.turns[k + 1].ply : view.history.length;
      hist.append(el("li", {class: "turn-head", onclick: () => showPly(next), title: "show the position at the end of this turn"},
        `Step ${k} · ${who(t.player)}`));
    }
    hist.append(el("li", {class: `ply${h.startsWith("(") ? " chance" : ""}`, value: i + 1, onclick: () => showPly(i + 1),
      title: "show the position after this move"}, h));
  });
  const turnGame = (view.turns || []).length > 0;
  $("r-prev-turn").hidden = $("r-next-turn").hidden = !turnGame;
  hist.classList.toggle("turns", turnGame);
  $("undo").disabled = view.history.length === 0;
  $("r-seat-label").hidden = !view.hidden_information;
  if (!view.terminal) $("r-seat").value = "";  // another seat's view only once the game is over
  $("r-seat").querySelectorAll("option[value='other'], option[value='full']").forEach((o) => { o.disabled = !view.terminal; });
  $("share").value = shareUrl();
  ui.plan = null;  // a planned turn drawn on the board is of the position it was analysed at
  if (view.last_analysis && view.last_analysis.seconds !== undefined) showAnalysis(view.last_analysis, "The agent's last move");
}

function drawBoard() {
  if (!view) return;
  const live = replayPly === null;
  const pic = live ? view.picture : replayPic;
  ui.active = live && !view.terminal && !view.agent_to_move && view.to_move === view.human;
  ui.planShown = live && ui.plan && ui.plan.ply === view.history.length ? ui.plan : null;  // game-rt.js draws it
  const board = $("board");
  board.innerHTML = "";
  board.append(drawPicture(pic, ui));
  const r = RENDERERS[pic.kind];
  const keys = r && r.keys ? (typeof r.keys === "function" ? r.keys(pic) : r.keys) : "";
  $("keys").textContent = `Keys: ${keys ? `${keys}; ` : ""}u undoes.`;
  if (live && ui.active) {
    const [text, cls] = statusLine();
    setStatus(text, cls);
  }
  const n = view.history.length;
  $("r-ply").textContent = live ? `move ${n} of ${n} (live)` : `move ${replayPly} of ${n}: replay (» returns to the game)`;
  document.querySelectorAll("#history li.ply").forEach((li, i) => li.classList.toggle("current", (live ? n : replayPly) === i + 1));
}

// The seat whose view the board shows ("" the person's, "0", "1" or "full"): a game of hidden information.
function seatArg() {
  const v = $("r-seat").value;
  if (!view || !view.hidden_information || !v) return "";
  return v === "other" ? String(1 - view.human) : v;
}

async function showPly(ply) {
  if (!view) return;
  const n = view.history.length;
  ply = Math.max(0, Math.min(ply, n));
  const seat = seatArg();
  if (ply === n && !seat) {
    replayPly = null;
    replayPic = null;
  } else {
    try {
      replayPic = await api("GET", `/api/sessions/${view.id}/frame?ply=${ply}${seat ? `&seat=${seat}` : ""}`);
      replayPly = ply;
    } catch (e) {
      setStatus(e.message, "error");
      return;
    }
  }
  drawBoard();
}

// The ply where the turn before (dir -1) or after (dir +1) the shown position ends: a replay turn by turn.
function turnPly(dir) {
  const n = view.history.length;
  const cur = replayPly ?? n;
  const ends = (view.turns || []).map((t) => t.ply).filter((p) => p > 0).concat([n]);
  const pick = dir < 0 ? ends.filter((p) => p < cur).pop() : ends.find((p) => p > cur);
  return pick === undefined ? (dir < 0 ? 0 : n) : pick;
}

// A replay opened in the page: a Kaggle episode (its JSON file) or a stored game (?stored=ID).
async function openReplay(path, body, label, source) {
  try {
    view = await whileBusy(label, () => api("POST", path, body));
    openedFrom = source;
    $("game").value = view.name;
    fillGameForm();
    for (const kv of view.game.split(":").slice(1).join(":").split(",")) {  // the replayed game's parameters in the form
      const [k, v] = kv.split("=");
      const inp = document.querySelector(`#params input[data-param="${k}"]`);
      if (inp) inp.value = v ?? "";
    }
    $("analysis").innerHTML = "";
    replayPly = null;
    render();
    await showPly(0);  // from the start: › and turn › step through it
  } catch (e) {
    setStatus(e.message, "error");
  }
}

async function openKaggleFile() {
  const file = $("kaggle-file").files[0];
  if (!file) return;
  let episode;
  try {
    episode = JSON.parse(await file.text());
  } catch (e) {
    setStatus(`${file.name} is not a JSON file: save a Kaggle episode with env.toJSON() or the replay download`, "error");
    return;
  }
  await openReplay("/api/replays/kaggle", {episode}, `Replaying ${file.name}`, file.name);  // random plays on from its end
}

async function move(action) {
  try {
    view = await api("POST", `/api/sessions/${view.id}/move`, {action});
    replayPly = null;
    render();
    await maybeAgentMove();
  } catch (e) {
    setStatus(e.message, "error");
  }
}

async function maybeAgentMove() {
  if (!view || !view.agent_to_move) return;
  try {
    const next = await whileBusy(`The agent (${who(view.to_move)}) is thinking`,
      () => api("POST", `/api/sessions/${view.id}/agent`), view.time);
    view = next;
    render();
  } catch (e) {
    setStatus(e.message, "error");
  }
}

async function undo() {
  if (!view || !view.history.length) return;
  try {
    view = await api("POST", `/api/sessions/${view.id}/undo`);
    replayPly = null;
    render();
    await maybeAgentMove();
  } catch (e) {
    setStatus(e.message, "error");
  }
}

// --- the agent's thinking ---------------------------------------------------------------------
const KIND = {mcts: "Monte Carlo tree search", solver: "exact solver", search: "depth-limited search", book: "opening book", none: "no search", turn: "turn planner"};

function bar(share, cls) {
  const b = el("div", {class: `bar ${cls || ""}`});
  b.append(el("div", {style: `width:${(100 * share).toFixed(1)}%`}));
  return b;
}

function showAnalysis(a, title) {
  const box = $("analysis");
  box.innerHTML = "";
  box.append(el("h3", {}, title));
  const best = a.action_text || "";
  if (a.value_text) {
    box.append(el("p", {class: `verdict ${a.verdict}`}, best ? `${best}: ` : "", a.value_text));
    if (a.share !== null && a.share !== undefined) box.append(bar(a.share, "value-bar"));
  } else if (best) box.append(el("p", {class: "verdict"}, `chose ${best}`));
  const facts = [KIND[a.kind] || a.kind];
  if (a.agent) facts.unshift(`agent ${a.agent}`);
  facts.push(`${a.seconds.toFixed(2)} s`);
  if (a.simulations !== null && a.simulations !== undefined) facts.push(`${countText(a.simulations)} simulations`);
  if (a.nodes !== null && a.nodes !== undefined) facts.push(`${countText(a.nodes)} ${a.kind === "mcts" ? "nodes in the tree" : "nodes searched"}`);
  if (a.rate) facts.push(`${countText(a.rate)} ${a.kind === "mcts" ? "simulations" : "nodes"}/s`);
  if (a.depth !== null && a.depth !== undefined) facts.push(`depth ${a.depth}`);
  if (a.reason && a.reason !== "search") facts.push(a.reason);
  box.append(el("p", {class: "facts"}, facts.join(" · ")));
  for (const n of a.notes || []) box.append(el("p", {class: "muted"}, n));
  if (a.turn) showTurn(box, a.turn);
  else if (a.pv && a.pv.length) box.append(el("p", {class: "pv"}, el("b", {}, "Best line: "), a.pv.join("  ")));
  const rows = (a.rows || []).slice(0, 8);
  if (rows.length) {
    const total = rows.reduce((s, r) => s + (r.visits || 0), 0) || 1;
    const t = el("table", {class: "values"}, el("tr", {}, el("th", {}, "move"), el("th", {}, "value"), el("th", {}, ""), el("th", {}, "visits")));
    for (const r of rows) {
      const vcell = el("td", {title: r.value === undefined ? "" : String(r.value)}, r.value_text || "");
      const bcell = el("td", {});
      if (r.share !== undefined && r.share !== null) bcell.append(bar(r.share, "mini"));
      const visits = r.visits === undefined ? "" : `${countText(r.visits)} (${(100 * r.visits / total).toFixed(0)}%)`;
      t.append(el("tr", {class: r.action === a.action ? "chosen" : ""}, el("td", {}, r.text), vcell, bcell, el("td", {}, visits)));
    }
    box.append(t);
    if ((a.rows || []).length > rows.length) box.append(el("p", {class: "muted"}, `and ${a.rows.length - rows.length} more moves`));
  }
}

// A turn planner's report (render.turn_report): the planned turn listed and drawn on the board,
// and the alternatives it sampled; a click on one draws that one instead.
function showTurn(box, turn) {
  const ply = view.history.length;
  const pick = (moves, idx) => {
    ui.plan = {moves, player: turn.player, ply, index: idx};
    box.querySelectorAll(".rt-alt").forEach((tr) => tr.classList.toggle("chosen", Number(tr.dataset.index) === idx));
    planHead.classList.toggle("chosen", idx < 0);
    drawBoard();
  };
  const planHead = el("h4", {class: "rt-plan-head chosen", title: "draw the planned turn on the board", onclick: () => pick(turn.moves, -1)},
    "Planned turn (drawn on the board)");
  box.append(planHead);
  const ol = el("ol", {class: "rt-actions rt-plan-list"});
  for (const m of turn.moves) ol.append(el("li", {"data-action": m.action}, m.text));
  box.append(ol);
  const alts = turn.alternatives || [];
  if (alts.length) {
    const what = {visits: "Turns it sampled (most visited first)", fitness: "Best turns of its population (fittest first)",
      "first decision": "Best-scored acts of its first decision"}[turn.ranked_by] || "Alternatives";
    box.append(el("h4", {}, `${what}: click one to draw it`));
    const count = turn.ranked_by === "visits" ? "visits" : turn.ranked_by === "fitness" ? "evaluations" : null;
    const list = el("ol", {class: "rt-alts"});
    alts.forEach((alt, i) => {
      const v = alt.fitness !== undefined ? alt.fitness : alt.value;
      const head = el("div", {class: "rt-alt-head"}, el("b", {}, v === undefined ? "" : numberText(v)));
      if (alt.share !== undefined && alt.share !== null) head.append(bar(alt.share, "mini"));
      if (count && alt[count] !== undefined) head.append(el("span", {class: "muted"}, `${countText(alt[count])} ${count}`));
      list.append(el("li", {class: "rt-alt", "data-index": i, "data-actions": alt.actions.join(","), title: `${alt.value_text || ""}: click to draw this turn on the board`,
        onclick: () => pick(alt.moves, i)}, head, el("div", {class: "rt-alt-text"}, alt.text)));
    });
    box.append(list);
  }
  pick(turn.moves, -1);
}

function numberText(v) {
  if (v === 0) return "0";
  return (Math.abs(v) >= 100 ? v.toFixed(0) : v.toFixed(3)).replace(/^(?=\d)/, "+").replace("-", "−");
}

function countText(n) {
  if (Math.abs(n) >= 1e9) return `${(n / 1e9).toFixed(1)} G`;
  if (Math.abs(n) >= 1e6) return `${(n / 1e6).toFixed(1)} M`;
  return Math.round(n).toLocaleString("en");
}

async function analyze() {
  if (!view) return;
  $("analysis").innerHTML = "";
  try {
    const body = {time: parseFloat($("an-time").value)};
    if ($("an-agent").value.trim()) body.agent = $("an-agent").value.trim();
    const a = await whileBusy("Analysing", () => api("POST", `/api/sessions/${view.id}/analyze`, body), body.time);
    showAnalysis(a, "Analysis of the position");
    const [text, cls] = statusLine();
    setStatus(text, cls);
  } catch (e) {
    $("analysis").append(el("p", {class: "error"}, e.message));
    setStatus(e.message, "error");
  }
}

// --- export and links ---------------------------------------------------------------------------
function download(name, href) {
  const a = el("a", {href, download: name});
  document.body.append(a);
  a.click();
  a.remove();
}

function exportMoves() {
  if (!view) return;
  const text = `# ${view.game}\n${view.history.join("\n")}\n`;
  download(`${view.name}-moves.txt`, URL.createObjectURL(new Blob([text], {type: "text/plain"})));
}

async function exportImage() {
  const svg = document.querySelector("#board svg");
  if (!svg) return;
  try {
    download(`${view ? view.name : "board"}.png`, await svgToPng(svg, 2));
  } catch (e) {
    setStatus(e.message, "error");
  }
}

function shareUrl() {
  if (!view) return "";
  if (view.hidden_information) return "(a game of hidden information: no link to its position, the moves would tell what is hidden)";
  if (openedFrom) return openedFrom.startsWith("/") ? `${location.origin}${openedFrom}` : `(the Kaggle episode ${openedFrom}: open its file again)`;
  const q = new URLSearchParams({game: view.name});
  const params = Object.entries(gameParams()).map(([k, v]) => `${k}=${v}`).join(",");
  if (params) q.set("params", params);
  q.set("agent", view.agent);
  q.set("human", $("human").value);
  if (view.history.length) q.set("moves", view.history.join(";"));
  return `${location.origin}/?${q}`;
}

// A link opens its position: ?game=NAME&params=k=v,...&agent=SPEC&human=0|1&moves=m1;m2;...
async function openFromUrl() {
  const q = new URLSearchParams(location.search);
  const game = q.get("game");
  if (!game || !GAMES.some((g) => g.name === game)) return false;
  $("game").value = game;
  fillGameForm();
  for (const kv of (q.get("params") || "").split(",").filter(Boolean)) {
    const [k, v] = kv.split("=");
    const inp = document.querySelector(`#params input[data-param="${k}"]`);
    if (inp) inp.value = v;
  }
  if (q.get("agent")) $("agent-spec").value = q.get("agent");
  if (q.get("human")) $("human").value = q.get("human");
  await newGame((q.get("moves") || "").split(";").filter(Boolean));
  return true;
}

function onKey(e) {
  if (!view || e.target.matches("input, select, textarea") || e.ctrlKey || e.metaKey || e.altKey) return;
  if (e.target.matches("button, a") && (e.key === "Enter" || e.key === " ")) return;  // the focused button's own keys
  if (e.key === "u") { undo(); e.preventDefault(); return; }
  const pic = replayPly === null ? view.picture : null;
  const r = pic && RENDERERS[pic.kind];
  if (r && r.key && r.key(e, pic, ui)) e.preventDefault();
}

async function init() {
  try {
    const listed = await api("GET", "/api/games");
    GAMES = listed.games;
    DEFAULT_GAME = listed.default;
  } catch (e) {
    setStatus(`cannot load the games: ${e.message}`, "error");
    return;
  }
  for (const g of GAMES) $("game").append(el("option", {value: g.name}, g.name));
  $("game").value = GAMES.some((g) => g.name === DEFAULT_GAME) ? DEFAULT_GAME : GAMES[0].name;
  fillGameForm();
  $("game").addEventListener("change", fillGameForm);
  $("params").addEventListener("change", refreshAgents);  // fog=1: the agents of hidden information
  $("agent").addEventListener("change", fillAgentParams);
  $("r-seat").addEventListener("change", () => showPly(replayPly ?? view.history.length));
  $("new").addEventListener("click", () => newGame());
  $("undo").addEventListener("click", undo);
  $("analyze").addEventListener("click", analyze);
  $("tree").addEventListener("click", drawTree);
  $("r-first").addEventListener("click", () => showPly(0));
  $("r-prev").addEventListener("click", () => showPly((replayPly ?? view.history.length) - 1));
  $("r-next").addEventListener("click", () => showPly((replayPly ?? view.history.length) + 1));
  $("r-last").addEventListener("click", () => showPly(1e9));
  $("r-prev-turn").addEventListener("click", () => showPly(turnPly(-1)));
  $("r-next-turn").addEventListener("click", () => showPly(turnPly(1)));
  $("kaggle-file").addEventListener("change", openKaggleFile);
  $("export-moves").addEventListener("click", exportMoves);
  $("export-image").addEventListener("click", exportImage);
  document.addEventListener("keydown", onKey);
  $("board").addEventListener("pointerdown", () => { ui.kbd = false; });  // the mouse hides the keyboard cursor
  const stored = new URLSearchParams(location.search).get("stored");
  if (stored) await openReplay("/api/replays/stored", {id: stored}, `Opening stored game ${stored}`, `/?stored=${encodeURIComponent(stored)}`);
  else if (!(await openFromUrl())) setStatus("Choose a game and press New game.");
}

init();
