-- sample_trace_spec.lua — a sample carries no trace of the game it was drawn from (issue 33): its save
-- names no seed that deals the true game again, and its future (the hidden deck it will draw from) is
-- its own. The generator state inside a sample is checked byte by byte in tests/test_sample_trace.c.
local meeple = require "meeple"
local util = require "spec_util"

local games = { babel = "people_deck", citadels = "deck", bohnanza = "deck", rabohnzel = "deck" }

local advance = util.advance

local function seeds_in(save)
  local found = {}
  for seed in save:gmatch("\nseed (%d+)\n") do found[#found + 1] = math.tointeger(tonumber(seed)) end
  return found
end

describe("a sample's save", function()
  for game in pairs(games) do
    it(game .. ": names no seed that deals the true game again", function()
      for _, true_seed in ipairs { 1, 23, 4242 } do
        local s = advance(meeple.new(game, { seed = true_seed }), 12, true_seed)
        local dealt = meeple.new(game, { seed = true_seed, players = s:num_players() }):table()
        for k = 1, 8 do
          local save = s:sample(s:to_move(), k):save()
          local found = seeds_in(save)
          assert.equal(1, #found, save)                       -- it still loads: a save names its seed
          for _, seed in ipairs(found) do
            assert.are_not.equal(true_seed, seed, game .. ": the true game's seed is in its sample")
            local again = meeple.new(game, { seed = seed, players = s:num_players() })
            assert.is_false(require("spec_util").deep_equal(dealt, again:table()),
                            game .. ": seed " .. seed .. " deals the true game")
          end
          local x = meeple.load(save)
          assert.same(s:view(s:to_move()), x:view(s:to_move()))
          assert.equal(save, x:save())
        end
      end
    end)
  end

  it("is drawn from the sample's own seed: two sample seeds, two seed lines", function()
    local s = advance(meeple.new("bohnanza", { seed = 9 }), 20)
    local a, b = seeds_in(s:sample(1, 1):save())[1], seeds_in(s:sample(1, 2):save())[1]
    assert.are_not.equal(a, b)
    assert.equal(a, seeds_in(s:sample(1, 1):save())[1])  -- and the same sample seed, the same sample
  end)
end)

describe("a sample's future", function()
  for game, deck in pairs(games) do
    it(game .. ": the hidden deck it will draw from is not the true one beyond chance", function()
      local s = advance(meeple.new(game, { seed = 31 }), 8, 5)
      local true_deck = s:table()[deck]
      local seat = s:to_move()
      local same, tops, top = 0, 0, true_deck[#true_deck]
      for k = 1, 40 do
        local x = s:sample(seat, k)
        local d = x:table()[deck]
        if require("spec_util").deep_equal(true_deck, d) then same = same + 1 end
        if d[#d] == top then tops = tops + 1 end
      end
      assert.equal(0, same, game .. ": a sample holds the true deck")
      assert.is_true(tops < 40, game .. ": every sample draws the true next card")
    end)
  end
end)
