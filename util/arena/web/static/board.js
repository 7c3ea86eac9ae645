// Drawing a game's picture (the server's Game.picture) as SVG: shared helpers and the renderer
// registry. Each game's file (game-*.js) registers RENDERERS[kind] = {draw(pic, ui), key(e, pic, ui)}.
// ui: {active: the person may move now, sel: the gesture begun (a piece or cube picked),
//      cursor: the keyboard cursor's [r, c], kbd: the cursor is shown (a key was used), move(action), redraw()}.
// A renderer may also give hint(pic, ui), the status line's next step, and keys (a string, or
// a function of the picture), the line of keys shown under the board. Every drawn piece carries data-r, data-c, data-p and data-label
// (the game's grid label without the owner), which the browser tests compare with the server.
"use strict";

const SVGNS = "http://www.w3.org/2000/svg";
const RENDERERS = {};
const CELL = 64;  // the side of a board cell in SVG units

function S(tag, attrs, ...children) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return e;
}

function svgRoot(width, height, cls) {
  return S("svg", {viewBox: `0 0 ${width} ${height}`, width, height, class: `board ${cls}`, xmlns: SVGNS});
}

function tip(text) {
  return S("title", {}, text);
}

const same = (a, b) => a && b && a[0] === b[0] && a[1] === b[1];

// The cells of the last move (every [r, c] its picture entry names).
function lastCells(pic) {
  const m = pic.last;
  if (!m) return [];
  return ["cell", "from", "to"].map((k) => m[k]).filter((x) => Array.isArray(x));
}

// A mark drawn over every line the picture says is made (four in a row, ...).
function drawLines(g, pic, x0, y0, size) {
  for (const line of pic.lines || []) {
    const [a, b] = [line[0], line[line.length - 1]];
    g.append(S("line", {x1: x0 + (a[1] + 0.5) * size, y1: y0 + (a[0] + 0.5) * size, x2: x0 + (b[1] + 0.5) * size,
      y2: y0 + (b[0] + 0.5) * size, class: "made-line"}));
  }
}

// A highlight ring around the last move's cells.
function drawLast(g, pic, x0, y0, size) {
  for (const [r, c] of lastCells(pic)) {
    g.append(S("rect", {x: x0 + c * size + 3, y: y0 + r * size + 3, width: size - 6, height: size - 6, rx: 8, class: "last-move"}));
  }
}

// The keyboard cursor: a ring on one of the cells a key can act on now (`cells`, [r, c] each);
// the arrow keys move it to the nearest such cell in their direction (one step along the line
// weighs less than one step aside). The first arrow key, Enter or Space only shows it.
const ARROWS = {ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1]};
const ENTER = (e) => e.key === "Enter" || e.key === " ";

// The cursor's cell among `cells`, put on the first of them when it is elsewhere.
function cursorOn(ui, cells) {
  if (!cells.length) return null;
  if (!cells.some((x) => same(x, ui.cursor))) ui.cursor = [...cells[0]];
  return ui.cursor;
}

// Handles an arrow key (true) by moving the cursor among `cells`; Enter or Space while the
// cursor is hidden only shows it (true: the key is used up).
function cursorKey(e, ui, cells) {
  const d = ARROWS[e.key];
  if (!d && !(ENTER(e) && !ui.kbd)) return false;
  const cur = cursorOn(ui, cells);
  if (!cur) return false;
  if (d && ui.kbd) {
    let best = null, bestScore = Infinity;
    for (const x of cells) {
      const along = (x[0] - cur[0]) * d[0] + (x[1] - cur[1]) * d[1];
      const aside = Math.abs((x[0] - cur[0]) * d[1]) + Math.abs((x[1] - cur[1]) * d[0]);
      if (along > 0 && along + 2 * aside < bestScore) [best, bestScore] = [x, along + 2 * aside];
    }
    if (best) ui.cursor = [...best];
  }
  ui.kbd = true;
  ui.redraw();
  return true;
}

// The cursor's ring (when shown and on one of `cells`) on a board whose cell (0, 0) is at (x0, y0).
function drawCursor(g, ui, cells, x0, y0, size, h) {
  const cur = ui.active && ui.kbd ? cursorOn(ui, cells) : null;
  if (!cur) return;
  g.append(S("rect", {x: x0 + cur[1] * size + 1, y: y0 + cur[0] * size + 1, width: size - 2, height: h || size - 2, rx: 10,
    class: "kbd-cursor", "data-kr": cur[0], "data-kc": cur[1]}));
}

// The fallback for a game without its own renderer: labelled cells, a click per cell.
RENDERERS.grid = {
  draw(pic, ui) {
    const svg = svgRoot(pic.columns * CELL, pic.rows * CELL, "grid");
    const byCell = new Map();
    for (const m of pic.moves) if (m.cell) byCell.set(`${m.cell[0]},${m.cell[1]}`, [...(byCell.get(`${m.cell[0]},${m.cell[1]}`) || []), m]);
    pic.cells.forEach((row, r) => row.forEach((cell, c) => {
      const ms = ui.active ? byCell.get(`${r},${c}`) : null;
      svg.append(S("rect", {x: c * CELL + 2, y: r * CELL + 2, width: CELL - 4, height: CELL - 4, class: ms ? "cell playable" : "cell",
        "data-r": r, "data-c": c, onclick: ms ? () => ui.move(ms[0].action) : null}));
      if (cell) svg.append(S("text", {x: (c + 0.5) * CELL, y: (r + 0.6) * CELL, class: `piece p${cell.p}`, "data-r": r, "data-c": c,
        "data-p": cell.p, "data-label": cell.t || ""}, cell.t || "●"));
    }));
    return svg;
  },
};

// The picture drawn by its game's renderer (the fallback when the page knows no such kind).
function drawPicture(pic, ui) {
  const r = RENDERERS[pic.kind] || RENDERERS.grid;
  return r.draw(pic, ui);
}

// An SVG element as a PNG data URL (for "save as image"), drawn on a canvas.
function svgToPng(svg, scale) {
  return new Promise((resolve, reject) => {
    const clone = svg.cloneNode(true);
    inlineStyles(svg, clone);
    const w = svg.width.baseVal.value, h = svg.height.baseVal.value;
    const img = new Image();
    img.onload = () => {
      const canvas = document.createElement("canvas");
      canvas.width = w * scale;
      canvas.height = h * scale;
      const ctx = canvas.getContext("2d");
      ctx.fillStyle = "#fff";
      ctx.fillRect(0, 0, canvas.width, canvas.height);
      ctx.drawImage(img, 0, 0, canvas.width, canvas.height);
      resolve(canvas.toDataURL("image/png"));
    };
    img.onerror = () => reject(new Error("the board could not be drawn as an image"));
    img.src = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(new XMLSerializer().serializeToString(clone));
  });
}

// Copy the computed paint of each element into the clone (a standalone SVG has no stylesheet).
function inlineStyles(src, dst) {
  const props = ["fill", "stroke", "stroke-width", "stroke-dasharray", "opacity", "font-size", "font-weight", "font-family", "text-anchor", "dominant-baseline"];
  const a = src.querySelectorAll("*"), b = dst.querySelectorAll("*");
  a.forEach((e, i) => {
    const cs = getComputedStyle(e);
    b[i].setAttribute("style", props.map((p) => `${p}:${cs.getPropertyValue(p)}`).join(";"));
  });
}
