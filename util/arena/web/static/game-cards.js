// Games of hidden cards or dice (the server's CardGame.player_picture, kind "cards": Kuhn poker,
// Leduc hold'em, Liar's Dice): the cards dealt so far, the viewer's own face up, the opponent's
// face down ("?": the server never sends it), a public one face up; the decisions made so far;
// the legal actions as buttons (keys 1-9). Also the fallback of any hidden game without its own
// picture (kind "hidden"): the buttons only.
"use strict";

function cardsText(text) {
  return text === null || text === undefined ? null : text.replace(/^(deal|roll) /, "");
}

function cardsButtons(pic, ui) {
  const box = el("div", {class: "cards-moves"});
  if (!ui.active) return box;
  pic.moves.forEach((m, i) => box.append(el("button", {class: "cards-move", "data-action": m.action, title: `key ${i + 1}`,
    onclick: () => ui.move(m.action)}, m.text)));
  return box;
}

RENDERERS.cards = {
  draw(pic, ui) {
    const cards = pic.cards || [];
    const w = 70, h = 100, gap = 24;
    const svg = svgRoot(Math.max(1, cards.length) * (w + gap) + gap, h + 40, "cards");
    cards.forEach((card, i) => {
      const x = gap + i * (w + gap), y = 8;
      const text = cardsText(card.text);
      const who = card.owner === null ? "public" : card.owner === pic.viewer ? "yours" : pic.players[card.owner];
      const owner = card.owner === null ? "public" : `p${card.owner}`;
      svg.append(S("g", {class: `card-slot ${owner}`, "data-owner": card.owner === null ? "public" : card.owner, "data-label": text ?? "?"},
        S("rect", {x, y, width: w, height: h, rx: 8, class: `card ${owner}${text === null ? " back" : ""}`}),
        S("text", {x: x + w / 2, y: y + h / 2 + 8, class: text === null ? "card-back-text" : "card-text"}, text ?? "?"),
        S("text", {x: x + w / 2, y: y + h + 20, class: "seat"}, who)));
    });
    const wrap = el("div", {class: "cards-wrap"});
    wrap.append(svg);
    const bets = (pic.bets || []).map((b) => `${pic.players[b.player]}: ${b.text}`);
    wrap.append(el("p", {class: "cards-bets"}, bets.length ? bets.join(" · ") : "no bets yet"));
    wrap.append(cardsButtons(pic, ui));
    return wrap;
  },
  key(e, pic, ui) {
    if (!ui.active) return false;
    const n = parseInt(e.key, 10);
    const m = n >= 1 && n <= 9 ? pic.moves[n - 1] : null;
    if (m) ui.move(m.action);
    return Boolean(m);
  },
  keys: "1-9 choose an action (in the order of the buttons)",
};

RENDERERS.hidden = {
  draw(pic, ui) {
    const wrap = el("div", {class: "cards-wrap"});
    wrap.append(el("p", {class: "muted"}, "a game of hidden information: what you observe is not drawn here"));
    wrap.append(cardsButtons(pic, ui));
    return wrap;
  },
  key: (e, pic, ui) => RENDERERS.cards.key(e, pic, ui),
  keys: RENDERERS.cards.keys,
};
