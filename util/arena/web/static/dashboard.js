// The tournament dashboard: one run of the store at a time, plus a small match started from here.
"use strict";
const $ = (id) => document.getElementById(id);
let replay = null, ply = 0;

async function loadRuns(select) {
  try {
    const runs = (await api("GET", "/api/db/runs")).runs;
    const sel = $("run");
    sel.innerHTML = "";
    for (const r of runs) sel.append(el("option", {value: r.id}, `${r.tag} (${r.games} games)`));
    sel.append(el("option", {value: "all"}, "all runs pooled"));
    if (select !== undefined) sel.value = String(select);
    $("db-status").textContent = runs.length ? "" : "The store holds no run yet: start a match.";
    await loadRun();
  } catch (e) {
    $("db-status").textContent = e.message;
  }
}

async function loadRun() {
  const run = $("run").value;
  const q = `?run=${encodeURIComponent(run)}`;
  try {
    const st = await api("GET", `/api/db/standings${q}`);
    $("db-status").textContent = `game: ${st.game}`;
    const rt = $("ratings");
    rt.innerHTML = "";
    rt.append(el("tr", {}, ...["agent", "Elo", "95% interval", "games", "score"].map((h) => el("th", {}, h))));
    for (const r of st.ratings) rt.append(el("tr", {}, el("td", {}, r.name), el("td", {}, r.elo.toFixed(0)),
      el("td", {}, `${r.low.toFixed(0)} … ${r.high.toFixed(0)}`), el("td", {}, r.games), el("td", {}, r.score)));
    const ct = $("cross");
    ct.innerHTML = "";
    ct.append(el("tr", {}, el("th", {}, ""), ...st.names.map((n, j) => el("th", {title: n}, String(j + 1)))));
    st.names.forEach((n, i) => ct.append(el("tr", {}, el("th", {}, `${i + 1}. ${n}`),
      ...st.names.map((_, j) => el("td", {}, i === j ? "—" : `${st.scores[i][j]}/${st.games[i][j]}`)))));
    $("pairs").textContent = st.pairs;
    $("clock").textContent = st.clock;
    const plots = $("plots");
    plots.innerHTML = "";
    if (st.names.length) for (const k of ["ratings", "crosstable"]) {
      plots.append(el("img", {src: `/api/db/plot/${k}.png${q}&t=${Date.now()}`, alt: `${k} plot`, style: "max-width:100%"}));
    }
    const games = (await api("GET", `/api/db/games${q}`)).games;
    const gt = $("games");
    gt.innerHTML = "";
    gt.append(el("tr", {}, ...["#", "first", "second", "plies", "result"].map((h) => el("th", {}, h))));
    for (const g of games.slice(-100).reverse()) {
      const result = g.winner === 0 ? "draw" : `${g.winner === 1 ? "first" : "second"} won (${g.termination})`;
      gt.append(el("tr", {class: "game-row", onclick: () => openReplay(g.id)}, el("td", {}, el("a", {href: "#replay-title"}, g.id)),
        el("td", {}, g.first), el("td", {}, g.second), el("td", {}, g.plies), el("td", {}, result)));
    }
  } catch (e) {
    $("db-status").textContent = e.message;
  }
}

async function openReplay(id) {
  try {
    replay = await api("GET", `/api/db/games/${id}`);
    ply = replay.frames.length - 1;
    const result = replay.winner === 0 ? "draw" : `${replay.winner === 1 ? replay.first : replay.second} won (${replay.termination})`;
    $("replay-title").textContent = `Game ${replay.id}: ${replay.first} (first) against ${replay.second}: ${result}`;
    showPly();
  } catch (e) {
    $("replay-title").textContent = e.message;
  }
}

function showPly() {
  if (!replay) return;
  ply = Math.max(0, Math.min(ply, replay.frames.length - 1));
  const f = replay.frames[ply];
  $("replay-board").innerHTML = "";
  if (f.picture) $("replay-board").append(drawPicture(f.picture, {active: false, sel: null}));
  else if (f.grid) $("replay-board").append(drawGrid(f.grid));
  else $("replay-board").append(el("pre", {}, f.text || ""));
  $("r-open").href = playLink();
  const unit = replay.turns ? "turn" : "ply";
  $("r-ply").textContent = `${unit} ${ply} / ${replay.frames.length - 1}${f.move ? ` (last: ${f.move})` : ""}`;
}

// The replay's moves in the game's notation (chance outcomes in brackets), up to ``upto`` plies.
function replayMoves(upto) {
  return replay.frames.slice(1, upto + 1).map((f) => (f.move.startsWith("chance: ") ? `(${f.move.slice(8)})` : f.move));
}

function saveFile(name, href) {
  const a = el("a", {href, download: name});
  document.body.append(a);
  a.click();
  a.remove();
}

function playLink() {
  if (replay.turns) return `/?stored=${replay.id}`;  // a game of many moves a turn: the play page opens it from the store
  const [name, params] = replay.game.split(":");
  const q = new URLSearchParams({game: name});
  if (params) q.set("params", params);
  if (ply) q.set("moves", replayMoves(ply).join(";"));
  return `/?${q}`;
}

async function startMatch() {
  $("m-status").textContent = "Starting…";
  $("m-bar").style.width = "0";
  try {
    const m = await api("POST", "/api/db/matches", {agents: [$("m-a").value.trim(), $("m-b").value.trim()],
      games: parseInt($("m-games").value, 10), time: parseFloat($("m-time").value)});
    const poll = async () => {
      const s = await api("GET", `/api/db/matches/${m.id}`);
      $("m-bar").style.width = `${(100 * s.done) / s.total}%`;
      $("m-status").textContent = s.error ? `failed: ${s.error}` : `${s.done} / ${s.total} games${s.finished ? ": done" : ""}`;
      if (!s.finished) setTimeout(poll, 500);
      else if (!s.error) await loadRuns(s.run);
    };
    await poll();
  } catch (e) {
    $("m-status").textContent = e.message;
  }
}

$("run").addEventListener("change", loadRun);
$("m-start").addEventListener("click", startMatch);
$("r-first").addEventListener("click", () => { ply = 0; showPly(); });
$("r-prev").addEventListener("click", () => { ply -= 1; showPly(); });
$("r-next").addEventListener("click", () => { ply += 1; showPly(); });
$("r-last").addEventListener("click", () => { ply = 1e9; showPly(); });
$("r-moves").addEventListener("click", () => {
  if (!replay) return;
  const text = `# ${replay.game}: ${replay.first} (first) against ${replay.second}\n${replayMoves(replay.frames.length).join("\n")}\n`;
  saveFile(`game-${replay.id}-moves.txt`, URL.createObjectURL(new Blob([text], {type: "text/plain"})));
});
$("r-image").addEventListener("click", async () => {
  const svg = document.querySelector("#replay-board svg");
  if (svg) saveFile(`game-${replay.id}-ply-${ply}.png`, await svgToPng(svg, 2));
});
loadRuns();
