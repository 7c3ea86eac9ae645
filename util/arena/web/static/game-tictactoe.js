// Tic-tac-toe: a hash grid, X and O; click a cell (or keys 1-9, read like a phone pad: 1 top left,
// or the cursor moved with the arrow keys and Enter).
"use strict";

RENDERERS.tictactoe = {
  draw(pic, ui) {
    const size = 3 * CELL + 16;
    const svg = svgRoot(size, size, "tictactoe");
    const g = S("g", {transform: "translate(8,8)"});
    svg.append(g);
    for (let i = 1; i < 3; i++) {
      g.append(S("line", {x1: i * CELL, y1: 4, x2: i * CELL, y2: 3 * CELL - 4, class: "hash"}));
      g.append(S("line", {x1: 4, y1: i * CELL, x2: 3 * CELL - 4, y2: i * CELL, class: "hash"}));
    }
    drawLast(g, pic, 0, 0, CELL);
    const byCell = new Map(pic.moves.map((m) => [`${m.cell[0]},${m.cell[1]}`, m]));
    pic.cells.forEach((row, r) => row.forEach((cell, c) => {
      const x = c * CELL, y = r * CELL, k = CELL * 0.28;
      if (cell && cell.p === 0) {
        g.append(S("g", {class: "mark p0 piece", "data-r": r, "data-c": c, "data-p": 0, "data-label": ""},
          S("line", {x1: x + k, y1: y + k, x2: x + CELL - k, y2: y + CELL - k}), S("line", {x1: x + CELL - k, y1: y + k, x2: x + k, y2: y + CELL - k})));
      } else if (cell) {
        g.append(S("circle", {cx: x + CELL / 2, cy: y + CELL / 2, r: CELL / 2 - k, class: "mark p1 piece", "data-r": r, "data-c": c, "data-p": 1, "data-label": ""}));
      }
      const m = byCell.get(`${r},${c}`);
      if (ui.active && m) {
        g.append(S("rect", {x: x + 3, y: y + 3, width: CELL - 6, height: CELL - 6, class: "cell playable", "data-r": r, "data-c": c,
          onclick: () => ui.move(m.action)}, tip(`${m.text} (key ${3 * r + c + 1})`)));
      }
    }));
    drawLines(g, pic, 0, 0, CELL);
    drawCursor(g, ui, pic.moves.map((m) => m.cell), 0, 0, CELL);
    return svg;
  },
  key(e, pic, ui) {
    if (!ui.active) return false;
    if (cursorKey(e, ui, pic.moves.map((m) => m.cell))) return true;
    const n = parseInt(e.key, 10);
    const at = n >= 1 && n <= 9 ? [Math.floor((n - 1) / 3), (n - 1) % 3] : ENTER(e) ? ui.cursor : null;
    const m = at && pic.moves.find((x) => same(x.cell, at));
    if (m) ui.move(m.action);
    return Boolean(m);
  },
  keys: "1-9 mark a cell (1 top left, 9 bottom right); or the arrow keys move the cursor and Enter marks",
};
