local meeple = require "meeple"

-- Rabohnzel rule scenarios: one `it` per scenario of ../shared/rules/rabohnzel.md ("Scenarios tests
-- must cover"), in its order and in its words. A is seat 1 and active unless a scenario says
-- otherwise; B, C, D are seats 2, 3, 4.
--
-- Positions are built with meeple.from_table through `rab{...}` below, which hands over a partial
-- table: every player named (missing parts of a player are empty zones), fields written as plain
-- lists of beans (bottom first), spells as {name, up}. `deck_top = {...}` puts those cards on top of
-- the deck (the last one is the top, drawn first) and lays every other bean not named anywhere
-- under them; without it the deck takes every bean left over. Spells not named anywhere go to the
-- spell pile; `pile_top = {...}` names the pile's top cards instead (the last one is the top).
-- A table in phase "magic" starts at the active player's main decision (no guard window); the
-- field powers are those the phase gave as it began.
--
-- The beanometers are PROVISIONAL data: every position pins the digest's defaults (`METER`), and a
-- scenario whose payout depends on another meter sets it explicitly. Decks and stacks are bottom
-- first; hands run from the front (hand[1]) to the back.
--
-- Where the engine disagrees with the digest, the test keeps the digest's expectation and says so
-- in a comment marked DIGEST.

---------------------------------------------------------------------------
-- components
---------------------------------------------------------------------------
local BEAN_COUNT = { pluck = 9, cape = 11, common = 13, wise = 14, magic = 15, princess = 17, sword = 19 }
local BEAN_ORDER = { "pluck", "cape", "common", "wise", "magic", "princess", "sword" }
local ALL_BEANS = {}
for _, b in ipairs(BEAN_ORDER) do
  for _ = 1, BEAN_COUNT[b] do ALL_BEANS[#ALL_BEANS + 1] = b end
end
assert(#ALL_BEANS == 98)

-- the digest's PROVISIONAL meters (cards needed for 1/2/3/4 coins; 0 = no such payout)
local METER = {
  pluck = { 2, 4, 5, 6 }, cape = { 3, 4, 6, 0 }, common = { 3, 5, 6, 7 }, wise = { 3, 5, 6, 7 },
  magic = { 3, 5, 7, 8 }, princess = { 2, 4, 5, 6 }, sword = { 4, 6, 8, 10 },
}

local SPELL_VALUE = {
  aggression = 1, bean_field = 1, card_exchange = 2, commerce = 3, card_river = 4, deck_spell = 5,
  bean_enchantment = 6, player_enchantment = 7, relocation = 8, hand_cards = 9, luck = 10,
}
local ALL_SPELLS = { "aggression", "bean_field", "card_exchange", "commerce", "card_river", "deck_spell",
  "bean_enchantment", "player_enchantment", "relocation", "hand_cards", "luck" }

---------------------------------------------------------------------------
-- helpers
---------------------------------------------------------------------------
local util = require "spec_util"
local cat, count, has, sorted, minus = util.cat, util.count, util.has, util.sorted, util.minus
local legal_text, assert_legal, assert_illegal, play = util.legal_text, util.assert_legal, util.assert_illegal,
    util.play

local function copy(t)
  if type(t) ~= "table" then return t end
  local c = {}
  for k, v in pairs(t) do c[k] = copy(v) end
  return c
end

-- every bean a (partial) table names: hands, fields, coins, set-aside, face-up, discard, pending
local function beans_named(t)
  local used = cat(t.face_up or {}, t.discard or {})
  if t.pending and t.pending.card then used[#used + 1] = t.pending.card end
  for _, p in ipairs(t.players) do
    if type(p.hand) == "table" then used = cat(used, p.hand) end
    used = cat(used, p.coins or {}, p.set_aside or {})
    for _, f in ipairs(p.fields or {}) do used = cat(used, f.beans or f) end
  end
  return used
end

-- A position for meeple.from_table (see the header).
local function rab(t)
  t = copy(t)
  t.game = "rabohnzel"
  t.seed = t.seed or 1
  t.params = t.params or {}
  local meter = copy(METER)
  for k, v in pairs(t.params.beanometer or {}) do meter[k] = v end
  t.params.beanometer = meter
  if t.deck_top then
    t.deck = cat(minus(ALL_BEANS, cat(beans_named(t), t.deck_top)), t.deck_top)
    t.deck_top = nil
  end
  if t.pile_top then
    local named = {}
    for _, p in ipairs(t.players) do
      for _, sp in ipairs(p.spells or {}) do named[#named + 1] = sp.name end
      if p.luck_slot then named[#named + 1] = p.luck_slot.name end
    end
    t.spell_pile = cat(minus(ALL_SPELLS, cat(named, t.pile_top)), t.pile_top)
    t.pile_top = nil
  end
  return meeple.from_table(t)
end

local function P(s, p) return s:table().players[p] end
local function beans(s, p, f) return P(s, p).fields[f].beans end
local function coins(s, p) return P(s, p).coins end
local function hand(s, p) return P(s, p).hand end
local function discard(s) return s:table().discard or {} end
local function top(list) return list[#list] end
local function spell_names(row)
  local t = {}
  for _, sp in ipairs(row or {}) do t[#t + 1] = sp.name or "?" end
  return t
end
local function spell_of(s, p, name)
  for _, sp in ipairs(P(s, p).spells) do
    if sp.name == name then return sp end
  end
end

-- the legal actions starting with `word`
local function starting(s, word)
  local t = {}
  for _, a in ipairs(s:legal()) do
    if a == word or a:sub(1, #word + 1) == word .. " " then t[#t + 1] = a end
  end
  return t
end

local function assert_legal_is(s, list)
  assert.same(sorted(list), sorted(s:legal()), "legal: " .. legal_text(s))
end

-- one plain decision: end what can be ended, decline what can be declined, else plant, else the first
local PLAIN = { "done", "pass", "reject", "draw", "keep", "activate none", "stop", "skip", "place down", "cancel" }
local function plain_step(s)
  local l = s:legal()
  for _, a in ipairs(PLAIN) do
    if has(l, a) then return s:play(a) end
  end
  for _, a in ipairs(l) do
    if a:match("^plant") then return s:play(a) end
  end
  return s:play(l[1])
end

-- plain decisions until the active player changes (or the game ends)
local function finish_turn(s)
  local a = s:table().active
  for _ = 1, 300 do
    if s:is_over() or s:table().active ~= a then return s end
    plain_step(s)
  end
  error("the turn did not end")
end

-- plain decisions until `p` decides in its own turn
local function until_turn_of(s, p)
  for _ = 1, 2000 do
    local t = s:table()
    if t.active == p and t.to_move == p then return s end
    assert(not s:is_over(), "the game ended first")
    plain_step(s)
  end
  error("player " .. p .. " never got a turn")
end

---------------------------------------------------------------------------
describe("rabohnzel scenarios", function()
  -- 1
  it("countdown: the 9 pf holder starts when nobody has luck; its card is public, the rest hidden and lower", function()
    -- a deal of relocation (8), aggression (1), hand_cards (9), commerce (3) to seats 1-4
    local want = { "relocation", "aggression", "hand_cards", "commerce" }
    local s
    for seed = 1, 200000 do
      local c = meeple.new("rabohnzel", { seed = seed, players = 4 })
      local t = c:table()
      local ok = true
      for p = 1, 4 do
        if t.players[p].spells[1].name ~= want[p] then ok = false break end
      end
      if ok then s = c break end
    end
    assert.is_not_nil(s, "no seed deals relocation, aggression, hand_cards, commerce")
    local t = s:table()
    assert.equal(3, t.start)
    assert.equal(3, t.active)
    assert.equal(3, s:to_move())
    -- every view shows seat 3's card; the other face-down cards only to their owners
    for v = 1, 4 do
      local view = s:view(v)
      assert.equal("hand_cards", view.players[3].spells[1].name)
      for p = 1, 4 do
        if p ~= 3 then
          local name = view.players[p].spells[1].name
          if p == v then assert.equal(want[p], name) else assert.is_nil(name) end
        end
      end
    end
    -- a sample for seat 1 gives seats 2 and 4 only spells worth less than 9 (never luck)
    local seen = {}
    for k = 1, 40 do
      local sm = s:sample(1, k):table()
      assert.equal("relocation", sm.players[1].spells[1].name)
      assert.equal("hand_cards", sm.players[3].spells[1].name)
      for _, p in ipairs { 2, 4 } do
        local name = sm.players[p].spells[1].name
        assert.is_true(SPELL_VALUE[name] < 9, "seat " .. p .. " sampled " .. name)
        seen[name] = true
      end
    end
    assert.is_nil(seen.luck)
    assert.is_true(next(seen) ~= nil)
    -- the turn order is 3, 4, 1, 2
    local order = { s:table().active }
    for _ = 1, 3 do
      finish_turn(s)
      order[#order + 1] = s:table().active
    end
    assert.same({ 3, 4, 1, 2 }, order)
  end)

  -- 2
  it("harvested power is lost: a harvested Pluck field gives no pluck, the Magic field still works", function()
    local s = rab {
      players = {
        { fields = { { "pluck", "pluck" }, { "magic" } }, hand = { "cape", "princess", "princess" },
          spells = { { name = "relocation", up = false } } },
        { hand = { "wise", "wise" } }, { hand = { "sword" } },
      },
    }
    assert.equal("plant", s:table().phase)
    -- the cape fits nowhere; the single magic is protected by the two plucks
    assert_legal_is(s, { "harvest 1" })
    assert_illegal(s, "harvest 2")
    play(s, "harvest 1")
    assert.same({ "pluck" }, coins(s, 1)) -- 2 plucks pay 1 coin (meter 2/4/5/6)
    assert.equal("pluck", top(discard(s)))
    play(s, "plant 1")
    assert.same({ "cape" }, beans(s, 1, 1))
    play(s, "done")
    assert.equal("magic", s:table().phase)
    assert.equal(1, s:to_move())
    assert.same({}, starting(s, "pluck"))
    assert_legal(s, "magic relocation")
    assert.equal(0, P(s, 1).fields[1].power) -- no power for cape
    assert.same({}, starting(s, "cape"))
  end)

  -- 3
  it("pluck reuse: a Pluck field harvested and replanted with the stolen card plucks again", function()
    local pos = {
      phase = "magic",
      players = {
        { fields = { { "pluck", "pluck" }, { "wise", "wise", "wise" } }, hand = { "princess" } },
        { hand = { "sword", "princess", "pluck" } }, { hand = { "cape", "magic" } },
      },
    }
    local s = rab(pos)
    play(s, "pluck 2")
    assert.same({ "sword", "princess" }, hand(s, 2))
    local pending = s:table().pending
    assert.equal("pluck", pending.card)
    assert.equal(1, pending.owner)
    assert.equal("pluck", s:view(3).pending.card) -- shown to all
    assert_legal_is(s, { "keep", "plant 1", "harvest 1", "harvest 2" })
    play(s, "harvest 1")
    assert.same({ "pluck" }, coins(s, 1))
    assert.equal(1, count(discard(s), "pluck"))
    play(s, "plant 1")
    assert.same({ "pluck" }, beans(s, 1, 1))
    assert_legal(s, "pluck 2")
    assert_legal(s, "pluck 3")

    -- had A planted at once: [pluck x3], and no further pluck
    s = rab(pos)
    play(s, "pluck 2", "plant 1")
    assert.same({ "pluck", "pluck", "pluck" }, beans(s, 1, 1))
    assert.same({}, starting(s, "pluck"))
  end)

  -- 4
  it("wise with 4: the drawn card is A's secret; harvested and planted it gives a fresh pluck", function()
    local pos = {
      phase = "magic",
      players = {
        { fields = { { "wise", "wise", "wise", "wise" }, { "sword", "sword" } }, hand = { "princess" } },
        { hand = { "cape" } }, { hand = { "magic", "pluck" } }, { hand = { "princess" } },
      },
      deck_top = { "pluck" },
    }
    local s = rab(pos)
    play(s, "wise")
    assert.equal("pluck", s:view(1).pending.card)
    for v = 2, 4 do assert.is_nil(s:view(v).pending.card) end
    assert_legal(s, "keep")
    play(s, "harvest 1")
    assert.same({ "wise" }, coins(s, 1)) -- 4 wise pay 1 coin (meter 3/5/6/7), 3 discarded
    assert.equal(3, count(discard(s), "wise"))
    play(s, "plant 1")
    assert.same({ "pluck" }, beans(s, 1, 1))
    assert.same({ "pluck" }, s:view(2).players[1].fields[1].beans) -- now public
    play(s, "pluck 3")
    assert.same({ "magic" }, hand(s, 3))
    play(s, "plant 1")
    assert.same({ "pluck", "pluck" }, beans(s, 1, 1))
    assert.same({}, starting(s, "pluck"))

    -- with [wise x3] the card goes straight to the back of A's hand
    pos.players[1].fields[1] = { "wise", "wise", "wise" }
    s = rab(pos)
    play(s, "wise")
    assert.is_nil(s:table().pending)
    assert.same({ "princess", "pluck" }, hand(s, 1))
    assert.equal(1, s:to_move())
  end)

  -- 5
  it("common purge: coins of the highest number go back, the others are discarded", function()
    local pos = {
      phase = "magic",
      players = {
        { fields = { { "common", "common", "common", "common" } }, hand = { "sword" } },
        { coins = { "princess" } }, { coins = { "princess" } }, { coins = { "cape" } },
      },
    }
    local s = rab(pos)
    play(s, "common")
    assert.same({ "princess" }, coins(s, 2))
    assert.same({ "princess" }, coins(s, 3))
    assert.same({}, coins(s, 4))
    assert.equal("cape", top(discard(s)))
    assert.same({}, starting(s, "common"))

    -- three Common Beans: illegal
    pos.players[1].fields[1] = { "common", "common", "common" }
    s = rab(pos)
    assert_illegal(s, "common")
    -- with aggression active it is legal, and aggression ends face down
    pos.players[1].spells = { { name = "aggression", up = true } }
    s = rab(pos)
    play(s, "common")
    assert.same({}, coins(s, 4))
    assert.same({ "princess" }, coins(s, 2))
    assert.is_false(spell_of(s, 1, "aggression").up)
  end)

  -- 6
  describe("sword results (single-coin piles)", function()
    local function attack(b_coins, extra)
      local pos = {
        phase = "magic",
        players = {
          { fields = { { "sword" } }, hand = { "cape", "magic" }, coins = extra and extra.a_coins },
          { coins = b_coins, fields = extra and extra.b_fields, spells = extra and extra.b_spells,
            hand = { "princess", "wise" } },
          { hand = { "wise" } }, { hand = { "wise" } },
        },
      }
      local s = rab(pos)
      play(s, "sword 2")
      return s
    end

    it("a. a princess coin moves to the attacker", function()
      local s = attack { "princess" }
      assert.same({ "princess" }, coins(s, 1))
      assert.same({}, coins(s, 2))
      assert.is_nil(s:table().attack)
      assert.equal(1, s:to_move())
    end)

    it("b. a wise coin changes nothing", function()
      local s = attack { "wise" }
      assert.same({}, coins(s, 1))
      assert.same({ "wise" }, coins(s, 2))
      assert.is_nil(s:table().attack)
    end)

    it("c. a pluck coin: the defender takes the attacker's back card, keeps or plants it, never harvests", function()
      local s = attack({ "pluck" }, { b_fields = { { "sword", "sword" } } })
      assert.same({ "pluck" }, coins(s, 2))
      assert.same({ "cape" }, hand(s, 1))
      local pending = s:table().pending
      assert.equal("magic", pending.card)
      assert.equal(2, pending.owner)
      assert.equal("magic", s:view(3).pending.card) -- shown
      assert.equal(2, s:to_move())
      assert_legal_is(s, { "keep", "plant 2" })
      assert_illegal(s, "harvest 1")
      play(s, "plant 2")
      assert.same({ "magic" }, beans(s, 2, 2))
    end)

    it("d. a sword coin: the defender counterattacks and takes the attacker's princess", function()
      local s = attack({ "sword" }, { a_coins = { "princess" } })
      assert.same({}, coins(s, 1))
      assert.same(sorted { "sword", "princess" }, sorted(coins(s, 2)))
      assert.is_nil(s:table().attack)
    end)

    it("e. sword against sword: the attack ends at once, no change", function()
      local s = attack({ "sword" }, { a_coins = { "sword" } })
      assert.same({ "sword" }, coins(s, 1))
      assert.same({ "sword" }, coins(s, 2))
      assert.is_nil(s:table().attack)
      assert.equal(1, s:to_move())
    end)

    it("f. a magic coin in the counterattack: the spell stays active until its owner's next turn ends", function()
      local s = attack({ "sword" }, { a_coins = { "magic" }, b_spells = { { name = "relocation", up = false } } })
      assert.equal(2, s:to_move())
      assert_legal_is(s, { "activate relocation", "activate none" })
      play(s, "activate relocation")
      assert.is_true(spell_of(s, 2, "relocation").up)
      finish_turn(s) -- the rest of A's turn
      assert.equal(2, s:table().active)
      assert.equal(2, s:to_move())
      assert.is_true(spell_of(s, 2, "relocation").up)
      assert_legal(s, "use relocation")
      assert_legal(s, "plant 1")
      finish_turn(s)
      assert.is_false(spell_of(s, 2, "relocation").up)
    end)
  end)

  -- 7
  it("aggression: two coins drawn, the attacker must choose one", function()
    local pos = {
      phase = "magic",
      players = {
        { fields = { { "sword" } }, hand = { "cape" }, coins = { "princess" },
          spells = { { name = "aggression", up = true } } },
        { coins = { "sword", "common", "princess" }, hand = { "wise" } },
        { hand = { "wise" } },
      },
    }
    -- a seed whose draw is sword + common
    local seed
    for k = 1, 500 do
      pos.seed = k
      local s = rab(pos)
      s:play("sword 2 aggression")
      local drawn = s:table().attack and s:table().attack.drawn
      if drawn and util.deep_equal(sorted(drawn), { "common", "sword" }) then seed = k break end
    end
    assert.is_not_nil(seed, "no seed draws sword + common")
    pos.seed = seed
    local s = rab(pos)
    play(s, "sword 2 aggression")
    assert_legal_is(s, { "choose sword", "choose common" })
    play(s, "choose common")
    assert.equal(3, #coins(s, 2))
    assert.same({ "princess" }, coins(s, 1))
    assert.is_false(spell_of(s, 1, "aggression").up)
    assert.is_nil(s:table().attack)

    s = rab(pos)
    play(s, "sword 2 aggression", "choose sword")
    -- the counterattack: B draws A's only coin, a princess, and takes it
    assert.same({}, coins(s, 1))
    assert.equal(4, #coins(s, 2))
    assert.equal(2, count(coins(s, 2), "princess"))
    assert.is_false(spell_of(s, 1, "aggression").up)
  end)

  -- 8
  it("card river: three swords in hand give three attacks; no trading while the river runs", function()
    -- the river in phase 2: no trade action before `stop`
    local s = rab {
      phase = "trade", face_up = { "cape", "cape" },
      players = {
        { fields = { { "princess" }, {} }, hand = { "sword", "wise" },
          spells = { { name = "card_river", up = true } } },
        { hand = { "cape" } }, { hand = { "cape" } },
      },
    }
    play(s, "use card_river")
    assert.is_true(s:table().river)
    assert_illegal(s, "propose 2")
    assert_illegal(s, "ask")
    play(s, "plant 2")
    assert.same({ "sword" }, beans(s, 1, 2))
    play(s, "stop")
    assert.is_false(s:table().river)
    assert_legal(s, "propose 2")

    -- the seed's example in phase 1½
    s = rab {
      phase = "magic",
      players = {
        { fields = { { "princess" }, {} }, hand = { "sword", "sword", "sword" },
          spells = { { name = "card_river", up = true } } },
        { coins = { "wise" }, hand = { "cape" } }, { coins = { "wise" }, hand = { "cape" } },
      },
    }
    play(s, "use card_river", "plant 2", "sword 2")
    play(s, "harvest 2") -- every field holds a single card
    play(s, "plant 2", "sword 3", "harvest 2", "plant 2", "sword 2")
    local attacks = 0
    for _, h in ipairs(s:history()) do
      if h.action:match("^sword ") then attacks = attacks + 1 end
    end
    assert.equal(3, attacks)
    assert.same({}, hand(s, 1))
    assert.same({ "sword" }, beans(s, 1, 2))
    assert.same({ "wise" }, coins(s, 2))
    assert.same({ "wise" }, coins(s, 3))
    assert.equal(2, count(discard(s), "sword")) -- two lone swords harvested for nothing
    -- the digest: "`propose N` is not legal before `stop`": a running river holds the phase open
    assert.equal("magic", s:table().phase)
    assert.is_true(s:table().river)
    assert_illegal(s, "propose 2")
    play(s, "stop")
  end)

  -- 9
  it("bean field: the third field goes at its owner's next harvest, taking both old fields with it", function()
    local s = rab {
      phase = "plant_traded", face_up = { "sword", "princess" },
      players = {
        { fields = { { "magic", "magic" }, { "sword" } }, hand = { "cape" },
          spells = { { name = "bean_field", up = true } } },
        { hand = { "wise", "wise", "wise" } }, { hand = { "wise", "wise", "wise" } },
      },
    }
    play(s, "plant sword 2", "use bean_field", "plant princess 3")
    assert.is_true(P(s, 1).third_field)
    assert.same({ "princess" }, beans(s, 1, 3))
    -- turn T+1
    until_turn_of(s, 1)
    assert.equal("plant", s:table().phase)
    assert.equal("cape", hand(s, 1)[1])
    assert.same({ "magic", "magic" }, beans(s, 1, 1))
    assert.same({ "sword", "sword" }, beans(s, 1, 2))
    assert.same({ "princess" }, beans(s, 1, 3))
    assert_legal_is(s, { "harvest 1", "harvest 2" })
    assert_illegal(s, "harvest 3")
    local c = #coins(s, 1)
    play(s, "harvest 1")
    assert.equal(c, #coins(s, 1)) -- 2 magic pay nothing
    local f = P(s, 1).fields
    assert.equal(2, #f)
    assert.is_false(P(s, 1).third_field)
    assert.same({ "sword", "sword" }, f[1].beans)
    assert.same({ "princess" }, f[2].beans)
    assert_legal_is(s, { "harvest 1" })
    play(s, "harvest 1")
    assert.equal(c, #coins(s, 1)) -- 2 swords pay nothing
    play(s, "plant 1")
    assert.same({ "cape" }, beans(s, 1, 1))
    assert.same({ "princess" }, beans(s, 1, 2))
  end)

  -- 10
  it("deck spell: the discard pile's top card joins the face-up cards and can be traded", function()
    local s = rab {
      phase = "trade", face_up = { "sword", "magic" }, discard = { "cape", "princess" },
      players = {
        { fields = { { "pluck", "pluck" }, { "magic", "magic" } }, hand = { "wise", "cape" },
          spells = { { name = "deck_spell", up = true } } },
        { hand = { "princess", "magic", "wise" } }, { hand = { "cape" } },
      },
    }
    play(s, "ask")
    assert.equal(2, s:to_move())
    play(s, "offer", "give 2", "want pluck", "send")
    assert.equal(1, s:to_move())
    -- A holds no pluck anywhere: it cannot accept
    assert_illegal(s, "accept")
    play(s, "reject")
    -- C's turn in the round
    if s:to_move() == 3 then play(s, "pass") end
    assert.equal(1, s:to_move())
    play(s, "harvest 1")
    assert.same({ "pluck" }, coins(s, 1))
    assert.equal("pluck", top(discard(s)))
    play(s, "use deck_spell")
    assert.is_true(has(s:table().face_up, "pluck"))
    assert.equal("princess", top(discard(s)))
    play(s, "propose 2", "give up pluck", "want magic", "send")
    play(s, "accept")
    assert.same({ "pluck" }, P(s, 2).set_aside)
    assert.same({ "magic" }, P(s, 1).set_aside)
    assert.same({ "princess", "wise" }, hand(s, 2))
  end)

  -- 11
  it("luck and exchange: the exchanged card stays with B; the card taken goes back to the pile", function()
    local s = rab {
      players = {
        { hand = { "princess", "princess" }, spells = { { name = "luck", up = true } } },
        { hand = { "wise" }, spells = { { name = "aggression", up = false } } },
        { hand = { "wise" } },
      },
      pile_top = { "card_exchange" },
    }
    local pile = #s:table().spell_pile
    play(s, "use luck")
    local slot = P(s, 1).luck_slot
    assert.equal("card_exchange", slot.name)
    assert.is_true(slot.up)
    assert.is_false(spell_of(s, 1, "luck").up)
    assert.equal(pile - 1, #s:table().spell_pile)
    play(s, "use card_exchange 2 1")
    play(s, "place up")
    assert.equal("aggression", P(s, 1).luck_slot.name)
    assert.is_true(P(s, 1).luck_slot.up)
    assert.same({ "card_exchange" }, spell_names(P(s, 2).spells))
    assert.is_false(P(s, 2).spells[1].up)
    for v = 1, 3 do assert.equal("card_exchange", s:view(v).players[2].spells[1].name) end -- known to all
    finish_turn(s)
    assert.is_nil(P(s, 1).luck_slot)
    assert.same({ "luck" }, spell_names(P(s, 1).spells))
    assert.is_false(P(s, 1).spells[1].up)
    assert.same({ "card_exchange" }, spell_names(P(s, 2).spells))
    assert.is_true(has(s:table().spell_pile, "aggression"))
    assert.equal(pile, #s:table().spell_pile)
  end)

  -- 12
  it("hand cards: 5 cards when nothing was traded; after an accepted donation the 3 are automatic", function()
    local pos = {
      phase = "trade", face_up = {},
      players = {
        { hand = { "princess", "wise" }, spells = { { name = "hand_cards", up = true } } },
        { hand = { "cape" } }, { hand = { "cape" } },
      },
    }
    local s = rab(pos)
    local deck = #s:table().deck
    play(s, "done")
    assert.equal("draw", s:table().phase)
    assert.equal(1, s:to_move())
    assert_legal(s, "draw")
    assert_legal(s, "use hand_cards")
    play(s, "use hand_cards")
    assert.equal(7, #hand(s, 1))
    assert.equal(deck - 5, #s:table().deck)

    s = rab(pos)
    play(s, "propose 2", "give 1", "send", "accept")
    assert.is_true(s:table().traded)
    play(s, "done")
    play(s, "plant princess 1") -- B plants the gift
    assert.equal(1 + 3, #hand(s, 1))
    assert.equal(2, s:table().active)
    for _, h in ipairs(s:history()) do
      assert.are_not.equal("use hand_cards", h.action)
      assert.are_not.equal("draw", h.action)
    end
  end)

  -- 13
  it("bean enchantment: the enchanted card counts as a sword but pays nothing and is discarded", function()
    local s = rab {
      phase = "plant_traded", face_up = { "sword", "wise" },
      params = { beanometer = { sword = { 1, 2, 3, 4 } } },
      players = {
        { fields = { { "princess" }, { "wise", "wise", "wise", "wise", "wise" } }, hand = { "cape" },
          spells = { { name = "bean_enchantment", up = true } } },
        { hand = { "cape" } }, { hand = { "cape" } },
      },
    }
    play(s, "enchant sword 1")
    local f = P(s, 1).fields[1]
    assert.same({ "princess", "sword" }, f.beans)
    assert.equal(1, f.enchanted)
    assert.equal(1, s:to_move())
    local d = #discard(s)
    play(s, "harvest 1")
    assert.same({ "sword" }, coins(s, 1)) -- min(2 by the meter, 1 real sword)
    assert.equal(d + 1, #discard(s))
    assert.equal("princess", top(discard(s)))
    assert.same({}, beans(s, 1, 1))
  end)

  -- 14
  it("commerce: a third face-up card that may be discarded in phase 3; not after a trade step", function()
    local pos = {
      phase = "trade", face_up = { "princess", "wise" },
      players = {
        { hand = { "cape" }, spells = { { name = "commerce", up = true } } },
        { hand = { "cape" } }, { hand = { "cape" } },
      },
      deck_top = { "sword" },
    }
    local s = rab(pos)
    play(s, "use commerce")
    assert.same({ "princess", "wise", "sword" }, s:table().face_up)
    assert.equal(3, s:table().commerce_card)
    play(s, "done")
    assert.equal("plant_traded", s:table().phase)
    assert_legal(s, "discard sword")
    assert_legal(s, "plant sword 1")
    assert_illegal(s, "discard princess")
    assert_illegal(s, "discard wise")
    play(s, "discard sword")
    assert.equal("sword", top(discard(s)))
    assert_illegal(s, "done") -- the other two must be planted
    play(s, "plant princess 1", "plant wise 2")

    s = rab(pos)
    play(s, "propose 2", "cancel")
    assert_illegal(s, "use commerce")
  end)

  -- 15
  describe("cape bonus", function()
    local function cape_position(field, pile_top, extra)
      local pos = {
        players = {
          { fields = { field, { "princess", "princess" } }, hand = { "princess" } },
          { hand = { "wise" } }, { hand = { "wise" } },
        },
        pile_top = pile_top,
      }
      for k, v in pairs(extra or {}) do pos[k] = v end
      return rab(pos)
    end

    it("[cape x2]: 0 coins, 2 discarded, the top spell to the harvester, its name theirs alone", function()
      local s = cape_position({ "cape", "cape" }, { "relocation" })
      play(s, "harvest 1")
      assert.same({}, coins(s, 1))
      assert.equal(2, count(discard(s), "cape"))
      local row = P(s, 1).spells
      assert.same({ "relocation" }, spell_names(row))
      assert.is_false(row[1].up)
      assert.equal("relocation", s:view(1).players[1].spells[1].name)
      assert.is_nil(s:view(2).players[1].spells[1].name)
      assert.is_nil(s:view(3).players[1].spells[1].name)
    end)

    it("[cape x3]: 1 coin plus a spell", function()
      local s = cape_position({ "cape", "cape", "cape" }, { "luck" })
      play(s, "harvest 1")
      assert.same({ "cape" }, coins(s, 1))
      assert.same({ "luck" }, spell_names(P(s, 1).spells))
    end)

    it("an empty spell pile: coins only", function()
      local s = rab {
        players = {
          { fields = { { "cape", "cape", "cape" }, { "princess", "princess" } }, hand = { "princess" } },
          { hand = { "wise" } },
          { hand = { "wise" }, spells = (function()
            local t = {}
            for _, n in ipairs(ALL_SPELLS) do t[#t + 1] = { name = n, up = false } end
            return t
          end)() },
        },
        spell_pile = {},
      }
      play(s, "harvest 1")
      assert.same({ "cape" }, coins(s, 1))
      assert.same({}, P(s, 1).spells)
      assert.equal(11, #P(s, 3).spells)
    end)

    it("at the final harvest (cape_final_harvest) the drawn spell's value is scored", function()
      local function final(param)
        local s = rab {
          phase = "trade", face_up = {}, pass = 4,
          params = { cape_final_harvest = param },
          players = {
            { fields = { { "cape", "cape" } }, hand = { "princess" } },
            { hand = { "wise" } }, { hand = { "wise" } }, { hand = { "wise" } },
          },
          deck = { "sword", "sword" },
          pile_top = { "luck" },
        }
        play(s, "done")
        return s
      end
      local s = final(true)
      assert.is_true(s:is_over())
      assert.same({ "luck" }, spell_names(P(s, 1).spells))
      assert.equal(10, s:scores()[1])
      s = final(false)
      assert.is_true(s:is_over())
      assert.same({}, P(s, 1).spells)
      assert.equal(0, s:scores()[1])
    end)
  end)

  -- 16
  it("scoring: 100 x taler + pfennig after the 4th pass; equal scores go to tie_break", function()
    local function ending(spells1, spells2, extra)
      local pos = {
        phase = "trade", face_up = {}, pass = 4,
        players = {
          { coins = { "sword", "sword", "sword", "sword", "sword", "sword", "sword", "sword", "sword" },
            spells = spells1, hand = { "wise" } },
          { coins = { "princess", "princess", "princess", "princess", "princess", "princess", "princess",
            "princess", "princess" }, spells = spells2, hand = { "wise" } },
          { coins = { "wise", "wise", "wise", "wise", "wise", "wise", "wise", "wise" }, hand = { "wise" } },
          { coins = { "magic", "magic", "magic", "magic", "magic", "magic", "magic" }, hand = { "wise" } },
        },
        deck = { "cape", "cape" },
      }
      for k, v in pairs(extra or {}) do pos[k] = v end
      local s = rab(pos)
      play(s, "done")
      assert.is_true(s:is_over())
      return s
    end
    local s = ending({ { name = "aggression", up = false } }, { { name = "relocation", up = false } })
    assert.same({ 901, 908, 800, 700 }, s:scores())
    assert.same({ 2 }, s:winners())

    -- equal taler and pfennig: the seat tie-break, counted from the start player
    local eq1, eq2 = { { name = "aggression", up = false } }, { { name = "bean_field", up = false } }
    s = ending(eq1, eq2)
    assert.same({ 901, 901, 800, 700 }, s:scores())
    assert.same({ 2 }, s:winners())
    s = ending(eq1, eq2, { start = 2, active = 1 })
    assert.same({ 1 }, s:winners())
    s = ending(eq1, eq2, { params = { tie_break = "none" } })
    assert.same({ 1, 2 }, sorted(s:winners()))
  end)

  -- 17
  it("player enchantment: the others plant their front cards, harvesting if they must; then A plants or skips", function()
    local s = rab {
      phase = "trade", face_up = {},
      players = {
        { fields = { { "sword" } }, hand = { "princess", "wise" },
          spells = { { name = "player_enchantment", up = true } } },
        { fields = { { "sword", "sword" }, { "common", "common", "common" } }, hand = { "wise", "cape" } },
        { hand = {} },
        { fields = { { "princess" }, { "pluck" } }, hand = { "princess", "cape" } },
      },
    }
    play(s, "use player_enchantment")
    assert.equal(2, s:to_move())
    assert_legal_is(s, { "harvest 1", "harvest 2" })
    play(s, "harvest 1", "plant 1")
    assert.same({ "wise" }, beans(s, 2, 1))
    assert.same({ "cape" }, hand(s, 2))
    -- C has an empty hand and is skipped
    assert.equal(4, s:to_move())
    assert_legal(s, "plant 1")
    assert_illegal(s, "plant 2")
    play(s, "plant 1")
    assert.same({ "princess", "princess" }, beans(s, 4, 1))
    assert.equal(1, s:to_move())
    assert_legal(s, "plant 2")
    assert_legal(s, "skip")
    play(s, "plant 2")
    assert.same({ "princess" }, beans(s, 1, 2))
    assert.same({ "wise" }, hand(s, 1))
  end)

  -- 18
  it("relocation after the draw: the hand is reordered and what others had seen of it is forgotten", function()
    local s = rab {
      phase = "trade", face_up = {},
      players = {
        { hand = { "sword", "princess" }, shown = { { at = 1, bean = "sword" } },
          spells = { { name = "relocation", up = true } } },
        { hand = { "cape" } }, { hand = { "cape" } },
      },
      deck_top = { "wise", "cape", "magic" },
    }
    assert.equal(1, #s:view(2).players[1].shown)
    play(s, "done")
    -- nothing to plant, but a spell is usable: A ends phase 3 with `done`
    assert.equal("plant_traded", s:table().phase)
    assert.equal(1, s:to_move())
    play(s, "done")
    assert.equal("draw", s:table().phase)
    assert.same({ "sword", "princess", "magic", "cape", "wise" }, hand(s, 1))
    assert.equal(1, s:to_move())
    assert_legal(s, "use relocation")
    play(s, "use relocation", "order wise", "order cape", "order magic", "order princess")
    assert.same({ "wise", "cape", "magic", "princess", "sword" }, hand(s, 1))
    assert.same({}, s:view(2).players[1].shown or {})
    assert.same({}, s:view(3).players[1].shown or {})
  end)

  -- 19
  it("guard window: before a Sword or Common field acts, the others may harvest or pass", function()
    local function position(seed, a_field)
      return rab {
        seed = seed,
        players = {
          { fields = { { a_field }, {} }, hand = { a_field, "cape" } },
          { coins = { "princess" }, fields = { { "wise", "wise", "wise" } }, hand = { "cape" } },
          { hand = { "cape" } },
        },
      }
    end
    local s = position(1, "sword")
    play(s, "plant 1", "done")
    assert.equal("magic", s:table().phase)
    assert.equal(2, s:to_move())
    assert_legal_is(s, { "harvest 1", "pass" })
    -- B passes: the lone princess coin is certain
    play(s, "pass")
    assert.equal(1, s:to_move())
    play(s, "sword 2")
    assert.same({ "princess" }, coins(s, 1))

    -- B harvests: A's sword draws from 2 coins
    local outcomes = {}
    for seed = 1, 30 do
      s = position(seed, "sword")
      play(s, "plant 1", "done", "harvest 1")
      assert.same(sorted { "princess", "wise" }, sorted(coins(s, 2)))
      -- B has no field left to harvest: its `pass` may be automatic (the digest leaves it open)
      if s:to_move() == 2 then play(s, "pass") end
      play(s, "sword 2")
      outcomes[#coins(s, 2)] = true
    end
    assert.is_true(outcomes[1] and outcomes[2], "the draw should sometimes find the princess, sometimes the wise")

    -- without a sword or common field at A, B gets no decision
    s = position(1, "wise")
    play(s, "plant 1", "done")
    assert.equal("magic", s:table().phase)
    assert.is_nil(s:table().guard)
    assert.equal(1, s:to_move())
  end)

  -- 20
  it("exchange placement: placed up, the taken card is active; placed down, nothing is activated", function()
    local pos = {
      players = {
        { hand = { "princess" },
          spells = { { name = "card_exchange", up = true }, { name = "relocation", up = false } } },
        { hand = { "cape" } },
        { hand = { "cape" },
          spells = { { name = "deck_spell", up = false }, { name = "luck", up = true } } },
      },
    }
    local s = rab(pos)
    play(s, "use card_exchange 3 2", "place up")
    assert.is_true(spell_of(s, 1, "luck").up)
    assert_legal(s, "use luck")
    assert.same({ "deck_spell", "card_exchange" }, spell_names(P(s, 3).spells))
    assert.is_false(P(s, 3).spells[2].up)

    s = rab(pos)
    play(s, "use card_exchange 3 2", "place down")
    for _, sp in ipairs(P(s, 1).spells) do assert.is_false(sp.up, sp.name) end
    assert.is_true(has(spell_names(P(s, 1).spells), "luck"))
    assert.same({}, starting(s, "use"))
  end)

  -- 21
  it("run-out in phase 1½: a Wise draw ends the last pass; phases 2 and 3 are played, then the game ends", function()
    local s = rab {
      phase = "magic", pass = 3,
      players = {
        { fields = { { "wise", "wise" } }, hand = { "princess" } },
        { hand = { "cape" }, fields = { {}, {} } }, { hand = { "cape" } },
      },
      deck = { "magic" },
    }
    play(s, "wise")
    assert.same({ "princess", "magic" }, hand(s, 1))
    assert.is_false(s:is_over())
    assert.is_true(s:table().last_pass_over)
    -- nothing is left in phase 1½ but `done`; the engine may end the phase by itself
    if s:table().phase == "magic" then play(s, "done") end
    assert.equal("trade", s:table().phase)
    assert.same({}, s:table().face_up)
    play(s, "propose 2", "give 1", "send", "accept", "done")
    assert.equal("plant_traded", s:table().phase)
    assert.equal(2, s:to_move())
    play(s, "plant princess 1")
    assert.is_true(s:is_over())
    assert.same({ "magic" }, hand(s, 1)) -- no phase 4
    assert.is_not_nil(s:winners())
  end)

  -- 22
  it("pluck coin, no power: a field started by a Pluck coin gives no pluck this turn", function()
    local s = rab {
      phase = "magic",
      players = {
        { fields = { { "sword" }, {} }, hand = { "cape" }, coins = { "pluck" } },
        { coins = { "sword" }, hand = { "wise", "pluck" } },
        { hand = { "cape" } },
      },
    }
    play(s, "sword 2")
    -- B's sword coin: B counterattacks and finds A's pluck coin; A takes B's back card
    local pending = s:table().pending
    assert.equal("pluck", pending.card)
    assert.equal(1, pending.owner)
    assert.equal("coin", pending.from)
    play(s, "plant 2")
    assert.same({ "pluck" }, beans(s, 1, 2))
    assert.equal(1, s:to_move())
    assert.equal(0, P(s, 1).fields[2].power)
    assert.same({}, starting(s, "pluck"))
  end)

  -- 23
  it("invariant: every bean and spell is in exactly one place over random games", function()
    local function check(t)
      local n = {}
      local function add(list)
        for _, c in ipairs(list or {}) do n[c] = (n[c] or 0) + 1 end
      end
      add(t.deck)
      add(t.discard)
      add(t.face_up)
      add(t.spell_pile)
      if t.pending then add { t.pending.card } end
      for _, p in ipairs(t.players) do
        add(p.hand)
        add(p.coins)
        add(p.set_aside)
        for _, f in ipairs(p.fields) do add(f.beans) end
        add(spell_names(p.spells))
        if p.luck_slot then add { p.luck_slot.name } end
      end
      for b, k in pairs(BEAN_COUNT) do assert.equal(k, n[b] or 0, b) end
      for _, sp in ipairs(ALL_SPELLS) do assert.equal(1, n[sp] or 0, sp) end
      local total = 0
      for _, k in pairs(n) do total = total + k end
      assert.equal(98 + 11, total)
    end
    local x = 12345
    local function rnd(k)
      x = (x * 1103515245 + 12345) % 2147483648
      return (x // 65536) % k + 1
    end
    for game = 1, 6 do
      local s = meeple.new("rabohnzel", { seed = game, players = 3 + game % 3 })
      check(s:table())
      for _ = 1, 4000 do
        if s:is_over() then break end
        local l = s:legal()
        s:play(l[rnd(#l)])
        check(s:table())
      end
    end
  end)
end)

describe("rabohnzel tables", function()
  it("a magic field used twice only when it held 4+ as the phase began; beans added later change nothing", function()
    local spells = { { name = "card_river", up = true }, { name = "relocation", up = false },
      { name = "luck", up = false } }
    local s = rab { phase = "magic", players = {
      { fields = { { "magic", "magic", "magic" }, {} }, hand = { "magic", "sword" }, spells = spells },
      { hand = { "cape" } }, { hand = { "cape" } } } }
    assert.equal(1, P(s, 1).fields[1].power)
    play(s, "magic relocation", "use card_river", "plant 1")
    assert.equal(4, #beans(s, 1, 1))
    assert.equal(0, P(s, 1).fields[1].power)
    assert_illegal(s, "magic luck", "4 magic beans")
    s = rab { phase = "magic", players = {
      { fields = { { "magic", "magic", "magic", "magic" }, {} }, hand = { "sword" }, spells = spells },
      { hand = { "cape" } }, { hand = { "cape" } } } }
    assert.equal(2, P(s, 1).fields[1].power)
    play(s, "magic relocation", "magic luck")
    assert.equal(0, P(s, 1).fields[1].power)
  end)

  it("a luck card gone back to the pile is known to be there: samples keep it in the pile", function()
    local s = rab { phase = "draw", drawn = true, players = {
      { hand = { "princess", "princess" }, spells = { { name = "luck", up = true } } },
      { hand = { "wise" }, spells = { { name = "hand_cards", up = false } } },
      { hand = { "wise" }, spells = { { name = "relocation", up = false } } } },
      pile_top = { "card_river" } }
    play(s, "use luck")
    assert.equal("card_river", P(s, 1).luck_slot.name)
    play(s, "done")
    assert.is_nil(P(s, 1).luck_slot)
    assert.truthy(has(s:table().spell_pile, "card_river"))
    for k = 1, 40 do
      local t = s:sample(2, k):table()
      assert.truthy(has(t.spell_pile, "card_river"), "sample " .. k)
      assert.equal("hand_cards", t.players[2].spells[1].name)
    end
  end)

  it("two fields with one power: the action names the field with @F, and the reason shows how", function()
    local s = rab { phase = "magic", players = {
      { fields = { { "pluck" }, { "pluck" } }, hand = { "sword" } }, { hand = { "cape" } }, { hand = { "cape" } } } }
    assert_illegal(s, "pluck 2", "pluck 2 @1")
    assert_legal(s, "pluck 2 @1")
    assert_legal(s, "pluck 2 @2")
  end)

  it("a position built without a countdown card has none, in the table, every view and its text", function()
    local s = meeple.from_table { game = "rabohnzel", seed = 1, players = { {}, {}, {} } }
    assert.is_nil(s:table().countdown)
    for v = 1, 3 do assert.is_nil(s:view(v).countdown) end
    assert.is_nil(tostring(s):find("countdown", 1, true))
    local again = meeple.from_table(s:table())
    assert.is_nil(again:table().countdown)
  end)
end)

---------------------------------------------------------------------------
describe("rabohnzel rules round 3", function()
  it("guard window re-opens when the active player gains a Sword power mid-phase (phase 1½ step 3)", function()
    -- A river plant puts a Sword on A's empty field; B could harvest its full field first.
    local function river_sword(params)
      return rab {
        phase = "magic", params = params,
        players = {
          { fields = { { "princess" }, {} }, hand = { "sword", "cape" },
            spells = { { name = "card_river", up = true } } },
          { coins = { "princess" }, fields = { { "wise", "wise", "wise" } }, hand = { "cape" } },
          { hand = { "cape" } },
        },
      }
    end
    local s = river_sword()
    play(s, "use card_river", "plant 2")
    assert.same({ "sword" }, beans(s, 1, 2))
    -- B may harvest before the new Sword acts: no attack comes first
    assert.equal(2, s:to_move())
    assert_legal_is(s, { "harvest 1", "pass" })
    play(s, "harvest 1")
    assert.equal(1, s:to_move())
    assert_legal(s, "sword 2")
    -- without the window parameter, the attack is at once
    s = river_sword({ guard_window = false })
    play(s, "use card_river", "plant 2")
    assert.equal(1, s:to_move())
    assert_legal(s, "sword 2")
  end)

  it("a table without a countdown still tells samples the start player's dealt spell is the highest", function()
    local s = rab {
      active = 3, start = 3,
      players = {
        { spells = { { name = "relocation", dealt = true } } },
        { spells = { { name = "aggression", dealt = true } } },
        { spells = { { name = "hand_cards", dealt = true } } },
        { spells = { { name = "commerce", dealt = true } } },
      },
    }
    local value = { aggression = 1, bean_field = 1, card_exchange = 2, commerce = 3, card_river = 4, deck_spell = 5,
      bean_enchantment = 6, player_enchantment = 7, relocation = 8, hand_cards = 9, luck = 10 }
    for k = 1, 300 do
      local t = s:sample(1, k):table()
      local top = value[t.players[3].spells[1].name]
      assert.is_true(top > 8, "the start player's card beats relocation, which seat 1 holds")
      for _, p in ipairs { 2, 4 } do
        assert.is_true(value[t.players[p].spells[1].name] < top, "sample " .. k)
      end
    end
  end)

  it("every game ends: reveal = 0 with draw = 0 is refused with a reason", function()
    local ok, err = pcall(meeple.new, "rabohnzel", { params = { reveal = 0, draw = 0 } })
    assert.is_false(ok)
    assert.truthy(tostring(err):find("never", 1, true), err)
  end)

  it("plant 9 with two fields says you have 2 fields, as plant 3 does", function()
    local s = rab { players = { { hand = { "cape" } }, {}, {} } }
    assert_illegal(s, "plant 9", "you have 2 fields")
    assert_illegal(s, "plant 3", "you have 2 fields")
  end)

  it("an offered hand card is shown in the proposal and every view, and stays known after reject", function()
    local s = rab {
      phase = "trade", face_up = { "cape", "cape" },
      players = { { hand = { "wise", "magic" } }, { hand = { "cape" } }, { hand = { "cape" } } },
    }
    play(s, "propose 2", "give 2")
    for p = 1, 3 do assert.same({ "hand 2 magic" }, s:view(p).proposal.give) end
    play(s, "send", "reject")
    for p = 1, 3 do assert.same({ { at = 2, bean = "magic" } }, s:view(p).players[1].shown) end
    for k = 1, 100 do assert.equal("magic", s:sample(3, k):table().players[1].hand[2]) end
  end)

  it("a known Magic Bean behind an unknown twin can be cast: one cast per (bean, known) run", function()
    local s = rab {
      phase = "magic",
      players = {
        { fields = { { "princess" }, {} }, hand = { "magic", "magic" }, shown = { { at = 2, bean = "magic" } },
          spells = { { name = "luck" } } },
        { hand = { "cape" } }, { hand = { "cape" } },
      },
    }
    assert_legal(s, "cast luck @1")
    assert_legal(s, "cast luck @2")
  end)
end)

describe("rabohnzel check names the rule that refuses", function()
  local function magic_phase(a)
    return rab { phase = "magic", players = { a, { hand = { "cape" }, coins = { "wise" } }, { hand = { "cape" } } } }
  end

  it("pluck N without a Pluck field says there is no Pluck field", function()
    local s = magic_phase { fields = { { "sword" }, {} }, hand = { "cape" } }
    assert_illegal(s, "pluck 2", "no pluck field")
  end)

  it("cast S @K on a card that is no Magic Bean says so, not that S is not face down", function()
    local s = magic_phase { fields = { { "sword" }, {} }, hand = { "magic", "cape", "cape", "magic" },
      spells = { { name = "relocation" } } }
    assert_legal(s, "cast relocation @1")
    assert_illegal(s, "cast relocation @3", "no magic bean")
  end)

  it("a used power, a missing target and a face-up spell each give their own reason", function()
    local s = magic_phase { fields = { { "sword" }, { "magic" } }, hand = { "cape" },
      spells = { { name = "luck", up = true } } }
    assert_illegal(s, "sword 3", "no coins")
    assert_illegal(s, "magic luck", "face-down")
    play(s, "sword 2")
    assert_illegal(s, "sword 2", "power is used")
  end)

  it("an unknown word lists exactly Rabohnzel's words (no buy; cast, use, sword, pluck)", function()
    local s = meeple.new("rabohnzel")
    local ok, why = s:check("xyzzy")
    assert.is_falsy(ok)
    assert.equal("unknown action 'xyzzy'; actions: ", why:sub(1, 33))
    local words = {}
    for w in why:gsub("^.-actions: ", ""):gmatch("[%a_]+") do words[w] = true end
    for _, w in ipairs { "cast", "use", "sword", "pluck", "wise", "common", "magic", "keep", "choose", "activate",
                         "place", "stop", "enchant", "discard", "skip", "order", "draw", "plant", "propose", "pick" } do
      assert.is_true(words[w], w .. " missing: " .. why)
    end
    assert.is_nil(words.buy, why)
    local _, buy = s:check("buy")
    assert.truthy(buy:find("never be bought", 1, true), buy)
  end)
end)

describe("rabohnzel refusals", function()
  local function two_of(power)
    return meeple.from_table {
      game = "rabohnzel", phase = "magic",
      players = { { fields = { { power }, { power } }, hand = { "cape" } }, { coins = { "princess" }, hand = { "cape" } },
                  { hand = { "cape" }, coins = { "cape" } } } }
  end

  it("two fields of one power: a refusal suggests only an action check() accepts", function()
    for _, power in ipairs { "sword", "pluck" } do
      local s = two_of(power)
      for _, text in ipairs { power .. " 1", power .. " 4", power .. " 02", power .. " +2", power .. " 2" } do
        local ok, why = s:check(text)
        assert.is_false(ok, text)
        local x = why:match("as in (.*)$")
        if x then assert.is_true(s:check(x), text .. " suggests " .. x .. ": " .. why) end
      end
      assert.equal("two fields offer this power: say which, as in " .. power .. " 2 @1", select(2, s:check(power .. " 02")))
      assert.is_true(s:check(power .. " 2 @1"))
    end
  end)

  it("a target is another player: yourself, or a seat that is not there, says so", function()
    local s = two_of("sword")
    assert.equal("you cannot attack yourself", select(2, s:check("sword 1 @1")))
    assert.equal("there is no player 4: 3 play", select(2, s:check("sword 4 @1")))
    assert.equal("you cannot pluck yourself", select(2, two_of("pluck"):check("pluck 1 @2")))
  end)

  it("a refusal names what was said: a hand's size, wise's field, @F as one word", function()
    local s = two_of("wise")
    assert.equal("your hand has 1 card, not 9", select(2, s:check("cast relocation @9")))
    assert.truthy(select(2, s:check("wise 1")):find("@F", 1, true))
    assert.equal("@F is written as one word, without a space: @1, @2 or @3", select(2, two_of("sword"):check("sword 2 @ 1")))
  end)

  it("from_table refuses one hand card shown twice", function()
    local ok, err = pcall(meeple.from_table, {
      game = "rabohnzel",
      players = { { hand = { "cape", "wise" }, shown = { { at = 1, bean = "cape" }, { at = 1, bean = "cape" } } }, {}, {} } })
    assert.is_false(ok)
    assert.truthy(err:find("two shown cards at one place", 1, true), err)
  end)
end)

---------------------------------------------------------------------------
describe("rabohnzel with more fields (the fields parameter, up to 4)", function()
  it("fields takes 1 to 4: 5 is refused in one line naming the range", function()
    local ok, err = pcall(meeple.new, "rabohnzel", { players = 4, params = { fields = 5 } })
    assert.is_false(ok)
    assert.truthy(tostring(err):find("fields must be 1..4, got 5", 1, true), err)
    local s = meeple.new("rabohnzel", { players = 4, seed = 1, params = { fields = 4 } })
    for p = 1, 4 do assert.equal(4, #P(s, p).fields) end
  end)

  it("with 3 fields, bean_field lends a fourth until its owner's next harvest", function()
    local s = rab {
      params = { fields = 3 }, phase = "plant_traded", face_up = { "sword", "princess" },
      players = {
        { fields = { { "magic", "magic" }, { "sword" }, { "cape" } }, hand = { "wise" },
          spells = { { name = "bean_field", up = true } } },
        { hand = { "wise", "wise", "wise" } }, { hand = { "wise", "wise", "wise" } },
      },
    }
    play(s, "plant sword 2")
    assert_illegal(s, "plant princess 4", "3 fields")
    play(s, "use bean_field", "plant princess 4")
    assert.is_true(P(s, 1).third_field)
    assert.equal(4, #P(s, 1).fields)
    assert.same({ "princess" }, beans(s, 1, 4))
    assert.same({ "princess" }, s:view(2).players[1].fields[4].beans)
    until_turn_of(s, 1)
    play(s, "harvest 1")
    assert.is_false(P(s, 1).third_field)
    assert.equal(3, #P(s, 1).fields)
    assert.same({ "princess" }, beans(s, 1, 3))
  end)

  it("bean_field lends one field at a time: not again while its field is there", function()
    for _, fields in ipairs { 2, 3 } do
      local mine = { { "magic", "magic" }, { "sword" }, { "princess" }, { "cape" } }
      mine[fields + 2] = nil
      local s = rab {
        params = { fields = fields }, phase = "plant_traded", face_up = { "sword" },
        players = {
          { fields = mine, third_field = true, hand = { "wise" }, spells = { { name = "bean_field", up = true } } },
          { hand = { "wise", "wise", "wise" } }, { hand = { "wise", "wise", "wise" } },
        },
      }
      assert_illegal(s, "use bean_field", "one at a time")
    end
  end)

  it("with 4 fields, bean_field has no field to lend", function()
    local s = rab {
      params = { fields = 4 }, phase = "plant_traded", face_up = { "sword" },
      players = {
        { fields = { { "magic", "magic" }, { "sword" }, { "cape" }, { "wise" } }, hand = { "wise" },
          spells = { { name = "bean_field", up = true } } },
        { hand = { "wise", "wise", "wise" } }, { hand = { "wise", "wise", "wise" } },
      },
    }
    assert_illegal(s, "use bean_field", "4 fields already")
  end)

  it("the fourth field's power and enchantment name it: @4 and enchant B 4", function()
    local s = rab { params = { fields = 4 }, phase = "magic", players = {
      { fields = { { "pluck" }, { "cape" }, { "wise" }, { "pluck" } }, hand = { "sword" } },
      { hand = { "cape" } }, { hand = { "cape" } } } }
    assert_illegal(s, "pluck 2", "pluck 2 @1")
    assert_legal(s, "pluck 2 @4")
    play(s, "pluck 2 @4")
    assert.equal(0, P(s, 1).fields[4].power)
    local e = rab { params = { fields = 4 }, phase = "plant_traded", face_up = { "sword" }, players = {
      { fields = { { "magic", "magic" }, { "cape", "cape" }, { "wise", "wise" }, { "pluck" } }, hand = { "wise" },
        spells = { { name = "bean_enchantment", up = true } } },
      { hand = { "wise" } }, { hand = { "wise" } } } }
    assert_legal(e, "enchant sword 4")
    play(e, "enchant sword 4")
    assert.same({ "pluck", "sword" }, beans(e, 1, 4)) -- the lone pluck below, enchanted: it counts as sword
    assert.equal(1, P(e, 1).fields[4].enchanted)
  end)

  it("whole random games with 3 and 4 fields keep every bean and spell in exactly one place #soak", function()
    local function check(t, fields)
      local n, total = {}, 0
      local function add(list)
        for _, c in ipairs(list or {}) do
          n[c] = (n[c] or 0) + 1
          total = total + 1
        end
      end
      add(t.deck)
      add(t.discard)
      add(t.face_up)
      add(t.spell_pile)
      if t.pending then add { t.pending.card } end
      for _, p in ipairs(t.players) do
        add(p.hand)
        add(p.coins)
        add(p.set_aside)
        assert.equal(fields + (p.third_field and 1 or 0), #p.fields)
        for _, f in ipairs(p.fields) do add(f.beans) end
        add(spell_names(p.spells))
        if p.luck_slot then add { p.luck_slot.name } end
      end
      for b, k in pairs(BEAN_COUNT) do assert.equal(k, n[b] or 0, b) end
      for _, sp in ipairs(ALL_SPELLS) do assert.equal(1, n[sp] or 0, sp) end
      assert.equal(98 + 11, total)
    end
    local x, last_field = 4242, 0
    local function rnd(k)
      x = (x * 1103515245 + 12345) % 2147483648
      return (x // 65536) % k + 1
    end
    for game = 1, util.soak_count(2, 8) do -- the soak (ctest -L soak) plays more
      local fields = 3 + game % 2
      local s = meeple.new("rabohnzel", { seed = game, players = 3 + game % 3, params = { fields = fields } })
      check(s:table(), fields)
      for _ = 1, 4000 do
        if s:is_over() then break end
        local l = s:legal()
        s:play(l[rnd(#l)])
        local t = s:table()
        check(t, fields)
        for _, p in ipairs(t.players) do
          if p.fields[4] and #p.fields[4].beans > 0 then last_field = last_field + 1 end
        end
      end
      assert.is_true(s:is_over(), "game " .. game .. " ends")
      assert.same(s:table(), meeple.load(s:save()):table())
    end
    assert.is_true(last_field > 0, "beans grew on fourth fields")
  end)
end)
