-- conformance_spec.lua — what every registered game owes the Lua side, checked over seeded random
-- games: tables round-trip through meeple.from_table, a view is itself a partial table that rebuilds
-- a game with the same view, views hold only sizes where cards are hidden, and clones, undo and saves
-- agree with the original. (The C conformance test covers the rules' invariants decision by decision.)
local meeple = require "meeple"

local util = require "spec_util"
local deep_equal = util.deep_equal

-- Seeded games a check plays: a few in the quick suite, the full count in the soak (#soak: ctest -L soak).
local soak_count = util.soak_count

-- Plays a seeded random game, calling visit(s) before every decision and at the end.
local function random_game(game, seed, visit)
  local s = meeple.new(game, { seed = seed })
  local pick = 0
  while not s:is_over() do
    visit(s)
    local legal = s:legal()
    pick = (pick * 1103515245 + 12345 + seed) % 2147483648
    s:play(legal[pick % #legal + 1])
  end
  visit(s)
  return s
end

-- The player counts a game accepts (meeple.new refuses the others with a reason).
local function player_counts(game)
  local counts = {}
  for n = 1, 8 do
    if pcall(meeple.new, game, { players = n }) then counts[#counts + 1] = n end
  end
  return counts
end

-- The part of two views that is the same: keys both hold, with their shared parts (a list keeps its
-- places); what differs is dropped.
local function shared_part(a, b)
  if type(a) ~= "table" or type(b) ~= "table" then return a == b and a or nil end
  local out = {}
  for k, v in pairs(a) do
    if b[k] ~= nil then out[k] = shared_part(v, b[k]) end
  end
  return out
end

-- What every player's view of s holds alike.
local function common_view(s)
  local shared = s:view(1)
  for p = 2, s:num_players() do shared = shared_part(shared, s:view(p)) end
  return shared
end

for _, game in ipairs(meeple.games()) do
  describe(game .. " conformance", function()
    it("plays complete games at every player count #soak", function()
      local counts = player_counts(game)
      assert.is_true(#counts >= 1)
      for _, n in ipairs(counts) do
        for seed = 1, soak_count(5, 25) do
          local s = meeple.new(game, { seed = seed, players = n })
          local decisions = 0
          while not s:is_over() do
            local legal = s:legal()
            assert.is_true(#legal > 0, ("%s, %d players, seed %d: no legal action"):format(game, n, seed))
            s:play(legal[(seed * 7919 + decisions) % #legal + 1])
            decisions = decisions + 1
          end
          assert.are.equal(n, #s:scores())
          assert.is_true(#s:winners() >= 1)
          assert.are.same({}, s:legal())
        end
      end
    end)

    it("every state table rebuilds the same state table #soak", function()
      for seed = 1, soak_count(4, 20) do
        random_game(game, seed, function(s)
          local t = s:table()
          assert.is_true(deep_equal(t, meeple.from_table(t):table()), "seed " .. seed .. ", turn " .. s:turn())
        end)
      end
    end)

    it("a view rebuilds a game that shows the same view #soak", function()
      for seed = 1, soak_count(4, 20) do
        random_game(game, seed, function(s)
          for p = 1, s:num_players() do
            local view = s:view(p)
            assert.is_true(deep_equal(view, meeple.from_table(view):view(p)), "seed " .. seed)
          end
        end)
      end
    end)

    it("a sample keeps the view and is a full state #soak", function()
      for seed = 1, soak_count(2, 10) do
        random_game(game, seed, function(s)
          for p = 1, s:num_players() do
            local sampled = s:sample(p, seed)
            assert.is_true(deep_equal(s:view(p), sampled:view(p)))
            assert.are.equal(#s:legal(), #s:legal()) -- the original is untouched
          end
        end)
      end
    end)

    -- What every seat's view holds alike is public: cards shown to all (an offered or stolen hand card,
    -- a revealed spell), sizes, the open zones. A sample for any player keeps all of it.
    it("samples respect every shown card: what all views share stays in a sample #soak", function()
      for seed = 1, soak_count(1, 3) do
        local step = 0
        random_game(game, seed, function(s)
          step = step + 1
          if step % 9 ~= 0 then return end
          local shared = common_view(s)
          for p = 1, s:num_players() do
            local sampled = s:sample(p, seed + step)
            assert.is_true(deep_equal(shared, common_view(sampled)),
              ("seed %d, decision %d: a sample for player %d changed what every player sees"):format(seed, step, p))
          end
        end)
      end
    end)

    it("undo of every decision returns to the table before it", function()
      local tables = {}
      local s = random_game(game, 3, function(s) tables[#tables + 1] = s:table() end)
      for i = #tables - 1, 1, -1 do
        s:undo()
        assert.is_true(deep_equal(tables[i], s:table()), "undo to decision " .. i)
      end
      assert.are.equal(0, #s:history())
    end)

    it("a finished game saves, loads and replays identically", function()
      local s = random_game(game, 5, function() end)
      local loaded = meeple.load(s:save())
      assert.is_true(deep_equal(s:table(), loaded:table()))
      assert.is_true(deep_equal(s:history(), loaded:history()))
      assert.are.same(s:winners(), loaded:winners())
      assert.are.same({}, loaded:legal())
      assert.is_nil(loaded:to_move())
    end)

    it("a clone goes its own way", function()
      local s = meeple.new(game, { seed = 9 })
      local before = s:table()
      local c = s:clone()
      c:play(c:legal()[1])
      assert.is_true(deep_equal(before, s:table()))
      assert.is_false(deep_equal(before, c:table()))
    end)
  end)
end
