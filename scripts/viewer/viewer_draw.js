// viewer_draw.js — boards for the replay page: one drawing function per game over its state table (a
// god table or a seat's view: a hidden zone is a number there, drawn as face-down tiles), and a
// generic listing for any other game. Each returns HTML; every text from the table is escaped.
// A game's function lists its table's keys it knows; keys it does not know are listed after, so a
// field added to a game later still shows.
"use strict";
const MEEPLE_DRAW = (function () {
  const esc = (s) => String(s).replace(/[&<>"']/g, (c) =>
    ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
  const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
  const asList = (v) => (Array.isArray(v) ? v : []);
  const words = (s) => String(s).replace(/_/g, " ");

  // Colours a player names cards by (Babel's peoples, Citadels' districts, the beans): the replay's data
  // carries them from scripts/render.lua, the terminal's, so both paint alike (setColours).
  let COLOUR = {};

  const tile = (name) => {
    const colour = COLOUR[name];
    return '<span class="tile' + (colour ? " c-" + colour : "") + '" data-card="' + esc(name) + '">' +
      esc(words(name)) + "</span>";
  };
  const HIDDEN_SHOWN = 12;
  // A zone: a list of cards as tiles, or a count (what a view shows of hidden cards) as face-down tiles.
  const pile = (zone) => {
    if (typeof zone === "number") {
      const n = Math.max(0, Math.floor(zone));
      if (n === 0) return '<span class="none">none</span>';
      const shown = Math.min(n, HIDDEN_SHOWN);
      return '<span class="tile hidden" data-hidden="1" title="hidden">?</span>'.repeat(shown) +
        (n > shown ? " " : "") + (n > shown || n > 3 ? " (" + n + " hidden)" : "");
    }
    const list = asList(zone);
    if (list.length === 0) return '<span class="none">none</span>';
    return list.map((c) => (isObject(c) || Array.isArray(c) ? value(c) : tile(c))).join("");
  };
  // A long pile (a deck): its size, the cards folded away.
  const deck = (zone) => {
    if (typeof zone === "number") return zone + " cards, face down";
    if (!Array.isArray(zone)) return value(zone);
    if (zone.length === 0) return '<span class="none">empty</span>';
    return zone.length + " cards <details><summary>list (bottom to top)</summary>" + pile(zone) + "</details>";
  };
  const row = (label, html, attrs) =>
    '<div class="row"' + (attrs || "") + '><span class="label">' + esc(words(label)) + "</span> " + html + "</div>";

  // Any value, plainly: scalars as text, lists of names as tiles, records as a definition list.
  function value(v) {
    if (v === null || v === undefined) return '<span class="none">none</span>';
    if (typeof v === "boolean") return v ? "yes" : "no";
    if (typeof v !== "object") return esc(v);
    if (Array.isArray(v)) {
      if (v.every((x) => typeof x === "string")) return pile(v);
      if (v.every((x) => typeof x === "number")) return v.length ? v.map(esc).join(", ") : '<span class="none">none</span>';
      return v.map((x, i) => "<div>" + (i + 1) + ": " + value(x) + "</div>").join("");
    }
    const keys = Object.keys(v).sort();
    if (keys.length === 0) return '<span class="none">none</span>';
    return '<dl class="generic">' + keys.map((k) => "<dt>" + esc(words(k)) + "</dt><dd>" + value(v[k]) + "</dd>")
      .join("") + "</dl>";
  }

  // The keys of `t` drawn by `known` ({key: (v, t) => html}, or null: drawn with another key), in that
  // order, then every other key plainly.
  function rows(t, known, attrsOf) {
    let out = "";
    for (const k of Object.keys(known)) {
      if (k in t && known[k]) out += row(k, known[k](t[k], t), attrsOf ? attrsOf(k) : "");
    }
    for (const k of Object.keys(t).sort()) {
      if (!(k in known)) out += row(k, value(t[k]), attrsOf ? attrsOf(k) : "");
    }
    return out;
  }

  const panel = (title, body, attrs) =>
    '<div class="panel"' + (attrs || "") + "><h3>" + title + "</h3>" + body + "</div>";

  // Each player's panel: `known` draws their keys; the hand's row says whose it is, which the checks
  // on what a view hides look for.
  function players(t, ctx, known) {
    return asList(t.players).map((p, i) => {
      const seat = i + 1;
      const name = ctx.seats[i] === undefined ? "" : " " + esc(ctx.seats[i]);
      const moving = t.to_move === seat ? ' moving' : "";
      const mine = ctx.seat === seat ? " (this view's seat)" : "";
      const body = isObject(p) ? rows(p, known, (k) => ' data-zone="' + esc(k) + '" data-seat="' + seat + '"') :
        value(p);
      return '<div class="panel' + moving + '" data-player="' + seat + '"><h3>P' + seat + name + mine +
        (t.to_move === seat ? " \u2014 to move" : "") + "</h3>" + body + "</div>";
    }).join("");
  }

  function board(t, ctx, table, player) {
    if (!isObject(t)) return panel("state", value(t));
    const rest = Object.assign({}, t);
    delete rest.players;
    return panel("table", rows(rest, table)) + players(t, ctx, player);
  }

  // ------------------------------------------------------------------ the games
  const byLocation = (v) => isObject(v)
    ? Object.keys(v).sort().map((loc) => '<span class="field">' + tile(loc) + " " +
      (asList(v[loc]).every((x) => typeof x === "number") ? asList(v[loc]).map(esc).join("-") || "\u2014"
        : pile(v[loc])) + "</span>").join("")
    : value(v);

  const games = {
    babel: (t, ctx) => board(t, ctx, {
      turn: value, phase: value, to_move: value, active: value, people_deck: deck, temple_deck: deck,
      temple_top: pile, discard: deck,
    }, { pawn: (v) => (typeof v === "string" ? tile(v) : value(v)), hand: pile, reserve: value,
      rows: byLocation, temples: byLocation }),

    citadels: (t, ctx) => board(t, ctx, {
      round: value, phase: value, to_move: value, crown: value, current: (v) => tile(v), robbed: (v) => tile(v),
      killed: (v) => tile(v), aside_up: pile, aside_down: pile, drawn: pile, marked: pile, deck: deck,
      draft: (v) => asList(v).map((d) => '<span class="field">' + (d.by ? "P" + esc(d.by) + " " : "") +
        esc(d.kind || "") + " " + tile(d.character) + "</span>").join(""),
    }, { gold: value, characters: pile, hand: pile, city: pile, buried: pile, passed: pile }),

    bohnanza: (t, ctx) => beanBoard(t, ctx, beanTable, beanPlayer),
    rabohnzel: (t, ctx) => beanBoard(t, ctx, Object.assign({ countdown: (v) => tile(v), river: value,
      spell_pile: deck }, beanTable), Object.assign({}, beanPlayer, { spells: spells, shown: shown })),
  };

  // The beanometers of the game being drawn (ctx.meters: name -> {meter, provisional}), set by its
  // drawing function; and whether a provisional one was shown on this board.
  let meters = {}, meterShown = false, provisionalShown = false, protectedShown = false, spellShown = false;
  // What a harvest of the field brings now, as the game's table says it (a player's `harvest` entry:
  // {pays, protected, spell}; the rules work it out, enchanted beans and all).
  const harvestText = (h) => {
    if (!isObject(h) || typeof h.pays !== "number") return "";
    const spell = h.spell ? " + spell" : "";
    return ' <span class="pays" data-pays="' + esc(h.pays) + '"' + (h.protected ? ' data-protected="1"' : "") +
      (h.spell ? ' data-spell="1"' : "") + ">" + (h.protected ? "would pay " + esc(h.pays) + spell + " (protected)"
        : "pays " + esc(h.pays) + " now" + spell) + "</span>";
  };
  // A field's beanometer ("2:1 3:2 4:3": N beans pay k coins, as the replay's data writes it) and what
  // a harvest would bring now.
  const meterOf = (beans, h) => {
    const list = asList(beans);
    const m = list.length ? meters[list[list.length - 1]] : null;
    if (!m) return "";
    meterShown = true;
    if (m.provisional) provisionalShown = true;
    if (isObject(h) && h.protected) protectedShown = true;
    if (isObject(h) && h.spell) spellShown = true;
    return '<span class="meter" title="beanometer: N:k means N beans pay k coins' +
      (m.provisional ? "; provisional, the real one is unknown" : "") + '">' + esc(m.text || "") +
      (m.provisional ? '<sup class="provisional">\u2020</sup>' : "") + "</span>" + harvestText(h);
  };
  const fields = (v, p) => asList(v).map((f, i) => {
    const h = isObject(p) ? asList(p.harvest)[i] : null;
    return '<span class="field" data-field="' + (i + 1) + '">' +
      (isObject(f) ? pile(f.beans) + (f.enchanted ? " enchanted " + esc(f.enchanted) : "") +
        (f.power ? " power " + esc(f.power) : "") + meterOf(f.beans, h) : pile(f) + meterOf(f, h)) + "</span>";
  }).join("");
  // A coin pile: how many coins, then the coins (their beans, bottom first).
  const coins = (v) => {
    const n = typeof v === "number" ? v : asList(v).length;
    return '<span class="count" data-coins="' + n + '">' + n + (n === 1 ? " coin" : " coins") + "</span> " +
      (n ? pile(v) : "");
  };
  // The key under a bean board: what a meter says, and that a provisional one is no real card's.
  const meterKey = (game) => (!meterShown ? "" :
    '<p class="key">Beanometer N:k: N beans pay k coins; pays: the coins a harvest would give now.' +
    (protectedShown ? " Would pay: bean protection forbids harvesting that lone bean now." : "") +
    (spellShown ? " + spell: harvesting that Cape field also draws a spell." : "") +
    (provisionalShown ? ' <span class="provisional-note">\u2020 Provisional beanometer: the real one is unknown to ' +
      "this project (meeple rules " + esc(game) + ").</span>" : "") + "</p>");
  const beanBoard = (t, ctx, table, player) => {
    meters = (ctx && isObject(ctx.meters)) ? ctx.meters : {};
    meterShown = provisionalShown = protectedShown = spellShown = false;
    const html = board(t, ctx, table, player);
    return html + meterKey(t.game);
  };
  // Hand cards everyone has seen, at their positions: "cape at 1".
  const shown = (v) => asList(v).map((c) => '<span class="field">' + (isObject(c) ? tile(c.bean) + " at " +
    esc(c.at) : value(c)) + "</span>").join("");
  const spells = (v) => asList(v).map((s) => '<span class="field">' +
    (s.name ? tile(s.name) : '<span class="tile hidden" data-hidden="1">spell</span>') +
    (s.up ? " face up" : " face down") + "</span>").join("");
  const beanTable = {
    turn: value, phase: value, to_move: value, active: value, face_up: pile, proposal: value, deck: deck,
    discard: deck,
  };
  const beanPlayer = { coins: coins, hand: pile, fields: fields, harvest: null, set_aside: pile, third_field: value };

  return {
    esc: esc,
    setColours: (colours) => { COLOUR = isObject(colours) ? colours : {}; },
    games: games,
    generic: (t, ctx) => (isObject(t) && Array.isArray(t.players) ? board(t, ctx, {}, {}) : panel("state", value(t))),
  };
})();
