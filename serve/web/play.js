// play.js — the table page (`/play/ID#token=T`): one seat's table, or a spectator's without a token.
// It reads the game document (GET /api/games/ID?token=T), follows it live (Server-Sent Events on
// /api/games/ID/events?token=T, dropping any document older than the one shown), draws the board
// (draw.js), offers the legal actions as buttons grouped by their first word, composes Bohnanza's and
// Rabohnzel's trades in the game's own action syntax, and posts each action (POST .../actions).
// The token stays in the URL's fragment, which no request carries: it goes to the server only in
// the query string of the API calls and in the body of an action.
"use strict";
(function () {
  const { $, asList, el } = MEEPLE_PAGE;
  const D = MEEPLE_DRAW;

  const id = decodeURIComponent(location.pathname.replace(/\/+$/, "").split("/").pop() || "");
  const token = new URLSearchParams(location.hash.replace(/^#/, "")).get("token") || "";
  const query = token ? "?token=" + encodeURIComponent(token) : "";

  let shown = null;      // the game document on the page
  let busy = false;      // an action (or a trade's actions) on its way
  let tradeFor = -1;     // the decision the trade builder was drawn for

  function showError(text) {
    $("error").textContent = text || "";
    $("error").hidden = !text;
  }

  const ctxOf = (doc) => ({
    cards: (doc.cards && typeof doc.cards === "object") ? doc.cards : {},
    colours: (doc.colours && typeof doc.colours === "object") ? doc.colours : {},
    seat: typeof doc.seat === "number" ? doc.seat : null,
    seats: asList(doc.seats),
    toMove: doc.over ? null : doc.to_move,
  });

  const seatLabel = (doc, seat) => D.seatName(ctxOf(doc), seat);

  // ------------------------------------------------------------------ the header and whose decision
  function drawStatus(doc) {
    const status = $("status");
    document.body.classList.toggle("over", !!doc.over);
    document.title = "meeple: " + doc.game + " #" + doc.id + (doc.over ? " (over)" : doc.your_turn ? " \u2014 your move" : "");
    $("title").textContent = doc.game + (doc.variant ? " (" + doc.variant + ")" : "") + " #" + doc.id;
    $("who").textContent = typeof doc.seat === "number"
      ? "You play seat P" + doc.seat + " of " + doc.players + "."
      : "Watching: the spectators' view (no seat's hidden cards).";
    let text, kind;
    if (doc.over) {
      const winners = asList(doc.winners);
      text = "Game over. " + (winners.length ? (winners.length > 1 ? "Winners: " : "Winner: ") +
        winners.map((w) => seatLabel(doc, w)).join(", ") : "");
      kind = "over";
    } else if (doc.your_turn) {
      text = "Your decision (P" + doc.seat + ").";
      kind = "yours";
    } else {
      const seat = asList(doc.seats)[doc.to_move - 1];
      text = "Waiting for " + seatLabel(doc, doc.to_move) +
        (seat && seat.kind === "bot" ? " (a bot, it moves by itself)" : "") + ".";
      kind = "waiting";
    }
    status.textContent = text + " \u2014 decision " + doc.decisions;
    status.className = "status " + kind;
    status.setAttribute("data-to-move", doc.over ? "" : String(doc.to_move));
  }

  // ------------------------------------------------------------------ the legal actions
  const kindOf = (action) => String(action).split(" ")[0];

  function drawActions(doc) {
    const legal = doc.your_turn && !doc.over ? asList(doc.legal) : [];
    $("actions-panel").hidden = legal.length === 0;
    const groups = new Map();
    for (const a of legal) {
      const k = kindOf(a);
      if (!groups.has(k)) groups.set(k, []);
      groups.get(k).push(a);
    }
    const cards = ctxOf(doc).cards;
    const box = $("actions");
    box.replaceChildren(...Array.from(groups, ([kind, actions]) => el("div", { class: "group", "data-kind": kind },
      el("span", { class: "label", text: kind }),
      ...actions.map((a) => {
        const b = el("button", { type: "button", class: "action", "data-action": a, text: a });
        const what = hint(doc, a);
        if (what) b.append(" ", el("small", { class: "hint", text: what }));
        const card = cards[String(a).split(" ").pop()];
        if (card && card.text) b.title = card.text;
        else if (card && card.kind === "district") b.title = "costs " + card.cost + ", scores " + card.points;
        b.disabled = busy;
        b.addEventListener("click", () => play([a]));
        return b;
      }))));
  }

  // What a bean game's action names by number: the hand card of `give K` / `pick K`, the field of
  // `harvest F` / `plant F` (the card planted there is the hand's front one, or the named one).
  function hint(doc, action) {
    if (doc.game !== "bohnanza" && doc.game !== "rabohnzel") return "";
    const me = asList(doc.view && doc.view.players)[doc.seat - 1];
    if (!me) return "";
    const words = String(action).split(" ");
    const n = Number(words[words.length - 1]);
    if (!Number.isInteger(n) || n < 1) return "";
    if ((words[0] === "give" || words[0] === "pick") && words.length === 2) {
      const card = asList(me.hand)[n - 1];
      return card ? D.words(card) : "";
    }
    if (words[0] === "harvest" || words[0] === "plant") {
      const field = asList(me.fields)[n - 1];
      const beans = field && !Array.isArray(field) ? asList(field.beans) : asList(field);
      const onto = beans.length ? beans.length + "\u00D7 " + D.words(beans[beans.length - 1]) : "empty field";
      if (words[0] === "harvest") return onto;
      const card = words.length === 3 ? words[1] : asList(me.hand)[0];
      return card ? D.words(card) + " \u2192 " + onto : "";
    }
    return "";
  }

  // Posts `actions` one after the other (a trade is several decisions); stops at the first refusal,
  // whose reason the page shows.
  async function play(actions) {
    if (busy) return;
    busy = true;
    showError("");
    document.querySelectorAll("button.action, #trade-send").forEach((b) => { b.disabled = true; });
    try {
      for (const action of actions) {
        const res = await fetch("/api/games/" + encodeURIComponent(id) + "/actions", {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ token: token, action: action }),
        });
        let data = null;
        try { data = await res.json(); } catch (e) { data = null; }
        if (!res.ok) {
          showError((actions.length > 1 ? "\u201C" + action + "\u201D: " : "") +
            ((data && data.error) || res.status + " " + res.statusText));
          break;
        }
        accept(data);
      }
    } catch (err) {
      showError("The server cannot be reached: " + err.message);
    } finally {
      busy = false;
      if (shown) { drawActions(shown); drawTrade(shown, true); }
    }
  }

  // ------------------------------------------------------------------ the trade builder (beans)
  // Open when the legal list lets this seat start a deal: `propose N` (the active player) or `offer`
  // (an invited player, to the active one). It sends `propose N`/`offer`, each `give up B`, `give K`,
  // `want B`, then `send`: the single decisions the game's grammar has (docs/games/bohnanza.md).
  function drawTrade(doc, keep) {
    const legal = doc.your_turn && !doc.over ? asList(doc.legal) : [];
    const partners = legal.filter((a) => /^propose \d+$/.test(a)).map((a) => Number(a.split(" ")[1]));
    const offer = legal.includes("offer");
    const open = (partners.length > 0 || offer) && typeof doc.seat === "number";
    $("trade-panel").hidden = !open;
    $("trade-send").disabled = busy;
    if (!open || (keep && tradeFor === doc.decisions)) return;
    tradeFor = doc.decisions;
    const view = doc.view || {};
    const me = asList(view.players)[doc.seat - 1] || {};
    const ctx = ctxOf(doc);

    $("trade-how").textContent = offer
      ? "Offer a deal to " + seatLabel(doc, view.active) + ": what you give from your hand, what you want."
      : "Propose a deal: what you give (face-up cards, hand cards) and which beans you want.";
    $("trade-partner-label").hidden = partners.length === 0;
    $("trade-partner").replaceChildren(...partners.map((n) => el("option", { value: String(n), text: seatLabel(doc, n) })));

    const give = [];
    const check = (action, label) => el("label", { class: "pick" },
      el("input", { type: "checkbox", "data-give": action }), " ", label);
    if (!offer) {
      asList(view.face_up).forEach((b) => give.push(check("give up " + b, "face-up " + D.words(b))));
    }
    const hand = asList(me.hand);
    hand.forEach((b, i) => give.push(check("give " + (i + 1), "hand #" + (i + 1) + " " + D.words(b))));
    $("trade-give").replaceChildren(...(give.length ? give : [el("span", { class: "none", text: "nothing to give" })]));

    const beans = Object.keys(ctx.cards).filter((k) => ctx.cards[k].kind === "bean" && ctx.cards[k].count > 0).sort();
    $("trade-want").replaceChildren(...beans.map((b) => el("label", { class: "want" }, D.words(b) + " ",
      el("input", { type: "number", min: "0", max: "9", value: "0", "data-want": b, inputmode: "numeric" }))));
    preview();
  }

  function tradeActions() {
    const legal = asList(shown && shown.legal);
    const first = legal.includes("offer") && !legal.some((a) => a.startsWith("propose "))
      ? "offer" : "propose " + $("trade-partner").value;
    const out = [first];
    document.querySelectorAll("#trade-give input:checked").forEach((c) => out.push(c.getAttribute("data-give")));
    document.querySelectorAll("#trade-want input").forEach((i) => {
      const n = Math.max(0, Math.min(9, Math.floor(Number(i.value) || 0)));
      for (let k = 0; k < n; k++) out.push("want " + i.getAttribute("data-want"));
    });
    out.push("send");
    return out;
  }

  function preview() {
    $("trade-preview").textContent = "Sends: " + tradeActions().join(", ");
  }

  // ------------------------------------------------------------------ history and result
  function drawHistory(doc) {
    const list = asList(doc.history);
    const box = $("history");
    const atEnd = box.scrollHeight - box.scrollTop - box.clientHeight < 40;
    if (list.length === 0) {
      box.replaceChildren(el("li", { class: "none start", text: "no decision yet" }));
      return;
    }
    box.replaceChildren(...list.map((h) => el("li", { value: String(h.n), "data-seat": String(h.seat) },
      el("span", { class: "who", text: seatLabel(doc, h.seat) }), " ", String(h.text))));
    if (atEnd || list.length < 2) box.scrollTop = box.scrollHeight;
  }

  function drawResult(doc) {
    const parts = [];
    const winners = asList(doc.winners);
    if (doc.forfeit) {
      parts.push(el("p", { class: "error", text: seatLabel(doc, doc.forfeit.seat) + " forfeited: " + doc.forfeit.reason }));
    }
    if (doc.over) {
      const scores = asList(doc.scores);
      parts.push(el("ol", { class: "scores" }, ...scores.map((s, i) => el("li", {
        class: winners.includes(i + 1) ? "winner" : "", "data-seat": String(i + 1),
      }, seatLabel(doc, i + 1) + ": " + s + (winners.includes(i + 1) ? " \u2605 wins" : "")))));
    }
    $("result").replaceChildren(...parts);
    $("result-panel").hidden = parts.length === 0;
  }

  // ------------------------------------------------------------------ one document
  function accept(doc) {
    if (!doc || typeof doc !== "object") return;
    if (shown && typeof doc.decisions === "number" && doc.decisions < shown.decisions) return; // stale
    const same = shown && shown.decisions === doc.decisions && shown.over === doc.over;
    shown = doc;
    drawStatus(doc);
    const ctx = ctxOf(doc);
    $("board").innerHTML = D.draw(doc.game, doc.view, ctx);
    $("board").setAttribute("data-decisions", String(doc.decisions));
    drawActions(doc);
    drawTrade(doc, same);
    drawHistory(doc);
    drawResult(doc);
  }

  async function load() {
    try {
      const res = await fetch("/api/games/" + encodeURIComponent(id) + query);
      const data = await res.json().catch(() => null);
      if (!res.ok) {
        $("status").textContent = res.status === 403 ? "This link's token does not open a seat of this game."
          : res.status === 404 ? "There is no game " + id + " on this server." : "The game cannot be read.";
        $("status").className = "status failed";
        showError((data && data.error) || res.status + " " + res.statusText);
        return false;
      }
      accept(data);
      return true;
    } catch (err) {
      showError("The server cannot be reached: " + err.message);
      return false;
    }
  }

  function follow() {
    const source = new EventSource("/api/games/" + encodeURIComponent(id) + "/events" + query);
    source.addEventListener("state", (e) => {
      document.body.classList.remove("offline");
      try { accept(JSON.parse(e.data)); } catch (err) { showError("A bad update from the server: " + err.message); }
    });
    source.addEventListener("error", () => {
      // a finished game has nothing more to say: no reconnecting
      if (shown && shown.over) source.close();
      else document.body.classList.add("offline");
    });
  }

  // Folded on a phone, where it would push the board (and the hand to give from) off the screen.
  $("trade-details").open = window.matchMedia("(min-width: 900px)").matches;
  $("trade").addEventListener("submit", (e) => {
    e.preventDefault();
    play(tradeActions());
  });
  $("trade").addEventListener("input", preview);
  $("trade").addEventListener("change", preview);
  load().then((ok) => { if (ok) follow(); });
})();
