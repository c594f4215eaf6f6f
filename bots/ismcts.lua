-- ismcts.lua — a search bot for any game: information-set Monte Carlo tree search (bots/lib/ismcts.lua).
-- It thinks for `ms` milliseconds per decision, dealing the hidden cards anew for every line it tries.
-- Copy this file and change the options to make another player:
--   ms = 20            a faster, weaker one
--   iterations = 500   a fixed amount of work per decision instead of a time: reproducible games
--   rollout_depth = nil   random play to the game's end instead of judging the score after 40 decisions
return require("ismcts").bot {
  name = "ismcts",
  ms = 100,
  iterations = nil,
  c = 0.7,
  rollout_depth = 40,
}
