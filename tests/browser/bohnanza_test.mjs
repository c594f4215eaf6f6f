// bohnanza_test.mjs — a 3-player Bohnanza game made in the lobby and played to its end in the browser:
// two people in two browser contexts and a bot seat. On the way: a trade composed in P1's trade
// builder and accepted on P2's page, a refused trade whose reason the page shows, and every page
// (both seats' and a spectator's) checked for other seats' hidden cards.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  browserOrSkip, startServer, documentFor, botFor, pageState, click, playToEnd, zoneOnPage,
  checkNoHiddenCards, watchErrors,
} from "./lib.mjs";

const launch = await browserOrSkip();
const server = await startServer(); // a meeple without `serve` skips here, before any browser starts
const browser = await launch();
const base = server.url;
const tokenOf = (url) => new URL(url).hash.match(/token=([^&]+)/)[1];
const idOf = (url) => new URL(url).pathname.split("/").pop();

// Mostly the quickest way on: stop planting, trading and offering as soon as the rules let one.
const QUICK = ["done", "pass", "reject", "cancel"];
const quick = (actions) => QUICK.find((a) => actions.includes(a)) || actions[0];

test("Bohnanza: two people and a bot, from the lobby to the end, with a trade between the two pages", { timeout: 400000 }, async () => {
  const errors = [];
  const bot = await botFor(base, "bohnanza");

  // The lobby makes the game: P1 and P2 people, P3 the bot.
  const lobby = await (await browser.newContext()).newPage();
  watchErrors(lobby, errors);
  await lobby.goto(base + "/");
  await lobby.selectOption("#game", "bohnanza");
  await lobby.selectOption("#players", "3");
  await lobby.fill("#seed", "11");
  await lobby.selectOption('#seats select[data-seat="1"]', "human");
  await lobby.selectOption('#seats select[data-seat="2"]', "human");
  await lobby.selectOption('#seats select[data-seat="3"]', bot);
  await lobby.click("#create-button");
  await lobby.waitForSelector("#created:not([hidden])");
  const links = await lobby.$$eval("#created-seats a", (as) => as.map((a) => a.href));
  assert.equal(links.length, 2, "the lobby shows one link per person");
  const watch = await lobby.getAttribute("#watch-link", "href");
  const id = idOf(links[0]);
  const tokens = links.map(tokenOf);
  await lobby.click("#refresh");
  await lobby.waitForSelector('#games tr[data-game="' + id + '"]');

  // Two people, each in a browser context of their own, and a spectator.
  const pages = [];
  for (const url of links.concat([watch])) {
    const page = await (await browser.newContext()).newPage();
    watchErrors(page, errors);
    await page.goto(url);
    await page.waitForSelector("#board[data-decisions]");
    pages.push(page);
  }
  const [p1, p2, spectator] = pages;

  const documents = async () => ({ 1: await documentFor(base, id, tokens[0]), 2: await documentFor(base, id, tokens[1]) });
  let hiddenChecked = 0;
  const checkHidden = async () => {
    const docs = await documents();
    // both pages show the document's decision before they are compared with it
    for (const page of pages) {
      await page.waitForFunction((n) => Number(document.getElementById("board").getAttribute("data-decisions")) >= n,
        docs[1].decisions);
    }
    const fresh = await documents();
    if (fresh[1].decisions !== docs[1].decisions) return; // a bot moved meanwhile: next time
    const open = await documentFor(base, id);
    if (open.decisions !== docs[1].decisions) return;
    hiddenChecked += await checkNoHiddenCards(p1, fresh[1], fresh, open);
    hiddenChecked += await checkNoHiddenCards(p2, fresh[2], fresh, open);
    hiddenChecked += await checkNoHiddenCards(spectator, open, fresh, open);
  };
  await checkHidden();

  let traded = false;
  let refused = "";
  const choose = async (actions, i) => {
    if (traded || i !== 0 || !actions.includes("propose 2")) return quick(actions);
    const docs = await documents();
    const faceUp = docs[1].view.face_up;
    const theirs = docs[2].view.players[1].hand;
    if (faceUp.length === 0 || theirs.length === 0) return quick(actions);
    const give = faceUp[0];
    const want = theirs[0];
    await p1.waitForSelector("#trade-panel:not([hidden])");

    // A trade the rules refuse (more of a bean than P2 can hold): the page shows the reason.
    await p1.selectOption("#trade-partner", "2");
    await p1.fill('#trade-want input[data-want="' + want + '"]', "9");
    await p1.click("#trade-send");
    await p1.waitForSelector("#error:not([hidden])");
    refused = await p1.textContent("#error");
    await click(p1, "cancel");

    // The trade: a face-up card for a bean in P2's hand, composed in the builder.
    await p1.waitForSelector("#trade-panel:not([hidden])");
    await p1.selectOption("#trade-partner", "2");
    await p1.check('#trade-give input[data-give="give up ' + give + '"]');
    await p1.fill('#trade-want input[data-want="' + want + '"]', "1");
    assert.match(await p1.textContent("#trade-preview"), new RegExp("propose 2, give up " + give + ", want " + want + ", send"));
    await p1.click("#trade-send");
    await p2.waitForSelector('#actions button[data-action="accept"]');
    assert.match(await p2.textContent("#board .proposal"), new RegExp(give.replace(/_/g, " ")));
    await click(p2, "accept");
    await p1.waitForFunction(() => document.querySelector('#board [data-seat="2"][data-zone="set_aside"] [data-card]'));
    const after = await documents();
    assert.deepEqual(after[1].view.players[0].set_aside, [want], "P1 set aside the bean P2 gave");
    assert.deepEqual(after[1].view.players[1].set_aside, [give], "P2 set aside the face-up card P1 gave");
    assert.deepEqual((await zoneOnPage(p1, 1, "set_aside")).cards, [want]);
    assert.deepEqual((await zoneOnPage(p2, 2, "set_aside")).cards, [give]);
    traded = true;
    return null;
  };

  const clicks = await playToEnd([p1, p2], choose, async (n) => { if (n % 15 === 0) await checkHidden(); });
  assert.ok(traded, "a trade was made between the two pages");
  assert.notEqual(refused.trim(), "", "the refused trade's reason is on the page");
  assert.ok(hiddenChecked > 0, "other seats' hands were checked");

  // The end, as the API and every page say it.
  const final = await documentFor(base, id);
  assert.equal(final.over, true);
  for (const page of pages) {
    await page.waitForSelector("#status.over");
    const scores = await page.$$eval("#result .scores li", (lis) => lis.map((li) => li.textContent));
    assert.equal(scores.length, 3);
    scores.forEach((text, i) => assert.match(text, new RegExp(": " + final.scores[i] + "( |$)")));
    assert.equal((await pageState(page)).actions.length, 0, "no action buttons once the game is over");
  }
  console.log("# bohnanza: " + clicks + " clicks, " + final.decisions + " decisions, scores " + final.scores.join(", ") +
    "; refused trade: " + refused.trim());
  assert.deepEqual(errors, [], "no script or resource errors in the pages");
});

test.after(async () => {
  await browser.close();
  await server.stop();
});
