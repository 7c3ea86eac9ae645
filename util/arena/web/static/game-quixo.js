// Quixo: wooden cubes, blank or showing X or O. Pick a blank or own cube on the border (they
// are outlined), then an arrow at the end of its row or column where it is pushed back in.
// Keys: the arrow keys move the cursor among the takeable cubes and Enter takes one; then the
// arrow key of the push's direction pushes it in; Escape puts it back.
"use strict";

const QUIXO_PUSH = {TOP: "ArrowDown", BOTTOM: "ArrowUp", LEFT: "ArrowRight", RIGHT: "ArrowLeft"};

function quixoFace(g, x, y, s, p) {
  const k = s * 0.27;
  if (p === 0) {
    g.append(S("line", {x1: x + k, y1: y + k, x2: x + s - k, y2: y + s - k, class: "face"}),
      S("line", {x1: x + s - k, y1: y + k, x2: x + k, y2: y + s - k, class: "face"}));
  } else if (p === 1) {
    g.append(S("circle", {cx: x + s / 2, cy: y + s / 2, r: s / 2 - k, class: "face"}));
  }
}

// The arrow outside the board where the picked cube goes back in, pointing the way it pushes.
function quixoArrow(m, n, m0, onclick) {
  const [r, c] = m.from;
  const mid = (i) => m0 + (i + 0.5) * CELL;
  const far = m0 + n * CELL + m0 / 2, near = m0 / 2;
  const at = {TOP: [mid(c), near, 90], BOTTOM: [mid(c), far, -90], LEFT: [near, mid(r), 0], RIGHT: [far, mid(r), 180]}[m.side];
  const [x, y, angle] = at;
  return S("g", {class: "arrow playable", transform: `translate(${x},${y}) rotate(${angle})`, "data-side": m.side, onclick},
    S("circle", {r: 17, class: "arrow-bg"}), S("polygon", {points: "-10,-7 4,-7 4,-13 14,0 4,13 4,7 -10,7"}),
    tip(`push it in from the ${m.side.toLowerCase()} (${m.text})`));
}

RENDERERS.quixo = {
  draw(pic, ui) {
    const n = pic.rows, m0 = 40, size = n * CELL + 2 * m0;
    const svg = svgRoot(size, size, "quixo");
    svg.append(S("rect", {x: m0 - 8, y: m0 - 8, width: n * CELL + 16, height: n * CELL + 16, rx: 10, class: "tray"}));
    const picked = ui.sel && ui.sel.kind === "quixo-cube" ? ui.sel.from : null;
    const froms = new Map();
    for (const m of pic.moves) froms.set(`${m.from[0]},${m.from[1]}`, m.from);
    drawLast(svg, pic, m0, m0, CELL);
    pic.cells.forEach((row, r) => row.forEach((cell, c) => {
      const x = m0 + c * CELL + 4, y = m0 + r * CELL + 4, s = CELL - 8;
      const isPicked = same(picked, [r, c]);
      const takeable = ui.active && froms.has(`${r},${c}`);
      const g = S("g", {class: `cube${cell ? ` p${cell.p}` : " blank"}${takeable ? " takeable" : ""}${isPicked ? " picked" : ""}`,
        "data-r": r, "data-c": c, "data-p": cell ? cell.p : null, "data-label": cell ? "XO"[cell.p] : null,
        onclick: takeable ? () => { ui.sel = isPicked ? null : {kind: "quixo-cube", from: [r, c]}; ui.redraw(); } : null});
      g.append(S("rect", {x, y, width: s, height: s, rx: 9, class: "cube-body"}));
      quixoFace(g, x, y, s, cell ? cell.p : null);
      if (takeable) g.append(tip(isPicked ? "put it back" : "take this cube"));
      svg.append(g);
    }));
    const lg = S("g", {});
    drawLines(lg, pic, m0, m0, CELL);
    svg.append(lg);
    if (!picked) drawCursor(svg, ui, ui.active ? [...froms.values()] : [], m0, m0, CELL);
    if (picked && ui.active) {
      for (const m of pic.moves.filter((mm) => same(mm.from, picked))) svg.append(quixoArrow(m, n, m0, () => ui.move(m.action)));
    }
    return svg;
  },
  key(e, pic, ui) {
    if (!ui.active) return false;
    if (!ui.sel || ui.sel.kind !== "quixo-cube") {
      const froms = [...new Map(pic.moves.map((m) => [`${m.from}`, m.from])).values()];
      if (cursorKey(e, ui, froms)) return true;
      if (!ENTER(e) || !froms.some((x) => same(x, ui.cursor))) return false;
      ui.sel = {kind: "quixo-cube", from: [...ui.cursor]};
      ui.redraw();
      return true;
    }
    if (e.key === "Escape") { ui.sel = null; ui.redraw(); return true; }
    const m = pic.moves.find((mm) => same(mm.from, ui.sel.from) && QUIXO_PUSH[mm.side] === e.key);
    if (m) ui.move(m.action);
    return Boolean(m);
  },
  hint(pic, ui) {
    return ui.sel && ui.sel.kind === "quixo-cube" ? "push it back in: click an arrow (or an arrow key; Escape: put it back)"
      : `take a blank or ${pic.players[pic.to_move]} cube from the border`;
  },
  keys: "the arrow keys move the cursor among the outlined cubes, Enter takes one; then an arrow key pushes it in that way, Escape puts it back",
};
