// Shared by the pages: JSON requests with the server's error messages, and drawing a board grid.
"use strict";

// A 503 with ``warming_up`` (an agent compiling in the server's background) is asked again after
// its Retry-After; a page may define onWarmingUp(message) to show it meanwhile. A 429 with
// Retry-After (too many of this client's requests in progress) is asked again up to 5 times.
async function api(method, url, body) {
  const opts = {method, headers: {}};
  if (body !== undefined) {
    opts.headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(body);
  }
  for (let tries = 0; ; tries++) {
    const res = await fetch(url, opts);
    let data = null;
    try { data = await res.json(); } catch (e) { data = null; }
    if (res.status === 429 && res.headers.get("Retry-After") && tries < 5) {  // this page's own requests in progress: one moment
      await new Promise((resolve) => setTimeout(resolve, 1000 * parseFloat(res.headers.get("Retry-After"))));
      continue;
    }
    if (res.status === 503 && data && data.warming_up) {  // the agent compiles in the server's background: ask again
      if (typeof onWarmingUp === "function") onWarmingUp(data.error);
      const wait = parseFloat(res.headers.get("Retry-After")) || 2;
      await new Promise((resolve) => setTimeout(resolve, 1000 * wait));
      continue;
    }
    if (!res.ok) {
      throw new Error((data && data.error) || `${res.status} ${res.statusText}`);
    }
    return data;
  }
}

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return e;
}

// A grid of cell labels (rows top first). A label starting with 0 or 1 names its owner
// (coloured); the rest of the label is written in the cell.
function drawGrid(grid, onCell, highlight) {
  const table = el("table", {class: "grid"});
  grid.forEach((row, r) => {
    const tr = el("tr");
    row.forEach((label, c) => {
      const owner = label && (label[0] === "0" || label[0] === "1") ? label[0] : null;
      const text = owner ? label.slice(1) : label;
      const td = el("td", {"data-r": r, "data-c": c, class: owner ? `p${owner}` : "empty"});
      td.append(el("span", {class: "piece"}, text || ""));
      if (highlight && highlight(r, c)) td.classList.add("playable");
      if (onCell) td.addEventListener("click", () => onCell(r, c));
      tr.append(td);
    });
    table.append(tr);
  });
  return table;
}

// A number for people: integers with separators, three decimals at most, "≈0" for a value
// too small to matter at that precision (the exact number stays in tooltips).
function fmt(v) {
  if (typeof v !== "number") return String(v);
  if (Number.isInteger(v)) return v.toLocaleString("en");
  if (Math.abs(v) >= 100) return v.toFixed(0);
  if (Math.abs(v) >= 0.0005) return v.toFixed(3).replace(/\.?0+$/, "");
  return v === 0 ? "0" : "≈0";
}
