// draw.js — the board of the table page, drawn from the game document's `view` (s:view(seat), or the
// spectators' view): one function per game, and a plain listing for anything else. The same approach
// as the replay page's drawing (scripts/viewer/viewer_draw.js): cards as named, coloured tiles; a zone
// the view hides is a number, drawn as face-down tiles; keys a game's function does not know are listed
// after, so a field added later still shows. Every text from the view is escaped.
// Marks the browser tests read: data-seat/data-zone on a player's zones, data-card on a card face,
// data-hidden on a face-down card.
"use strict";
const MEEPLE_DRAW = (function () {
  const esc = (s) => String(s).replace(/[&<>"']/g, (c) =>
    ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
  const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
  const asList = (v) => (Array.isArray(v) ? v : []);
  const words = (s) => String(s).replace(/_/g, " ");
  const none = (text) => '<span class="none">' + (text || "none") + "</span>";

  // ctx: {cards (the game's catalogue, may be empty), colours (name -> colour: the document's, as the
  // terminal paints them, scripts/render.lua), seat (this page's seat or null), seats, doc}
  function colourOf(name, ctx) {
    const card = ctx.cards[name];
    return (card && card.colour) || (ctx.colours || {})[name];
  }

  // What a card's tile says under its name: a district's cost and points, a character's rank.
  function cardNote(name, ctx) {
    const card = ctx.cards[name];
    if (!card) return "";
    if (card.kind === "district") {
      return '<small class="cost" title="cost ' + esc(card.cost) + ", scores " + esc(card.points) + '">' +
        esc(card.cost) + "\u25CF" + (card.points !== card.cost ? " \u2605" + esc(card.points) : "") + "</small>";
    }
    if (card.kind === "character") return '<small class="rank">' + esc(card.rank) + "</small>";
    return "";
  }

  function tile(name, ctx, extra) {
    if (isObject(name) || Array.isArray(name)) return value(name, ctx);
    const colour = colourOf(name, ctx);
    const card = ctx.cards[name];
    const title = card && card.text ? ' title="' + esc(words(name) + ": " + card.text) + '"' : "";
    return '<span class="card' + (colour ? " c-" + esc(colour) : "") + (extra ? " " + extra : "") +
      '" data-card="' + esc(name) + '"' + title + ">" + cardNote(name, ctx) + esc(words(name)) + "</span>";
  }

  const HIDDEN_SHOWN = 12;
  const faceDown = (n) => {
    n = Math.max(0, Math.floor(n));
    if (n === 0) return none();
    const shown = Math.min(n, HIDDEN_SHOWN);
    return '<span class="card back" data-hidden="1" title="hidden">?</span>'.repeat(shown) +
      '<span class="count">' + n + (n === 1 ? " card" : " cards") + "</span>";
  };

  // A zone: a list of cards as tiles, or a count (what a view shows of hidden cards) face down.
  function pile(zone, ctx) {
    if (typeof zone === "number") return faceDown(zone);
    const list = asList(zone);
    if (list.length === 0) return none();
    return list.map((c) => tile(c, ctx)).join("");
  }

  // A long pile (a deck, a discard pile): its size, and its cards folded away when the view has them.
  function deck(zone, ctx) {
    if (typeof zone === "number") return zone + " cards, face down";
    if (!Array.isArray(zone)) return value(zone, ctx);
    if (zone.length === 0) return none("empty");
    return zone.length + " cards, top " + tile(zone[zone.length - 1], ctx) +
      " <details><summary>all</summary>" + pile(zone, ctx) + "</details>";
  }

  function value(v, ctx) {
    if (v === null || v === undefined) return none();
    if (typeof v === "boolean") return v ? "yes" : "no";
    if (typeof v !== "object") return esc(v);
    if (Array.isArray(v)) {
      if (v.length === 0) return none();
      if (v.every((x) => typeof x === "string")) return pile(v, ctx);
      if (v.every((x) => typeof x === "number")) return v.map(esc).join(", ");
      return v.map((x) => "<div>" + value(x, ctx) + "</div>").join("");
    }
    const keys = Object.keys(v).sort();
    if (keys.length === 0) return none();
    return '<dl class="plain">' + keys.map((k) => "<dt>" + esc(words(k)) + "</dt><dd>" + value(v[k], ctx) + "</dd>")
      .join("") + "</dl>";
  }

  const row = (label, html, attrs) =>
    '<div class="row"' + (attrs || "") + '><span class="label">' + esc(label) + "</span><span class=\"what\">" +
    html + "</span></div>";

  // The keys of `t` drawn by `known` ({key: [label, (v, t) => html]}, null: not shown), in that order,
  // then every other key plainly (skipping `skip`).
  function rows(t, known, ctx, attrsOf) {
    let out = "";
    for (const [k, how] of Object.entries(known)) {
      // how[2]: the row marks its own zones inside (false: the row is no zone of its own)
      if (how && k in t) out += row(how[0], how[1](t[k], t), attrsOf && how[2] !== false ? attrsOf(k) : "");
    }
    for (const k of Object.keys(t).sort()) {
      if (!(k in known)) out += row(words(k), value(t[k], ctx), attrsOf ? attrsOf(k) : "");
    }
    return out;
  }

  const seatName = (ctx, seat) => {
    const s = asList(ctx.seats)[seat - 1];
    if (ctx.seat === seat) return "P" + seat + " (you)";
    if (!s || s.kind === "human") return "P" + seat;
    return "P" + seat + " \u00B7 " + (s.name || "bot");
  };

  // Each player's panel, this page's seat first; the one who decides now marked.
  function players(t, ctx, known, summary) {
    const list = asList(t.players).map((p, i) => {
      const seat = i + 1;
      const moving = ctx.toMove === seat;
      const mine = ctx.seat === seat;
      const body = isObject(p)
        ? rows(p, known(seat), ctx, (k) => ' data-zone="' + esc(k) + '" data-seat="' + seat + '"')
        : value(p, ctx);
      const extra = summary ? summary(p, seat) : "";
      return { mine: mine, html: '<section class="panel player' + (moving ? " moving" : "") + (mine ? " mine" : "") +
        '" data-player="' + seat + '"><h3>' + esc(seatName(ctx, seat)) +
        (moving ? ' <span class="badge">deciding</span>' : "") + (extra ? ' <span class="sum">' + extra + "</span>" : "") +
        "</h3>" + body + "</section>" };
    });
    return { mine: list.filter((x) => x.mine).map((x) => x.html).join(""),
      others: list.filter((x) => !x.mine).map((x) => x.html).join("") };
  }

  const seatRef = (ctx) => (v) => (typeof v === "number" ? esc(seatName(ctx, v)) : value(v, ctx));

  function board(t, ctx, table, player, summary) {
    if (!isObject(t)) return '<section class="panel">' + value(t, ctx) + "</section>";
    const rest = Object.assign({}, t);
    delete rest.players;
    delete rest.game;
    // this page's seat first (its hand is what a player looks at most), then the table, then the others
    const seats = players(t, ctx, player, summary);
    return seats.mine + '<section class="panel table-panel"><h3>Table</h3>' + rows(rest, table, ctx) + "</section>" +
      seats.others;
  }

  // ------------------------------------------------------------------ the beans (Bohnanza, Rabohnzel)
  // What a harvest of the field brings now, as the view says it (the player's `harvest` entry:
  // {pays, protected, spell}, worked out by the rules): "pays 2 coins now", "pays 0 coins now + spell"
  // (Rabohnzel's Cape bonus), "would pay 1 coin (protected)" while bean protection forbids it.
  function harvestNote(h) {
    if (!isObject(h) || typeof h.pays !== "number") return "";
    const coins = esc(h.pays) + (h.pays === 1 ? " coin" : " coins");
    const spell = h.spell ? " + spell" : "";
    return ' <span class="pays" data-pays="' + esc(h.pays) + '"' + (h.protected ? ' data-protected="1"' : "") +
      (h.spell ? ' data-spell="1" title="harvesting this Cape field also draws a spell"' : "") +
      (h.protected ? ' title="bean protection: harvest your field of two or more first"' : "") + ">" +
      (h.protected ? "would pay " + coins + spell + " (protected)" : "pays " + coins + " now" + spell) + "</span>";
  }

  function beanometer(bean, n, ctx) {
    const card = ctx.cards[bean];
    const meter = card ? asList(card.meter) : [];
    if (meter.length === 0) return "";
    const steps = meter.map((need, i) => need > 0
      ? '<span class="step' + (n >= need ? " reached" : "") + '" title="' + need + " cards: " + (i + 1) +
        (i ? " coins" : " coin") + '">' + need + "\u2192" + (i + 1) + "</span>" : "").join("");
    return '<span class="meter" title="beanometer: cards \u2192 coins">' + steps + "</span>";
  }

  function field(f, i, ctx, h) {
    const beans = isObject(f) ? asList(f.beans) : asList(f);
    const extras = isObject(f) ? [f.enchanted ? "enchanted " + esc(f.enchanted) : "",
      f.power ? "power " + esc(f.power) : ""].filter((x) => x).join(", ") : "";
    let body;
    if (beans.length === 0) {
      body = none("empty");
    } else {
      // A field counts as its top bean (Rabohnzel's enchantment plants one type onto a lone other).
      const bean = beans[beans.length - 1];
      const lone = beans.filter((b) => b !== bean).map((b) => tile(b, ctx)).join("");
      body = lone + tile(bean, ctx, "big") + ' <span class="times">\u00D7' + beans.length + "</span> " +
        beanometer(bean, beans.length, ctx) + harvestNote(h);
    }
    return '<div class="field" data-field="' + (i + 1) + '"><span class="field-no">' + (i + 1) + "</span> " +
      body + (extras ? ' <small class="none">' + extras + "</small>" : "") + "</div>";
  }

  function beanHand(hand, p, ctx) {
    if (typeof hand === "number") {
      // Shown cards (offered in a trade) stay known to all, by position.
      const shown = asList(p.shown);
      return faceDown(hand) + (shown.length ? ' <span class="none">known:</span> ' +
        shown.map((s) => "#" + esc(s.at) + " " + tile(s.bean, ctx)).join(" ") : "");
    }
    const list = asList(hand);
    if (list.length === 0) return none();
    const shownAt = new Set(asList(p.shown).map((s) => s.at));
    return '<span class="hand">' + list.map((c, i) => '<span class="slot"><small>' + (i + 1) + "</small>" +
      tile(c, ctx, shownAt.has(i + 1) ? "shown" : "") + "</span>").join("") + "</span>" +
      (list.length > 1 ? ' <small class="none">front first: plant #1 next</small>' : "");
  }

  function proposal(p, ctx) {
    if (!isObject(p)) return value(p, ctx);
    const items = (list) => asList(list).length ? asList(list).map((x) => {
      const parts = String(x).split(" ");
      const bean = parts[parts.length - 1];
      return (parts[0] === "up" ? "face-up " : parts[0] === "hand" ? "hand #" + esc(parts[1]) + " " : "") + tile(bean, ctx);
    }).join(" ") : none("nothing");
    const stage = { build: "being written", answer: "waiting for the answer", pick: "accepted: cards being handed over" };
    return '<div class="proposal">' + esc(seatName(ctx, p.from)) + " \u2192 " + esc(seatName(ctx, p.to)) +
      " <em>(" + esc(stage[p.stage] || p.stage || "") + ")</em><br>gives " + items(p.give) + "<br>wants " +
      items(p.want) + "</div>";
  }

  const PHASES = { plant: "1: plant", trade: "2: trade", plant_traded: "3: plant traded cards", draw: "4: draw",
    magic: "magic", over: "over" };

  function beanTable(ctx) {
    return {
      phase: ["phase", (v) => esc(PHASES[v] || words(v))],
      turn: ["turn", (v) => esc(v)],
      active: ["active player", seatRef(ctx)],
      to_move: null, start: null,
      face_up: ["face-up cards", (v) => pile(v, ctx)],
      proposal: ["trade", (v) => proposal(v, ctx)],
      invited: ["invited to offer", seatRef(ctx)],
      pass: ["pass through the deck", (v) => esc(v)],
      deck: ["deck", (v) => deck(v, ctx)],
      discard: ["discard pile", (v) => deck(v, ctx)],
      countdown: ["countdown", (v) => tile(v, ctx)],
      spell_pile: ["spell pile", (v) => deck(v, ctx)],
    };
  }

  function spells(v, ctx) {
    return asList(v).map((s) => '<span class="spell">' + (s.name ? tile(s.name, ctx) :
      '<span class="card back" data-hidden="1">spell</span>') + (s.up ? " face up" : " face down") + "</span>").join(" ")
      || none();
  }

  function beanPlayer(ctx) {
    return (seat) => ({
      hand: ["hand", (v, p) => beanHand(v, p, ctx)],
      fields: ["fields", (v, p) => asList(v).map((f, i) => field(f, i, ctx, asList(p.harvest)[i])).join("")],
      harvest: null, // drawn in each field
      set_aside: ["set aside (plant these)", (v) => pile(v, ctx)],
      coins: ["coins", (v) => '<span class="coins" data-coins="' + (typeof v === "number" ? v : asList(v).length) + '">' +
        (typeof v === "number" ? v : asList(v).length) + "</span>"],
      spells: ["spells", (v) => spells(v, ctx)],
      third_field: ["third field", (v) => (v ? "bought" : "no")],
      shown: null,
    });
  }

  const coinCount = (p) => (typeof p.coins === "number" ? p.coins : asList(p.coins).length);
  const beans = (t, ctx) => board(t, ctx, beanTable(ctx), beanPlayer(ctx),
    (p) => coinCount(p) + (coinCount(p) === 1 ? " coin" : " coins"));

  // ------------------------------------------------------------------ Citadels
  const cityPoints = (city, ctx) => asList(city).reduce((sum, d) => {
    const card = ctx.cards[d];
    return sum + (card && typeof card.points === "number" ? card.points : 0);
  }, 0);

  function citadels(t, ctx) {
    return board(t, ctx, {
      round: ["round", (v) => esc(v)],
      phase: ["phase", (v) => esc(v === "choose" ? "choosing characters" : v === "turns" ? "characters' turns" : words(v))],
      crown: ["crown", seatRef(ctx)],
      current: ["character called", (v) => tile(v, ctx)],
      killed: ["murdered", (v) => tile(v, ctx)],
      robbed: ["robbed", (v) => tile(v, ctx)],
      pack: ["characters to choose from", (v) => pile(v, ctx)],
      aside_up: ["set aside face up", (v) => pile(v, ctx)],
      aside_down: ["set aside face down", (v) => pile(v, ctx)],
      drawn: ["drawn (choose)", (v) => pile(v, ctx)],
      deck: ["district deck", (v) => deck(v, ctx)],
      to_move: null, step: null,
    }, () => ({
      gold: ["gold", (v) => '<span class="gold">' + esc(v) + "</span>"],
      characters: ["characters", (v, p) => (asList(v).length ? pile(v, ctx) :
        (p.character_count ? faceDown(p.character_count) : none()))],
      character_count: null,
      city: ["city", (v) => pile(v, ctx)],
      hand: ["hand", (v) => pile(v, ctx)],
      buried: ["buried", (v) => pile(v, ctx)],
      passed: ["passed on", (v) => pile(v, ctx)],
    }), (p) => cityPoints(p.city, ctx) + " points in the city, " + esc(p.gold) + " gold");
  }

  // ------------------------------------------------------------------ Babel
  const PEOPLES = ["assyrians", "hittites", "medes", "persians", "sumerians"];

  // The five places: each people's temple (levels) and row (people cards) side by side.
  function places(p, seat, ctx) {
    const zone = (name) => ' data-zone="' + name + '" data-seat="' + seat + '"';
    const temples = isObject(p.temples) ? p.temples : {};
    const rowsOf = isObject(p.rows) ? p.rows : {};
    const names = PEOPLES.filter((n) => n in temples || n in rowsOf)
      .concat(Object.keys(temples).filter((n) => !PEOPLES.includes(n)));
    return '<div class="places">' + names.map((n) => {
      const levels = asList(temples[n]);
      const people = rowsOf[n];
      const colour = colourOf(n, ctx);
      return '<div class="place"><div class="place-name"><span class="card' + (colour ? " c-" + esc(colour) : "") + '">' +
        esc(words(n)) + '</span></div><div class="temple" title="temple levels"' + zone("temples") + ">" +
        (levels.length ? levels.map((l) => '<span class="level">' + esc(l) + "</span>").join("") : none("no temple")) +
        "</div><div class=\"people\"" + zone("rows") + ">" + (typeof people === "number" ? faceDown(people) : asList(people).length ? pile(people, ctx) : none("no people")) + "</div></div>";
    }).join("") + "</div>";
  }

  const templeHeight = (p) => (isObject(p.temples) ? Object.values(p.temples).reduce((s, l) =>
    s + asList(l).reduce((a, b) => a + (typeof b === "number" ? b : 0), 0), 0) : 0);

  function babel(t, ctx) {
    return board(t, ctx, {
      turn: ["turn", (v) => esc(v)],
      phase: ["phase", (v) => esc(words(v))],
      active: ["active player", seatRef(ctx)],
      people_deck: ["people deck", (v) => deck(v, ctx)],
      temple_deck: ["temple deck", (v) => deck(v, ctx)],
      temple_top: ["temple cards turned up", (v) => pile(v, ctx)],
      discard: ["discard pile", (v) => deck(v, ctx)],
      to_move: null,
    }, (seat) => ({
      pawn: ["pawn at", (v) => (typeof v === "string" ? tile(v, ctx) : value(v, ctx))],
      hand: ["hand", (v) => pile(v, ctx)],
      reserve: ["temple reserve", (v) => asList(v).map((l) => '<span class="level">' + esc(l) + "</span>").join("") || none()],
      temples: ["temples and peoples", (v, p) => places(p, seat, ctx), false],
      rows: null,
    }), (p) => "temple levels " + templeHeight(p));
  }

  const games = { bohnanza: beans, rabohnzel: beans, citadels: citadels, babel: babel };

  return {
    esc: esc,
    words: words,
    tile: tile,
    seatName: seatName,
    // The board for one game document: ctx {cards, colours, seat, seats, toMove}.
    draw: (game, view, ctx) => (games[game] || ((t) => board(t, ctx, {}, () => ({}))))(view, ctx),
  };
})();
