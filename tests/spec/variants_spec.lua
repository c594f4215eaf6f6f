-- variants_spec.lua — house-rule variants: each shipped variant does what it says, hooks fail
-- clearly, no variant can create or lose a card, and every shipped variant keeps the games whole,
-- undoable, savable and deterministic.
local meeple = require "meeple"

local util = require "spec_util"
local root, deep_equal = util.root, util.deep_equal

local function write_variant(text) return util.write(text, ".lua") end

-- Why s:ranked(seed) is not the legal actions ordered by the mover's score after each, highest first;
-- nil when it is.
local function unranked(s, seed)
  local ranked, legal, mover = s:ranked(seed), s:legal(), s:to_move()
  if #ranked ~= #legal then return ("%d ranked, %d legal"):format(#ranked, #legal) end
  local is_legal, last = {}, math.huge
  for _, a in ipairs(legal) do is_legal[a] = true end
  for _, a in ipairs(ranked) do
    if not is_legal[a] then return a .. " is not legal" end
    local score = s:clone():play(a):scores()[mover]
    if score > last then return a .. " scores more than the action before it" end
    last = score
  end
end

local function count_cards(t)
  local n = 0
  local function walk(v)
    if type(v) == "table" then for _, x in pairs(v) do walk(x) end
    elseif type(v) == "string" and v ~= t.game then n = n + 1 end
  end
  return n
end

describe("shipped babel variants", function()
  it("sumerians-all: the switch takes every card of the top card's people", function()
    local s = meeple.from_table {
      game = "babel", variant = "sumerians-all",
      players = {
        { pawn = "medes", rows = { medes = { "sumerians", "sumerians", "sumerians" } } },
        { rows = { medes = { "hittites", "persians", "hittites", "hittites" } } },
      },
    }
    s:play("switch")
    local t = s:table()
    assert.are.same({ "sumerians", "sumerians", "hittites", "hittites", "hittites" }, t.players[1].rows.medes)
    assert.are.same({ "persians" }, t.players[2].rows.medes)
  end)

  it("handicap: the start player starts with 3 cards, the other with 5", function()
    local s = meeple.new("babel", { variant = "handicap", seed = 2 })
    local t = s:table()
    assert.are.equal(3 + 3, #t.players[1].hand) -- 3 dealt, 3 drawn on the first turn
    assert.are.equal(5, #t.players[2].hand)
    assert.are.equal("handicap", s:variant())
  end)

  it("short: 12 against an opponent under 8 ends the game", function()
    local s = meeple.from_table {
      game = "babel", variant = "short",
      players = {
        { temples = { medes = { 1, 2, 3, 4, 5, 6 }, sumerians = { 1, 2, 3, 4, 5, 6 } } },
        { temples = { medes = { 1, 2, 3, 4, 5, 6, } } },
      },
    }
    assert.is_true(s:is_over())
    assert.are.same({ 1 }, s:winners())
    local base = meeple.from_table {
      game = "babel",
      players = {
        { temples = { medes = { 1, 2, 3, 4, 5, 6 }, sumerians = { 1, 2, 3, 4, 5, 6 } } },
        { temples = { medes = { 1, 2, 3, 4, 5, 6 } } },
      },
    }
    assert.is_false(base:is_over())
  end)

  it("tower-bonus: a temple of height 6 scores 3 extra points", function()
    local s = meeple.from_table {
      game = "babel", variant = "tower-bonus",
      players = { { temples = { medes = { 1, 2, 3, 4, 5, 6 }, hittites = { 1, 2 } } }, {} },
    }
    assert.are.same({ 6 + 2 + 3, 0 }, s:scores())
    assert.are.equal(8, s:base_score(1))
  end)

  it("caravan: two identical cards buy one temple card, once a turn", function()
    local s = meeple.from_table {
      game = "babel", variant = "caravan", temple_top = { 4 },
      players = { { hand = { "medes", "medes", "medes", "medes", "persians" }, pawn = "medes" }, { hand = 3 } },
    }
    assert.is_truthy(table.concat(s:legal(), ","):find("caravan medes", 1, true))
    assert.is_false((s:check("caravan persians")))
    s:play("caravan medes")
    local t = s:table()
    assert.are.same({ 4 }, t.players[1].reserve)
    assert.are.equal(3, #t.players[1].hand)
    assert.are.same({ "medes", "medes" }, t.discard)
    local ok, why = s:check("caravan medes")
    assert.is_false(ok)
    assert.is_truthy(why:find("once a turn"))
    s:undo()
    assert.are.equal(5, #s:table().players[1].hand)
  end)
end)

describe("playout under a variant", function()
  it("goes through the hooks: the variant's rules end the game, its actions are played", function()
    local counts = {}
    for seed = 1, 20 do
      local s = meeple.new("babel", { seed = seed, variant = "caravan" })
      s:playout(seed)
      assert.is_true(s:is_over())
      for _, h in ipairs(s:history()) do
        local verb = h.action:match("^%a+")
        counts[verb] = (counts[verb] or 0) + 1
      end
      local again = meeple.new("babel", { seed = seed, variant = "caravan" })
      again:playout(seed)
      assert.same(s:history(), again:history())
      assert.same(s:table(), meeple.load(s:save()):table())
    end
    assert.truthy((counts.caravan or 0) > 0, "the variant's own action is played")
    local ten = write_variant([[return { game = "babel", name = "ten",
      hooks = { is_over = function(s) if #s:history() >= 10 then return true, { 2 } end end } }]])
    local s = meeple.new("babel", { seed = 1, variant = ten })
    assert.equal(10, s:playout(1))
    assert.same({ 2 }, s:winners())
    os.remove(ten)
  end)

  it("keeps the rules' contract: n, greedy, and the same refusals", function()
    local s = meeple.new("babel", { seed = 2, variant = "tower-bonus" })
    assert.equal(7, s:playout(1, 7.0))
    assert.equal(7, #s:history())
    local greedy = meeple.new("babel", { seed = 2, variant = "tower-bonus" })
    greedy:playout(3, nil, 1)
    assert.is_true(greedy:is_over())
    for _, bad in ipairs {
      { { "x" }, "playout: seed must be an integer, got 'x'" },
      { { 1, -2 }, "playout: n must be a count of decisions, got -2 (nil or -1: to the end; at most 1000000 are played)" },
      { { 1, 1 << 40 }, "playout: n must be a count of decisions, got 1099511627776 (nil or -1: to the end" },
      { { 1, nil, 0 / 0 }, "playout: greedy must be a share between 0 and 1" },
      { { 1, nil, false }, "playout: greedy must be a share between 0 and 1" },
    } do
      local ok, err = pcall(s.playout, s, table.unpack(bad[1], 1, 3))
      assert.is_false(ok)
      assert.truthy(err:find(bad[2], 1, true), err)
    end
    assert.equal(7, #s:history())
  end)
end)

describe("ranked under a variant", function()
  it("lists the variant's legal actions, those that raise the mover's score most first", function()
    for seed = 1, 5 do
      local s = meeple.new("babel", { seed = seed, variant = "caravan" })
      s:playout(seed, 20)
      if not s:is_over() then
        assert.is_nil(unranked(s, seed))
      end
    end
    local s = meeple.new("babel", { seed = 1, variant = "caravan" })
    local ok, err = pcall(s.ranked, s, "x")
    assert.is_false(ok)
    assert.truthy(err:find("ranked: seed must be an integer, got 'x'", 1, true), err)
  end)
end)

describe("shipped citadels variants", function()
  it("seven: a city of 7 districts completes it", function()
    local s = meeple.from_table {
      game = "citadels", variant = "seven",
      players = { { city = { "manor", "castle", "palace", "temple", "church", "tavern", "market" } }, {}, {}, {} },
    }
    assert.are.equal(1, s:table().first_complete)
    local base = meeple.from_table {
      game = "citadels",
      players = { { city = { "manor", "castle", "palace", "temple", "church", "tavern", "market" } }, {}, {}, {} },
    }
    assert.is_nil(base:table().first_complete)
  end)

  it("taxes: at the start of each round a player with 5 or more gold pays 1", function()
    local s = meeple.new("citadels", { variant = "taxes", players = 4, seed = 3, params = { start_gold = 6 } })
    for _, p in ipairs(s:table().players) do assert.are.equal(5, p.gold) end
    -- Play the first round out taking gold, and watch the second round begin taxed.
    while s:table().round == 1 do
      local legal = s:legal()
      local pick = legal[1]
      for _, a in ipairs(legal) do if a == "gold" or a == "end" then pick = a break end end
      s:play(pick)
    end
    local gold_before = {}
    local replay = meeple.new("citadels", { players = 4, seed = 3, params = { start_gold = 5 } })
    for _, h in ipairs(s:history()) do replay:play(h.action) end
    for p, player in ipairs(replay:table().players) do gold_before[p] = player.gold end
    for p, player in ipairs(s:table().players) do
      local expected = gold_before[p] >= 5 and gold_before[p] - 1 or gold_before[p]
      assert.are.equal(expected, player.gold, "player " .. p)
    end
  end)
end)

describe("shipped bean variants", function()
  it("first-edition: two fields even with 3 players (Amigo gives 3 a third)", function()
    assert.equal(3, #meeple.new("bohnanza", { players = 3, seed = 2 }):table().players[1].fields)
    assert.equal(2, #meeple.new("bohnanza", { players = 3, variant = "first-edition", seed = 2 }):table().players[1].fields)
  end)

  it("rabohnzel beanometers: as shipped every meter stays provisional; a real one replaces its bean's", function()
    local shipped = meeple.new("rabohnzel", { variant = "beanometers", seed = 1 })
    for name, card in pairs(shipped:cards()) do
      if card.kind == "bean" then assert.is_true(card.provisional, name) end
    end
    local file = write_variant([[return { game = "rabohnzel", name = "real-sword",
      params = { beanometer = { sword = { 5, 7, 9, 11 } } } }]])
    local s = meeple.new("rabohnzel", { variant = file, seed = 1 })
    local cards = s:cards()
    assert.same({ 5, 7, 9, 11 }, cards.sword.meter)
    assert.is_false(cards.sword.provisional)
    assert.is_true(cards.princess.provisional)
    -- harvests pay by it: 6 swords are 1 coin by the real meter (2 by the provisional one)
    local function harvest_six(variant)
      local h = meeple.from_table { game = "rabohnzel", variant = variant, phase = "plant", active = 1, start = 1,
        countdown = "luck", players = { { hand = { "princess" }, fields = { { "sword", "sword", "sword", "sword", "sword",
        "sword" }, {} } }, { hand = 1 }, { hand = 1 } } }
      h:play("harvest 1")
      return #h:table().players[1].coins
    end
    assert.equal(1, harvest_six(file))
    assert.equal(2, harvest_six(nil))
    os.remove(file)
  end)
end)

describe("variant loading", function()
  it("finds a variant by name or by path, and records its name in the save", function()
    local by_name = meeple.new("babel", { variant = "short" })
    local by_path = meeple.new("babel", { variant = root .. "/scripts/variants/babel/short.lua" })
    assert.are.equal("short", by_name:variant())
    assert.is_truthy(by_name:save():find("\nvariant short\n", 1, true))
    assert.is_truthy(by_path:save():find("variant " .. root, 1, true))
    local loaded = meeple.load(by_name:save())
    assert.are.equal("short", loaded:variant())
  end)

  it("refuses a variant for another game", function()
    local ok, err = pcall(meeple.new, "citadels", { variant = root .. "/scripts/variants/babel/short.lua" })
    assert.is_false(ok)
    assert.is_truthy(err:find("is for babel, not citadels", 1, true))
  end)

  it("names the file and the key of a bad parameter", function()
    local path = write_variant('return { game = "babel", name = "x", params = { end_totl = 3 } }')
    local ok, err = pcall(meeple.new, "babel", { variant = path })
    assert.is_false(ok)
    assert.is_truthy(err:find(path, 1, true))
    assert.is_truthy(err:find("end_totl", 1, true))
    path = write_variant('return { game = "babel", name = "x", params = { end_total = 99 } }')
    ok, err = pcall(meeple.new, "babel", { variant = path })
    assert.is_truthy(err:find("end_total must be 1..30", 1, true))
  end)

  it("refuses unknown hooks and fields, and a missing variant, with one line", function()
    local path = write_variant('return { game = "babel", name = "x", hooks = { on_draw = function() end } }')
    local ok, err = pcall(meeple.new, "babel", { variant = path })
    assert.is_truthy(err:find("unknown hook 'on_draw'", 1, true))
    path = write_variant('return { game = "babel", name = "x", colour = "red" }')
    ok, err = pcall(meeple.new, "babel", { variant = path })
    assert.is_truthy(err:find("unknown field 'colour'", 1, true))
    ok, err = pcall(meeple.new, "babel", { variant = "no-such-variant" })
    assert.is_false(ok)
    assert.is_nil(err:find("\n"))
  end)

  it("a raising hook names the variant file and line, and changes nothing", function()
    local path = write_variant('return { game = "babel", name = "boom", hooks = {\n after = function(s, a)\n error("boom")\n end } }')
    local s = meeple.new("babel", { variant = path })
    local before = s:table()
    local ok, err = pcall(s.play, s, s:legal()[1])
    assert.is_false(ok)
    assert.is_truthy(err:find(path .. ":3: boom", 1, true))
    assert.is_true(deep_equal(before, s:table()))
    assert.are.equal(0, #s:history())
  end)

  it("a hook cannot create or lose a card", function()
    local path = write_variant([[return { game = "babel", name = "thief", hooks = { after = function(s)
      s:move("players[1].hand", "nowhere", { card = "medes" }) end } }]])
    local s = meeple.new("babel", { variant = path })
    local ok, err = pcall(s.play, s, s:legal()[1])
    assert.is_false(ok)
    assert.is_truthy(err:find("'nowhere' is no zone", 1, true))
    local t = meeple.new("babel"):table()
    assert.has_error(function() meeple.new("babel"):move("players[1].hand", "discard", { card = "unicorn" }) end)
    assert.has_error(function() meeple.new("babel"):move("players[1].reserve", "discard") end) -- temple vs people
    assert.has_error(function() meeple.new("citadels"):add("players[1].gold", -3) end)
    local s2 = meeple.new("babel")
    s2:move("players[1].reserve", "players[2].reserve")
    assert.are.equal(count_cards(t), count_cards(s2:table()))
  end)

  it("s:move reaches a bean field by its documented name, players[N].fields[F]", function()
    for _, game in ipairs { "bohnanza", "rabohnzel" } do
      local s = meeple.new(game, { seed = 4, players = 3 })
      local bean = s:table().deck[#s:table().deck]
      s:move("deck", "players[2].fields[2]")
      assert.same({ bean }, s:table().players[2].fields[2].beans or s:table().players[2].fields[2])
      for _, bad in ipairs { "players[2].fields[9]", "players[2].fields[0]", "players[2].fields[1]x", "players[2].fields[1" } do
        local ok, err = pcall(s.move, s, "deck", bad)
        assert.is_false(ok)
        assert.truthy(err:find("'" .. bad .. "' is no zone", 1, true), err)
        if bad:find("%]$") and not bad:find("x") then -- a field number past the seat's fields says how many it has
          assert.truthy(err:find("player 2 has fields 1 to %d"), err)
        end
      end
    end
  end)

  it("a hook's table is a copy: changing it changes nothing", function()
    local path = write_variant([[return { game = "babel", name = "scribble", hooks = { after = function(s)
      local t = s:table(); t.players[1].hand = {}; t.discard[#t.discard + 1] = "medes" end } }]])
    local s = meeple.new("babel", { variant = path })
    s:play(s:legal()[1])
    assert.is_true(#s:table().players[1].hand > 0)
  end)

  it("variants cannot reach the machine or outside randomness", function()
    local path = write_variant([[return { game = "babel", name = "nosy", hooks = { after = function(s)
      return io.open("/etc/passwd") end } }]])
    local s = meeple.new("babel", { variant = path })
    local ok, err = pcall(s.play, s, s:legal()[1])
    assert.is_false(ok)
    assert.is_truthy(err:find("io", 1, true))
    path = write_variant([[return { game = "babel", name = "dice", hooks = { after = function(s)
      return math.random(6) end } }]])
    s = meeple.new("babel", { variant = path })
    assert.has_error(function() s:play(s:legal()[1]) end)
  end)
end)

-- Every shipped variant: complete games with every card accounted for, undo, save/load and the same
-- game from the same seed and actions.
local shipped = {
  babel = { "sumerians-all", "handicap", "short", "tower-bonus", "caravan" },
  citadels = { "seven", "taxes" },
}

for game, names in pairs(shipped) do
  for _, name in ipairs(names) do
    describe(game .. "/" .. name .. " conformance", function()
      it("plays complete games that keep every card, undo, save and replay exactly", function()
        for seed = 1, 8 do
          local s = meeple.new(game, { variant = name, seed = seed })
          local cards = count_cards(s:table())
          local tables = { s:table() }
          local steps = 0
          while not s:is_over() and steps < 3000 do
            local legal = s:legal()
            assert.is_true(#legal > 0)
            -- Added actions first, so that they are played too.
            local pick = legal[(seed * 31 + steps) % #legal + 1]
            for _, a in ipairs(legal) do if a:match("^caravan") and steps % 3 == 0 then pick = a end end
            s:play(pick)
            steps = steps + 1
            assert.are.equal(cards, count_cards(s:table()), name .. ": a card appeared or vanished")
            tables[#tables + 1] = s:table()
          end
          assert.is_true(s:is_over(), name .. " did not end")
          assert.is_true(#s:winners() >= 1)
          local loaded = meeple.load(s:save())
          assert.is_true(deep_equal(s:table(), loaded:table()))
          assert.are.same(s:scores(), loaded:scores())
          local again = meeple.new(game, { variant = name, seed = seed })
          for _, h in ipairs(s:history()) do again:play(h.action) end
          assert.is_true(deep_equal(s:table(), again:table()))
          s:undo(5)
          assert.is_true(deep_equal(tables[#tables - 5], s:table()))
        end
      end)
    end)
  end
end
