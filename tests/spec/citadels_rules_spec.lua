local meeple = require "meeple"

-- Citadels rule scenarios: one `it` per rule of ../shared/rules/citadels.md.
--
-- Positions are built with meeple.from_table through `citadels{...}` below, which always hands over a
-- complete, consistent table: every player's gold, hand, city and characters; the characters nobody
-- holds split between aside_up (as many as the player count puts face up, never the king) and
-- aside_down; and the whole deck (every district not in a hand or city, with `deck_top` on top).
-- A position in phase "turns" with `current = C` is the start of C's turn: no action taken yet.
-- Effects that happen when a character is called (the king's crown, the thief's take) are always
-- checked by playing into that character's turn from an earlier one, never by loading a table at it.
-- Hands carry no order: they are compared sorted. Decks are bottom first (the last card is the top).

---------------------------------------------------------------------------
-- components
---------------------------------------------------------------------------
local CHARS = { "assassin", "thief", "magician", "king", "bishop", "merchant", "architect", "warlord" }
local RANK = {}
for i, c in ipairs(CHARS) do RANK[c] = i end
local FACE_UP = { [2] = 0, [3] = 0, [4] = 2, [5] = 1, [6] = 0, [7] = 0 }

-- name, cost, colour, copies
local DISTRICT_LIST = {
  { "manor", 3, "yellow", 5 }, { "castle", 4, "yellow", 4 }, { "palace", 5, "yellow", 3 },
  { "temple", 1, "blue", 3 }, { "church", 2, "blue", 3 }, { "monastery", 3, "blue", 3 },
  { "cathedral", 5, "blue", 2 },
  { "tavern", 1, "green", 5 }, { "market", 2, "green", 4 }, { "trading_post", 2, "green", 3 },
  { "docks", 3, "green", 3 }, { "harbor", 4, "green", 3 }, { "town_hall", 5, "green", 2 },
  { "watchtower", 1, "red", 3 }, { "prison", 2, "red", 3 }, { "battlefield", 3, "red", 3 },
  { "fortress", 5, "red", 2 },
  { "haunted_city", 2, "purple", 1 }, { "keep", 3, "purple", 2 }, { "laboratory", 5, "purple", 1 },
  { "smithy", 5, "purple", 1 }, { "observatory", 5, "purple", 1 }, { "graveyard", 5, "purple", 1 },
  { "dragon_gate", 6, "purple", 1 }, { "university", 6, "purple", 1 }, { "library", 6, "purple", 1 },
  { "great_wall", 6, "purple", 1 }, { "school_of_magic", 6, "purple", 1 },
}
local COST, COLOUR = {}, {}
local ALL_DISTRICTS = {}
for _, d in ipairs(DISTRICT_LIST) do
  COST[d[1]], COLOUR[d[1]] = d[2], d[3]
  for _ = 1, d[4] do ALL_DISTRICTS[#ALL_DISTRICTS + 1] = d[1] end
end
assert(#ALL_DISTRICTS == 66)

---------------------------------------------------------------------------
-- helpers
---------------------------------------------------------------------------
local util = require "spec_util"
local cat, count, has, sorted = util.cat, util.count, util.has, util.sorted

local minus = util.minus

local function num(x)
  if type(x) == "table" then return #x end
  return x or 0
end

-- A complete table for meeple.from_table (see the header).
local function citadels(t)
  local n = #t.players
  t.game = "citadels"
  t.phase = t.phase or "turns"
  t.round = t.round or 2
  t.crown = t.crown or 1
  t.seed = t.seed or 1
  local used, held = {}, {}
  for i, p in ipairs(t.players) do
    p.gold = p.gold or 0
    p.hand = p.hand or {}
    p.city = p.city or {}
    p.characters = p.characters or {}
    used = cat(used, p.hand, p.city)
    for _, c in ipairs(p.characters) do held[c] = i end
  end
  if t.phase == "turns" then
    if t.current and not t.to_move then t.to_move = held[t.current] end
    local free = {}
    for i = #CHARS, 1, -1 do
      local c = CHARS[i]
      if not held[c] then free[#free + 1] = c end
    end
    if not t.aside_up then
      t.aside_up = {}
      for _, c in ipairs(free) do
        if #t.aside_up >= FACE_UP[n] then break end
        if c ~= "king" then t.aside_up[#t.aside_up + 1] = c end
      end
    end
    if not t.aside_down then t.aside_down = minus(free, t.aside_up) end
  end
  local top = t.deck_top or {}
  t.deck_top = nil
  if not t.deck then t.deck = cat(minus(ALL_DISTRICTS, cat(used, top)), top) end
  return meeple.from_table(t)
end

local function tab(s) return s:table() end
local function player(s, p) return s:table().players[p] end
local function gold(s, p) return player(s, p).gold end
local function hand(s, p) return sorted(player(s, p).hand) end
local function city(s, p) return sorted(player(s, p).city) end
local function deck(s) return s:table().deck or {} end

local legal_text, assert_legal, assert_illegal, play = util.legal_text, util.assert_legal, util.assert_illegal, util.play

-- the arguments of the legal actions "VERB X"
local function options(s, verb)
  local t = {}
  for _, a in ipairs(s:legal()) do
    local v, x = a:match("^(%S+) (.+)$")
    if v == verb then t[#t + 1] = x end
  end
  return t
end

-- a plain turn: take gold if the action is still to take, then end
local function pass_turn(s)
  if has(s:legal(), "gold") then s:play("gold") end
  s:play("end")
end

-- plain turns until character c is called
local function advance_to(s, c)
  for _ = 1, 20 do
    local t = s:table()
    assert(t.phase == "turns", "the round ended before the " .. c .. " was called")
    if t.current == c then return s end
    pass_turn(s)
  end
  error("the " .. c .. " was never called")
end

-- plain turns to the end of the round
local function finish_round(s)
  for _ = 1, 20 do
    if s:is_over() or s:table().phase ~= "turns" then return s end
    pass_turn(s)
  end
  error("the round did not end")
end

-- the characters of the pack still to be chosen (god view, while choosing)
local function pack_of(t)
  local out = {}
  local gone = {}
  for _, c in ipairs(t.aside_up or {}) do gone[c] = true end
  for _, c in ipairs(t.aside_down or {}) do gone[c] = true end
  for _, p in ipairs(t.players) do
    for _, c in ipairs(p.characters or {}) do gone[c] = true end
  end
  for _, c in ipairs(CHARS) do
    if not gone[c] then out[#out + 1] = c end
  end
  return out
end

local function held_count(t)
  local n = 0
  for _, p in ipairs(t.players) do n = n + #(p.characters or {}) end
  return n
end

-- every word in a (view) table: keys, string values, and the words inside strings
local function words(v, out, seen)
  out, seen = out or {}, seen or {}
  if type(v) == "string" then
    for w in v:gmatch("[%w_]+") do out[w] = true end
  elseif type(v) == "table" and not seen[v] then
    seen[v] = true
    for k, x in pairs(v) do
      words(k, out, seen)
      words(x, out, seen)
    end
  end
  return out
end

-- base score of a city (no completion bonus, no haunted city choice)
local function city_points(c)
  local pts, colours = 0, {}
  for _, d in ipairs(c) do
    pts = pts + ((d == "dragon_gate" or d == "university") and 8 or COST[d])
    colours[COLOUR[d]] = true
  end
  local five = colours.yellow and colours.blue and colours.green and colours.red and colours.purple
  return pts + (five and 3 or 0)
end

-- a seeded pseudo-random number in 1..k
local function lcg(seed)
  local x = seed
  return function(k)
    x = (x * 1103515245 + 12345) % 2147483648
    return (x // 65536) % k + 1
  end
end

---------------------------------------------------------------------------
---------------------------------------------------------------------------
-- the limits of the parameters: what the state holds, and a clear refusal past it
---------------------------------------------------------------------------
describe("citadels parameter limits", function()
  local function refusal(players, params)
    local ok, err = pcall(meeple.new, "citadels", { players = players, seed = 1, params = params })
    assert.is_false(ok, "accepted " .. players .. " players")
    return err
  end

  it("a city of all 28 district names ends the game; a larger city_size is refused, as it could never be reached", function()
    assert.truthy(refusal(4, { city_size = 29 }):find("parameter city_size must be 1..28, got 29", 1, true))
    -- a city of 27 names, one build from the 28th, completes on that build
    local names, built = {}, {}
    for _, d in ipairs(ALL_DISTRICTS) do
      if not names[d] then names[d] = true; built[#built + 1] = d end
    end
    local last = table.remove(built)
    local s = citadels { params = { city_size = 28 }, current = "merchant", players = {
      { gold = 10, hand = { last }, city = built, characters = { "merchant" } },
      { characters = { "king" } }, { characters = { "bishop" } }, { characters = { "warlord" } } } }
    assert.is_nil(s:table().first_complete)
    s:play("gold")
    s:play("build " .. last)
    assert.equal(28, #player(s, 1).city)
    assert.equal(1, s:table().first_complete)
  end)

  it("start_cards deals from the deck for every player, or is refused: never a short deal", function()
    local s = meeple.new("citadels", { players = 2, seed = 1, params = { start_cards = 33 } })
    assert.equal(33, #s:table().players[1].hand)
    assert.equal(33, #s:table().players[2].hand)
    assert.equal(0, #s:table().deck)
    assert.equal(9, #meeple.new("citadels", { players = 7, seed = 1, params = { start_cards = 9 } }):table().players[7].hand)
    assert.truthy(refusal(7, { start_cards = 10 }):find(
      "start_cards = 10 with 7 players deals 70 cards, and the deck holds 66 (at most 9 each)", 1, true))
    assert.truthy(refusal(3, { start_cards = 23 }):find("(at most 22 each)", 1, true))
    assert.truthy(refusal(2, { start_cards = 34 }):find("parameter start_cards must be 0..33, got 34", 1, true))
  end)

  it("face_up past what leaves every draft step a character is refused, not cut short", function()
    assert.equal(3, #meeple.new("citadels", { players = 4, seed = 1, params = { face_up = 3 } }):table().aside_up)
    assert.truthy(refusal(4, { face_up = 4 }):find(
      "face_up = 4 with 4 players leaves a draft step without a character (at most 3: 8 characters, one face down, 4 chosen)",
      1, true))
    assert.truthy(refusal(7, { face_up = 1 }):find("(at most 0:", 1, true))
    assert.truthy(refusal(2, { face_up = { 2, 0, 0, 0, 0, 0 } }):find("face_up = 2 with 2 players", 1, true))
    -- the same list is fine at a player count it leaves room for
    assert.truthy(meeple.new("citadels", { players = 4, seed = 1, params = { face_up = { 2, 0, 0, 0, 0, 0 } } }))
    -- and a table with too many face up for its players is refused too
    local t = meeple.new("citadels", { players = 6, seed = 1 }):table()
    t.params = { face_up = 2 }
    local ok, err = pcall(meeple.from_table, t)
    assert.is_false(ok)
    assert.truthy(tostring(err):find("face_up = 2 with 6 players", 1, true), err)
  end)

  it("a save whose start state holds too many face up for its players is refused, not cut short", function()
    -- The start bytes hold face_up by player count; where they lie is found by two saves differing
    -- only in it, so the test does not depend on the state's layout.
    local t = meeple.new("citadels", { players = 4, seed = 1 }):table()
    local function save(face_up)
      t.params = { face_up = face_up }
      return meeple.from_table(t):save()
    end
    local two, three = save(2), save(3)
    local a, b = two:match("start (%x+)"), three:match("start (%x+)")
    local bytes, changed = {}, 0
    for i = 1, #a, 2 do
      local differs = a:sub(i, i + 1) ~= b:sub(i, i + 1)
      bytes[#bytes + 1] = differs and "07" or a:sub(i, i + 1)
      if differs then changed = changed + 1 end
    end
    assert.is_true(changed > 0)
    assert.truthy(meeple.load(two)) -- the save as made loads
    local damaged = two:gsub("start %x+", "start " .. table.concat(bytes))
    local ok, err = pcall(meeple.load, damaged)
    assert.is_false(ok)
    assert.truthy(tostring(err):find("face_up = 7 with 4 players leaves a draft step without a character", 1, true), err)
  end)

  it("plays whole games at the limits without breaking an invariant", function()
    for _, o in ipairs { { players = 2, params = { start_cards = 33, city_size = 28 } },
      { players = 7, params = { start_cards = 9, city_size = 28, start_gold = 100 } } } do
      for seed = 1, 3 do
        local s = meeple.new("citadels", { seed = seed, players = o.players, params = o.params })
        local n = 0
        while not s:is_over() do
          local legal = s:legal()
          s:play(legal[(seed * 7 + n) % #legal + 1])
          n = n + 1
        end
        assert.truthy(s:winners())
      end
    end
  end)
end)

describe("citadels setup", function()
  it("each player starts with 4 districts and 2 gold, player 1 holds the crown and chooses first", function()
    for n = 2, 7 do
      local s = meeple.new("citadels", { players = n, seed = n })
      local t = s:table()
      assert.equal("citadels", t.game)
      assert.equal("choose", t.phase)
      assert.equal(1, t.round)
      assert.equal(1, t.crown)
      assert.equal(1, s:to_move())
      local cards = #t.deck
      for p = 1, n do
        assert.equal(2, t.players[p].gold)
        assert.equal(4, #t.players[p].hand)
        assert.same({}, t.players[p].city)
        cards = cards + #t.players[p].hand
      end
      assert.equal(66, cards)
    end
  end)

  it("the deck holds the 66 districts with their copies", function()
    local s = meeple.new("citadels", { players = 4, seed = 7 })
    local t = s:table()
    local all = cat(t.deck)
    for p = 1, 4 do all = cat(all, t.players[p].hand) end
    assert.same(sorted(ALL_DISTRICTS), sorted(all))
  end)
end)

---------------------------------------------------------------------------
describe("citadels drafts", function()
  -- plays a whole draft, choosing at random; returns the option counts and seats of each choose
  local function run_draft(n, seed)
    local s = meeple.new("citadels", { players = n, seed = seed })
    local t = s:table()
    assert.equal("choose", t.phase)
    assert.equal(FACE_UP[n], #(t.aside_up or {}), n .. " players: face-up characters")
    assert.equal(1, #(t.aside_down or {}), n .. " players: one face down at the start")
    assert.is_false(has(t.aside_up, "king"), "the king is never face up")
    local rnd = lcg(seed)
    local sizes, seats = {}, {}
    while s:table().phase == "choose" do
      local opts = options(s, "choose")
      if #opts > 0 then
        sizes[#sizes + 1] = #opts
        seats[#seats + 1] = s:to_move()
        play(s, "choose " .. opts[rnd(#opts)])
      else
        s:play(s:legal()[1])      -- an explicit forced put-aside, if the implementation asks for one
      end
    end
    return s, sizes, seats
  end

  local function after_draft(s, n, per_player, down)
    local t = s:table()
    assert.equal("turns", t.phase)
    for p = 1, n do
      assert.equal(per_player, #t.players[p].characters, "characters of player " .. p)
    end
    assert.equal(FACE_UP[n], #(t.aside_up or {}))
    assert.equal(down, #(t.aside_down or {}))
    assert.equal(8, held_count(t) + #(t.aside_up or {}) + #(t.aside_down or {}))
    -- the lowest held character is called first
    local first
    for _, c in ipairs(CHARS) do
      for p = 1, n do
        if not first and has(t.players[p].characters, c) then first = { c, p } end
      end
    end
    assert.equal(first[1], t.current)
    assert.equal(first[2], s:to_move())
  end

  it("4 players: 2 face up and 1 face down, each chooses one in seat order, the last card goes face down", function()
    for seed = 1, 20 do
      local s, sizes, seats = run_draft(4, seed)
      assert.same({ 5, 4, 3, 2 }, sizes)
      assert.same({ 1, 2, 3, 4 }, seats)
      after_draft(s, 4, 1, 2)
    end
  end)

  it("5 players: 1 face up and 1 face down, each chooses one in seat order", function()
    for seed = 1, 20 do
      local s, sizes, seats = run_draft(5, seed)
      assert.same({ 6, 5, 4, 3, 2 }, sizes)
      assert.same({ 1, 2, 3, 4, 5 }, seats)
      after_draft(s, 5, 1, 2)
    end
  end)

  it("6 players: none face up and 1 face down, each chooses one in seat order", function()
    for seed = 1, 20 do
      local s, sizes, seats = run_draft(6, seed)
      assert.same({ 7, 6, 5, 4, 3, 2 }, sizes)
      assert.same({ 1, 2, 3, 4, 5, 6 }, seats)
      after_draft(s, 6, 1, 2)
    end
  end)

  it("7 players: none face up, the last player chooses between the card passed and the face-down card", function()
    for seed = 1, 20 do
      local s, sizes, seats = run_draft(7, seed)
      assert.same({ 7, 6, 5, 4, 3, 2, 2 }, sizes)
      assert.same({ 1, 2, 3, 4, 5, 6, 7 }, seats)
      after_draft(s, 7, 1, 1)
    end
  end)

  it("7 players: taking the face-down card puts the passed card face down", function()
    for seed = 1, 6 do
      local s = meeple.new("citadels", { players = 7, seed = seed })
      local down = s:table().aside_down[1]
      while s:to_move() ~= 7 do s:play("choose " .. options(s, "choose")[1]) end
      local passed = pack_of(s:table())
      assert.equal(1, #passed)
      assert.same(sorted { passed[1], down }, sorted(options(s, "choose")))
      if seed % 2 == 1 then
        play(s, "choose " .. down)
        assert.same({ down }, player(s, 7).characters)
        assert.same({ passed[1] }, s:table().aside_down)
      else
        play(s, "choose " .. passed[1])
        assert.same({ passed[1] }, player(s, 7).characters)
        assert.same({ down }, s:table().aside_down)
      end
      assert.equal("turns", s:table().phase)
    end
  end)

  it("the king is never put face up, but may be the face-down card", function()
    local king_down, up_seen = false, {}
    for seed = 1, 200 do
      for _, n in ipairs { 4, 5 } do
        local t = meeple.new("citadels", { players = n, seed = seed }):table()
        assert.is_false(has(t.aside_up, "king"), "seed " .. seed)
        if has(t.aside_down, "king") then king_down = true end
        for _, c in ipairs(t.aside_up) do up_seen[c] = true end
      end
    end
    assert.is_true(king_down, "the face-down card is drawn from all eight")
    for _, c in ipairs(CHARS) do
      if c ~= "king" then assert.is_true(up_seen[c], c .. " is sometimes face up") end
    end
  end)

  it("3 players: none face up, the pack goes round twice, each keeps two, the last card goes face down", function()
    for seed = 1, 20 do
      local s, sizes, seats = run_draft(3, seed)
      assert.same({ 7, 6, 5, 4, 3, 2 }, sizes)
      assert.same({ 1, 2, 3, 1, 2, 3 }, seats)
      after_draft(s, 3, 2, 2)
    end
  end)

  it("2 players: A chooses of 7; B chooses and buries of 6; A chooses and buries of 4; B chooses of 2", function()
    for seed = 1, 20 do
      local s = meeple.new("citadels", { players = 2, seed = seed })
      local t = s:table()
      assert.equal(0, #(t.aside_up or {}))
      assert.equal(1, #t.aside_down)
      local unseen = t.aside_down[1]
      -- A: one random card is face down; A chooses one of the other seven and buries nothing
      assert.equal(1, s:to_move())
      assert.equal(7, #options(s, "choose"))
      assert.is_false(has(options(s, "choose"), unseen))
      assert.same({}, options(s, "bury"))
      play(s, "choose " .. options(s, "choose")[1])
      -- the steps after: who, how many in the pack, how many chosen and buried
      local function step(who, pack, chooses, buries)
        assert.equal(who, s:to_move())
        assert.equal(pack, #pack_of(s:table()))
        local c, b = 0, 0
        while s:table().phase == "choose" and s:to_move() == who do
          local ch, bu = options(s, "choose"), options(s, "bury")
          if #ch > 0 and c == 0 then
            play(s, "choose " .. ch[#ch])
            c = c + 1
          elseif #bu > 0 then
            play(s, "bury " .. bu[1])
            b = b + 1
          else
            error("neither choose nor bury: " .. legal_text(s))
          end
        end
        assert.equal(chooses, c, "player " .. who .. " chooses")
        assert.is_true(b == buries or (buries == 0 and b <= 1 and pack == 2),
          "player " .. who .. " buries " .. b)
      end
      step(2, 6, 1, 1)
      step(1, 4, 1, 1)
      step(2, 2, 1, 0)      -- the last card goes face down by itself
      t = s:table()
      assert.equal("turns", t.phase)
      assert.equal(2, #t.players[1].characters)
      assert.equal(2, #t.players[2].characters)
      assert.equal(4, #t.aside_down)
      assert.equal(0, #(t.aside_up or {}))
    end
  end)

  it("the crown holder chooses first, then the others in seat order", function()
    local done = false
    for seed = 1, 50 do
      local s = meeple.new("citadels", { players = 4, seed = seed })
      if not has(s:table().aside_down, "king") then
        -- round 1: players 1 and 2 leave the king, player 3 takes it
        while s:table().phase == "choose" do
          local p, opts = s:to_move(), options(s, "choose")
          local pick
          if p == 3 then
            pick = "king"
          else
            for _, c in ipairs(opts) do
              if c ~= "king" and not pick then pick = c end
            end
          end
          play(s, "choose " .. pick)
        end
        finish_round(s)
        local t = s:table()
        assert.equal("choose", t.phase)
        assert.equal(2, t.round)
        assert.equal(3, t.crown)
        local order = {}
        while s:table().phase == "choose" do
          local p = s:to_move()
          if order[#order] ~= p then order[#order + 1] = p end
          s:play(s:legal()[1])
        end
        assert.same({ 3, 4, 1, 2 }, order)
        done = true
        break
      end
    end
    assert.is_true(done)
  end)

  it("a table without its draft gets one that starts at its crown", function()
    -- players 3 and 4 chose first and second; player 1 chooses third
    local s = citadels { phase = "choose", crown = 3, step = 3, aside_up = { "bishop", "merchant" },
      aside_down = { "warlord" }, players = { {}, {}, { characters = { "king" } }, { characters = { "thief" } } } }
    local picks = {}
    for _, d in ipairs(s:table().draft) do
      if d.kind == "pick" then picks[d.character] = { by = d.by, step = d.step } end
    end
    assert.same({ king = { by = 3, step = 1 }, thief = { by = 4, step = 2 } }, picks)
    assert.equal(1, s:to_move())
    s:play("choose " .. options(s, "choose")[1])
    for _, d in ipairs(s:table().draft) do
      if d.kind == "pick" and d.by == 1 then assert.equal(3, d.step) end
    end
  end)
end)

---------------------------------------------------------------------------
describe("citadels turn order", function()
  it("characters are called in rank order; a character nobody holds is skipped", function()
    local s = citadels { players = {
      { characters = { "magician", "warlord" } },
      { characters = { "king", "architect" } },
      { characters = { "assassin", "bishop" } } }, current = "assassin" }
    local seen = {}
    while s:table().phase == "turns" do
      seen[#seen + 1] = s:table().current .. "@" .. s:to_move()
      pass_turn(s)
    end
    assert.same({ "assassin@3", "magician@1", "king@2", "bishop@3", "architect@2", "warlord@1" }, seen)
  end)

  it("a player with two characters takes a turn for each", function()
    local s = citadels { players = {
      { gold = 0, characters = { "assassin", "merchant" } },
      { gold = 0, characters = { "thief", "king" } } }, current = "assassin" }
    local seen = {}
    while s:table().phase == "turns" do
      seen[#seen + 1] = s:table().current .. "@" .. s:to_move()
      pass_turn(s)
    end
    assert.same({ "assassin@1", "thief@2", "king@2", "merchant@1" }, seen)
    assert.equal(2 + 3, gold(s, 1))      -- assassin's 2, merchant's 2 + 1
    assert.equal(4, gold(s, 2))
  end)

  it("after the last character the round ends: a new draft with the characters back", function()
    local s = citadels { round = 3, players = {
      { characters = { "assassin", "warlord" } },
      { characters = { "thief", "bishop" } } }, current = "bishop" }
    play(s, "gold", "end", "gold", "end")
    local t = s:table()
    assert.equal("choose", t.phase)
    assert.equal(4, t.round)
    assert.is_nil(t.current)
    assert.is_nil(t.killed)
    assert.is_nil(t.robbed)
    assert.same({}, t.players[1].characters)
    assert.same({}, t.players[2].characters)
    assert.equal(1, #t.aside_down)
    assert.equal(7, #options(s, "choose"))
  end)
end)

---------------------------------------------------------------------------
describe("citadels the turn", function()
  it("a turn starts with exactly one action: no build or end before it, no second action", function()
    local s = citadels { players = {
      { gold = 5, hand = { "temple", "manor" }, characters = { "bishop", "assassin" } },
      { characters = { "thief", "king" } } }, current = "bishop" }
    assert_legal(s, "gold")
    assert_legal(s, "draw")
    assert_illegal(s, "build temple")
    assert_illegal(s, "end")
    play(s, "gold")
    assert.equal(7, gold(s, 1))
    assert_illegal(s, "gold")
    assert_illegal(s, "draw")
    play(s, "build temple", "end")
  end)

  it("the draw action shows two cards, keeps one and puts the other under the deck", function()
    local s = citadels { players = {
      { hand = { "temple" }, characters = { "bishop", "assassin" } },
      { characters = { "thief", "king" } } }, current = "bishop", deck_top = { "palace", "cathedral" } }
    local size = #deck(s)
    play(s, "draw")
    assert.same({ "cathedral", "palace" }, sorted(options(s, "keep")))
    assert_illegal(s, "keep manor")
    assert_illegal(s, "end")
    play(s, "keep palace")
    assert.same({ "palace", "temple" }, hand(s, 1))
    assert.equal(size - 1, #deck(s))
    assert.equal("cathedral", deck(s)[1])
    assert.equal(0, gold(s, 1))
    play(s, "end")
  end)

  it("building a district pays its cost; a player cannot build what he cannot pay", function()
    local s = citadels { players = {
      { gold = 1, hand = { "palace", "manor" }, characters = { "bishop", "assassin" } },
      { characters = { "thief", "king" } } }, current = "bishop" }
    play(s, "gold")
    assert_illegal(s, "build palace")     -- 5 gold, he has 3
    assert_illegal(s, "build castle")     -- not in hand
    play(s, "build manor")
    assert.equal(0, gold(s, 1))
    assert.same({ "manor" }, city(s, 1))
    assert.same({ "palace" }, hand(s, 1))
  end)

  it("a player may never have two districts of the same name", function()
    local s = citadels { players = {
      { gold = 20, hand = { "manor", "castle", "castle" }, city = { "manor" }, characters = { "architect", "assassin" } },
      { characters = { "thief", "king" } } }, current = "architect" }
    play(s, "gold")
    assert_illegal(s, "build manor")
    play(s, "build castle")
    assert_illegal(s, "build castle")
    assert.same({ "castle", "manor" }, city(s, 1))
  end)

  it("a character other than the architect builds at most one district a turn", function()
    local s = citadels { players = {
      { gold = 20, hand = { "temple", "tavern" }, characters = { "king", "assassin" } },
      { characters = { "thief", "bishop" } } }, current = "king", crown = 1 }
    play(s, "gold", "build temple")
    assert_illegal(s, "build tavern")
  end)

  it("income is one gold per district of the character's colour, taken once, all at once", function()
    local s = citadels { players = {
      { gold = 0, city = { "manor", "castle", "palace", "temple" }, characters = { "king", "assassin" } },
      { characters = { "thief", "bishop" } } }, current = "king", crown = 1 }
    play(s, "gold", "income")
    assert.equal(2 + 3, gold(s, 1))
    assert_illegal(s, "income")
    play(s, "end")
  end)

  it("income may be taken before the action", function()
    local s = citadels { players = {
      { gold = 0, city = { "temple", "church" }, characters = { "bishop", "assassin" } },
      { characters = { "thief", "king" } } }, current = "bishop" }
    play(s, "income")
    assert.equal(2, gold(s, 1))
    play(s, "gold")
    assert.equal(4, gold(s, 1))
    assert_illegal(s, "income")
  end)

  it("income taken after building counts the district just built", function()
    local s = citadels { players = {
      { gold = 0, hand = { "watchtower" }, city = { "prison" }, characters = { "warlord", "assassin" } },
      { characters = { "thief", "king" } } }, current = "warlord" }
    play(s, "gold", "build watchtower", "income")
    assert.equal(2 - 1 + 2, gold(s, 1))
  end)
end)

---------------------------------------------------------------------------
describe("citadels assassin", function()
  it("the assassin's victim misses its whole turn", function()
    local s = citadels { players = {
      { gold = 0, characters = { "assassin", "warlord" } },
      { gold = 5, city = { "tavern" }, characters = { "king", "merchant" } } }, current = "assassin" }
    play(s, "kill merchant", "gold", "end")
    assert.equal("merchant", s:table().killed)
    assert.equal("king", s:table().current)
    play(s, "gold", "end")
    -- the merchant is skipped: the warlord is next
    assert.equal("warlord", s:table().current)
    assert.equal(1, s:to_move())
    assert.equal(7, gold(s, 2))
  end)

  it("a murdered character's player still plays his other character", function()
    local s = citadels { players = {
      { gold = 0, characters = { "assassin", "warlord" } },
      { gold = 0, characters = { "king", "merchant" } } }, current = "assassin" }
    play(s, "kill king", "gold", "end")
    assert.equal("merchant", s:table().current)
    assert.equal(2, s:to_move())
    play(s, "gold")
    assert.equal(3, gold(s, 2))
  end)

  it("the assassin cannot kill himself or a face-up character, but may name one nobody holds", function()
    local s = citadels { players = {
      { characters = { "assassin" } }, { characters = { "thief" } },
      { characters = { "king" } }, { characters = { "warlord" } } },
      aside_up = { "bishop", "merchant" }, aside_down = { "magician", "architect" }, current = "assassin" }
    assert_illegal(s, "kill assassin")
    assert_illegal(s, "kill bishop")
    assert_illegal(s, "kill merchant")
    assert_legal(s, "kill magician")
    assert_legal(s, "kill thief")
    assert_legal(s, "kill king")
    assert_legal(s, "kill warlord")
    assert_legal(s, "kill architect")
  end)

  it("the assassin kills at most once a turn", function()
    local s = citadels { players = {
      { characters = { "assassin", "warlord" } },
      { characters = { "king", "merchant" } } }, current = "assassin" }
    play(s, "kill king")
    assert_illegal(s, "kill merchant")
  end)
end)

---------------------------------------------------------------------------
describe("citadels thief", function()
  it("the thief takes the victim's gold when the victim is revealed, before it acts", function()
    local s = citadels { players = {
      { gold = 1, characters = { "thief", "king" } },
      { gold = 5, characters = { "magician", "merchant" } } }, current = "thief" }
    play(s, "rob merchant", "gold", "end")
    assert.equal("merchant", s:table().robbed)
    assert.equal(3, gold(s, 1))
    assert.equal(5, gold(s, 2))
    -- the victim's player's other character comes first: nothing is taken yet
    assert.equal("magician", s:table().current)
    play(s, "gold", "end")
    assert.equal(7, gold(s, 2))
    assert.equal(3, gold(s, 1))
    advance_to(s, "merchant")
    -- revealed: the take has happened before the merchant does anything
    assert.equal(0, gold(s, 2))
    assert.equal(3 + 2 + 7, gold(s, 1))
    play(s, "gold")
    assert.equal(3, gold(s, 2))
  end)

  it("robbing a character nobody holds takes nothing", function()
    local s = citadels { players = {
      { gold = 1, characters = { "thief", "king" } },
      { gold = 5, characters = { "magician", "merchant" } } }, current = "thief" }
    play(s, "rob bishop", "gold", "end")
    finish_round(s)
    assert.equal(1 + 2 + 2, gold(s, 1))
    assert.equal(5 + 2 + 3, gold(s, 2))
  end)

  local function four()
    local s = citadels { players = {
      { characters = { "assassin" } }, { characters = { "thief" } },
      { characters = { "king" } }, { characters = { "merchant" } } },
      aside_up = { "bishop", "warlord" }, aside_down = { "magician", "architect" }, current = "assassin" }
    play(s, "kill king", "gold", "end")
    assert.equal("thief", s:table().current)
    return s
  end

  it("the thief cannot rob the assassin", function()
    local s = four()
    assert_illegal(s, "rob assassin")
    assert_legal(s, "rob merchant")
  end)

  it("the thief cannot rob the murdered character", function()
    local s = four()
    assert_illegal(s, "rob king")
    assert_legal(s, "rob merchant")
  end)

  it("the thief cannot rob a face-up character, but may name one nobody holds", function()
    local s = four()
    assert_illegal(s, "rob bishop")
    assert_illegal(s, "rob warlord")
    assert_legal(s, "rob magician")
    assert_legal(s, "rob architect")
    play(s, "rob merchant")
    assert_illegal(s, "rob architect")      -- once a turn
  end)
end)

---------------------------------------------------------------------------
describe("citadels magician", function()
  it("the magician exchanges his whole hand with another player's", function()
    local s = citadels { players = {
      { hand = { "manor", "temple" }, characters = { "magician", "warlord" } },
      { hand = { "palace", "church", "docks" }, characters = { "king", "bishop" } },
      { hand = { "tavern" }, characters = { "assassin", "thief" } } }, current = "magician" }
    play(s, "swap 2")                  -- a power may come before the action
    assert.same({ "church", "docks", "palace" }, hand(s, 1))
    assert.same({ "manor", "temple" }, hand(s, 2))
    assert.same({ "tavern" }, hand(s, 3))
    play(s, "gold")
  end)

  it("the magician with an empty hand takes the other player's hand", function()
    local s = citadels { players = {
      { hand = {}, characters = { "magician", "warlord" } },
      { hand = { "palace", "church" }, characters = { "king", "bishop" } } }, current = "magician" }
    play(s, "gold", "swap 2")
    assert.same({ "church", "palace" }, hand(s, 1))
    assert.same({}, hand(s, 2))
  end)

  it("the magician puts any number of cards under the deck and draws as many", function()
    local s = citadels { players = {
      { hand = { "manor", "temple", "tavern" }, characters = { "magician", "warlord" } },
      { characters = { "king", "bishop" } } }, current = "magician", deck_top = { "palace", "cathedral" } }
    local size = #deck(s)
    play(s, "gold", "replace manor", "replace temple", "replace done")
    assert.same({ "cathedral", "palace", "tavern" }, hand(s, 1))
    assert.equal(size, #deck(s))
    assert.same({ "manor", "temple" }, sorted { deck(s)[1], deck(s)[2] })
  end)

  it("the magician uses his power once a turn", function()
    local s = citadels { players = {
      { hand = { "manor" }, characters = { "magician", "warlord" } },
      { hand = { "palace" }, characters = { "king", "bishop" } },
      { hand = { "tavern" }, characters = { "assassin", "thief" } } }, current = "magician" }
    play(s, "swap 2")
    assert_illegal(s, "swap 3")
    assert_illegal(s, "swap 2")
    assert_illegal(s, "replace palace")
  end)
end)

---------------------------------------------------------------------------
describe("citadels king", function()
  it("the king takes the crown as soon as he is called", function()
    local s = citadels { crown = 1, players = {
      { characters = { "assassin", "bishop" } },
      { characters = { "king", "warlord" } } }, current = "assassin" }
    play(s, "gold", "end")
    assert.equal("king", s:table().current)
    assert.equal(2, s:table().crown)
    finish_round(s)
    assert.equal(2, s:table().crown)
    assert.equal(2, s:to_move(), "the crown holder chooses first")
  end)

  it("a murdered king's player takes the crown at the end of the round", function()
    local s = citadels { crown = 1, players = {
      { characters = { "assassin", "bishop" } },
      { gold = 0, characters = { "king", "warlord" } } }, current = "assassin" }
    play(s, "kill king", "gold", "end")
    assert.equal("bishop", s:table().current)
    assert.equal(1, s:table().crown)
    play(s, "gold", "end")
    assert.equal("warlord", s:table().current)
    assert.equal(1, s:table().crown)
    play(s, "gold", "end")
    local t = s:table()
    assert.equal("choose", t.phase)
    assert.equal(2, t.crown)
    assert.equal(2, s:to_move())
    assert.equal(2, gold(s, 2))
  end)

  it("with no king in play the crown stays", function()
    local s = citadels { crown = 2, players = {
      { characters = { "assassin", "bishop" } },
      { characters = { "thief", "warlord" } } }, aside_down = { "magician", "king", "merchant", "architect" },
      current = "assassin" }
    finish_round(s)
    assert.equal("choose", s:table().phase)
    assert.equal(2, s:table().crown)
    assert.equal(2, s:to_move())
  end)

  it("the king's income is one gold per yellow district", function()
    local s = citadels { crown = 1, players = {
      { gold = 0, city = { "manor", "palace", "tavern", "watchtower" }, characters = { "king", "assassin" } },
      { characters = { "thief", "bishop" } } }, current = "king" }
    play(s, "income")
    assert.equal(2, gold(s, 1))
  end)
end)

---------------------------------------------------------------------------
describe("citadels bishop", function()
  it("the bishop's income is one gold per blue district", function()
    local s = citadels { players = {
      { gold = 0, city = { "temple", "church", "cathedral", "manor" }, characters = { "bishop", "assassin" } },
      { characters = { "thief", "king" } } }, current = "bishop" }
    play(s, "income")
    assert.equal(3, gold(s, 1))
  end)

  it("the warlord cannot destroy a live bishop's districts", function()
    local s = citadels { players = {
      { gold = 10, city = { "prison" }, characters = { "assassin", "warlord" } },
      { city = { "temple", "market" }, characters = { "bishop", "merchant" } } }, current = "assassin" }
    advance_to(s, "warlord")
    play(s, "gold")
    assert_illegal(s, "destroy 2 temple")
    assert_illegal(s, "destroy 2 market")
    assert_legal(s, "destroy 1 prison")
  end)

  it("a murdered bishop's districts can be destroyed", function()
    local s = citadels { players = {
      { gold = 10, characters = { "assassin", "warlord" } },
      { city = { "temple", "market" }, characters = { "bishop", "merchant" } } }, current = "assassin" }
    play(s, "kill bishop", "gold", "end")
    advance_to(s, "warlord")
    play(s, "gold", "destroy 2 market")
    assert.same({ "temple" }, city(s, 2))
    assert.equal(10 + 2 + 2 - 1, gold(s, 1))
  end)
end)

---------------------------------------------------------------------------
describe("citadels merchant", function()
  it("the merchant gets 1 gold more after taking gold", function()
    local s = citadels { players = {
      { gold = 0, characters = { "merchant", "assassin" } },
      { characters = { "thief", "king" } } }, current = "merchant" }
    assert.equal(0, gold(s, 1))
    play(s, "gold")
    assert.equal(3, gold(s, 1))
  end)

  it("the merchant gets 1 gold after drawing", function()
    local s = citadels { players = {
      { gold = 0, characters = { "merchant", "assassin" } },
      { characters = { "thief", "king" } } }, current = "merchant" }
    play(s, "draw")
    play(s, "keep " .. options(s, "keep")[1])
    assert.equal(1, gold(s, 1))
    assert.equal(1, #hand(s, 1))
  end)

  it("the merchant's income is one gold per green district", function()
    local s = citadels { players = {
      { gold = 0, city = { "tavern", "market", "harbor", "temple" }, characters = { "merchant", "assassin" } },
      { characters = { "thief", "king" } } }, current = "merchant" }
    play(s, "income")
    assert.equal(3, gold(s, 1))
  end)
end)

---------------------------------------------------------------------------
describe("citadels architect", function()
  it("the architect draws 2 district cards after taking gold", function()
    local s = citadels { players = {
      { gold = 0, hand = {}, characters = { "architect", "assassin" } },
      { characters = { "thief", "king" } } }, current = "architect", deck_top = { "palace", "cathedral" } }
    local size = #deck(s)
    assert.same({}, hand(s, 1))
    play(s, "gold")
    assert.same({ "cathedral", "palace" }, hand(s, 1))
    assert.equal(2, gold(s, 1))
    assert.equal(size - 2, #deck(s))
  end)

  it("the architect draws 2 district cards after the draw action", function()
    local s = citadels { players = {
      { gold = 0, hand = {}, characters = { "architect", "assassin" } },
      { characters = { "thief", "king" } } }, current = "architect",
      deck_top = { "fortress", "harbor", "palace", "cathedral" } }
    play(s, "draw")
    assert.same({}, hand(s, 1))
    play(s, "keep cathedral")
    assert.same({ "cathedral", "fortress", "harbor" }, hand(s, 1))
    assert.equal("palace", deck(s)[1])
  end)

  it("the architect may build up to three districts", function()
    local s = citadels { players = {
      { gold = 20, hand = { "temple", "tavern", "manor", "watchtower" }, characters = { "architect", "assassin" } },
      { characters = { "thief", "king" } } }, current = "architect" }
    play(s, "gold", "build temple", "build tavern", "build manor")
    assert_illegal(s, "build watchtower")
    assert.same({ "manor", "tavern", "temple" }, city(s, 1))
    assert.equal(22 - 5, gold(s, 1))
  end)
end)

---------------------------------------------------------------------------
describe("citadels warlord", function()
  local function warlord(opts)
    return citadels { players = {
      { gold = opts.gold, city = opts.own or {}, characters = { "assassin", "warlord" } },
      { gold = 0, city = opts.city, characters = { "thief", "king" } } }, current = "warlord",
      deck_top = opts.deck_top }
  end

  it("the warlord destroys a district by paying its cost minus one", function()
    local s = warlord { gold = 1, city = { "manor", "temple" } }
    play(s, "gold")
    play(s, "destroy 2 manor")
    assert.equal(3 - 2, gold(s, 1))
    assert.same({ "temple" }, city(s, 2))
  end)

  it("a district of cost 1 is destroyed for nothing", function()
    local s = warlord { gold = 0, city = { "manor", "temple" } }
    play(s, "draw")
    play(s, "keep " .. options(s, "keep")[1])
    play(s, "destroy 2 temple")
    assert.equal(0, gold(s, 1))
    assert.same({ "manor" }, city(s, 2))
  end)

  it("the warlord needs the gold to destroy", function()
    local s = warlord { gold = 0, city = { "palace", "manor" } }
    play(s, "gold")
    assert_illegal(s, "destroy 2 palace")   -- 4 gold, he has 2
    assert_legal(s, "destroy 2 manor")
  end)

  it("destroyed districts go to the bottom of the deck", function()
    local s = warlord { gold = 5, city = { "castle", "temple" } }
    local size = #deck(s)
    play(s, "gold", "destroy 2 castle")
    assert.equal("castle", deck(s)[1])
    assert.equal(size + 1, #deck(s))
  end)

  it("the warlord may destroy a district of his own city", function()
    local s = warlord { gold = 5, own = { "prison", "manor" }, city = { "temple" } }
    play(s, "gold", "destroy 1 prison")
    assert.same({ "manor" }, city(s, 1))
    assert.equal(7 - 1, gold(s, 1))
  end)

  it("the warlord cannot destroy in a city of 8 districts or more", function()
    local eight = { "manor", "castle", "palace", "temple", "church", "tavern", "market", "watchtower" }
    local s = citadels { first_complete = 2, players = {
      { gold = 20, city = { "monastery", "cathedral", "docks", "harbor", "prison", "battlefield", "fortress", "keep" },
        characters = { "assassin", "warlord" } },
      { city = eight, characters = { "thief", "king" } },
      { city = { "trading_post", "town_hall", "tavern" }, characters = { "magician", "merchant" } } },
      current = "warlord" }
    play(s, "gold")
    assert_illegal(s, "destroy 2 manor")
    assert_illegal(s, "destroy 2 watchtower")
    assert_illegal(s, "destroy 1 prison")     -- his own completed city too
    assert_legal(s, "destroy 3 tavern")
  end)

  it("the warlord cannot destroy a keep", function()
    local s = warlord { gold = 20, city = { "keep", "manor" }, own = { "keep" } }
    play(s, "gold")
    assert_illegal(s, "destroy 2 keep")
    assert_illegal(s, "destroy 1 keep")
    assert_legal(s, "destroy 2 manor")
  end)

  it("the warlord destroys at the end of his turn: after the action, and it ends the turn", function()
    local s = citadels { players = {
      { gold = 10, hand = { "temple" }, characters = { "assassin", "warlord" } },
      { gold = 0, city = { "manor", "tavern" }, characters = { "thief", "king" } },
      { gold = 0, characters = { "magician", "bishop" } } }, current = "warlord", round = 4 }
    assert_illegal(s, "destroy 2 manor")     -- before the action
    play(s, "gold", "build temple")
    play(s, "destroy 2 manor")              -- after the build too
    -- the warlord is the last character: the turn and the round are over
    local t = s:table()
    assert.equal("choose", t.phase)
    assert.equal(5, t.round)
    assert.same({ "temple" }, city(s, 1))
    assert.same({ "tavern" }, city(s, 2))
  end)

  it("the warlord destroys at most one district", function()
    -- destroying ends his turn; with only the warlord's turn left, the round is over at once
    local s = warlord { gold = 20, city = { "manor", "temple" } }
    play(s, "gold", "destroy 2 temple")
    assert.is_false(s:table().phase == "turns" and s:table().current == "warlord")
    assert.same({ "manor" }, city(s, 2))
  end)

  it("the warlord's income is one gold per red district", function()
    local s = warlord { gold = 0, own = { "prison", "watchtower", "fortress", "manor" }, city = {} }
    play(s, "income")
    assert.equal(3, gold(s, 1))
  end)
end)

---------------------------------------------------------------------------
describe("citadels purple districts", function()
  local function bishop_turn(p1)
    p1.characters = { "bishop", "assassin" }
    local top = p1.deck_top
    p1.deck_top = nil
    return citadels { players = { p1, { characters = { "thief", "king" } } }, current = "bishop",
      deck_top = top }
  end

  it("laboratory: once a turn, discard a card from hand for 1 gold", function()
    local s = bishop_turn { gold = 0, hand = { "manor", "temple" }, city = { "laboratory" } }
    local temples = count(deck(s), "temple")
    play(s, "gold", "lab temple")
    assert.equal(3, gold(s, 1))
    assert.same({ "manor" }, hand(s, 1))
    assert.equal(temples + 1, count(deck(s), "temple"))
    assert_illegal(s, "lab manor")
  end)

  it("laboratory needs the district in the city", function()
    local s = bishop_turn { gold = 0, hand = { "manor", "temple" }, city = {} }
    play(s, "gold")
    assert_illegal(s, "lab temple")
  end)

  it("smithy: once a turn, pay 2 gold to draw 3 cards", function()
    local s = bishop_turn { gold = 3, hand = {}, city = { "smithy" }, deck_top = { "palace", "cathedral", "docks" } }
    play(s, "gold", "smithy")
    assert.equal(3, gold(s, 1))
    assert.same({ "cathedral", "docks", "palace" }, hand(s, 1))
    assert_illegal(s, "smithy")
  end)

  it("smithy needs 2 gold", function()
    local s = bishop_turn { gold = 1, hand = {}, city = { "smithy" } }
    assert_illegal(s, "smithy")
    local t = bishop_turn { gold = 1, hand = {}, city = {} }
    play(t, "gold")
    assert_illegal(t, "smithy")
  end)

  it("observatory: the draw action draws 3 and keeps 1, the others go under the deck", function()
    local s = bishop_turn { gold = 0, hand = {}, city = { "observatory" }, deck_top = { "fortress", "palace", "cathedral" } }
    local size = #deck(s)
    play(s, "draw")
    assert.same({ "cathedral", "fortress", "palace" }, sorted(options(s, "keep")))
    play(s, "keep palace")
    assert.same({ "palace" }, hand(s, 1))
    assert.equal(size - 1, #deck(s))
    assert.same({ "cathedral", "fortress" }, sorted { deck(s)[1], deck(s)[2] })
    play(s, "end")
  end)

  it("library: the draw action keeps both cards drawn", function()
    local s = bishop_turn { gold = 0, hand = {}, city = { "library" }, deck_top = { "fortress", "palace", "cathedral" } }
    play(s, "draw")
    for _ = 1, 2 do
      local k = options(s, "keep")
      if #k > 0 then play(s, "keep " .. k[1]) end
    end
    assert.same({}, options(s, "keep"))
    assert.same({ "cathedral", "palace" }, hand(s, 1))
    assert.equal("fortress", deck(s)[#deck(s)])
    play(s, "end")
  end)

  it("library with observatory: the draw action draws 3 and keeps 2", function()
    local s = bishop_turn { gold = 0, hand = {}, city = { "library", "observatory" },
      deck_top = { "fortress", "palace", "cathedral" } }
    local size = #deck(s)
    play(s, "draw")
    assert.same({ "cathedral", "fortress", "palace" }, sorted(options(s, "keep")))
    play(s, "keep fortress")
    assert.same({ "cathedral", "palace" }, sorted(options(s, "keep")))
    play(s, "keep cathedral")
    assert.same({}, options(s, "keep"))
    assert.same({ "cathedral", "fortress" }, hand(s, 1))
    assert.equal(size - 2, #deck(s))
    assert.equal("palace", deck(s)[1])
    play(s, "end")
  end)

  it("dragon gate and university cost 6 to build", function()
    local s = citadels { players = {
      { gold = 4, hand = { "dragon_gate", "university" }, characters = { "architect", "assassin" } },
      { characters = { "thief", "king" } } }, current = "architect" }
    play(s, "gold", "build dragon_gate")
    assert.equal(0, gold(s, 1))
    assert_illegal(s, "build university")
  end)

  it("dragon gate and university score 8 points each", function()
    local s = citadels { first_complete = 1, players = {
      { city = { "dragon_gate", "university", "manor", "castle", "palace", "temple", "church", "tavern" },
        characters = { "assassin", "warlord" } },
      { characters = { "thief", "king" } } }, current = "warlord" }
    play(s, "gold", "end")
    assert.is_true(s:is_over())
    assert.same({ 8 + 8 + 3 + 4 + 5 + 1 + 2 + 1 + 4, 0 }, s:scores())
  end)

  it("great wall: the warlord pays 1 more to destroy its owner's other districts", function()
    local s = citadels { players = {
      { gold = 1, characters = { "assassin", "warlord" } },
      { city = { "great_wall", "market", "manor" }, characters = { "thief", "king" } },
      { city = { "trading_post" }, characters = { "magician", "merchant" } } }, current = "warlord",
      deck_top = { "temple", "temple" } }
    play(s, "draw", "keep temple")
    assert_illegal(s, "destroy 2 market")       -- 2 - 1 + 1 = 2 gold, he has 1
    assert_legal(s, "destroy 3 trading_post")   -- another player's city: 2 - 1 = 1
  end)

  it("great wall: destroying the owner's other districts costs their full cost", function()
    local s = citadels { players = {
      { gold = 3, characters = { "assassin", "warlord" } },
      { city = { "great_wall", "market", "manor" }, characters = { "thief", "king" } } }, current = "warlord",
      deck_top = { "temple", "temple" } }
    play(s, "draw", "keep temple")
    assert_legal(s, "destroy 2 manor")
    assert_legal(s, "destroy 2 market")
    assert_illegal(s, "destroy 2 great_wall")   -- the wall itself: 6 - 1 = 5
    play(s, "destroy 2 manor")
    assert.equal(0, gold(s, 1))
    assert.same({ "great_wall", "market" }, city(s, 2))
  end)

  it("great wall itself is destroyed for its cost minus one", function()
    local s = citadels { players = {
      { gold = 5, characters = { "assassin", "warlord" } },
      { city = { "great_wall", "market" }, characters = { "thief", "king" } } }, current = "warlord",
      deck_top = { "temple", "temple" } }
    play(s, "draw", "keep temple", "destroy 2 great_wall")
    assert.equal(0, gold(s, 1))
    assert.same({ "market" }, city(s, 2))
  end)

  it("graveyard: the owner may pay 1 gold to take the destroyed district into his hand", function()
    local s = citadels { players = {
      { gold = 5, characters = { "assassin", "warlord" } },
      { gold = 3, hand = {}, city = { "graveyard", "castle" }, characters = { "thief", "king" } } },
      current = "warlord" }
    local castles = count(deck(s), "castle")
    play(s, "gold", "destroy 2 castle")
    assert.equal(7 - 3, gold(s, 1))
    assert.equal(2, s:to_move(), "the graveyard's owner decides, out of turn")
    assert.same({ "graveyard no", "graveyard yes" }, sorted(s:legal()))
    play(s, "graveyard yes")
    assert.equal(2, gold(s, 2))
    assert.same({ "castle" }, hand(s, 2))
    assert.same({ "graveyard" }, city(s, 2))
    assert.equal(castles, count(deck(s), "castle"))
  end)

  it("graveyard: declining sends the district to the bottom of the deck", function()
    local s = citadels { players = {
      { gold = 5, characters = { "assassin", "warlord" } },
      { gold = 3, hand = {}, city = { "graveyard", "castle" }, characters = { "thief", "king" } } },
      current = "warlord" }
    play(s, "gold", "destroy 2 castle", "graveyard no")
    assert.equal(3, gold(s, 2))
    assert.same({}, hand(s, 2))
    assert.equal("castle", deck(s)[1])
  end)

  it("graveyard: a warlord who owns it cannot take back his own district", function()
    local s = citadels { players = {
      { gold = 5, city = { "graveyard", "castle" }, characters = { "assassin", "warlord" } },
      { characters = { "thief", "king" } } }, current = "warlord" }
    play(s, "gold", "destroy 1 castle")
    assert.is_false(has(s:legal(), "graveyard yes"))
    assert.equal("choose", s:table().phase)
    assert.equal("castle", deck(s)[1])
    assert.same({}, hand(s, 1))
  end)

  it("graveyard: it saves any district the warlord destroys, another player's too", function()
    local s = citadels { players = {
      { gold = 5, characters = { "assassin", "warlord" } },
      { gold = 3, city = { "castle" }, characters = { "thief", "king" } },
      { gold = 3, hand = {}, city = { "graveyard" }, characters = { "magician", "merchant" } } }, current = "warlord" }
    play(s, "gold", "destroy 2 castle")
    assert.equal(3, s:to_move(), "the graveyard's owner decides, out of turn")
    assert.same({ "graveyard no", "graveyard yes" }, sorted(s:legal()))
    play(s, "graveyard yes")
    assert.equal(2, gold(s, 3))
    assert.same({ "castle" }, s:table().players[3].hand)
    assert.same({}, city(s, 2))
  end)

  it("graveyard: destroyed itself, it is discarded and saves nothing", function()
    local s = citadels { players = {
      { gold = 9, characters = { "assassin", "warlord" } },
      { gold = 3, city = { "graveyard" }, characters = { "thief", "king" } },
      { gold = 3, characters = { "magician", "merchant" } } }, current = "warlord" }
    play(s, "gold", "destroy 2 graveyard")
    assert.is_false(has(s:legal(), "graveyard yes"))
    assert.equal("graveyard", deck(s)[1])
    assert.equal(3, gold(s, 2))
  end)

  it("graveyard: an owner without gold cannot take the district", function()
    local s = citadels { players = {
      { gold = 5, characters = { "assassin", "warlord" } },
      { gold = 0, city = { "graveyard", "castle" }, characters = { "thief", "king" } } }, current = "warlord" }
    play(s, "gold", "destroy 2 castle")
    assert.is_false(has(s:legal(), "graveyard yes"))
    if s:table().phase == "turns" then play(s, "graveyard no") end
    assert.equal("castle", deck(s)[1])
  end)

  it("school of magic counts as the colour of its owner's character for income", function()
    local s = citadels { crown = 1, players = {
      { gold = 0, city = { "school_of_magic", "manor" }, characters = { "king", "warlord" } },
      { characters = { "thief", "bishop" } } }, current = "king" }
    play(s, "income")
    assert.equal(2, gold(s, 1))
    play(s, "gold", "end")
    advance_to(s, "warlord")
    play(s, "income")                 -- now it counts as red
    assert.equal(2 + 2 + 1, gold(s, 1))
  end)

  it("haunted city counts as a colour of its owner's choice at scoring", function()
    local s = citadels { round = 1, players = {
      { gold = 20, hand = { "haunted_city", "market" },
        city = { "manor", "temple", "tavern", "keep", "castle", "church" }, characters = { "assassin", "warlord" } },
      { characters = { "thief", "bishop" } } }, current = "warlord" }
    play(s, "gold", "build haunted_city", "end")
    assert.equal("choose", s:table().phase)
    -- round 2: player 1 completes his city with the market in his first turn
    local built = false
    for _ = 1, 100 do
      if s:is_over() then break end
      local t = s:table()
      if t.phase == "choose" then
        s:play(s:legal()[1])
      elseif s:to_move() == 1 and not built then
        play(s, "gold", "build market", "end")
        built = true
      else
        pass_turn(s)
      end
    end
    assert.is_true(s:is_over())
    assert.is_true(built)
    -- 18 for the districts, 4 for completing first, 3 for five colours (the haunted city as red)
    assert.equal(18 + 4 + 3, s:scores()[1])
  end)

  it("haunted city built in the last round counts only as purple", function()
    local s = citadels { round = 3, players = {
      { gold = 20, hand = { "haunted_city" },
        city = { "manor", "temple", "tavern", "keep", "castle", "church", "market" },
        characters = { "assassin", "warlord" } },
      { characters = { "thief", "bishop" } } }, current = "warlord" }
    play(s, "gold", "build haunted_city", "end")
    assert.is_true(s:is_over())
    assert.equal(18 + 4, s:scores()[1])
  end)
end)

---------------------------------------------------------------------------
describe("citadels end and scoring", function()
  it("the game ends after the round in which a city reaches 8 districts, not at once", function()
    local s = citadels { crown = 1, players = {
      { gold = 10, hand = { "battlefield" },
        city = { "manor", "castle", "church", "monastery", "docks", "harbor", "prison" },
        characters = { "magician", "warlord" } },
      { gold = 10, hand = { "watchtower" },
        city = { "manor", "castle", "palace", "temple", "church", "tavern", "market" },
        characters = { "king", "architect" } } }, current = "magician" }
    play(s, "gold", "end")
    play(s, "gold", "build watchtower")
    assert.equal(2, s:table().first_complete)
    assert.is_false(s:is_over())
    play(s, "end")
    assert.is_false(s:is_over())
    assert.equal("architect", s:table().current)
    play(s, "gold", "end")
    assert.equal("warlord", s:table().current)
    play(s, "gold", "build battlefield", "end")
    assert.is_true(s:is_over())
    assert.is_nil(s:to_move())
    assert.equal(2, s:table().first_complete)
    -- player 1: 24 + 2 for completing later; player 2: 19 + 4 for completing first
    assert.same({ 24 + 2, 19 + 4 }, s:scores())
    assert.same({ 1 }, s:winners())
  end)

  it("max_rounds: with no complete city the game ends after that round, without the first-city bonus", function()
    local s = citadels { round = 100, players = {
      { gold = 1, city = { "manor" }, characters = { "assassin", "warlord" } },
      { gold = 0, city = { "temple" }, characters = { "thief", "bishop" } },
      { gold = 0, characters = { "magician", "merchant" } } }, current = "warlord" }
    play(s, "gold", "end")
    assert.is_true(s:is_over())
    assert.same({ 3, 1, 0 }, s:scores())
    assert.same({ 1 }, s:winners())
    -- a smaller bound from the parameters; a round past it is refused
    s = citadels { round = 5, params = { max_rounds = 5 }, players = {
      { characters = { "assassin", "warlord" } }, { characters = { "thief", "bishop" } } }, current = "warlord" }
    play(s, "gold", "end")
    assert.is_true(s:is_over())
    local ok, why = pcall(citadels, { round = 6, params = { max_rounds = 5 }, players = {
      { characters = { "assassin", "warlord" } }, { characters = { "thief", "bishop" } } }, current = "warlord" })
    assert.is_false(ok)
    assert.truthy(tostring(why):find("max_rounds", 1, true), why)
  end)

  it("random games never run past max_rounds, and gold never wraps", function()
    for seed = 1, 20 do
      local s = meeple.new("citadels", { seed = seed, players = 4, params = { max_rounds = 3 } })
      local moves = 0
      while not s:is_over() do
        local legal = s:legal()
        -- never build: the game must still end
        local pick = legal[1]
        for _, a in ipairs(legal) do if not a:find("^build") then pick = a break end end
        s:play(pick)
        moves = moves + 1
        assert.is_true(moves < 5000)
      end
      assert.is_true(s:table().round <= 3)
    end
  end)

  it("+4 for the first to complete, +2 for each other complete city, nothing for a smaller city", function()
    local s = citadels { first_complete = 1, players = {
      { city = { "temple", "church", "tavern", "market", "watchtower", "prison", "trading_post", "docks" },
        characters = { "assassin", "warlord" } },
      { city = { "manor", "castle", "palace", "temple", "church", "tavern", "market", "watchtower" },
        characters = { "thief", "bishop" } },
      { city = { "manor", "castle", "palace", "temple", "church", "tavern", "market" },
        characters = { "magician", "merchant" } } }, current = "warlord" }
    play(s, "gold", "end")
    assert.is_true(s:is_over())
    assert.same({ 14 + 4, 19 + 2, 18 }, s:scores())
    assert.same({ 2 }, s:winners())
  end)

  it("+3 for districts of all five colours", function()
    local s = citadels { first_complete = 1, players = {
      { city = { "manor", "temple", "tavern", "watchtower", "keep", "castle", "church", "market" },
        characters = { "assassin", "warlord" } },
      { city = { "palace", "cathedral", "docks", "fortress", "library" }, characters = { "thief", "king" } } },
      current = "warlord" }
    play(s, "gold", "end")
    assert.is_true(s:is_over())
    assert.same({ 17 + 4 + 3, 24 + 3 }, s:scores())
    assert.same({ 2 }, s:winners())
  end)

  it("a tie goes to the higher district points alone", function()
    local s = citadels { first_complete = 1, players = {
      { gold = 10, city = { "manor", "castle", "palace", "temple", "church", "tavern", "market", "watchtower" },
        characters = { "assassin", "warlord" } },
      { gold = 0, city = { "manor", "castle", "palace", "monastery", "church", "tavern", "market", "watchtower" },
        characters = { "thief", "bishop" } } }, current = "warlord" }
    play(s, "gold", "end")
    assert.is_true(s:is_over())
    assert.same({ 19 + 4, 21 + 2 }, s:scores())
    assert.same({ 2 }, s:winners())
  end)

  local function tie(gold2, gold3)
    local s = citadels { first_complete = 1, players = {
      { city = { "temple", "church", "tavern", "market", "watchtower", "prison", "trading_post", "docks" },
        characters = { "assassin", "warlord" } },
      { gold = gold2, city = { "manor", "castle", "palace", "temple", "church", "tavern", "market", "watchtower" },
        characters = { "thief", "bishop" } },
      { gold = gold3, city = { "manor", "castle", "palace", "temple", "church", "tavern", "market", "watchtower" },
        characters = { "magician", "merchant" } } }, current = "warlord" }
    play(s, "gold", "end")
    assert.is_true(s:is_over())
    assert.same({ 18, 21, 21 }, s:scores())
    return s
  end

  it("a tie in points and district points goes to more gold", function()
    assert.same({ 3 }, tie(3, 5):winners())
    assert.same({ 2 }, tie(6, 5):winners())
  end)

  it("a tie in points, district points and gold is a shared win (ruling)", function()
    assert.same({ 2, 3 }, sorted(tie(4, 4):winners()))
  end)

  it("the city_size parameter sets the size that ends the game", function()
    for _, n in ipairs { 3, 5 } do
      for seed = 1, 5 do
        local s = meeple.new("citadels", { players = n, seed = seed, params = { city_size = 3, start_gold = 12 } })
        local done_round, built = nil, {}
        for _ = 1, 3000 do
          if s:is_over() then break end
          local t = s:table()
          if done_round then
            assert.equal("turns", t.phase, "the game goes on only to the end of the round")
            assert.equal(done_round, t.round)
          end
          if t.phase == "choose" then
            s:play(s:legal()[1])
          else
            if has(s:legal(), "gold") then s:play("gold") end
            local b = options(s, "build")
            if #b > 0 then s:play("build " .. b[1]) end
            if has(s:legal(), "end") then s:play("end") end
            t = s:table()
            for p = 1, n do
              if not done_round and #t.players[p].city >= 3 then done_round = t.round end
            end
          end
        end
        assert.is_true(s:is_over())
        local t = s:table()
        assert.is_number(t.first_complete)
        assert.is_true(#t.players[t.first_complete].city >= 3)
        for p = 1, n do
          local c = t.players[p].city
          if not has(c, "haunted_city") then
            local bonus = (p == t.first_complete and 4) or (#c >= 3 and 2) or 0
            assert.equal(city_points(c) + bonus, s:scores()[p], "n " .. n .. " seed " .. seed .. " player " .. p)
          end
        end
      end
    end
  end)
end)

---------------------------------------------------------------------------
describe("citadels illegal actions", function()
  it("illegal actions raise with a reason and leave the table unchanged", function()
    local c = meeple.new("citadels", { players = 4, seed = 3 })
    for _, a in ipairs { "", "fly", "gold", "build manor", "choose", "choose nobody", "bury king", "end",
      "kill king", "destroy 2 manor" } do
      assert_illegal(c, a)
    end
    local up = c:table().aside_up[1]
    assert_illegal(c, "choose " .. up)
    local s = citadels { players = {
      { gold = 10, hand = { "manor" }, characters = { "bishop", "assassin" } },
      { city = { "tavern" }, hand = { "temple" }, characters = { "thief", "king" } } }, current = "bishop" }
    for _, a in ipairs { "choose king", "kill king", "rob king", "swap 2", "replace manor", "destroy 2 tavern",
      "lab manor", "smithy", "graveyard yes", "keep manor", "build", "build nothing", "build temple", "gold gold",
      "income 3", "swap 9" } do
      assert_illegal(s, a)
    end
  end)
end)

---------------------------------------------------------------------------
describe("citadels hidden information", function()
  local function chars_in(v)
    local w, out = words(v), {}
    for _, c in ipairs(CHARS) do
      if w[c] then out[#out + 1] = c end
    end
    return out
  end

  it("a view shows own hand and characters, and everyone's gold, city and hand size", function()
    local s = citadels { players = {
      { gold = 3, hand = { "manor", "temple" }, city = { "tavern" }, characters = { "magician", "warlord" } },
      { gold = 7, hand = { "palace", "cathedral", "docks" }, city = { "watchtower", "church" },
        characters = { "king", "bishop" } },
      { gold = 1, hand = {}, city = {}, characters = { "assassin", "thief" } } }, current = "magician" }
    local v = s:view(1)
    assert.same({ "manor", "temple" }, sorted(v.players[1].hand))
    assert.same({ "magician", "warlord" }, sorted(v.players[1].characters))
    assert.equal(3, num(v.players[2].hand))
    assert.is_number(v.players[2].hand)
    assert.equal(0, num(v.players[3].hand))
    assert.same({ 3, 7, 1 }, { v.players[1].gold, v.players[2].gold, v.players[3].gold })
    assert.same({ "tavern" }, sorted(v.players[1].city))
    assert.same({ "church", "watchtower" }, sorted(v.players[2].city))
    assert.same({}, v.players[3].city)
    assert.equal(#deck(s), num(v.deck))
    assert.is_number(v.deck)
    local w = words(v)
    for _, d in ipairs { "palace", "cathedral", "docks" } do
      assert.is_nil(w[d], d .. " is in another player's hand")
    end
  end)

  it("a view shows face-up characters and each character once revealed, and no other", function()
    local s = citadels { players = {
      { characters = { "thief" } }, { characters = { "king" } },
      { characters = { "warlord" } }, { characters = { "architect" } } },
      aside_up = { "magician", "merchant" }, aside_down = { "assassin", "bishop" }, current = "thief" }
    assert.same({ "magician", "merchant", "thief" }, sorted(chars_in(s:view(1))))
    assert.same({ "magician", "merchant", "thief", "warlord" }, sorted(chars_in(s:view(3))))
    play(s, "gold", "end")
    assert.equal("king", s:table().current)
    assert.same({ "king", "magician", "merchant", "thief" }, sorted(chars_in(s:view(1))))
    advance_to(s, "warlord")
    assert.same({ "architect", "king", "magician", "merchant", "thief", "warlord" }, sorted(chars_in(s:view(1))))
    assert.same({ "architect", "king", "magician", "merchant", "thief", "warlord" }, sorted(chars_in(s:view(2))))
  end)

  it("a view shows the characters passed to the viewer while choosing, and not what was taken before", function()
    for seed = 1, 10 do
      local s = meeple.new("citadels", { players = 4, seed = seed })
      local t = s:table()
      local up, down = t.aside_up, t.aside_down[1]
      local first_pack = pack_of(t)
      -- before anything is passed to him, player 2 sees only the face-up characters and nothing else
      assert.same(sorted(up), sorted(chars_in(s:view(2))))
      assert.same(sorted(cat(first_pack, up)), sorted(chars_in(s:view(1))))
      local first = options(s, "choose")[1]
      s:play("choose " .. first)
      local passed2 = pack_of(s:table())
      assert.same(sorted(cat(passed2, up)), sorted(chars_in(s:view(2))))
      -- player 1 still sees what was passed to him (his own choice among it)
      assert.same(sorted(cat(first_pack, up)), sorted(chars_in(s:view(1))))
      local second = options(s, "choose")[1]
      s:play("choose " .. second)
      local passed3 = pack_of(s:table())
      assert.same(sorted(cat(passed3, up)), sorted(chars_in(s:view(3))))
      assert.is_false(has(chars_in(s:view(3)), first))
      assert.is_false(has(chars_in(s:view(3)), second))
      assert.same(sorted(cat(passed2, up)), sorted(chars_in(s:view(2))))
      for p = 1, 4 do assert.is_false(has(chars_in(s:view(p)), down), "the unseen face-down card") end
    end
  end)

  it("a view shows the cards the viewer put aside face down himself", function()
    for seed = 1, 10 do
      local s = meeple.new("citadels", { players = 2, seed = seed })
      local unseen = s:table().aside_down[1]
      local first = options(s, "choose")[1]
      s:play("choose " .. first)
      while s:to_move() == 2 and #options(s, "bury") == 0 do s:play("choose " .. options(s, "choose")[1]) end
      local b = options(s, "bury")[1]
      s:play("bury " .. b)
      assert.is_true(has(chars_in(s:view(2)), b))
      assert.is_false(has(chars_in(s:view(2)), first), "B never saw A's first choice")
      for p = 1, 2 do assert.is_false(has(chars_in(s:view(p)), unseen), "the unseen face-down card") end
      -- finish the draft: the unseen card stays unseen, every player keeps what he saw
      while s:table().phase == "choose" do s:play(s:legal()[1]) end
      for p = 1, 2 do assert.is_false(has(chars_in(s:view(p)), unseen), "the unseen face-down card") end
      assert.is_true(has(chars_in(s:view(2)), b))
    end
  end)

  -- Plays random games at a player count, checking every view at every decision:
  -- characters in view(p) only if p holds them, saw them passed, put them aside, or they are face up,
  -- revealed, or named by the assassin or thief (named aloud); districts only in p's hand or a city.
  -- The policy avoids actions that let a player know cards beyond these (draw, magician, smithy,
  -- laboratory, destroy), so the district check is exact.
  local SAFE = { choose = true, bury = true, gold = true, income = true, build = true, kill = true,
    rob = true, ["end"] = true }

  -- Games a player count: one in the quick suite, four in the soak (#soak: ctest -L soak).
  local function leak_games(n)
    for seed = 1, util.soak_count(1, 4) do
      local s = meeple.new("citadels", { players = n, seed = seed })
      local rnd = lcg(seed * 31 + n)
      local known, round_seen, public = {}, {}, {}
      for p = 1, n do known[p], round_seen[p] = {}, {} end
      local round = 0
      local clean = true
      for step = 1, 400 do
        local t = s:table()
        if t.round ~= round then
          round = t.round
          for p = 1, n do round_seen[p] = {} end
        end
        for _, c in ipairs(t.aside_up or {}) do public[c] = true end
        if t.phase == "turns" and t.current then public[t.current] = true end
        if t.killed then public[t.killed] = true end
        if t.robbed then public[t.robbed] = true end
        for p = 1, n do
          for _, c in ipairs(t.players[p].characters or {}) do known[p][c] = true end
        end
        if not s:is_over() and t.phase == "choose" then
          local p = s:to_move()
          for _, v in ipairs { "choose", "bury" } do
            for _, c in ipairs(options(s, v)) do
              known[p][c], round_seen[p][c] = true, true
            end
          end
        end
        for p = 1, n do
          local w = words(s:view(p))
          for _, c in ipairs(CHARS) do
            if w[c] then
              assert.is_true(known[p][c] or public[c] or false,
                ("%d players, seed %d, step %d: view(%d) shows the %s"):format(n, seed, step, p, c))
            end
          end
          if not s:is_over() then
            for c in pairs(round_seen[p]) do
              assert.is_true(w[c] or false,
                ("%d players, seed %d, step %d: view(%d) lacks the %s passed to him"):format(n, seed, step, p, c))
            end
            for _, c in ipairs(t.players[p].characters or {}) do
              assert.is_true(w[c] or false, ("view(%d) lacks his own %s"):format(p, c))
            end
          end
          if clean then
            local ok = {}
            for _, d in ipairs(t.players[p].hand) do ok[d] = true end
            for q = 1, n do
              for _, d in ipairs(t.players[q].city) do ok[d] = true end
            end
            for _, d in ipairs(DISTRICT_LIST) do
              if w[d[1]] then
                assert.is_true(ok[d[1]] or false,
                  ("%d players, seed %d, step %d: view(%d) shows a %s"):format(n, seed, step, p, d[1]))
              end
            end
          end
        end
        if s:is_over() then break end
        local legal, pick = s:legal(), {}
        for _, a in ipairs(legal) do
          if SAFE[a:match("^(%S+)")] then pick[#pick + 1] = a end
        end
        if #pick == 0 then
          pick, clean = legal, false
        end
        s:play(pick[rnd(#pick)])
      end
    end
  end

  for n = 2, 7 do
    it(("views show nothing hidden during random games (%d players) #soak"):format(n), function()
      leak_games(n)
    end)
  end
end)
