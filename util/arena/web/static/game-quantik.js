// Quantik: a round 4×4 board in four 2×2 zones; four shapes (cube, cylinder, cone, sphere) in
// two colours. Pick a shape from your hand (or keys 1-4), then a cell (or the cursor moved with
// the arrow keys and Enter): cells the shape may not go to are greyed, with the rule that
// forbids it as a tooltip.
"use strict";

const QUANTIK_LETTERS = "ABCD";

// One shape centred on (x, y), about s across: the page's four distinct silhouettes.
function quantikShape(shape, x, y, s, attrs) {
  const h = s / 2;
  const parts = [
    () => S("rect", {x: x - h * 0.85, y: y - h * 0.85, width: 1.7 * h, height: 1.7 * h, rx: 3}),  // cube: a square
    () => S("g", {}, S("rect", {x: x - h * 0.7, y: y - h * 0.75, width: 1.4 * h, height: 1.5 * h, rx: 2}),
      S("ellipse", {cx: x, cy: y - h * 0.75, rx: h * 0.7, ry: h * 0.28, class: "cap"})),  // cylinder: side view with its top
    () => S("polygon", {points: `${x},${y - h} ${x + h * 0.9},${y + h * 0.8} ${x - h * 0.9},${y + h * 0.8}`}),  // cone: a triangle
    () => S("g", {}, S("circle", {cx: x, cy: y, r: h * 0.88}), S("circle", {cx: x - h * 0.3, cy: y - h * 0.3, r: h * 0.2, class: "shine"})),  // sphere
  ];
  const e = parts[shape]();
  for (const [k, v] of Object.entries(attrs || {})) if (v !== undefined && v !== null) e.setAttribute(k, v);
  return e;
}

RENDERERS.quantik = {
  draw(pic, ui) {
    const pad = 16, board = 4 * CELL, handH = 2 * 52 + 10;
    const w = board + 2 * pad, h = board + 2 * pad + handH;
    const svg = svgRoot(w, h, "quantik");
    svg.append(S("rect", {x: 2, y: 2, width: w - 4, height: board + 2 * pad - 4, rx: 24, class: "wood"}));
    for (let z = 0; z < 4; z++) {  // the four zones
      const zr = z >> 1, zc = z & 1;
      svg.append(S("rect", {x: pad + zc * 2 * CELL + 3, y: pad + zr * 2 * CELL + 3, width: 2 * CELL - 6, height: 2 * CELL - 6, rx: 14,
        class: `zone z${(zr + zc) & 1}`}));
    }
    const sel = ui.sel && ui.sel.kind === "quantik-shape" ? ui.sel.shape : null;
    const moves = pic.moves.filter((m) => m.shape === sel);
    const blocked = new Map((sel !== null ? pic.blocked[sel] : []).map(([r, c, why]) => [`${r},${c}`, why]));
    drawLast(svg, pic, pad, pad, CELL);
    pic.cells.forEach((row, r) => row.forEach((cell, c) => {
      const x = pad + (c + 0.5) * CELL, y = pad + (r + 0.5) * CELL;
      svg.append(S("circle", {cx: x, cy: y, r: CELL * 0.42, class: "socket"}));
      if (cell) {
        svg.append(quantikShape(cell.shape, x, y, CELL * 0.62, {class: `qpiece p${cell.p}`, "data-r": r, "data-c": c, "data-p": cell.p,
          "data-label": QUANTIK_LETTERS[cell.shape]}));
        return;
      }
      if (!ui.active || sel === null) return;
      const m = moves.find((mm) => mm.cell[0] === r && mm.cell[1] === c);
      if (m) {
        svg.append(S("circle", {cx: x, cy: y, r: CELL * 0.42, class: "cell playable", "data-r": r, "data-c": c,
          onclick: () => ui.move(m.action)}, tip(`place the ${pic.shapes[sel]} here (${m.text})`)));
      } else if (blocked.has(`${r},${c}`)) {
        svg.append(S("circle", {cx: x, cy: y, r: CELL * 0.42, class: "cell blocked", "data-r": r, "data-c": c}, tip(blocked.get(`${r},${c}`))));
      }
    }));
    drawCursor(svg, ui, moves.map((m) => m.cell), pad, pad, CELL);
    for (const line of pic.lines || []) {  // a completed row, column or zone: its box outlined
      const rs = line.map((x) => x[0]), cs = line.map((x) => x[1]);
      const r0 = Math.min(...rs), c0 = Math.min(...cs);
      svg.append(S("rect", {x: pad + c0 * CELL + 2, y: pad + r0 * CELL + 2, width: (Math.max(...cs) - c0 + 1) * CELL - 4,
        height: (Math.max(...rs) - r0 + 1) * CELL - 4, rx: 16, class: "made-group"}));
    }
    // The hands: each colour's pieces left, the mover's clickable.
    [0, 1].forEach((p) => {
      const y0 = board + 2 * pad + 6 + p * 52;
      svg.append(S("text", {x: 8, y: y0 + 30, class: `hand-label${pic.to_move === p ? " to-move" : ""}`}, pic.players[p]));
      pic.hand[p].forEach((count, shape) => {
        const x = 96 + shape * 50, y = y0 + 24;
        const mine = ui.active && p === pic.to_move;
        const can = mine && count > 0 && pic.moves.some((m) => m.shape === shape);
        svg.append(quantikShape(shape, x, y, 28, {class: `qpiece hand p${p}${count ? "" : " empty"}${sel === shape && mine ? " selected" : ""}${can ? " pickable" : ""}`,
          "data-hand": p, "data-shape": shape, "data-count": count}));
        svg.append(S("text", {x: x + 17, y: y + 14, class: "count"}, `×${count}`));
        if (can) {
          svg.append(S("rect", {x: x - 18, y: y - 20, width: 44, height: 40, class: "pick", "data-pick": shape,
            onclick: () => { ui.sel = {kind: "quantik-shape", shape}; ui.redraw(); }}, tip(`${pic.shapes[shape]} (key ${shape + 1})`)));
        }
      });
    });
    return svg;
  },
  key(e, pic, ui) {
    if (!ui.active) return false;
    const n = parseInt(e.key, 10);
    if (n >= 1 && n <= 4 && pic.moves.some((m) => m.shape === n - 1)) {
      ui.sel = {kind: "quantik-shape", shape: n - 1};
      ui.kbd = true;
      ui.redraw();
      return true;
    }
    const sel = ui.sel && ui.sel.kind === "quantik-shape" ? ui.sel.shape : null;
    if (sel === null) return false;
    if (e.key === "Escape") { ui.sel = null; ui.redraw(); return true; }
    const moves = pic.moves.filter((m) => m.shape === sel);
    if (cursorKey(e, ui, moves.map((m) => m.cell))) return true;
    const m = ENTER(e) ? moves.find((mm) => same(mm.cell, ui.cursor)) : null;
    if (m) ui.move(m.action);
    return Boolean(m);
  },
  hint(pic, ui) {
    const sel = ui.sel && ui.sel.kind === "quantik-shape" ? pic.shapes[ui.sel.shape] : null;
    return sel ? `place your ${sel}: click a cell (grey cells are forbidden)` : "pick a shape from your hand (keys 1-4)";
  },
  keys: "1-4 pick a shape (cube, cylinder, cone, sphere); the arrow keys move the cursor among its free cells, Enter places it, Escape puts it back",
};
