// index.js — the lobby (`/`): the games on this server (GET /api/games), and a form that creates one
// (POST /api/games) from the catalogue (GET /api/catalog), then shows each human seat's link with its
// token and the watch link. Every text from the server goes into the page as text, never as HTML.
"use strict";
(function () {
  const { $, asList, el } = MEEPLE_PAGE;
  let catalog = { games: [], bots: [] };

  // The reply's JSON, or an Error with the server's one-line reason.
  async function api(method, path, body) {
    const init = { method: method, headers: {} };
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    const res = await fetch(path, init);
    let data = null;
    try { data = await res.json(); } catch (e) { data = null; }
    if (!res.ok) throw new Error((data && data.error) || res.status + " " + res.statusText);
    return data;
  }

  const showError = (id, err) => {
    const p = $(id);
    p.textContent = err ? String(err.message || err) : "";
    p.hidden = !err;
  };

  // ------------------------------------------------------------------ the form
  const gameOf = (name) => asList(catalog.games).find((g) => g.name === name);

  function fillOptions(select, values, chosen) {
    select.replaceChildren(...values.map(([value, label]) => {
      const o = el("option", { value: value, text: label });
      if (value === chosen) o.selected = true;
      return o;
    }));
  }

  // One select per seat: a person, or a bot; the bots that suit this game first.
  function drawSeats() {
    const game = gameOf($("game").value);
    if (!game) return;
    const n = Number($("players").value) || game.min_players;
    const box = $("seats");
    const before = Array.from(box.querySelectorAll("select")).map((s) => s.value);
    box.replaceChildren(el("legend", { text: "Seats" }));
    const suited = asList(game.bots);
    const others = asList(catalog.bots).filter((b) => !suited.includes(b));
    for (let seat = 1; seat <= n; seat++) {
      const select = el("select", { name: "seat" + seat, "data-seat": String(seat) });
      select.append(el("option", { value: "human", text: "a person (gets a link)" }));
      const group = (label, names) => {
        if (names.length === 0) return;
        const g = el("optgroup", { label: label });
        names.forEach((b) => g.append(el("option", { value: b, text: "bot: " + b })));
        select.append(g);
      };
      group("bots for " + game.name, suited);
      group("other bots", others);
      const fallback = seat === 1 || (suited.length === 0 && others.length === 0) ? "human" : (suited[0] || others[0]);
      // A seat keeps being a person across a change of game; a bot seat takes the new game's bot.
      select.value = before[seat - 1] === "human" ? "human" : fallback;
      box.append(el("label", { class: "seat" }, "Seat " + seat + " ", select));
    }
  }

  function drawGameChoice() {
    const game = gameOf($("game").value);
    if (!game) return;
    const counts = [];
    for (let n = game.min_players; n <= game.max_players; n++) counts.push([String(n), String(n)]);
    const was = $("players").value;
    fillOptions($("players"), counts, counts.some(([v]) => v === was) ? was : String(game.min_players));
    fillOptions($("variant"), [["", "the standard rules"]].concat(asList(game.variants).map((v) => [v, v])), "");
    $("variant").disabled = asList(game.variants).length === 0;
    drawSeats();
  }

  function linkItem(label, url) {
    const full = new URL(url, location.href).href;
    const a = el("a", { href: full, text: full, target: "_blank", rel: "noopener" });
    return el("li", {}, el("span", { class: "label", text: label }), " ", a);
  }

  function showCreated(reply) {
    $("created-id").textContent = String(reply.id);
    const items = asList(reply.seats).map((s) => s.kind === "bot" || !s.token
      ? el("li", {}, el("span", { class: "label", text: "Seat " + s.seat }), " bot " + (s.name || ""))
      : linkItem("Seat " + s.seat + " (a person)", s.url));
    $("created-seats").replaceChildren(...items);
    const watch = new URL(reply.watch_url, location.href).href;
    $("watch-link").href = watch;
    $("watch-link").textContent = watch;
    $("created").hidden = false;
  }

  async function create(event) {
    event.preventDefault();
    showError("create-error", null);
    const body = {
      game: $("game").value,
      players: Number($("players").value),
      seats: Array.from($("seats").querySelectorAll("select")).map((s) => s.value),
    };
    if ($("variant").value) body.variant = $("variant").value;
    if ($("seed").value !== "") body.seed = Number($("seed").value);
    $("create-button").disabled = true;
    try {
      showCreated(await api("POST", "/api/games", body));
      refresh();
    } catch (err) {
      showError("create-error", err);
    } finally {
      $("create-button").disabled = false;
    }
  }

  // ------------------------------------------------------------------ the list
  function seatText(s) {
    return "P" + s.seat + " " + (s.kind === "human" ? "person" : (s.name || "bot"));
  }

  // `created`: seconds since 1970 (or already a text)
  const when = (t) => (typeof t === "number" ? new Date(t * 1000).toLocaleString() : String(t));

  function gameRow(g) {
    const now = g.over ? "over" : (g.to_move ? "P" + g.to_move + " to move" : "");
    const watch = el("a", { href: "/play/" + encodeURIComponent(g.id), text: "watch" });
    return el("tr", { "data-game": String(g.id) },
      el("td", {}, el("strong", { text: g.game }), g.variant ? " (" + g.variant + ")" : "",
        el("div", { class: "small", text: "#" + g.id + (g.created ? ", " + when(g.created) : "") })),
      el("td", { text: asList(g.seats).map(seatText).join(", ") }),
      el("td", { class: "n", text: String(g.decisions === undefined ? "" : g.decisions) }),
      el("td", { text: now }),
      el("td", {}, watch));
  }

  async function refresh() {
    try {
      const list = asList((await api("GET", "/api/games")).games);
      document.querySelector("#games tbody").replaceChildren(...list.map(gameRow));
      $("games").hidden = list.length === 0;
      $("no-games").hidden = list.length !== 0;
      showError("list-error", null);
    } catch (err) {
      showError("list-error", err);
    }
  }

  async function start() {
    $("game").addEventListener("change", drawGameChoice);
    $("players").addEventListener("change", drawSeats);
    $("new-game").addEventListener("submit", create);
    $("refresh").addEventListener("click", refresh);
    try {
      catalog = await api("GET", "/api/catalog");
      fillOptions($("game"), asList(catalog.games).map((g) => [g.name, g.name + " (" + g.min_players +
        (g.max_players > g.min_players ? "\u2013" + g.max_players : "") + " players)"]), null);
      drawGameChoice();
    } catch (err) {
      showError("create-error", err);
    }
    refresh();
  }

  start();
})();
