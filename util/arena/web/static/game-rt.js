// Reinforce Tactics: the map cropped to its land (terrain, structures with owner and hit points,
// units with type, hit points and status), gold, turn and whose turn, the turn's actions drawn
// as arrows and listed beside the board. A turn is played by clicks: a unit of yours (outlined),
// then a destination (green dots) or a target (rings; the page asks which act when several share
// a cell); an owned building or HQ, then a unit type to recruit; "End turn". A click the rules
// refuse says why beside the board. Keys: the arrow keys move a cursor among the cells a click
// would use now, Enter clicks there, 1-8 choose in the menu, Escape drops the selection, e ends the turn.
"use strict";

const RT_TERRAIN = {p: "grass", w: "water", m: "mountain", f: "forest", r: "road", b: "grass", h: "grass", t: "grass", o: "ocean"};
const RT_FRIENDLY = new Set(["heal", "cure", "haste", "defence_buff", "attack_buff"]);
const RT_ACT_WORDS = {attack: "attack", paralyze: "paralyse", heal: "heal", cure: "cure", haste: "haste",
  defence_buff: "defence buff", attack_buff: "attack buff", seize: "seize", move: "move", create_unit: "recruit", end_turn: "end turn"};

function rtUnitAt(pic, cell) {
  return pic.units.find((u) => u.r === cell[0] && u.c === cell[1]);
}

function rtStructureAt(pic, cell) {
  return pic.structures.find((s) => s.r === cell[0] && s.c === cell[1]);
}

function rtXY(pic, cell) {
  return `${pic.origin[1] + cell[1]},${pic.origin[0] + cell[0]}`;
}

// Why a click on `cell` does nothing with the selected unit `u` (the moves from its cell are none there).
function rtRefusal(pic, u, cell) {
  const other = rtUnitAt(pic, cell);
  const name = `the ${u.name}`;
  if (other && other.p !== u.p) {
    if (u.paralyzed) return `${name} is paralysed`;
    if (!u.can_act) return `${name} has already acted this turn`;
    return `the ${other.name} at ${rtXY(pic, cell)} is out of ${name}'s reach from here (move first, or pick another unit)`;
  }
  if (other) return `${name} has no act on your ${other.name} (heal, cure and buffs are for Clerics and Sorcerers, in range)`;
  if (!u.can_move) return u.can_act ? `${name} has already moved this turn (it may still act)` : `${name} has already acted this turn`;
  const t = pic.terrain[cell[0]][cell[1]];
  if (t === "w" || t === "o") return "no unit can stand on water";
  return `${rtXY(pic, cell)} is out of reach: a ${u.name} moves ${u.movement} cells, not through enemy units`;
}

// The cells keys act on: the picked unit's destinations and targets (and itself), else every
// unit of yours that can do something and every building or HQ of yours that can recruit.
function rtKeyCells(pic, ui) {
  const sel = ui.sel && ui.sel.kind === "rt-unit" ? ui.sel.cell : null;
  const out = new Map();
  const add = (c) => out.set(`${c}`, c);
  if (sel) {
    add(sel);
    for (const m of pic.moves) if (same(m.from, sel) && m.cell) add(m.cell);
  } else {
    for (const m of pic.moves) if (m.from) add(m.from); else if (m.kind === "create_unit") add(m.cell);
  }
  return [...out.values()].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
}

// Handles a click on a cell of the board.
function rtClick(pic, ui, cell) {
  ui.rtMsg = "";
  if (!ui.active) {
    if (ui.redraw) { ui.rtMsg = "it is not your turn to play here (a replay, the agent's turn or the end)"; ui.redraw(); }
    return;
  }
  const sel = ui.sel && ui.sel.kind === "rt-unit" ? ui.sel.cell : null;
  const mine = (u) => u && u.p === pic.to_move;
  const unitMoves = (c) => pic.moves.filter((m) => same(m.from, c));
  if (sel && !same(sel, cell)) {
    const here = pic.moves.filter((m) => same(m.from, sel) && same(m.cell, cell));
    if (here.length === 1) return rtPlay(ui, here[0]);
    if (here.length > 1) {
      ui.sel = {kind: "rt-choice", unit: sel, cell, moves: here};
      ui.redraw();
      return;
    }
    const other = rtUnitAt(pic, cell);
    const recruits = !other && pic.moves.some((m) => m.kind === "create_unit" && same(m.cell, cell));
    if (!(mine(other) && unitMoves(cell).length) && !recruits) {  // else: pick that unit or building instead
      ui.rtMsg = rtRefusal(pic, rtUnitAt(pic, sel), cell);
      ui.redraw();
      return;
    }
  }
  if (sel && same(sel, cell)) {  // the picked unit again: its acts on its own cell (seize, a buff on itself), else drop it
    const own = pic.moves.filter((m) => same(m.from, sel) && same(m.cell, cell));
    ui.sel = own.length ? {kind: "rt-choice", unit: sel, cell, moves: own} : null;
    ui.redraw();
    return;
  }
  const u = rtUnitAt(pic, cell);
  const st = rtStructureAt(pic, cell);
  if (mine(u)) {
    if (unitMoves(cell).length) ui.sel = {kind: "rt-unit", cell};
    else ui.rtMsg = u.why || `that ${u.name} cannot do anything now`;
  } else if (u) {
    ui.rtMsg = `that ${u.name} is ${pic.players[u.p]}'s, not yours: pick one of your units`;
  } else if (st && st.owner === pic.to_move) {
    if (pic.moves.some((m) => m.kind === "create_unit" && same(m.cell, cell))) ui.sel = {kind: "rt-structure", cell};
    else ui.rtMsg = st.why || "you cannot recruit here now";
  } else if (st) {
    ui.rtMsg = `that ${st.kind === "hq" ? "HQ" : st.kind} is ${st.owner < 0 ? "neutral" : `${pic.players[st.owner]}'s`}: stand a unit on it and seize it`;
  } else {
    ui.rtMsg = "pick one of your units (outlined) or one of your buildings or your HQ to recruit";
  }
  ui.redraw();
}

function rtPlay(ui, m) {
  ui.rtMsg = "";
  ui.rtFollow = m.kind === "move" ? m.to : m.from && m.kind !== "seize" ? m.from : null;  // keep the unit picked to act next
  ui.move(m.action);
}

function rtArrow(g, a, b, size, cls) {
  const [x1, y1, x2, y2] = [(a[1] + 0.5) * size, (a[0] + 0.5) * size, (b[1] + 0.5) * size, (b[0] + 0.5) * size];
  g.append(S("line", {x1, y1, x2, y2, class: `rt-arrow ${cls}`, "marker-end": "url(#rt-head)"}));
}

// A planned turn (an analysis's plan or one of its alternatives): each act with a cell as an arrow
// (from its unit to its destination or target) or a ring (a recruit, a seizure, an act on the
// unit's own cell), numbered in order; the end of the turn draws nothing.
function rtDrawPlan(plan, size) {
  const g = S("g", {class: "rt-plan", "data-index": plan.index});
  let step = 0;
  for (const m of plan.moves) {
    if (!m.cell) continue;
    step += 1;
    const item = S("g", {class: `rt-plan-item ${m.kind}`, "data-action": m.action, "data-step": step, "data-cell": `${m.cell}`,
      "data-from": m.from ? `${m.from}` : ""}, tip(`${step}. ${m.text}`));
    const at = m.from && m.to && !same(m.from, m.to) ? m.to : m.cell;
    if (m.from && m.to && !same(m.from, m.to)) {
      const cls = `rt-plan-arrow ${m.kind === "move" ? "move" : RT_FRIENDLY.has(m.kind) ? "friendly" : "hostile"}`;
      const [x1, y1, x2, y2] = [(m.from[1] + 0.5) * size, (m.from[0] + 0.5) * size, (m.to[1] + 0.5) * size, (m.to[0] + 0.5) * size];
      item.append(S("line", {x1, y1, x2, y2, class: cls, "marker-end": "url(#rt-plan-head)"}));
    } else {
      item.append(S("circle", {cx: (at[1] + 0.5) * size, cy: (at[0] + 0.5) * size, r: size * 0.45, class: `rt-plan-mark ${m.kind}`}));
    }
    item.append(S("text", {x: (at[1] + 0.8) * size, y: (at[0] + 0.3) * size, class: "rt-plan-step"}, step));
    g.append(item);
  }
  return g;
}

function rtDrawStructure(svg, st, size) {
  const x = st.c * size, y = st.r * size;
  const owner = st.owner < 0 ? "neutral" : `p${st.owner}`;
  const g = S("g", {class: `rt-structure ${st.kind} ${owner}`, "data-r": st.r, "data-c": st.c, "data-kind": st.kind,
    "data-owner": st.owner, "data-hp": st.hp}, tip(`${st.kind === "hq" ? "HQ" : st.kind} (${st.owner < 0 ? "neutral" : st.owner === 0 ? "blue" : "red"}), ${st.hp}/${st.max_hp} hp${st.regenerating ? ", regenerating" : ""}`));
  const m = size * 0.12;
  if (st.kind === "tower") {
    g.append(S("rect", {x: x + size * 0.3, y: y + m, width: size * 0.4, height: size - 2 * m, class: "rt-struct-body"}));
  } else {
    const roof = st.kind === "hq" ? size * 0.38 : size * 0.28;
    g.append(S("polygon", {points: `${x + m},${y + roof} ${x + size / 2},${y + m} ${x + size - m},${y + roof} ${x + size - m},${y + size - m} ${x + m},${y + size - m}`,
      class: "rt-struct-body"}));
    if (st.kind === "hq") g.append(S("text", {x: x + size / 2, y: y + size * 0.3, class: "rt-struct-label"}, "HQ"));
  }
  const frac = st.max_hp ? st.hp / st.max_hp : 0;
  g.append(S("rect", {x: x + 2, y: y + size - 6, width: (size - 4) * frac, height: 4, class: "rt-struct-hp"}));
  svg.append(g);
}

// A seat's view under fog (the server's fog_view): never explored cells dark, shrouded ones (seen
// before, out of sight now) grey; the enemy units remembered out of sight drawn hollow and dashed,
// with the hit points and the turn they were last seen.
function rtDrawFog(svg, fog, size, enemy) {
  fog.cells.forEach((row, r) => [...row].forEach((v, c) => {
    if (v === "2") return;
    svg.append(S("rect", {x: c * size, y: r * size, width: size, height: size, class: `rt-fog ${v === "0" ? "unexplored" : "shrouded"}`,
      "data-r": r, "data-c": c, "data-fog": v}));
  }));
  for (const m of fog.remembered) {
    const cx = (m.c + 0.5) * size, cy = (m.r + 0.5) * size;
    svg.append(S("g", {class: `rt-remembered p${enemy}`, "data-r": m.r, "data-c": m.c, "data-label": m.type, "data-turn": m.turn},
      tip(`remembered: a ${m.type} with ${m.hp} hp, last seen at turn ${m.turn}`),
      S("circle", {cx, cy, r: size * 0.32, class: "rt-remembered-body"}),
      S("text", {x: cx, y: cy + size * 0.1, class: "rt-remembered-letter"}, m.type)));
  }
}

function rtDrawUnit(svg, u, size, done) {
  const cx = (u.c + 0.5) * size, cy = (u.r + 0.5) * size, rad = size * 0.32;
  const g = S("g", {class: `rt-unit p${u.p}${done ? " done" : ""}`, "data-r": u.r, "data-c": u.c, "data-p": u.p, "data-label": u.type,
    "data-hp": u.hp, "data-status": [u.paralyzed ? "paralysed" : "", u.hasted ? "hasted" : "", u.defence_buff ? "defence" : "",
      u.attack_buff ? "attack" : "", u.moved ? "moved" : "", !u.can_act ? "acted" : ""].filter(Boolean).join(" ")});
  const status = [];
  if (u.paralyzed) status.push(`paralysed ${u.paralyzed}`);
  if (u.hasted) status.push("hasted");
  if (u.defence_buff) status.push(`defence buff ${u.defence_buff}`);
  if (u.attack_buff) status.push(`attack buff ${u.attack_buff}`);
  if (u.moved) status.push("has moved");
  if (!u.can_act) status.push("has acted");
  g.append(tip(`${u.name} (${u.p === 0 ? "blue" : "red"}) ${u.hp}/${u.max_hp} hp${status.length ? `; ${status.join(", ")}` : ""}`));
  g.append(S("circle", {cx, cy, r: rad, class: "rt-unit-body"}));
  g.append(S("text", {x: cx, y: cy + size * 0.1, class: "rt-unit-letter"}, u.type));
  g.append(S("text", {x: cx + rad * 0.95, y: cy + rad + 2, class: "rt-unit-hp"}, u.hp));
  const badges = [u.paralyzed ? "Z" : "", u.hasted ? "»" : "", u.defence_buff ? "D" : "", u.attack_buff ? "A" : ""].filter(Boolean);
  badges.forEach((b, i) => g.append(S("text", {x: cx - rad + i * 9, y: cy - rad + 4, class: "rt-badge"}, b)));
  svg.append(g);
}

RENDERERS.reinforce_tactics = {
  draw(pic, ui) {
    const size = Math.max(30, Math.min(56, Math.floor(620 / Math.max(pic.rows, pic.columns))));
    const label = 16;
    const svg = svgRoot(pic.columns * size + label, pic.rows * size + label, "rt");
    svg.append(S("defs", {}, S("marker", {id: "rt-head", viewBox: "0 0 10 10", refX: 8, refY: 5, markerWidth: 5, markerHeight: 5, orient: "auto-start-reverse"},
      S("path", {d: "M0,0 L10,5 L0,10 z", class: "rt-head"})),
    S("marker", {id: "rt-plan-head", viewBox: "0 0 10 10", refX: 8, refY: 5, markerWidth: 4, markerHeight: 4, orient: "auto-start-reverse"},
      S("path", {d: "M0,0 L10,5 L0,10 z", class: "rt-plan-head"}))));
    const board = S("g", {transform: `translate(${label},${label})`});
    svg.append(board);
    for (let c = 0; c < pic.columns; c++) svg.append(S("text", {x: label + (c + 0.5) * size, y: 12, class: "rt-axis"}, pic.origin[1] + c));
    for (let r = 0; r < pic.rows; r++) svg.append(S("text", {x: 8, y: label + (r + 0.5) * size + 4, class: "rt-axis"}, pic.origin[0] + r));
    // the selection: a unit (its destinations and targets), a structure, or a choice among acts on one cell
    let sel = ui.active ? ui.sel : null;
    if (ui.active && !sel && ui.rtFollow) {
      if (pic.moves.some((m) => same(m.from, ui.rtFollow))) sel = ui.sel = {kind: "rt-unit", cell: ui.rtFollow};
      ui.rtFollow = null;
    }
    const unitCell = sel ? (sel.kind === "rt-unit" ? sel.cell : sel.kind === "rt-choice" ? sel.unit : null) : null;
    const selMoves = unitCell ? pic.moves.filter((m) => same(m.from, unitCell)) : [];
    const movers = new Set(pic.moves.filter((m) => m.from).map((m) => `${m.from}`));
    pic.terrain.forEach((row, r) => [...row].forEach((t, c) => {
      board.append(S("rect", {x: c * size, y: r * size, width: size, height: size, class: `rt-cell t-${RT_TERRAIN[t] || "grass"}${t === "r" ? " road" : ""}`,
        "data-r": r, "data-c": c, "data-terrain": t, onclick: () => rtClick(pic, ui, [r, c])}));
      if (t === "m") board.append(S("polygon", {points: `${c * size + size * 0.2},${(r + 0.8) * size} ${(c + 0.5) * size},${(r + 0.25) * size} ${(c + 0.8) * size},${(r + 0.8) * size}`, class: "rt-mountain"}));
      if (t === "f") board.append(S("circle", {cx: (c + 0.5) * size, cy: (r + 0.45) * size, r: size * 0.22, class: "rt-tree"}));
    }));
    for (const st of pic.structures) rtDrawStructure(board, st, size);
    const fog = pic.viewer !== undefined && pic.fog ? pic.fog[pic.viewer] : null;  // a seat's view under fog of war
    if (fog) rtDrawFog(board, fog, size, 1 - pic.viewer);
    drawLast(board, pic, 0, 0, size);
    // the last finished turn and this one so far: arrows (moves, acts) and marks (recruits, seizures)
    const plan = ui.planShown;  // an analysis's planned turn (play.js): drawn instead of the last turn
    const shown = [...((!plan && pic.last_turn && pic.last_turn.moves) || []), ...(pic.turn_moves || [])];
    for (const m of shown) {
      if (m.from && m.to && !same(m.from, m.to)) rtArrow(board, m.from, m.to, size, `${m.kind === "move" ? "move" : RT_FRIENDLY.has(m.kind) ? "friendly" : "hostile"} p${m.player}`);
      else if (m.kind === "create_unit" || m.kind === "seize") board.append(S("circle", {cx: (m.cell[1] + 0.5) * size, cy: (m.cell[0] + 0.5) * size, r: size * 0.45, class: `rt-mark ${m.kind} p${m.player}`}));
    }
    const planLayer = plan ? rtDrawPlan(plan, size) : null;
    for (const u of pic.units) {
      const done = pic.to_move === u.p && !movers.has(`${u.r},${u.c}`);
      rtDrawUnit(board, u, size, done);
      if (ui.active && u.p === pic.to_move && !done) {
        board.append(S("rect", {x: u.c * size + 2, y: u.r * size + 2, width: size - 4, height: size - 4, rx: 6,
          class: `rt-ready${same(unitCell, [u.r, u.c]) ? " picked" : ""}`}));
      }
    }
    if (planLayer) board.append(planLayer);
    if (ui.active) drawCursor(board, ui, rtKeyCells(pic, ui), 0, 0, size);
    if (sel && sel.kind === "rt-structure") board.append(S("rect", {x: sel.cell[1] * size + 2, y: sel.cell[0] * size + 2, width: size - 4, height: size - 4, rx: 6, class: "rt-ready picked"}));
    for (const m of selMoves) {
      if (!m.to) continue;
      const [r, c] = m.to;
      if (m.kind === "move") board.append(S("circle", {cx: (c + 0.5) * size, cy: (r + 0.5) * size, r: size * 0.14, class: "rt-dest", "data-r": r, "data-c": c}));
      else board.append(S("circle", {cx: (c + 0.5) * size, cy: (r + 0.5) * size, r: size * 0.42, class: `rt-target ${RT_FRIENDLY.has(m.kind) ? "friendly" : "hostile"}`, "data-r": r, "data-c": c, "data-kind": m.kind}));
    }
    // clicks land on the cell under whatever is drawn there (style.css: those marks take no pointer events)
    const wrap = el("div", {class: "rt-wrap"});
    wrap.append(svg, rtPanel(pic, ui, sel, selMoves));
    return wrap;
  },
  key(e, pic, ui) {
    if (!ui.active) return false;
    if (e.key === "Escape") { ui.sel = null; ui.rtMsg = ""; ui.redraw(); return true; }
    if (e.key === "e") {
      const end = pic.moves.find((m) => m.kind === "end_turn");
      if (end) rtPlay(ui, end);
      return Boolean(end);
    }
    const digit = /^[1-9]$/.test(e.key) ? Number(e.key) - 1 : -1;
    const buttons = [...document.querySelectorAll(".rt-choices button:not(.rt-cancel)")];
    if (digit >= 0 && ui.sel && ui.sel.kind !== "rt-unit" && digit < buttons.length) {  // a unit type, or an act
      buttons[digit].click();
      return true;
    }
    const cells = rtKeyCells(pic, ui);
    if (cursorKey(e, ui, cells)) return true;
    if (ENTER(e) && cells.some((x) => same(x, ui.cursor))) {
      rtClick(pic, ui, [...ui.cursor]);
      return true;
    }
    return false;
  },
  hint(pic, ui) {
    if (ui.sel && ui.sel.kind === "rt-unit") return "click a green dot to move there, a ring to act on it, or the unit again to drop it";
    if (ui.sel && ui.sel.kind === "rt-structure") return "choose the unit to recruit beside the board";
    if (ui.sel && ui.sel.kind === "rt-choice") return "choose which act beside the board";
    return "pick a unit of yours (outlined) or a building or HQ of yours, or End turn";
  },
  keys: "the arrow keys move the cursor among your units and buildings, then among the picked unit's dots and rings; Enter clicks there; 1-8 choose a unit type or an act; Escape drops the selection, e ends the turn",
};

// Beside the board: gold, turn and whose turn; the selection's choices; End turn; the turns' actions.
function rtPanel(pic, ui, sel, selMoves) {
  const box = el("div", {class: "rt-panel"});
  const toMove = pic.to_move === null || pic.to_move === undefined ? (pic.terminal ? "game over" : "chance") : `${pic.players[pic.to_move]} to move`;
  box.append(el("p", {class: "rt-turn", "data-turn": pic.turn, "data-step": pic.step},
    `Turn ${pic.turn} · step ${pic.step} of ${pic.episode_steps - 1} · ${toMove}`));
  const gold = (p) => (pic.gold[p] === null ? "? (hidden)" : pic.gold[p]);  // the enemy's gold under fog
  box.append(el("p", {class: "rt-gold"}, el("span", {class: "rt-chip p0", "data-gold": pic.gold[0] ?? ""}, `blue ${gold(0)} gold`), " ",
    el("span", {class: "rt-chip p1", "data-gold": pic.gold[1] ?? ""}, `red ${gold(1)} gold`)));
  if (pic.fog && pic.viewer !== undefined) box.append(el("p", {class: "muted rt-fog-note"}, `fog of war: ${pic.players[pic.viewer]}'s view (dark: never seen; grey: seen before; hollow: enemy units remembered)`));
  if (ui.rtMsg) box.append(el("p", {class: "rt-refusal error", role: "alert"}, ui.rtMsg));
  if (ui.active) {
    const choices = el("div", {class: "rt-choices"});
    if (sel && sel.kind === "rt-unit") {
      const u = rtUnitAt(pic, sel.cell);
      choices.append(el("p", {}, el("b", {}, `${u.name} at ${rtXY(pic, sel.cell)}`), ` ${u.hp}/${u.max_hp} hp`));
      for (const m of selMoves.filter((mm) => mm.kind !== "move")) {
        choices.append(el("button", {class: "rt-act", "data-action": m.action, "data-kind": m.kind, onclick: () => rtPlay(ui, m)},
          m.kind === "seize" ? "seize this structure" : `${RT_ACT_WORDS[m.kind]} ${rtXY(pic, m.to)}`));
      }
    } else if (sel && sel.kind === "rt-choice") {
      choices.append(el("p", {}, `Which act on ${rtXY(pic, sel.cell)}?`));
      for (const m of sel.moves) choices.append(el("button", {class: "rt-act", "data-choice": "1", "data-action": m.action, "data-kind": m.kind, onclick: () => rtPlay(ui, m)}, RT_ACT_WORDS[m.kind] || m.kind));
      choices.append(el("button", {class: "rt-cancel", onclick: () => { ui.sel = same(sel.unit, sel.cell) ? null : {kind: "rt-unit", cell: sel.unit}; ui.redraw(); }}, "cancel"));
    } else if (sel && sel.kind === "rt-structure") {
      choices.append(el("p", {}, el("b", {}, `Recruit at ${rtXY(pic, sel.cell)}`), ` (you have ${pic.gold[pic.to_move]} gold)`));
      for (const [t, cost] of Object.entries(pic.costs)) {
        const m = pic.moves.find((mm) => mm.kind === "create_unit" && mm.unit_type === t && same(mm.cell, sel.cell));
        const b = el("button", {class: "rt-recruit", "data-type": t, title: m ? m.text : `costs ${cost}: you have ${pic.gold[pic.to_move]}`,
          onclick: m ? () => rtPlay(ui, m) : () => { ui.rtMsg = `a ${pic.unit_names[t]} costs ${cost} gold; you have ${pic.gold[pic.to_move]}`; ui.redraw(); }},
        `${pic.unit_names[t]} ${cost}`);
        if (!m) b.classList.add("unaffordable");
        choices.append(b);
      }
    }
    box.append(choices);
    const end = pic.moves.find((m) => m.kind === "end_turn");
    if (end) box.append(el("button", {class: "rt-end", onclick: () => rtPlay(ui, end)}, "End turn"));
  }
  const list = (title, moves, cls) => {
    if (!moves || !moves.length) return;
    box.append(el("h4", {}, title));
    const ol = el("ol", {class: `rt-actions ${cls}`});
    for (const m of moves) ol.append(el("li", {class: m.kind === "counter" || m.kind === "evade" ? "chance" : ""}, m.kind === "counter" || m.kind === "evade" ? `(${m.text})` : m.text));
    box.append(ol);
  };
  if (pic.last_turn) list(`Last turn (${pic.players[pic.last_turn.player] || "chance"})`, pic.last_turn.moves, "last");
  if (pic.turn_moves && pic.turn_moves.length) list("This turn so far", pic.turn_moves, "current");
  return box;
}
