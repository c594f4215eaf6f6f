-- compare_check.lua — `meeple compare` (repl/compare.c), before any game is played: the variant
-- loaded and a game set up under it, so a misspelt variant or parameters the game refuses are a bad
-- argument at once, not after the whole base-rules half.
--
-- Run with (meeple, game, players, variant); raises when the variant cannot be played.
local meeple, game, players, variant = ...
meeple.new(game, { seed = 1, players = players, variant = variant })
