// lib.mjs — what the browser tests share: Debian's chromium driven by playwright-core (no browser of
// its own), a `meeple serve` of their own on a free port and a temporary database, the API, and the
// loop that plays a game by clicking the table pages' buttons.
// A test exits 77 (ctest: skipped) with a message when node's playwright-core (npm ci in this folder)
// or chromium is missing. MEEPLE_SERVE_URL points the tests at a server already running instead.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import assert from "node:assert/strict";

export const SKIP = 77;

// What starts playwright-core's chromium; or exits 77 saying what is missing (before the test starts
// anything, so nothing is left behind).
export async function browserOrSkip() {
  let playwright;
  try {
    playwright = await import("playwright-core");
  } catch (e) {
    console.log("SKIP: playwright-core is not installed (cd tests/browser && npm ci); the pages were not checked in a browser");
    process.exit(SKIP);
  }
  const executable = process.env.CHROMIUM || ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find((p) => existsSync(p));
  if (!executable) {
    console.log("SKIP: no chromium (Debian: apt-get install chromium); the pages were not checked in a browser");
    process.exit(SKIP);
  }
  if (!process.env.MEEPLE_SERVE_URL && !process.env.MEEPLE_EXE) {
    console.log("SKIP: MEEPLE_EXE names no meeple executable (ctest sets it)");
    process.exit(SKIP);
  }
  // Under the sanitizers LD_PRELOAD carries their runtimes for other programs: not for the browser.
  const env = Object.assign({}, process.env);
  delete env.LD_PRELOAD;
  delete env.ASAN_OPTIONS;
  const root = typeof process.getuid === "function" && process.getuid() === 0;
  return () => playwright.chromium.launch({
    executablePath: executable,
    args: root ? ["--no-sandbox"] : [],
    env: env,
  });
}

// `meeple serve --port 0 --db TMP` until stop(); its address read from what it prints.
export async function startServer() {
  if (process.env.MEEPLE_SERVE_URL) return { url: process.env.MEEPLE_SERVE_URL.replace(/\/$/, ""), stop: async () => {} };
  const dir = mkdtempSync(join(process.env.TMPDIR || tmpdir(), "meeple-pages-"));
  const child = spawn(process.env.MEEPLE_EXE, ["serve", "--port", "0", "--db", join(dir, "games.db")], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let said = "";
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("meeple serve printed no address in 15 s: " + said)), 15000);
    const listen = (chunk) => {
      said += chunk.toString();
      const m = said.match(/https?:\/\/[^\s"']+/);
      if (m) { clearTimeout(timer); resolve(m[0].replace(/\/$/, "")); }
    };
    child.stdout.on("data", listen);
    child.stderr.on("data", listen);
    child.on("exit", (code) => { clearTimeout(timer); reject(new Error("meeple serve exited (" + code + "): " + said)); });
  }).catch((err) => {
    rmSync(dir, { recursive: true, force: true });
    if (/unknown command 'serve'/.test(said)) {
      console.log("SKIP: this meeple has no `serve` command; the pages were not checked in a browser");
      process.exit(SKIP);
    }
    throw err;
  });
  child.stdout.on("data", () => {});
  child.stderr.on("data", (c) => { said += c.toString(); });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const gone = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
      await gone;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  return { url: url, stop: stop, output: () => said };
}

export async function api(base, method, path, body) {
  const res = await fetch(base + path, {
    method: method,
    headers: body === undefined ? {} : { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await res.json().catch(() => null);
  return { status: res.status, data: data };
}

export async function documentFor(base, id, token) {
  const r = await api(base, "GET", "/api/games/" + id + (token ? "?token=" + encodeURIComponent(token) : ""));
  assert.equal(r.status, 200, "GET game " + id + ": " + JSON.stringify(r.data));
  return r.data;
}

// The bot the catalogue suits to `game` (a greedy one when there is one).
export async function botFor(base, game) {
  const catalog = (await api(base, "GET", "/api/catalog")).data;
  const entry = catalog.games.find((g) => g.name === game);
  assert.ok(entry, "the catalogue lists " + game);
  const bots = entry.bots.length ? entry.bots : catalog.bots;
  return bots.find((b) => b.startsWith("greedy")) || bots[0];
}

// What a table page shows now.
export function pageState(page) {
  return page.evaluate(() => {
    const status = document.getElementById("status");
    const error = document.getElementById("error");
    const board = document.getElementById("board");
    return {
      yours: status.classList.contains("yours"),
      over: status.classList.contains("over"),
      decisions: Number(board.getAttribute("data-decisions") || -1),
      actions: Array.from(document.querySelectorAll("#actions button.action:not(:disabled)")).map((b) => b.getAttribute("data-action")),
      error: error.hidden ? "" : error.textContent,
    };
  });
}

// Waits until `page` shows a document past decision `after`, or an error.
export async function waitPast(page, after, what) {
  await page.waitForFunction((n) => Number(document.getElementById("board").getAttribute("data-decisions") || -1) > n ||
    !document.getElementById("error").hidden, after, { timeout: 15000 }).catch(() => {
    throw new Error("the page showed no decision after " + after + " (" + what + ")");
  });
}

// Clicks the button of `action` on `page` and waits for the document that follows it.
export async function click(page, action) {
  const before = (await pageState(page)).decisions;
  await page.locator('#actions button.action[data-action="' + action + '"]').click({ timeout: 10000 });
  await waitPast(page, before, action);
  const after = await pageState(page);
  assert.equal(after.error, "", "clicking " + action + " was refused");
}

// Plays the game to its end by clicking: on each turn the page of the seat that decides picks an
// action with choose(game, actions, page index, state) among its buttons; bots move server side.
// `each` (optional) runs after every click. Returns the clicks made.
export async function playToEnd(pages, choose, each, limit) {
  let clicks = 0;
  const deadline = Date.now() + (limit || 300000);
  for (;;) {
    assert.ok(Date.now() < deadline, "the game did not end in time (" + clicks + " clicks)");
    const states = await Promise.all(pages.map(pageState));
    if (states.every((s) => s.over)) return clicks;
    const i = states.findIndex((s) => s.yours && s.actions.length > 0);
    if (i < 0) {
      await new Promise((r) => setTimeout(r, 30));
      continue;
    }
    // choose may play by itself (a trade through the builder) and say so with null
    const action = await choose(states[i].actions, i, states[i]);
    if (action !== null) await click(pages[i], action);
    clicks += 1;
    if (each) await each(clicks);
  }
}

// The cards (data-card) a page shows in seat `seat`'s zone `zone`, and its face-down cards.
export function zoneOnPage(page, seat, zone) {
  return page.evaluate(([s, z]) => {
    const rows = document.querySelectorAll('#board [data-seat="' + s + '"][data-zone="' + z + '"]');
    const cards = [];
    let hidden = 0;
    rows.forEach((r) => {
      r.querySelectorAll("[data-card]").forEach((c) => cards.push(c.getAttribute("data-card")));
      hidden += r.querySelectorAll("[data-hidden]").length;
    });
    return { found: rows.length, cards: cards, hidden: hidden };
  }, [seat, zone]);
}

// Every zone on a page at once, by "seat/zone" (one round trip to the browser).
function zonesOnPage(page) {
  return page.evaluate(() => {
    const out = {};
    document.querySelectorAll("#board [data-seat][data-zone]").forEach((r) => {
      const key = r.getAttribute("data-seat") + "/" + r.getAttribute("data-zone");
      const z = out[key] || (out[key] = { found: 0, cards: [], hidden: 0 });
      z.found += 1;
      r.querySelectorAll("[data-card]").forEach((c) => z.cards.push(c.getAttribute("data-card")));
      z.hidden += r.querySelectorAll("[data-hidden]").length;
    });
    return out;
  });
}

// Every string in a value (the names of the cards a zone holds).
function strings(v, out) {
  if (typeof v === "string") out.push(v);
  else if (Array.isArray(v)) v.forEach((x) => strings(x, out));
  else if (v && typeof v === "object") Object.values(v).forEach((x) => strings(x, out));
  return out;
}

// The hidden-card check. For every other seat q and every zone of players[q], the page may show only
// cards its own document holds there (what q has shown to all, e.g. an offered bean, is in both), and a
// hidden zone (a count in the document) as face-down cards. A zone is hidden for sure where q's own
// document (in docsBySeat, for the seats the test holds tokens of) shows more than this page's, or
// where this page's document holds a count for a hand; returns how many such zones were checked, so a
// test can insist there were some. A zone where q's document differs from the spectators' (`open`)
// is q's secret: this page's document must not hold it as q's does.
export async function checkNoHiddenCards(page, doc, docsBySeat, open) {
  let checked = 0;
  const zones = await zonesOnPage(page);
  const mine = doc.view.players;
  const whose = doc.seat ? "P" + doc.seat + "'s" : "the spectators'";
  for (let seat = 1; seat <= mine.length; seat++) {
    if (seat === doc.seat) continue;
    const seen = mine[seat - 1];
    const theirs = docsBySeat[seat] ? docsBySeat[seat].view.players[seat - 1] : null;
    for (const zone of Object.keys(Object.assign({}, seen, theirs || {}))) {
      const visible = strings(seen[zone], []).concat(strings(seen.shown, []));
      const onPage = zones[seat + "/" + zone] || { found: 0, cards: [], hidden: 0 };
      const left = visible.slice();
      for (const card of onPage.cards) {
        const at = left.indexOf(card);
        assert.ok(at >= 0, "P" + seat + "'s " + zone + " shows " + card + " on " + whose + " page, which its document hides (" +
          JSON.stringify(seen[zone]) + ")");
        left.splice(at, 1);
      }
      const secret = theirs && open && strings(theirs[zone], []).length > 0 &&
        JSON.stringify(theirs[zone]) !== JSON.stringify(open.view.players[seat - 1][zone]);
      if (secret) {
        assert.notDeepEqual(seen[zone], theirs[zone], "P" + seat + "'s secret " + zone + " is in " + whose + " document");
      }
      const differs = theirs && strings(theirs[zone], []).length > 0 && JSON.stringify(theirs[zone]) !== JSON.stringify(seen[zone]);
      if (differs || (zone === "hand" && typeof seen[zone] === "number")) {
        checked += 1;
        if (seen[zone] !== undefined) assert.ok(onPage.found > 0, "P" + seat + "'s " + zone + " is on " + whose + " page");
      }
      if (typeof seen[zone] === "number" && seen[zone] > 0 && zone === "hand") {
        assert.ok(onPage.hidden > 0, "P" + seat + "'s hidden hand shows as face-down cards on " + whose + " page");
      }
    }
  }
  return checked;
}

// Fails the test on a script error or a refused resource (a CSP violation shows as one) in a page.
export function watchErrors(page, errors) {
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => {
    // a refused action (409) is the page's business, shown in it; a browser asks for a favicon by itself
    if (m.type() === "error" && !/favicon/.test(m.location().url || "") && !/status of 409/.test(m.text())) {
      errors.push(m.text() + " (" + (m.location().url || "") + ")");
    }
  });
}

// A game made through the API, each person's table page in a browser context of its own and a
// spectator's page, played to its end by `choose`; every page checked for other seats' hidden cards
// every `every` clicks and at the end, and its scores against the API's. Returns a summary line.
export async function playWholeGame(browser, base, options) {
  const errors = [];
  const made = await api(base, "POST", "/api/games", { game: options.game, players: options.seats.length,
    seed: options.seed, seats: options.seats });
  assert.equal(made.status, 201, "POST /api/games: " + JSON.stringify(made.data));
  const id = made.data.id;
  const people = made.data.seats.filter((s) => s.token);
  const pages = [];
  for (const url of people.map((s) => s.url).concat([made.data.watch_url])) {
    const page = await (await browser.newContext(options.context || {})).newPage();
    watchErrors(page, errors);
    await page.goto(base + url);
    await page.waitForSelector("#board[data-decisions]");
    pages.push(page);
  }
  const players = pages.slice(0, people.length);
  const spectator = pages[pages.length - 1];
  let hiddenChecked = 0;
  const checkHidden = async () => {
    const docs = {};
    for (const s of people) docs[s.seat] = await documentFor(base, id, s.token);
    const n = docs[people[0].seat].decisions;
    for (const page of pages) {
      await page.waitForFunction((d) => Number(document.getElementById("board").getAttribute("data-decisions")) >= d, n);
    }
    const now = await documentFor(base, id);
    if (now.decisions !== n) return; // a bot moved meanwhile: next time
    for (let i = 0; i < people.length; i++) hiddenChecked += await checkNoHiddenCards(players[i], docs[people[i].seat], docs, now);
    hiddenChecked += await checkNoHiddenCards(spectator, now, docs, now);
  };
  await checkHidden();
  const clicks = await playToEnd(players, options.choose, async (k) => { if (k % (options.every || 10) === 0) await checkHidden(); });
  await checkHidden();
  assert.ok(hiddenChecked > 0, "other seats' hidden cards were checked");
  const final = await documentFor(base, id);
  assert.equal(final.over, true);
  for (const page of pages) {
    await page.waitForSelector("#status.over");
    const scores = await page.$$eval("#result .scores li", (lis) => lis.map((li) => li.textContent));
    assert.equal(scores.length, options.seats.length, "every seat's score is on the page");
    scores.forEach((text, i) => assert.match(text, new RegExp(": " + final.scores[i] + "( |$)")));
    assert.equal((await pageState(page)).actions.length, 0, "no action buttons once the game is over");
  }
  assert.deepEqual(errors, [], "no script or resource errors in the pages");
  for (const page of pages) await page.context().close();
  return options.game + ": " + clicks + " clicks, " + final.decisions + " decisions, scores " + final.scores.join(", ") +
    ", " + hiddenChecked + " hidden fields checked";
}
