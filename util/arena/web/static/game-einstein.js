// EinStein würfelt nicht!: numbered cubes, the die the server rolled, the goal corners. The
// cube(s) the die lets move are outlined: pick one (picked for you when there is one), then
// a target cell. Keys: the arrow keys move the cursor among the outlined cubes (Enter picks
// one), then among the picked cube's targets (Enter moves there); Escape puts the cube back.
"use strict";

const PIPS = {1: [[1, 1]], 2: [[0, 0], [2, 2]], 3: [[0, 0], [1, 1], [2, 2]], 4: [[0, 0], [0, 2], [2, 0], [2, 2]],
  5: [[0, 0], [0, 2], [1, 1], [2, 0], [2, 2]], 6: [[0, 0], [0, 2], [1, 0], [1, 2], [2, 0], [2, 2]]};

function drawDie(x, y, value, p) {
  const g = S("g", {class: `die p${p}`, "data-die": value});
  g.append(S("rect", {x, y, width: 56, height: 56, rx: 10, class: "die-body"}));
  for (const [r, c] of PIPS[value] || []) g.append(S("circle", {cx: x + 12 + c * 16, cy: y + 12 + r * 16, r: 5, class: "pip"}));
  return g;
}

RENDERERS.einstein = {
  draw(pic, ui) {
    const pad = 10, board = 5 * CELL, side = 150;
    const svg = svgRoot(board + 2 * pad + side, board + 2 * pad, "einstein");
    svg.append(S("rect", {x: 0, y: 0, width: board + 2 * pad, height: board + 2 * pad, rx: 8, class: "tray"}));
    for (let r = 0; r < 5; r++) for (let c = 0; c < 5; c++) {
      svg.append(S("rect", {x: pad + c * CELL + 1, y: pad + r * CELL + 1, width: CELL - 2, height: CELL - 2, class: "square"}));
    }
    pic.goals.forEach(([r, c], p) => svg.append(S("g", {class: `goal p${p}`, "data-goal": p},
      S("rect", {x: pad + c * CELL + 1, y: pad + r * CELL + 1, width: CELL - 2, height: CELL - 2}),
      S("polygon", {points: r ? `${pad + (c + 1) * CELL - 1},${pad + (r + 1) * CELL - 1} ${pad + (c + 1) * CELL - 25},${pad + (r + 1) * CELL - 1} ${pad + (c + 1) * CELL - 1},${pad + (r + 1) * CELL - 25}`
        : `${pad + 1},${pad + 1} ${pad + 25},${pad + 1} ${pad + 1},${pad + 25}`}),
      tip(`${pic.players[p]}'s goal: a ${pic.players[p]} cube here wins`))));
    drawLast(svg, pic, pad, pad, CELL);
    const movers = new Map();
    for (const m of pic.moves) movers.set(`${m.from[0]},${m.from[1]}`, m.from);
    if (ui.active && movers.size === 1 && !ui.sel) ui.sel = {kind: "einstein-cube", from: [...movers.values()][0]};
    const picked = ui.sel && ui.sel.kind === "einstein-cube" ? ui.sel.from : null;
    pic.cells.forEach((row, r) => row.forEach((cell, c) => {
      if (!cell) return;
      const x = pad + c * CELL + 7, y = pad + r * CELL + 7, s = CELL - 14;
      const movable = ui.active && movers.has(`${r},${c}`);
      const g = S("g", {class: `ecube p${cell.p}${movable ? " movable" : ""}${same(picked, [r, c]) ? " picked" : ""}`,
        "data-r": r, "data-c": c, "data-p": cell.p, "data-label": cell.n,
        onclick: movable ? () => { ui.sel = {kind: "einstein-cube", from: [r, c]}; ui.redraw(); } : null},
      S("rect", {x, y, width: s, height: s, rx: 8, class: "cube-body"}), S("text", {x: x + s / 2, y: y + s / 2 + 8, class: "num"}, cell.n));
      if (movable) g.append(tip(`move cube ${cell.n}`));
      svg.append(g);
    }));
    if (picked && ui.active) {
      for (const m of pic.moves.filter((mm) => same(mm.from, picked))) {
        const [r, c] = m.to;
        svg.append(S("circle", {cx: pad + (c + 0.5) * CELL, cy: pad + (r + 0.5) * CELL, r: CELL * 0.2, class: "target playable",
          "data-r": r, "data-c": c, onclick: () => ui.move(m.action)}, tip(m.text + (m.capture ? " (captures)" : ""))));
      }
    }
    if (ui.active) drawCursor(svg, ui, picked ? pic.moves.filter((m) => same(m.from, picked)).map((m) => m.to) : [...movers.values()], pad, pad, CELL);
    const dx = board + 2 * pad + 46;
    svg.append(S("text", {x: dx + 28, y: 28, class: "die-label"}, "die"));
    if (pic.die) svg.append(drawDie(dx, 40, pic.die, pic.mover));
    else svg.append(S("text", {x: dx + 28, y: 74, class: "die-label"}, "–"));
    svg.append(S("text", {x: dx + 28, y: 120, class: "die-label"}, pic.to_move === null ? "" : `${pic.players[pic.to_move]} moves`));
    pic.goals.forEach(([r], p) => svg.append(S("text", {x: dx + 28, y: 150 + 18 * p, class: "die-label"},
      `${pic.players[p]} → ${r ? "bottom right" : "top left"}`)));
    return svg;
  },
  key(e, pic, ui) {
    if (!ui.active) return false;
    const picked = ui.sel && ui.sel.kind === "einstein-cube" ? ui.sel.from : null;
    if (e.key === "Escape" && picked) { ui.sel = null; ui.redraw(); return true; }
    if (picked) {
      const moves = pic.moves.filter((m) => same(m.from, picked));
      if (cursorKey(e, ui, moves.map((m) => m.to))) return true;
      const m = ENTER(e) ? moves.find((mm) => same(mm.to, ui.cursor)) : null;
      if (m) ui.move(m.action);
      return Boolean(m);
    }
    const movers = [...new Map(pic.moves.map((m) => [`${m.from}`, m.from])).values()];
    if (cursorKey(e, ui, movers)) return true;
    if (!ENTER(e) || !movers.some((x) => same(x, ui.cursor))) return false;
    ui.sel = {kind: "einstein-cube", from: [...ui.cursor]};
    ui.redraw();
    return true;
  },
  hint(pic, ui) {
    return (ui.sel ? "click a dot to move the outlined cube there" : "pick an outlined cube");
  },
  keys: "the arrow keys move the cursor among the outlined cubes (Enter picks one), then among its targets: Enter moves there, Escape puts the cube back",
};
