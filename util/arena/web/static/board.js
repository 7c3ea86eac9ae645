// Drawing a game's picture (the server's Game.picture) as SVG: shared helpers and the renderer
// registry. Each game's file (game-*.js) registers RENDERERS[kind] = {draw(pic, ui), key(e, pic, ui)}.
// ui: {active: the person may move now, sel: the gesture begun (a piece or cube picked),
//      move(action), redraw()}. Every drawn piece carries data-r, data-c, data-p and data-label
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
