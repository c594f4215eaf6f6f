// viewer_app.js — the replay page's controls: it rebuilds every step's tables from the embedded start
// tables and per-step changes (computed by the rules, in meeple), and draws the one asked for with the
// game's function from viewer_draw.js. The URL's #step=N&seat=P (P a seat, or "god") picks the view.
"use strict";
(function () {
  const data = JSON.parse(document.getElementById("data").textContent);
  const asList = (v) => (Array.isArray(v) ? v : []);
  const seats = asList(data.seats);
  const moves = asList(data.moves);
  const $ = (id) => document.getElementById(id);

  // ------------------------------------------------------------------ rebuilding the steps
  // A change touches only its path: the containers along it are copied, the rest is shared with the
  // step before, so every step of a long game stays in memory cheaply.
  const copy = (c) => (Array.isArray(c) ? c.slice() : Object.assign({}, c));
  const slot = (c, k) => (Array.isArray(c) && typeof k === "number" ? k - 1 : k);

  function apply(root, op) {
    const path = asList(op.p);
    const change = (target) => {
      if ("i" in op) {
        const list = Array.isArray(target) ? target.slice() : [];
        list.splice(op.i, op.n, ...asList(op.a));
        return list;
      }
      return op.v;
    };
    if (path.length === 0) return change(root);
    const top = copy(root);
    let c = top;
    for (let j = 0; j < path.length - 1; j++) {
      const k = slot(c, path[j]);
      c[k] = copy(c[k]);
      c = c[k];
    }
    const last = slot(c, path[path.length - 1]);
    if (op.x) delete c[last];
    else c[last] = change(c[last]);
    return top;
  }

  // steps[k][i]: perspective k (0 the god table, p seat p's view) after decision i (0: the deal).
  const start = asList(data.start);
  const changes = asList(data.changes);
  const steps = start.map((first, k) => {
    const list = [first];
    const perStep = asList(changes[k]);
    for (let i = 0; i < moves.length; i++) list.push(asList(perStep[i]).reduce(apply, list[i]));
    return list;
  });

  // ------------------------------------------------------------------ the header
  const seatName = (p) => (seats[p - 1] === undefined ? "?" : String(seats[p - 1]));
  $("title").textContent = (data.title || data.game) + ", game " + (data.index || 1) +
    (data.log ? " of " + data.log : "");
  $("summary").textContent = "seed " + data.seed + (data.variant ? ", variant " + data.variant : "") +
    ", seats: " + seats.map((n, i) => "P" + (i + 1) + " " + n).join(", ") +
    ", " + moves.length + " decisions";
  const scores = asList(data.scores).length ? asList(data.scores) : asList(data.final_scores);
  const winners = asList(data.winners);
  const forfeits = asList(data.forfeits);
  $("result").textContent = [
    // a game stopped at match's decision cap: every seat shares the win, as a draw
    data.unfinished ? "unfinished at " + data.unfinished + " decisions (a draw shared by all seats)" : "",
    winners.length ? (winners.length > 1 ? "winners (shared): " : "winner: ") +
      winners.map((w) => "P" + w + " " + seatName(w)).join(", ") : "",
    scores.length ? "scores: " + scores.map((s, i) => "P" + (i + 1) + " " + s).join(", ") : "",
    forfeits.map((f) => "P" + f.seat + " " + seatName(f.seat) + " forfeited: " + f.reason).join("; "),
    // thinking time, in logs of format 2
    asList(data.ms).length ? "thinking: " + asList(data.ms).map((ms, i) => "P" + (i + 1) + " " + ms + " ms" +
      (asList(data.decisions)[i] !== undefined ? " over " + data.decisions[i] + " decisions" : "")).join(", ") : "",
  ].filter((x) => x).join(" \u2014 ");

  const select = $("seat");
  const god = document.createElement("option");
  god.value = "god";
  god.textContent = "everyone (god view)";
  select.appendChild(god);
  seats.forEach((name, i) => {
    const o = document.createElement("option");
    o.value = String(i + 1);
    o.textContent = "P" + (i + 1) + " " + name;
    select.appendChild(o);
  });

  const list = $("moves");
  const startItem = document.createElement("li");
  startItem.className = "start";
  startItem.dataset.step = "0";
  startItem.textContent = "the deal";
  list.appendChild(startItem);
  moves.forEach((m, i) => {
    const li = document.createElement("li");
    li.dataset.step = String(i + 1);
    li.dataset.by = String(m.by);
    list.appendChild(li);
  });
  // A move as the chosen perspective saw it: another seat's secret pick shows as its public text.
  const moveText = (m, p) => (p && m.seen ? String(m.seen[p - 1]) : m.a);
  let listedFor = -1;
  function listMoves(p) {
    if (listedFor === p) return;
    listedFor = p;
    moves.forEach((m, i) => {
      list.children[i + 1].textContent = "P" + m.by + " " + seatName(m.by) + ": " + moveText(m, p);
    });
  }
  list.setAttribute("start", "0");

  // ------------------------------------------------------------------ showing a step
  const draw = MEEPLE_DRAW.games[data.game] || MEEPLE_DRAW.generic;
  MEEPLE_DRAW.setColours(data.colours);
  const slider = $("slider"), jump = $("jump");
  slider.max = String(moves.length);
  jump.max = String(moves.length);
  let step = 0, seat = 0;

  function show() {
    const t = steps[seat][step];
    const ctx = { seat: seat, seats: seats, step: step, move: moves[step - 1], meters: data.meters };
    const board = $("board");
    board.dataset.step = String(step);
    board.dataset.seat = seat ? String(seat) : "god";
    board.dataset.drawn = draw === MEEPLE_DRAW.generic ? "listing" : "board";
    try {
      board.innerHTML = draw(t, ctx);
    } catch (e) { // a drawing bug must not hide the game: the plain listing always works
      board.innerHTML = MEEPLE_DRAW.generic(t, ctx);
      board.dataset.drawn = "listing";
    }
    slider.value = String(step);
    jump.value = String(step);
    select.value = seat ? String(seat) : "god";
    listMoves(seat);
    $("where").textContent = step === 0 ? "the deal" :
      "after move " + step + " of " + moves.length + " (P" + moves[step - 1].by + " " +
      seatName(moves[step - 1].by) + ": " + moveText(moves[step - 1], seat) + ")";
    for (const li of list.children) li.classList.toggle("now", li.dataset.step === String(step));
    const now = list.children[step];
    if (now && now.scrollIntoView && document.hasFocus && document.hasFocus()) now.scrollIntoView({ block: "nearest" });
    const hash = "#step=" + step + "&seat=" + (seat ? seat : "god");
    if (location.hash !== hash) history.replaceState(null, "", hash);
  }

  function go(n) {
    step = Math.max(0, Math.min(moves.length, n | 0));
    show();
  }

  function fromHash() {
    const params = new URLSearchParams(location.hash.slice(1));
    const n = parseInt(params.get("step") || "0", 10);
    const p = params.get("seat");
    const asked = p && p !== "god" ? parseInt(p, 10) : 0;
    seat = asked >= 1 && asked <= seats.length ? asked : 0;
    go(isNaN(n) ? 0 : n);
  }

  $("first").onclick = () => go(0);
  $("back").onclick = () => go(step - 1);
  $("next").onclick = () => go(step + 1);
  $("last").onclick = () => go(moves.length);
  slider.oninput = () => go(parseInt(slider.value, 10));
  jump.onchange = () => go(parseInt(jump.value, 10));
  select.onchange = () => {
    seat = select.value === "god" ? 0 : parseInt(select.value, 10);
    show();
  };
  list.onclick = (e) => {
    const li = e.target.closest("li");
    if (li) go(parseInt(li.dataset.step, 10));
  };
  document.addEventListener("keydown", (e) => {
    if (e.target === jump) return;
    const keys = { ArrowLeft: step - 1, ArrowRight: step + 1, Home: 0, End: moves.length };
    if (e.key in keys) {
      e.preventDefault();
      go(keys[e.key]);
    }
  });
  window.addEventListener("hashchange", fromHash);
  fromHash();
})();
