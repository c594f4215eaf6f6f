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
-- and the list of those where the bot's action was not the policy's. With `wander` (a share), that
-- share of the moves is a random legal action instead: a search reaches positions greedy bots never
-- make (a spell they never cast, a third field not bought), and its playouts start from them.
local function agreement(game, players, games, wander)
  local rng = { state = 7 }
  local function random(n) -- a small LCG: the wandering must not depend on math.random's seeding
    rng.state = (rng.state * 1103515245 + 12345) % 2147483648
    return rng.state % n + 1
  end
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
      if wander and random(1000) <= wander * 1000 then action = legal[random(#legal)] end
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

  it("play Rabohnzel's player_enchantment as greedy_rabohnzel does, a spell that bot never casts", function()
    local greedy = dofile(util.root .. "/bots/greedy_rabohnzel.lua")
    -- Each seat in turn plants its front card; returns each decision's "seat: action".
    local function enchanted(t)
      local s, played = meeple.from_table(t), {}
      s:play("use player_enchantment")
      while s:table().enchanting do
        local seat = s:to_move()
        local ctx = { seat = seat, players = #t.players, game = "rabohnzel", cards = s:cards() }
        local action = greedy.choose(s:view(seat), s:legal(), ctx)
        assert.truthy(ranked_first_by_some_seed(s, action), seat .. ": " .. action .. ", the policy "
          .. s:ranked(1)[1])
        played[#played + 1] = seat .. ": " .. action
        s:play(action)
      end
      return played
    end
    local caster = { fields = { { "sword" } }, hand = { "princess", "wise" },
                     spells = { { name = "player_enchantment", up = true } } }
    -- Phase 2: a card that fits no field makes room by a harvest; the caster plants on its empty field.
    assert.same({ "2: harvest 1", "2: plant 1", "3: plant 1", "1: plant 2" }, enchanted {
      game = "rabohnzel", seed = 1, phase = "trade", face_up = {}, players = { caster,
        { fields = { { "sword", "sword" }, { "common", "common", "common" } }, hand = { "wise", "cape" } },
        { fields = { { "princess" }, { "pluck" } }, hand = { "princess", "cape" } } } })
    -- Phase 1 after a planting: a card joining no field of its kind is declined (the caster skips,
    -- the others, who cannot, plant on the first field it fits).
    caster.hand = { "cape", "wise" }
    assert.same({ "2: plant 2", "3: harvest 1", "3: plant 1", "1: skip" }, enchanted {
      game = "rabohnzel", seed = 1, phase = "plant", planted = 1, players = { caster,
        { fields = { { "sword", "sword" } }, hand = { "wise", "cape" } },
        { fields = { { "princess", "princess" }, { "pluck" } }, hand = { "cape" } } } })
  end)

  -- A fingerprint of how the playout policy ranks and plays: the ranked lists at every decision of
  -- four random games (seeds 1 to 4), and greedy playouts from every `every`th position (decisions,
  -- scores). Returns the decisions played and the hash (FNV-1a).
  local function ranked_and_played(game, players, params, every)
    local h, decisions = 2166136261, 0
    local function fold(text)
      for i = 1, #text do h = ((h ~ text:byte(i)) * 16777619) & 0xffffffff end
    end
    for seed = 1, 4 do
      local s = meeple.new(game, { seed = seed, players = players, params = params })
      local d = 0
      while not s:is_over() do
        fold(table.concat(s:ranked(seed * 7 + d), "|"))
        if d % every == 3 then
          local c = s:clone()
          local n = c:playout(seed + d, -1, 1)
          fold(n .. ":" .. table.concat(c:scores(), ","))
        end
        local legal = s:legal()
        s:play(legal[(seed * 31 + d * 17) % #legal + 1])
        d = d + 1
      end
      decisions = decisions + d
    end
    return decisions, h
  end

  it("rank and play the bean games exactly as recorded (the playout policy's cost may change, its choices never)", function()
    -- The bean games' policy values all of a decision's actions at once (game_def.playout_worths): a
    -- search's choices at fixed seeds and iterations are what they were only while every ranking and
    -- every greedy playout is. Recorded from the one-action-at-a-time policy: the ranked lists at
    -- every decision of random games, and greedy playouts from every 25th position (decisions, scores).
    local recorded = {
      { "bohnanza", 3, nil, 8256, 1494018466 }, { "bohnanza", 4, nil, 9017, 862601116 },
      { "bohnanza", 5, nil, 7822, 2579663257 }, { "rabohnzel", 3, nil, 7781, 1825897837 },
      { "rabohnzel", 4, nil, 9926, 992635093 }, { "rabohnzel", 5, nil, 10856, 2393642510 },
      { "bohnanza", 4, { edition = "riogrande" }, 14061, 3700999966 },
      { "bohnanza", 3, { duplicate_fields = false, fields = 4 }, 9217, 1386107596 },
      { "rabohnzel", 4, { duplicate_fields = false }, 9455, 2453564830 },
    }
    for _, case in ipairs(recorded) do
      local game, players, params, want_decisions, want_hash = table.unpack(case)
      local decisions, h = ranked_and_played(game, players, params, 25)
      local name = ("%s, %d players%s"):format(game, players, params and " (with parameters)" or "")
      assert.equal(want_decisions, decisions, name)
      assert.equal(want_hash, h, name)
    end
  end)

  it("rank and play Citadels exactly as recorded at every player count (its playout_pick's shortcuts choose and draw as the host's scan)", function()
    -- Citadels chooses a playout decision itself (game_def.playout_pick), passing over actions that
    -- cannot be chosen; a search's choices at fixed seeds and iterations are what they were only while
    -- every greedy playout is. Recorded from the host's scan of playout_worths: the ranked lists at every
    -- decision of random games, and greedy playouts from every 10th position (decisions, scores).
    local recorded = { { 2, 804, 1183390384 }, { 3, 1004, 463180697 }, { 4, 1137, 1939902952 },
                       { 5, 1488, 3174288505 }, { 6, 1888, 979031059 }, { 7, 2432, 3313945972 } }
    for _, case in ipairs(recorded) do
      local players, want_decisions, want_hash = table.unpack(case)
      local decisions, h = ranked_and_played("citadels", players, nil, 10)
      assert.equal(want_decisions, decisions, players .. " players")
      assert.equal(want_hash, h, players .. " players")
    end
  end)

  it("are a bot of their own: bots/policy.lua plays every shipped game against the greedy bots without a forfeit", function()
    for _, case in ipairs { { "babel", 2 }, { "citadels", 4 }, { "bohnanza", 4 }, { "rabohnzel", 4 } } do
      local game, players = table.unpack(case)
      local bots = { "policy" }
      for i = 2, players do bots[i] = "greedy_" .. game end
      -- seats rotated: every bot in every seat alike
      local out, code = util.sh(("%s match %s %s --games 4 --seating rotate --seed 2 --json 2>/dev/null"):format(
        util.quote(util.exe), game, table.concat(bots, " ")))
      assert.equal(0, code, out)
      local _, ok = util.jq(out, '[.bots[].forfeits] | add == 0')
      assert.equal(0, ok, game .. ": " .. out)
    end
  end)

  it("play as the greedy bots do off their path too, where a third of the moves are random", function()
    for _, case in ipairs { { "citadels", 4, 10, 1000 }, { "bohnanza", 4, 8, 3000 }, { "rabohnzel", 4, 8, 3000 } } do
      local game, players, games, least = table.unpack(case)
      local decisions, differ = agreement(game, players, games, 0.3)
      assert.truthy(decisions > least, game .. ": " .. decisions .. " decisions")
      assert.same({}, differ)
    end
  end)
end)
