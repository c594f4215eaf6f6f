-- bean_sample_draws_spec.lua — the bean games' samples are dealt as they were recorded: the same cards
-- to the same places from the same draws. A search's deals are these samples (meeple.search), so a
-- faster sample that dealt otherwise would change every search's choices; the digests below are the
-- samples of the code before the sample's fast paths (a hand not asked for a pick, a hand with no
-- shown card, the pool written sorted from counts), over random and greedy games at 3 to 5 players,
-- every viewer, two seeds each (hands with shown cards and picks asked among them).
local meeple = require "meeple"
local util = require "spec_util"

local PRIME = 0x100000001b3

-- FNV-1a over the string's 8-byte words, then its last bytes.
local function digest(h, text)
  local n = #text - #text % 8
  for i = 1, n, 8 do h = (h ~ string.unpack("<i8", text, i)) * PRIME end
  for i = n + 1, #text do h = (h ~ text:byte(i)) * PRIME end
  return h
end

-- Every sample of every `every`th position of game `seed` (random play, or the greedy ranking's first
-- action when `greedy`), for every viewer and two sample seeds: one digest, and the samples' count.
local function samples_digest(game, players, seed, every, greedy)
  local s = meeple.new(game, { seed = seed, players = players })
  local h, count, d = 0xcbf29ce484222325, 0, 0
  while not s:is_over() do
    if d % every == 0 then
      for viewer = 1, players do
        for k = 1, 2 do
          h = digest(h, s:sample(viewer, seed * 100000 + d * 10 + k):save())
          count = count + 1
        end
      end
    end
    if greedy then s:play(s:ranked(seed + d)[1]) else util.advance(s, 1, seed * 1000 + d) end
    d = d + 1
  end
  return h, count
end

-- { game, players, seed, every, greedy, digest, samples }: recorded with the samples before the fast paths.
local RECORDED = {
  { "bohnanza", 3, 30, 6, false, 0x52ebe8def4491541, 2232 },
  { "bohnanza", 3, 31, 6, true, 0x53703815379d8eb4, 444 },
  { "bohnanza", 4, 40, 6, false, 0xfe8f1af8a84a40ed, 2384 },
  { "bohnanza", 4, 41, 6, true, 0x99f330f32f89313c, 624 },
  { "bohnanza", 5, 50, 6, false, 0xeba10de19258ad32, 2960 },
  { "bohnanza", 5, 51, 6, true, 0xa2da0145bccded99, 720 },
  { "rabohnzel", 3, 30, 6, false, 0x387357425be435d6, 1812 },
  { "rabohnzel", 3, 31, 6, true, 0xede2efee117cf54a, 552 },
  { "rabohnzel", 4, 40, 6, false, 0xe17d8660e4f7a4bd, 2288 },
  { "rabohnzel", 4, 41, 6, true, 0x8cf1229fb81f50ff, 1120 },
  { "rabohnzel", 5, 50, 6, false, 0x9417b24e4a03e630, 3960 },
  { "rabohnzel", 5, 51, 6, true, 0x7921390e10048e68, 970 },
}

describe("a bean game's samples", function()
  for _, row in ipairs(RECORDED) do
    local game, players, seed, every, greedy, want, want_count = table.unpack(row)
    it(("%s, %d players, %s game %d: dealt as recorded, draw for draw"):format(game, players,
        greedy and "greedy" or "random", seed), function()
      local got, count = samples_digest(game, players, seed, every, greedy)
      assert.are.equal(want_count, count)
      assert.are.equal(("%016x"):format(want), ("%016x"):format(got))
    end)
  end
end)
