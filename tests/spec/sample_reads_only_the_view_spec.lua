-- sample_reads_only_the_view_spec.lua — a sample is a function of the viewer's information and the seed
-- alone. Two states the viewer cannot tell apart (the true one and any sample of it for that viewer)
-- give, for one seed, the same sample byte for byte (its save holds the state's bytes, the generator
-- included). A sample that pooled the unseen cards in their true order before shuffling would let
-- whoever knows the seed (a bot passing its own to `s:sample`, an external bot's `sample` request)
-- undo the shuffle and read the hidden cards; meeple.search, whose deals are these samples, then
-- chooses alike from both states.
local meeple = require "meeple"
local util = require "spec_util"

local GAMES = {
  babel = { 2 },
  citadels = { 2, 3, 4, 5, 7 },
  bohnanza = { 3, 4, 5 },
  rabohnzel = { 3, 4, 5 },
}
local NAMES = { "babel", "citadels", "bohnanza", "rabohnzel" }

-- Positions of random games: every `every` decisions of game `seed` with `players`, to the end.
local function positions(game, players, seed, every)
  local out = {}
  local s = meeple.new(game, { seed = seed, players = players })
  while not s:is_over() and #out < 40 do
    util.advance(s, every, seed * 1000 + #out + 1)
    if not s:is_over() then out[#out + 1] = s:clone() end
  end
  return out
end

describe("a sample reads only the viewer's information", function()
  for _, game in ipairs(NAMES) do
    it(game .. ": the true state and a sample of it give one sample for one seed, byte for byte", function()
      local checked, differed = 0, 0
      for _, players in ipairs(GAMES[game]) do
        for _, seed in ipairs { 3, 17, 101 } do
          for i, s in ipairs(positions(game, players, seed, 7)) do
            local viewers = { s:to_move(), (s:to_move() + i - 1) % players + 1 }
            for _, viewer in ipairs(viewers) do
              local world = s:sample(viewer, 9000 + i)
              if world:save() ~= s:sample(viewer, 9000 + i):save() then error("a sample is not repeatable") end
              for _, k in ipairs { 1, 77 } do
                local a, b = s:sample(viewer, k):save(), world:sample(viewer, k):save()
                assert(a == b, ("%s, %d players, game %d, position %d, viewer %d, sample seed %d: the sample "
                  .. "of the true state differs from that of a state the viewer cannot tell from it")
                  :format(game, players, seed, i, viewer, k))
                checked = checked + 1
              end
              if util.deep_equal(world:table(), s:table()) then differed = differed - 1 end
              differed = differed + 1
            end
          end
        end
      end
      -- the check could fail: the worlds hold other hidden cards than the truth, at most positions
      assert.truthy(checked >= 100, checked)
      assert.truthy(differed >= checked / 4, ("only %d of %d worlds differ from the truth"):format(differed, checked / 2))
    end)
  end
end)

describe("meeple.search reads only the searching seat's information", function()
  for _, game in ipairs(NAMES) do
    it(game .. ": from the true state and from a sample of it, the same choice for the same seed", function()
      local players = GAMES[game][#GAMES[game] > 1 and 2 or 1]
      local compared = 0
      for _, seed in ipairs { 5, 29 } do
        for i, s in ipairs(positions(game, players, seed, 11)) do
          if i > 6 then break end
          if #s:legal() > 1 then
            local world = s:sample(s:to_move(), 500 + i)
            for _, k in ipairs { 1, 2 } do
              local opts = { iterations = 60, greedy = 1, seed = k }
              local a, b = meeple.search(s, opts), meeple.search(world, opts)
              assert.equal(a, b, ("%s game %d position %d search seed %d"):format(game, seed, i, k))
              compared = compared + 1
            end
          end
        end
      end
      assert.truthy(compared >= 6, compared)
    end)
  end
end)

describe("a Rabohnzel Wise card drawn face down", function()
  -- With 4 Wise Beans in the field, `wise` draws a card its owner alone sees until it is planted or
  -- kept: to everyone else it is one more unseen card, pooled with the others.
  local function wise_positions(wanted)
    local out = {}
    for seed = 1, 40 do
      local s = meeple.new("rabohnzel", { seed = seed, players = 4 })
      local r = seed
      while not s:is_over() and #out < wanted do
        local legal = s:legal()
        for _, a in ipairs(legal) do
          if a == "wise" or a:match("^wise @") then
            local t, me = s:clone(), s:to_move()
            local f = tonumber(a:match("@(%d+)"))
            if not f then
              for i, field in ipairs(t:table().players[me].fields) do
                if field.beans[1] == "wise" then f = i end
              end
            end
            local size = #t:table().players[me].fields[f].beans
            if size >= 4 or pcall(t.move, t, "deck", ("players[%d].fields[%d]"):format(me, f),
                                  { card = "wise", count = 4 - size }) then
              t:play(a)
              local pending = t:table().pending
              if pending and pending.from == "wise" then out[#out + 1] = { s = t, owner = me } end
            end
            break
          end
        end
        r = (r * 1103515245 + 12345) % 2147483648
        s:play(legal[r % #legal + 1])
      end
    end
    return out
  end

  it("is re-dealt from the others' information alone: one sample for one seed from the truth and a sample", function()
    local positions = wise_positions(12)
    assert.truthy(#positions >= 12, #positions)
    local moved = 0
    for i, p in ipairs(positions) do
      for viewer = 1, 4 do
        if viewer ~= p.owner then
          assert.is_nil(p.s:view(viewer).pending.card)
          local world = p.s:sample(viewer, 300 + i)
          for _, k in ipairs { 1, 2 } do
            assert(p.s:sample(viewer, k):save() == world:sample(viewer, k):save(),
                   ("position %d, viewer %d, seed %d: the Wise card's sample reads the truth"):format(i, viewer, k))
          end
          if world:table().pending.card ~= p.s:table().pending.card then moved = moved + 1 end
        end
      end
    end
    assert.truthy(moved > 0, "no sample dealt another card as the Wise card")
  end)
end)
