// ConnectX and count-the-fours: a blue frame of holes, red and yellow stones, a whole column
// is one click (or its number key, or the cursor moved with the arrow keys and Enter); the
// made lines are struck through; the counts shown.
"use strict";

RENDERERS.connectx = {
  draw(pic, ui) {
    const pad = 8, top = 30;
    const w = pic.columns * CELL + 2 * pad, h = pic.rows * CELL + 2 * pad + top + (pic.scores ? 28 : 0);
    const svg = svgRoot(w, h, "connectx");
    const byCol = new Map(pic.moves.map((m) => [m.column, m]));
    svg.append(S("rect", {x: 0, y: top, width: w, height: pic.rows * CELL + 2 * pad, rx: 12, class: "frame"}));
    for (let c = 0; c < pic.columns; c++) svg.append(S("text", {x: pad + (c + 0.5) * CELL, y: 20, class: "col-label"}, c + 1));
    pic.cells.forEach((row, r) => row.forEach((cell, c) => {
      const cx = pad + (c + 0.5) * CELL, cy = top + pad + (r + 0.5) * CELL;
      svg.append(S("circle", cell ? {cx, cy, r: CELL * 0.4, class: `stone p${cell.p}`, "data-r": r, "data-c": c, "data-p": cell.p, "data-label": ""}
        : {cx, cy, r: CELL * 0.4, class: "hole"}));
    }));
    for (const [r, c] of lastCells(pic)) {
      svg.append(S("circle", {cx: pad + (c + 0.5) * CELL, cy: top + pad + (r + 0.5) * CELL, r: CELL * 0.16, class: "last-dot"}));
    }
    const g = S("g", {});
    drawLines(g, pic, pad, top + pad, CELL);
    svg.append(g);
    const cells = ui.active ? pic.moves.map((m) => [0, m.column]) : [];
    drawCursor(svg, ui, cells, pad, top, CELL, pic.rows * CELL + 2 * pad - 2);
    const cur = ui.active && ui.kbd ? cursorOn(ui, cells) : null;
    for (let c = 0; c < pic.columns; c++) {
      const m = byCol.get(c);
      if (!ui.active || !m) continue;
      const ghost = S("circle", {cx: pad + (c + 0.5) * CELL, cy: top + pad + (m.cell[0] + 0.5) * CELL, r: CELL * 0.4,
        class: `ghost p${pic.to_move}${cur && cur[1] === c ? " shown" : ""}`});
      const col = S("rect", {x: pad + c * CELL, y: 0, width: CELL, height: h, class: "column playable", "data-c": c,
        onclick: () => ui.move(m.action)}, tip(`drop in column ${c + 1} (key ${c + 1})`));
      col.addEventListener("mouseenter", () => ghost.classList.add("shown"));
      col.addEventListener("mouseleave", () => ghost.classList.toggle("shown", Boolean(cur && cur[1] === c)));
      svg.append(ghost, col);
    }
    if (pic.scores) {
      const y = top + pic.rows * CELL + 2 * pad + 20;
      svg.append(S("text", {x: w / 2, y, class: "score-line"},
        `lines of ${pic.lines.length ? pic.lines[0].length : ""}: ${pic.players[0]} ${pic.scores[0]} · ${pic.players[1]} ${pic.scores[1]}`));
    }
    return svg;
  },
  key(e, pic, ui) {
    if (!ui.active) return false;
    const n = parseInt(e.key, 10);
    let m = pic.moves.find((x) => x.column === n - 1);
    if (m) { ui.move(m.action); return true; }
    if (e.key !== "ArrowDown" && cursorKey(e, ui, pic.moves.map((x) => [0, x.column]))) return true;
    m = ui.kbd && ui.cursor && (ENTER(e) || e.key === "ArrowDown") ? pic.moves.find((x) => x.column === ui.cursor[1]) : null;
    if (m) ui.move(m.action);
    return Boolean(m);
  },
  keys: (pic) => `1-${Math.min(9, pic.columns)} drop a stone in that column; or ← → move the cursor and Enter (or ↓) drops it`,
};
