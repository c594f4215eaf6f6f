-- policies_spec.lua — the games' playout policies (s:playout's greedy decisions, s:ranked's first) play
-- as the shipped greedy bots do: a search's imagined opponents are then the greedy bots it meets.
-- Whole games of greedy bots are driven here, and at every decision with a choice the bot's action
-- must be one the policy ranks first (the policy breaks ties at random by the seed, the bot takes the
-- first of equals in `legal`: so it is enough that some seed puts it first).
local meeple = require "meeple"
local util = require "spec_util"

package.path = util.root .. "/bots/lib/?.lua;" .. package.path

local TIE_SEEDS = 60 -- five equal actions all miss the first place 60 times once in 700,000

local function ranked_first_by_some_seed(s, action)
  for seed = 1, TIE_SEEDS do
    if s:ranked(seed)[1] == action then return true end
  end
  return false
end

-- Plays `games` games of `game` with every seat the greedy bot; returns the decisions with a choice
-- and the list of those where the bot's action was not the policy's.
local function agreement(game, players, games)
  local greedy = dofile(util.root .. "/bots/greedy_" .. game .. ".lua")
  local decisions, differ = 0, {}
  for seed = 1, games do
    local s = meeple.new(game, { seed = seed, players = players })
    local samples = 0
    while not s:is_over() do
      local seat, legal = s:to_move(), s:legal()
      local ctx = { seat = seat, players = players, game = game, cards = s:cards() }
      function ctx.sample()
        samples = samples + 1
        return s:sample(seat, samples)
      end
      local action = greedy.choose(s:view(seat), legal, ctx)
      if #legal > 1 then
        decisions = decisions + 1
        if not ranked_first_by_some_seed(s, action) then
          differ[#differ + 1] = ("game %d: %s played %s, the policy %s")
            :format(seed, greedy.name, action, s:ranked(1)[1])
        end
      end
      s:play(action)
    end
  end
  return decisions, differ
end

describe("the playout policies", function()
  it("play Citadels as greedy_citadels does, at every player count", function()
    for players = 2, 7 do
      local decisions, differ = agreement("citadels", players, 6)
      assert.truthy(decisions > 200, players .. " players: " .. decisions .. " decisions")
      assert.same({}, differ)
    end
  end)

  it("play Babel as greedy_babel does, but for ties its floating point breaks", function()
    -- greedy_babel weighs in floats, the policy in exact units: where two actions are worth the same,
    -- rounding can make one of them a hair better in Lua (a 20-game probe: 8 of 1,400 decisions).
    local decisions, differ = agreement("babel", 2, 12)
    assert.truthy(decisions > 600, decisions .. " decisions")
    assert.truthy(#differ <= decisions / 100,
      #differ .. " of " .. decisions .. ":\n" .. table.concat(differ, "\n"))
  end)

  it("play the bean games as their greedy bots do, trades and Rabohnzel's magic included", function()
    for _, game in ipairs { "bohnanza", "rabohnzel" } do
      for players = 3, 5 do
        local decisions, differ = agreement(game, players, 5)
        assert.truthy(decisions > 1500, game .. " at " .. players .. " players: " .. decisions .. " decisions")
        assert.same({}, differ)
      end
    end
  end)
end)
