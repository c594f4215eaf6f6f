// citadels_test.mjs — a 5-player game of Citadels, one person against four bots, played to its end by
// clicking the person's table page; it and a spectator's page checked for the bots' hidden hands and
// characters as it goes.
import { test } from "node:test";
import { browserOrSkip, startServer, playWholeGame, botFor } from "./lib.mjs";

const launch = await browserOrSkip();
const server = await startServer(); // a meeple without `serve` skips here, before any browser starts
const browser = await launch();

test("Citadels: one person and four bots play to the end by clicks, no page shows a bot's hand", { timeout: 300000 }, async () => {
  const bot = await botFor(server.url, "citadels");
  const line = await playWholeGame(browser, server.url, { game: "citadels", seats: ["human", bot, bot, bot, bot], seed: 7,
    choose: (actions) => actions[0], every: 6 });
  console.log("# " + line);
});

test.after(async () => {
  await browser.close();
  await server.stop();
});
