// pages_test.mjs — the lobby and the table page apart from whole games: on a phone-width screen (every
// game's table, and a move made by a tap), a spectator's page, a link with a wrong token, documents
// older than the one shown dropped, and no inline script or style (the server's CSP allows none).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { browserOrSkip, startServer, api, botFor, documentFor, pageState, click, watchErrors } from "./lib.mjs";

const launch = await browserOrSkip();
const server = await startServer(); // a meeple without `serve` skips here, before any browser starts
const browser = await launch();
const base = server.url;
const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };

async function newGame(game, seats, seed) {
  const made = await api(base, "POST", "/api/games", { game: game, players: seats.length, seed: seed || 3, seats: seats });
  assert.equal(made.status, 201, JSON.stringify(made.data));
  return made.data;
}

async function open(url, options, errors) {
  const page = await (await browser.newContext(options || {})).newPage();
  watchErrors(page, errors);
  await page.goto(base + url);
  return page;
}

// The page is as wide as the phone's screen: nothing to scroll sideways. (A mobile browser widens its
// layout to content wider than the screen, and innerWidth with it: the screen's width is the bound.)
async function fitsWidth(page) {
  const scroll = await page.evaluate(() => Math.max(document.documentElement.scrollWidth, window.innerWidth));
  return { scroll: scroll, width: PHONE.viewport.width };
}

// A locator's box; a live update may redraw the element just then, so asked again.
async function boxOf(locator) {
  for (let i = 0; i < 20; i++) {
    const box = await locator.boundingBox();
    if (box) return box;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("no box for " + locator);
}

async function noInline(page) {
  return page.evaluate(() => document.querySelectorAll("script:not([src]), style, [style]").length);
}

test("on a phone-width screen every game's table fits the width, its moves come first, a tap plays", { timeout: 120000 }, async () => {
  const errors = [];
  for (const [game, players] of [["bohnanza", 3], ["rabohnzel", 3], ["babel", 2], ["citadels", 7]]) {
    const bot = await botFor(base, game);
    const made = await newGame(game, ["human"].concat(Array(players - 1).fill(bot)));
    const page = await open(made.seats[0].url, PHONE, errors);
    await page.waitForSelector("#status.yours");
    const fit = await fitsWidth(page);
    assert.ok(fit.scroll <= fit.width, game + ": the table fits " + fit.width + " px (" + fit.scroll + ")");
    assert.equal(await noInline(page), 0, game + ": no inline script or style");
    const moves = await boxOf(page.locator("#actions-panel"));
    const board = await boxOf(page.locator("#board"));
    assert.ok(moves.y < board.y, game + ": the moves are above the board on a phone");
    const button = page.locator("#actions button.action").first();
    const box = await boxOf(button);
    assert.ok(box.height >= 36 && box.x >= 0 && box.x + box.width <= fit.width, game + ": a button big enough to tap, on screen");
    const before = (await pageState(page)).decisions;
    await button.tap();
    await page.waitForFunction((n) => Number(document.getElementById("board").getAttribute("data-decisions")) > n ||
      !document.getElementById("error").hidden, before);
    assert.equal((await pageState(page)).error, "", game + ": the tapped action was played");
    await page.context().close();
  }
  // the lobby, with the games above in its list and a game made in its form
  const lobby = await open("/", PHONE, errors);
  await lobby.waitForSelector("#games tbody tr");
  await lobby.selectOption("#game", "babel");
  await lobby.click("#create-button");
  await lobby.waitForSelector("#created:not([hidden])");
  const width = await fitsWidth(lobby);
  assert.ok(width.scroll <= width.width, "the lobby fits " + width.width + " px (" + width.scroll + ")");
  assert.deepEqual(errors, []);
});

test("a spectator's page shows the table without moves; a wrong token says so", { timeout: 60000 }, async () => {
  const errors = [];
  const bot = await botFor(base, "bohnanza");
  const made = await newGame("bohnanza", ["human", bot, bot]);
  const watch = await open(made.watch_url, {}, errors);
  await watch.waitForSelector("#board[data-decisions]");
  assert.match(await watch.textContent("#who"), /Watching/);
  assert.equal(await watch.isHidden("#actions-panel"), true, "no moves for a spectator");
  assert.equal(await watch.locator('#board [data-zone="hand"] [data-card]').count(), 0, "no hand's card on a spectator's page");
  assert.equal(await noInline(watch), 0);

  const wrong = await open("/play/" + made.id + "#token=" + "0".repeat(32), {}, []);
  await wrong.waitForSelector("#status.failed");
  assert.match(await wrong.textContent("#status"), /token/);
  assert.equal(await wrong.isVisible("#error"), true);
  const missing = await open("/play/no-such-game", {}, []);
  await missing.waitForSelector("#status.failed");
  assert.match(await missing.textContent("#status"), /no game/);
  assert.deepEqual(errors, []);
});

// The live updates are replaced by two of the test's making: an older document than the one shown must
// change nothing, a newer one must be drawn (so the replacement is seen at all).
test("a live update older than the document shown is dropped, a newer one drawn", { timeout: 60000 }, async () => {
  const bot = await botFor(base, "babel");
  const made = await newGame("babel", ["human", bot]);
  const token = made.seats[0].token;
  const doc = await documentFor(base, made.id, token);
  const event = (d) => "event: state\ndata: " + JSON.stringify(d) + "\n\n";
  const marked = (decisions, turn) => Object.assign({}, doc, { decisions: decisions, view: Object.assign({}, doc.view, { turn: turn }) });
  for (const [decisions, turn, shown] of [[doc.decisions - 1, 4242, false], [doc.decisions + 1, 4343, true]]) {
    const context = await browser.newContext();
    await context.route("**/events*", (route) => route.fulfill({
      status: 200, headers: { "Content-Type": "text/event-stream" }, body: event(marked(decisions, turn)),
    }));
    const page = await context.newPage();
    await page.goto(base + made.seats[0].url);
    await page.waitForSelector("#board[data-decisions]");
    await page.waitForTimeout(600);
    const text = await page.textContent("#board");
    assert.equal(text.includes(String(turn)), shown, (shown ? "a newer" : "an older") + " document " + (shown ? "is" : "is not") + " drawn");
    await context.close();
  }
  if (doc.decisions === 0) console.log("# the older document had decision -1");
});

test("the lobby lists a game made through the API, and its watch link opens it", { timeout: 60000 }, async () => {
  const errors = [];
  const bot = await botFor(base, "babel");
  const made = await newGame("babel", [bot, bot]);
  const lobby = await open("/", {}, errors);
  const row = lobby.locator('#games tr[data-game="' + made.id + '"]');
  await row.waitFor();
  assert.match(await row.textContent(), /babel/);
  await row.locator("a").click();
  await lobby.waitForURL("**/play/" + made.id);
  await lobby.waitForSelector("#board[data-decisions]");
  assert.equal(await noInline(lobby), 0);
  assert.deepEqual(errors, []);
});

test("a person's page: clicking a legal action plays it and the other pages follow live", { timeout: 60000 }, async () => {
  const errors = [];
  const made = await newGame("babel", ["human", "human"], 5);
  const [one, two] = [await open(made.seats[0].url, {}, errors), await open(made.seats[1].url, {}, errors)];
  await one.waitForSelector("#status.yours");
  await two.waitForSelector("#status.waiting");
  const action = (await pageState(one)).actions[0];
  await click(one, action);
  await two.waitForFunction(() => document.querySelectorAll("#history li[data-seat]").length === 1);
  assert.match(await two.textContent("#history"), new RegExp(action.split(" ")[0]));
  assert.deepEqual(errors, []);
});

// The other way a Bohnanza deal starts: P1 asks, and P2 offers through the trade builder (`offer`,
// then the items, then `send`), which P1 accepts on its page.
test("Bohnanza: an invited player's offer composed in the trade builder and accepted on the other page", { timeout: 60000 }, async () => {
  const errors = [];
  const bot = await botFor(base, "bohnanza");
  const made = await newGame("bohnanza", ["human", "human", bot], 5);
  const [one, two] = [await open(made.seats[0].url, {}, errors), await open(made.seats[1].url, {}, errors)];
  await one.waitForSelector("#status.yours");
  await click(one, "plant 1");
  await click(one, "done");
  const faceUp = (await documentFor(base, made.id, made.seats[0].token)).view.face_up;
  await click(one, "ask");
  await two.waitForSelector('#actions button[data-action="offer"]');
  const hand = (await documentFor(base, made.id, made.seats[1].token)).view.players[1].hand;
  await two.waitForSelector("#trade-panel:not([hidden])");
  assert.equal(await two.isHidden("#trade-partner-label"), true, "an offer goes to the active player: no partner to choose");
  await two.check('#trade-give input[data-give="give 1"]');
  await two.fill('#trade-want input[data-want="' + faceUp[0] + '"]', "1");
  assert.equal(await two.textContent("#trade-preview"), "Sends: offer, give 1, want " + faceUp[0] + ", send");
  await two.click("#trade-send");
  await one.waitForSelector('#actions button[data-action="accept"]');
  await click(one, "accept");
  // P1 says which card goes when a face-up card and a hand card are the same bean
  const picks = (await pageState(one)).actions.filter((a) => a.startsWith("pick"));
  if (picks.length) await click(one, picks.includes("pick up") ? "pick up" : picks[0]);
  const after = (await documentFor(base, made.id, made.seats[0].token)).view.players;
  assert.deepEqual(after[1].set_aside, [faceUp[0]], "P2 set aside the bean it wanted");
  assert.deepEqual(after[0].set_aside, [hand[0]], "P1 set aside the card P2 offered");
  assert.deepEqual(errors, []);
});

test.after(async () => {
  await browser.close();
  await server.stop();
});
