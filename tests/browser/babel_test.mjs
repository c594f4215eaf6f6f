// babel_test.mjs — a game of Babel between two people, each in a browser context of their own, played
// to its end by clicking the table pages' buttons; both pages and a spectator's checked for the other
// seat's hidden cards as it goes.
import { test } from "node:test";
import { browserOrSkip, startServer, playWholeGame } from "./lib.mjs";

const launch = await browserOrSkip();
const server = await startServer(); // a meeple without `serve` skips here, before any browser starts
const browser = await launch();

test("Babel: two people play to the end by clicks, no page shows the other's hand", { timeout: 300000 }, async () => {
  // The last button is mostly a build or a settle: the quickest way to an end.
  const line = await playWholeGame(browser, server.url, { game: "babel", seats: ["human", "human"], seed: 7,
    choose: (actions) => actions[actions.length - 1], every: 4 });
  console.log("# " + line);
});

test.after(async () => {
  await browser.close();
  await server.stop();
});
