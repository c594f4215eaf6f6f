-- bench_variant.lua — `meeple bench GAME --variant V` (repl/bench.c): random play under a variant,
-- every decision through the variant's hooks, which are Lua; so it measures the hooked path (the
-- plain path stays pure C and pays nothing for variants).
--
-- Run with (game, variant, players, seed, games); returns the decisions played. The picks come from
-- a linear congruential generator seeded with `seed`, so every run plays the same games.
local game, variant, players, seed, games = ...
local decisions, pick = 0, seed
for g = 0, games - 1 do
  local s = meeple.new(game, { variant = variant, seed = seed + g, players = players })
  while not s:is_over() do
    local legal = s:legal()
    pick = (pick * 1103515245 + 12345) % 2147483648
    s:play(legal[pick % #legal + 1])
    decisions = decisions + 1
  end
end
return decisions
