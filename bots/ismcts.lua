-- ismcts.lua — a search bot for any game: information-set Monte Carlo tree search, run in C by
-- meeple.search (bots/lib/ismcts.lua is the same search in Lua, to read; `engine = "lua"` runs it).
-- It thinks for `ms` milliseconds per decision, dealing the hidden cards anew for every line it tries;
-- the tuning by game below is Lua, passed to the search one game's value at a time.
-- Copy this file and change the options to make another player:
--   ms = 20            a faster, weaker one
--   iterations = 500   a fixed amount of work per decision instead of a time: reproducible games
--   playout_depth = 40 judge the score lead 40 decisions on instead of playing to the end (by default
--                      20 in Babel: a playout there then costs a quarter of a whole game's, and 100 ms
--                      buys more than three times the iterations, for the same strength against
--                      greedy_babel; 100 in the bean games, about a round of four players, where 100 ms
--                      then buys two to three times the iterations; README, "The search in C")
--   greedy = 0         purely random playouts (by default every decision follows the game's playout
--                      policy: in every shipped game what its greedy bot would play, so that imagined
--                      opponents play as the greedy ones do; a fifth of them in a game without one: a
--                      table by game name)
--   playouts = 4       four playouts from each new node, their rewards averaged: a steadier estimate
--                      for each iteration, but fewer iterations (a playout is most of one's time)
--   expand = "random"  a new node tries its actions in random order (by default, in Babel, the playout
--                      policy's favourite first, s:ranked: the search then looks first at what a greedy
--                      player would do, the opponent's most likely replies among them)
--   margin = 0         a finished game is worth its win alone (by default, in Babel, 0.4 of its worth is
--                      the score lead's, and 0.3 in Rabohnzel: the search then also wants to win by
--                      more, and in a game it cannot win, to lose by less, where the win alone would
--                      make every line look the same)
--   score_scale = 4    how big a score lead is worth about 0.76 of a win (by default 150 in Rabohnzel,
--                      whose scores count Bohnpfennig: 100 of them make a Bohntaler)
--   widen = false      every action of a node is tried before any is tried again (by default, in
--                      Rabohnzel, a node visited n times has at most ceil(sqrt(n)) children, added in
--                      the playout policy's order: a few hundred iterations a decision then weigh the
--                      greedy player's likeliest moves instead of trying every move once)
return require("ismcts").bot {
  name = "ismcts",
  ms = 100,
  iterations = false,
  c = 0.7,
  playout_depth = { babel = 20, bohnanza = 100, rabohnzel = 100, default = false },
  greedy = { babel = 1, citadels = 1, bohnanza = 1, rabohnzel = 1, default = 0.2 },
  playouts = 1,
  margin = { babel = 0.4, rabohnzel = 0.3, default = 0 },
  score_scale = { rabohnzel = 150, default = 4 },
  expand = { babel = "policy", default = "random" },
  widen = { rabohnzel = 1, default = false },
}
