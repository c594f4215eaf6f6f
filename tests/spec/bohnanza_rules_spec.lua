local meeple = require "meeple"

-- Bohnanza rule scenarios: one `it` per scenario of ../shared/rules/bohnanza.md ("Scenarios tests must
-- cover"), then one per rule or ruling those scenarios leave open.
--
-- Positions are built with meeple.from_table through `bohnanza{...}` below, which fills in the game and,
-- unless given, four players (the Amigo defaults: two fields each). Tables are partial: zones a table
-- names hold exactly what they list; zones left out are empty, except the deck, which takes every card
-- left over. When a scenario needs to watch the deck or the discard pile, it names both, and `rest(...)`
-- puts every remaining card of the 104 on some coin pile out of the way (a table must place every card).
-- A position in phase "trade" is A's main trading decision, with A's face-up cards already turned up.
-- Stacks (fields, coin piles, deck, discard pile) run bottom to top; hands run from the front.
-- Expected values come from the digest's text (beanometers, bean protection, trading, passes, ties).

---------------------------------------------------------------------------
-- components
---------------------------------------------------------------------------
-- Amigo's 104 cards: type, copies, beanometer (cards needed for 1/2/3/4 coins; 0 = no such payout)
local BEANS = {
  { "blue", 20, { 4, 6, 8, 10 } }, { "chili", 18, { 3, 6, 8, 9 } }, { "stink", 16, { 3, 5, 7, 8 } },
  { "green", 14, { 3, 5, 6, 7 } }, { "soy", 12, { 2, 4, 6, 7 } }, { "black_eyed", 10, { 2, 4, 5, 6 } },
  { "red", 8, { 2, 3, 4, 5 } }, { "garden", 6, { 0, 2, 3, 0 } },
}
local ALL_CARDS = {}
for _, b in ipairs(BEANS) do
  for _ = 1, b[2] do ALL_CARDS[#ALL_CARDS + 1] = b[1] end
end
assert(#ALL_CARDS == 104)

---------------------------------------------------------------------------
-- helpers
---------------------------------------------------------------------------
local util = require "spec_util"
local cat, count, has, sorted, minus = util.cat, util.count, util.has, util.sorted, util.minus
local assert_legal, assert_illegal, play = util.assert_legal, util.assert_illegal, util.play

local function rep(card, n)
  local t = {}
  for i = 1, n do t[i] = card end
  return t
end

-- A position: `t.players` defaults to four empty players.
local function bohnanza(t)
  t.game = "bohnanza"
  t.players = t.players or { {}, {}, {}, {} }
  return meeple.from_table(t)
end

-- Every card of the 104 that the lists given do not hold (for a coin pile out of the way).
local function rest(...)
  return minus(ALL_CARDS, cat(...))
end

local function T(s) return s:table() end
local function player(s, p) return s:table().players[p] end
local function hand(s, p) return player(s, p).hand end
local function field(s, p, f) return player(s, p).fields[f] or {} end
local function coins(s, p) return player(s, p).coins or {} end
local function set_aside(s, p) return player(s, p).set_aside or {} end
local function discard(s) return s:table().discard or {} end
local function deck(s) return s:table().deck or {} end

-- The legal actions, sorted (for comparing whole lists).
local function legal(s) return sorted(s:legal()) end

-- The legal actions that start with `prefix`, sorted.
local function legal_starting(s, prefix)
  local t = {}
  for _, a in ipairs(s:legal()) do
    if a:sub(1, #prefix) == prefix then t[#t + 1] = a end
  end
  table.sort(t)
  return t
end

-- The legal actions other than harvests, sorted.
local function legal_but_harvests(s)
  local t = {}
  for _, a in ipairs(s:legal()) do
    if not a:find("^harvest ") then t[#t + 1] = a end
  end
  table.sort(t)
  return t
end

-- The `give K` actions (hand cards) listed, sorted.
local function hand_gives(s)
  local t = {}
  for _, a in ipairs(s:legal()) do
    if a:find("^give %d") then t[#t + 1] = a end
  end
  table.sort(t)
  return t
end

-- The last n elements of a list (the top of a stack), bottom first.
local function top(list, n)
  local t = {}
  for i = math.max(1, #list - n + 1), #list do t[#t + 1] = list[i] end
  return t
end

-- Every card of the state, wherever it lies (hands, fields, coins, set-aside, face-up, deck, discard).
local function all_cards(s)
  local t = s:table()
  local out = cat(t.deck or {}, t.discard or {}, t.face_up or {})
  for _, p in ipairs(t.players) do
    out = cat(out, p.hand or {}, p.coins or {}, p.set_aside or {})
    for _, f in ipairs(p.fields or {}) do out = cat(out, f) end
  end
  return out
end

-- Coins the beanometer pays for n cards of a type (the digest's harvest rule).
local METER = {}
for _, b in ipairs(BEANS) do METER[b[1]] = b[3] end
local function payout(bean, n)
  local k = 0
  for i, need in ipairs(METER[bean]) do
    if need > 0 and need <= n then k = i end
  end
  return k
end

-- The end of a game on coins 10/12/9/12: pass 3, two cards left, A says done.
local function tie(params, hands, start)
  local s = bohnanza { params = params, phase = "trade", planted = 1, pass = 3, start = start,
    active = start or 1, players = {
      { coins = rep("blue", 10), hand = hands[1] }, { coins = rep("chili", 12), hand = hands[2] },
      { coins = rep("stink", 9), hand = hands[3] }, { coins = rep("green", 12), hand = hands[4] } },
    deck = { "soy", "soy" } }
  play(s, "done")
  assert.is_true(s:is_over())
  assert.same({ 10, 12, 9, 12 }, s:scores())
  return s:winners()
end

---------------------------------------------------------------------------
describe("bohnanza harvesting", function()
  it("bean protection forces the choice (scenario 1)", function()
    local s = bohnanza { players = {
      { hand = { "soy", "red" }, fields = { { "blue" }, { "chili", "chili", "chili" } } }, {}, {}, {} },
      discard = {} }
    assert.same({ "harvest 2" }, s:legal())
    assert_illegal(s, "harvest 1", "protection")   -- a single card, while field 2 holds three
    assert_illegal(s, "plant 1", "harvest")   -- soy fits on neither field
    local before = #discard(s)
    play(s, "harvest 2")
    assert.same({ "chili" }, coins(s, 1))      -- 3 chili pay 1 coin
    assert.same({ "chili", "chili" }, top(discard(s), 2))
    assert.equal(before + 2, #discard(s))
    assert.same({}, field(s, 1, 2))
    assert.equal(1, s:to_move(), "a harvest does not pass the decision")
    play(s, "plant 2")
    assert.same({ "soy" }, field(s, 1, 2))
    assert.same({ "done", "harvest 1", "harvest 2" }, legal(s))
  end)

  it("all singles: any field may be harvested, for nothing (scenario 2)", function()
    local s = bohnanza { players = { { hand = { "stink" }, fields = { { "blue" }, { "red" } } }, {}, {}, {} },
      discard = {} }
    assert.same({ "harvest 1", "harvest 2" }, legal(s))
    local a = s:clone()
    play(a, "harvest 1")
    assert.same({}, coins(a, 1))
    assert.same({ "blue" }, discard(a))
    local b = s:clone()
    play(b, "harvest 2")
    assert.same({}, coins(b, 1))
    assert.same({ "red" }, discard(b))
  end)

  it("garden beans pay 2 for two, 3 for three, nothing for one (scenario 3)", function()
    local s = bohnanza { players = { { hand = { "blue" }, fields = { rep("garden", 2), {} } }, {}, {}, {} },
      discard = {} }
    play(s, "harvest 1")
    assert.same({ "garden", "garden" }, coins(s, 1))
    assert.same({}, discard(s))

    s = bohnanza { players = { { hand = { "blue" }, fields = { rep("garden", 4), {} } }, {}, {}, {} },
      discard = {} }
    play(s, "harvest 1")
    assert.same(rep("garden", 3), coins(s, 1))
    assert.same({ "garden" }, discard(s))

    s = bohnanza { players = { { hand = { "red" }, fields = { { "garden" }, { "blue" } } }, {}, {}, {} },
      discard = {} }
    play(s, "harvest 1")
    assert.same({}, coins(s, 1))
    assert.same({ "garden" }, discard(s))
  end)

  it("the beanometer stops at 4 coins: 12 blue pay 4, 8 are discarded (scenario 4)", function()
    local s = bohnanza { players = { { hand = { "red" }, fields = { rep("blue", 12), {} } }, {}, {}, {} },
      discard = {} }
    play(s, "harvest 1")
    assert.same(rep("blue", 4), coins(s, 1))
    assert.same(rep("blue", 8), discard(s))
    assert.same({}, field(s, 1, 1))
  end)

  it("a harvest pays the largest beanometer entry the field reaches, for every bean", function()
    for _, b in ipairs(BEANS) do
      for n = 1, math.min(b[2], 12) do
        local other = b[1] == "red" and "blue" or "red"
        local s = bohnanza { players = { { hand = { other }, fields = { rep(b[1], n), {} } }, {}, {}, {} },
          discard = {} }
        play(s, "harvest 1")
        local k = payout(b[1], n)
        assert.equal(k, #coins(s, 1), ("%d %s"):format(n, b[1]))
        assert.equal(n - k, #discard(s), ("%d %s"):format(n, b[1]))
      end
    end
  end)

  it("an empty field cannot be harvested", function()
    local s = bohnanza { players = { { hand = { "red" }, fields = { { "blue", "blue" }, {} } }, {}, {}, {} } }
    assert_illegal(s, "harvest 2", "empty")
  end)

  it("a player may harvest several times before choosing", function()
    local s = bohnanza { players = { { hand = { "red" }, fields = { { "blue", "blue" }, { "soy", "soy" } } },
      {}, {}, {} }, discard = {} }
    play(s, "harvest 1", "harvest 2")
    assert.same({ "soy" }, coins(s, 1))
    assert.equal(1, s:to_move())
    play(s, "plant 1")
    assert.same({ "red" }, field(s, 1, 1))
  end)

  it("forced harvest for a player who is not active (scenario 16)", function()
    local s = bohnanza { phase = "plant_traded", players = {
      { hand = { "blue" } },
      { set_aside = { "garden" }, fields = { rep("soy", 3), { "red" } } },
      {}, {} }, discard = {} }
    assert.equal(2, s:to_move())
    assert.same({ "harvest 1" }, s:legal())
    play(s, "harvest 1")
    assert.same({ "soy" }, coins(s, 2))
    assert.same({ "soy", "soy" }, discard(s))
    assert.same({ "plant garden 1" }, legal_but_harvests(s))
    play(s, "plant garden 1")
    assert.same({ "garden" }, field(s, 2, 1))
    assert.same({ "red" }, field(s, 2, 2))
  end)
end)

---------------------------------------------------------------------------
describe("bohnanza phase 1: planting from the hand", function()
  it("the front card must be planted first; then one more may be, never a third", function()
    local s = bohnanza { players = { { hand = { "blue", "blue", "blue", "red" } }, {}, {}, {} }, deck = 30 }
    assert_illegal(s, "done", "front")
    assert.same({ "plant 1" }, s:legal())
    play(s, "plant 1")
    assert.same({ "blue" }, field(s, 1, 1))
    assert.same({ "blue", "blue", "red" }, hand(s, 1))
    assert.equal(1, T(s).planted)
    assert.same({ "done", "plant 1", "plant 2" }, legal_but_harvests(s))
    play(s, "plant 1")
    -- two planted: phase 1 is over, A's cards are turned up
    assert.equal("trade", T(s).phase)
    assert.same({ "blue", "blue" }, field(s, 1, 1))
    assert.same({ "blue", "red" }, hand(s, 1))
  end)

  it("same type twice: a bean may also start a second field (scenario 15)", function()
    local s = bohnanza { players = { { hand = { "blue" }, fields = { { "blue", "blue" }, {} } }, {}, {}, {} } }
    assert.same({ "plant 1", "plant 2" }, legal_but_harvests(s))
    s = bohnanza { params = { duplicate_fields = false },
      players = { { hand = { "blue" }, fields = { { "blue", "blue" }, {} } }, {}, {}, {} } }
    assert.same({ "plant 1" }, legal_but_harvests(s))
    assert_illegal(s, "plant 2", "blue")
  end)

  it("empty fields are interchangeable: only the lowest-numbered one is listed", function()
    local s = bohnanza { players = { { hand = { "soy" }, fields = { { "blue" }, {}, {} } }, {}, {} } }
    assert.same({ "plant 2" }, legal_but_harvests(s))
  end)

  it("an empty hand skips phase 1: the cards are turned up at once", function()
    local s = bohnanza { players = { { hand = {} }, {}, {}, {} },
      discard = {}, deck = cat(rest({ "red", "soy" }), { "red", "soy" }) }
    assert.equal("trade", T(s).phase)
    assert.same({ "red", "soy" }, sorted(T(s).face_up))
  end)
end)

---------------------------------------------------------------------------
describe("bohnanza phase 2: turning up", function()
  it("A turns up the top 2 deck cards", function()
    local d = cat(rest({ "chili", "garden", "red", "red" }), { "chili", "garden" })
    local s = bohnanza { players = { { hand = { "red", "red" } }, {}, {}, {} }, discard = {}, deck = d }
    play(s, "plant 1", "done")
    assert.equal("trade", T(s).phase)
    assert.same({ "chili", "garden" }, sorted(T(s).face_up))
    assert.equal(#d - 2, #deck(s))
  end)
end)

---------------------------------------------------------------------------
describe("bohnanza trading", function()
  -- Scenario 5's position: A (seat 1) in phase 2 with face-up blue and red; B's hand [soy, chili, soy].
  local function uneven()
    return bohnanza { phase = "trade", planted = 1, face_up = { "blue", "red" }, players = {
      { hand = { "green", "stink" } },
      { hand = { "soy", "chili", "soy" } },
      { hand = { "black_eyed" } },
      { hand = { "green" } } } }
  end

  it("uneven trade with a pick (scenario 5)", function()
    local s = uneven()
    play(s, "propose 2", "give up blue", "give up red", "want soy", "send")
    assert.equal(2, s:to_move())
    assert.same({ "accept", "reject" }, legal_but_harvests(s))
    play(s, "accept")
    assert.equal(2, s:to_move(), "B chooses which soy goes")
    assert.same({ "pick 1", "pick 3" }, legal(s))
    play(s, "pick 3")
    assert.same({ "soy", "chili" }, hand(s, 2))
    assert.same({ "blue", "red" }, sorted(set_aside(s, 2)))
    assert.same({ "soy" }, set_aside(s, 1))
    assert.same({}, T(s).face_up or {})
    assert.equal(1, T(s).trade_steps)
    assert.equal(1, s:to_move())
    play(s, "done")
    -- phase 3: A plants the soy, then B must plant blue and red
    assert.equal("plant_traded", T(s).phase)
    assert.equal(1, s:to_move())
    assert.same({ "plant soy 1" }, legal_but_harvests(s))
    play(s, "plant soy 1")
    assert.same({ "soy" }, field(s, 1, 1))
    assert.equal(2, s:to_move())
    assert.same({ "plant blue 1", "plant red 1" }, legal_but_harvests(s))
    play(s, "plant red 1")
    assert.same({ "plant blue 2" }, legal_but_harvests(s))
    play(s, "plant blue 2")
    assert.same({ "red" }, field(s, 2, 1))
    assert.same({ "blue" }, field(s, 2, 2))
    assert.same({}, set_aside(s, 2))
    -- phase 4: A drew 3 and the turn passed left
    assert.equal(2, T(s).active)
    assert.equal(5, #hand(s, 1))
  end)

  it("refused donation: nothing moves, 2 trade steps used, the next seat decides (scenario 6)", function()
    local s = uneven()
    play(s, "ask")
    assert.equal(2, s:to_move())
    assert.same({ "offer", "pass" }, legal_but_harvests(s))
    play(s, "offer", "give 1", "send")
    assert.equal(1, s:to_move())
    assert.same({ "accept", "reject" }, legal_but_harvests(s))
    play(s, "reject")
    assert.same({ "soy", "chili", "soy" }, hand(s, 2))
    assert.same({ "green", "stink" }, hand(s, 1))
    assert.same({}, set_aside(s, 1))
    assert.same({}, set_aside(s, 2))
    assert.same({ "blue", "red" }, sorted(T(s).face_up))
    assert.equal(2, T(s).trade_steps)
    assert.equal(3, s:to_move())
    assert.same({ "offer", "pass" }, legal_but_harvests(s))
  end)

  it("trade limit: with no steps left only done and harvests remain (scenario 7)", function()
    local s = bohnanza { params = { trade_limit = 2 }, phase = "trade", planted = 1, face_up = { "blue", "red" },
      players = { { hand = { "green" } }, { hand = { "soy" } }, { hand = { "chili" } }, { hand = { "stink" } } } }
    play(s, "propose 2", "give up blue", "send", "reject")
    assert.equal(1, s:to_move())
    play(s, "ask")
    -- the invitation used the last step: its round is skipped
    assert.equal(1, s:to_move())
    assert.equal(2, T(s).trade_steps)
    assert.same({ "done" }, s:legal())
    assert_illegal(s, "propose 3", "trade steps")
    assert_illegal(s, "ask", "trade steps")
  end)

  it("received cards stay out of trading (scenario 8)", function()
    local s = uneven()
    play(s, "propose 2", "give up blue", "give up red", "want soy", "send", "accept", "pick 3")
    play(s, "ask", "offer")
    assert.equal(2, s:to_move())
    -- B's hand is [soy, chili]; blue and red are set aside
    assert.same({ "give 1", "give 2" }, legal_starting(s, "give "))
    assert_illegal(s, "give up blue", "face-up")
    assert_illegal(s, "give 3", "hand")
  end)

  it("trading from the middle of the hand (scenario 9)", function()
    local s = bohnanza { phase = "trade", planted = 1, face_up = { "chili", "chili" }, players = {
      { hand = { "red", "blue", "soy", "blue" } }, { hand = { "green" } }, {}, {} } }
    play(s, "propose 2")
    assert.same({ "give 1", "give 2", "give 3", "give 4" }, hand_gives(s))
    play(s, "give 3", "send", "accept")
    assert.same({ "red", "blue", "blue" }, hand(s, 1))
    assert.same({ "soy" }, set_aside(s, 2))

    s = bohnanza { phase = "trade", planted = 1, face_up = { "chili", "chili" }, players = {
      { hand = { "blue", "blue", "red" } }, { hand = { "green" } }, {}, {} } }
    play(s, "propose 2")
    assert.same({ "give 1", "give 3" }, hand_gives(s))
  end)

  it("the others never trade among themselves; nobody proposes to themselves", function()
    local s = bohnanza { phase = "trade", planted = 1, face_up = { "blue", "red" },
      players = { { hand = { "green" } }, { hand = { "soy" } }, { hand = { "chili" } }, { hand = { "stink" } } } }
    assert.same({ "propose 2", "propose 3", "propose 4" }, legal_starting(s, "propose "))
    assert_illegal(s, "propose 1", "yourself")
    play(s, "ask", "offer")
    -- an invited player's offer goes to A only: no proposing to a third player
    assert_illegal(s, "propose 3")
    assert_illegal(s, "give up blue", "face-up")   -- face-up cards are A's alone to give
  end)

  it("send needs at least one item; cancel keeps the trade step used", function()
    local s = bohnanza { phase = "trade", planted = 1, face_up = { "blue", "red" },
      players = { { hand = { "green" } }, { hand = { "soy" } }, {}, {} } }
    play(s, "propose 2")
    assert_illegal(s, "send", "empty")
    play(s, "cancel")
    assert.equal(1, s:to_move())
    assert.equal(1, T(s).trade_steps)
    assert.same({ "blue", "red" }, sorted(T(s).face_up))
  end)

  it("accept is legal only if the partner can supply every wanted card", function()
    local s = bohnanza { phase = "trade", planted = 1, face_up = { "blue", "red" },
      players = { { hand = { "green" } }, { hand = { "soy", "chili" } }, { hand = { "red" } }, {} } }
    play(s, "propose 2", "give up blue", "want red", "send")
    assert.equal(2, s:to_move())
    assert_illegal(s, "accept", "red")
    assert.same({ "reject" }, legal_but_harvests(s))
  end)

  it("asking for a gift (want with nothing given) is allowed, and the answer is automatic when the choice changes nothing", function()
    local s = bohnanza { phase = "trade", planted = 1, face_up = { "blue", "red" },
      players = { { hand = { "green" } }, { hand = { "soy", "chili", "chili" } }, {}, {} } }
    play(s, "propose 2", "want chili", "send", "accept")
    -- both chili give the same remaining hand: no pick is asked
    assert.same({ "soy", "chili" }, hand(s, 2))
    assert.same({ "chili" }, set_aside(s, 1))
    assert.equal(1, s:to_move())
  end)

  it("no pick is asked when the cards between the choices all go too: the hand left is the same", function()
    local s = bohnanza { phase = "trade", planted = 1, face_up = { "blue", "green" },
      players = { { hand = { "stink" } }, { hand = { "soy", "red", "soy" } }, {}, {} } }
    play(s, "propose 2", "want soy", "want red", "send", "accept")
    assert.same({ "soy" }, hand(s, 2))
    assert.same({ "soy", "red" }, set_aside(s, 1))
    assert.equal(1, s:to_move())
    -- a second red in the hand may stay: then which soy goes decides the order left
    s = bohnanza { phase = "trade", planted = 1, face_up = { "blue", "green" },
      players = { { hand = { "stink" } }, { hand = { "soy", "red", "soy", "red" } }, {}, {} } }
    play(s, "propose 2", "want soy", "want red", "send", "accept")
    assert.same({ "pick 1", "pick 3" }, legal(s))
  end)

  it("want may not exceed the partner's tradeable cards, nor the copies the partner could hold", function()
    local s = bohnanza { phase = "trade", planted = 1, face_up = { "blue", "red" },
      players = { { hand = { "green" } }, { hand = { "soy" } },
        { fields = { rep("garden", 5) } }, {} } }
    play(s, "propose 2")
    -- five gardens lie in a field: B can hold at most one
    play(s, "want garden")
    assert_illegal(s, "want soy", "1 card")      -- B holds only 1 card
    s = bohnanza { phase = "trade", planted = 1, face_up = { "blue", "red" },
      players = { { hand = { "green" } }, { hand = { "soy", "soy" } }, { fields = { rep("garden", 5) } }, {} } }
    play(s, "propose 2", "want garden")
    assert_illegal(s, "want garden", "garden")   -- a 7th garden does not exist
    -- the proposer's own hand counts as visibly elsewhere
    s = bohnanza { phase = "trade", planted = 1, face_up = { "blue", "red" },
      players = { { hand = rep("garden", 6) }, { hand = { "soy", "soy" } }, {}, {} } }
    play(s, "propose 2")
    assert_illegal(s, "want garden", "garden")
  end)

  it("an invited player may want A's face-up cards; A picks up", function()
    local s = bohnanza { phase = "trade", planted = 1, face_up = { "blue", "red" },
      players = { { hand = { "blue", "green" } }, { hand = { "soy" } }, {}, {} } }
    play(s, "ask", "offer", "give 1", "want blue", "send")
    assert.equal(1, s:to_move())
    play(s, "accept")
    -- A could supply the blue from the face-up cards or from the hand: A picks
    assert.same({ "pick 1", "pick up" }, legal(s))
    play(s, "pick up")
    assert.same({ "red" }, T(s).face_up)
    assert.same({ "blue", "green" }, hand(s, 1))
    assert.same({ "blue" }, set_aside(s, 2))
    assert.same({ "soy" }, set_aside(s, 1))
    assert.same({}, hand(s, 2))
  end)
end)

---------------------------------------------------------------------------
describe("bohnanza phase 3: planting traded and kept cards", function()
  it("A plants the kept face-up cards, then the others clockwise from A's left; nobody with nothing is asked", function()
    local s = bohnanza { phase = "plant_traded", active = 2, face_up = { "red" }, players = {
      { set_aside = { "soy" } }, { hand = { "blue" }, set_aside = { "chili" } }, { hand = { "stink" } },
      { set_aside = { "green" } } } }
    assert.equal(2, s:to_move())
    assert.same({ "plant chili 1", "plant red 1" }, legal_but_harvests(s))
    play(s, "plant red 1", "plant chili 2")
    assert.equal(4, s:to_move(), "seat 3 has nothing to plant")
    play(s, "plant green 1")
    assert.equal(1, s:to_move())
    play(s, "plant soy 1")
    assert.equal(3, T(s).active)
    assert.equal("plant", T(s).phase)
  end)

  it("phase 4: A draws 3 cards to the back of the hand, and the turn passes left (after n comes 1)", function()
    local d = cat(rest({ "blue", "green", "chili", "red", "soy" }), { "chili", "green", "blue" })
    local s = bohnanza { phase = "trade", active = 4, planted = 1, players = {
      { hand = { "soy" } }, {}, {}, { hand = { "red" } } }, discard = {}, deck = d }
    play(s, "done")
    assert.same({ "red", "blue", "green", "chili" }, hand(s, 4))
    assert.equal(1, T(s).active)
    assert.equal(1, s:to_move())
  end)
end)

---------------------------------------------------------------------------
describe("bohnanza passes and the end", function()
  it("the last pass runs out in phase 2: 1 card turned up, trading and phase 3, then the end (scenario 10)", function()
    local p1 = { hand = { "soy", "red" }, fields = { rep("soy", 2), {} } }
    local p2 = { hand = { "chili" }, fields = { rep("blue", 3), {} }, coins = { "red", "red" } }
    local p3 = { hand = rep("green", 5), fields = { rep("chili", 6), {} } }
    local p4 = { fields = { { "red", "red" }, { "garden" } }, coins = rep("green", 3) }
    local s = bohnanza { pass = 3, players = { p1, p2, p3, p4 }, deck = { "blue" } }
    play(s, "plant 1", "done")
    assert.equal("trade", T(s).phase)
    assert.same({ "blue" }, T(s).face_up)
    assert.same({}, deck(s))
    assert.is_true(T(s).last_pass_over)
    assert.is_false(s:is_over())
    play(s, "propose 2", "give up blue", "send", "accept", "done")
    assert.equal("plant_traded", T(s).phase)
    assert.equal(2, s:to_move(), "A has nothing to plant")
    play(s, "plant blue 1")
    -- the end: no phase 4 (A drew nothing), every field harvested, hands worth nothing
    assert.is_true(s:is_over())
    assert.is_nil(s:to_move())
    assert.same({}, s:legal())
    assert.equal("over", T(s).phase)
    assert.same({ "red" }, hand(s, 1))
    -- P1: 3 soy = 1; P2: 2 + (4 blue = 1); P3: 6 chili = 2; P4: 3 + (2 red = 1) + (1 garden = 0)
    assert.same({ 1, 3, 2, 4 }, s:scores())
    assert.same({ 4 }, s:winners())
    for p = 1, 4 do
      for _, f in ipairs(player(s, p).fields) do assert.same({}, f) end
    end
  end)

  it("reshuffle in phase 4: draws continue from the new deck (scenario 11)", function()
    local ten = { "blue", "blue", "chili", "chili", "stink", "green", "soy", "black_eyed", "red", "garden" }
    local s = bohnanza { phase = "trade", planted = 1, pass = 1, players = {
      { hand = { "soy" } }, { hand = { "red" } }, {}, { coins = rest({ "soy", "red", "blue" }, ten) } },
      deck = { "blue" }, discard = ten }
    play(s, "done")
    local h = hand(s, 1)
    assert.equal(4, #h)
    assert.equal("blue", h[2], "the old deck's last card is drawn first")
    assert.equal(2, T(s).pass)
    assert.same({}, discard(s))
    assert.equal(8, #deck(s))
    assert.same(sorted(ten), sorted(cat({ h[3], h[4] }, deck(s))))
    assert.equal(2, T(s).active)
    assert.is_false(s:is_over())
  end)

  it("the last pass runs out in phase 4: the game ends at once (scenario 12)", function()
    local s = bohnanza { phase = "trade", planted = 1, pass = 3, players = {
      { hand = { "soy" }, fields = { rep("blue", 4), {} } }, { hand = { "red" } }, {},
      { coins = rest({ "soy", "red", "chili", "green" }, rep("blue", 4)) } },
      deck = { "chili", "green" }, discard = {} }
    local turn = T(s).turn
    play(s, "done")
    assert.is_true(s:is_over())
    assert.same({ "soy", "green", "chili" }, hand(s, 1))
    assert.is_nil(s:to_move())
    assert.same({}, s:legal())
    assert.equal(turn, T(s).turn, "the next player never moves")
    assert.is_table(s:winners())
    assert.equal(1, s:scores()[1])   -- 4 blue = 1 coin
  end)

  it("the deck running out with an empty discard pile ends the game (ruling 7)", function()
    local s = bohnanza { phase = "trade", planted = 1, pass = 1, players = {
      { hand = { "soy" } }, {}, {}, { coins = rest({ "soy", "chili" }) } },
      deck = { "chili" }, discard = {} }
    play(s, "done")
    assert.is_true(s:is_over())
    assert.same({ "soy", "chili" }, hand(s, 1))
  end)

  it("bean protection does not apply at the end: single cards are harvested too", function()
    local s = bohnanza { phase = "trade", planted = 1, pass = 3, players = {
      { hand = { "soy" }, fields = { { "blue" }, rep("red", 2) } }, {}, {}, {} },
      deck = { "chili", "green" } }
    play(s, "done")
    assert.is_true(s:is_over())
    assert.same({}, field(s, 1, 1))
    assert.same({ 1, 0, 0, 0 }, s:scores())
  end)

  it("ties: seat, farthest clockwise from the start player; hand, most cards; else shared (scenario 13)", function()
    local h35 = { { "red" }, rep("soy", 3), { "red" }, rep("black_eyed", 5) }
    assert.same({ 4 }, sorted(tie(nil, h35)))
    assert.same({ 4 }, sorted(tie({ tie_break = "seat" }, h35)))
    assert.same({ 4 }, sorted(tie({ tie_break = "hand" }, h35)))
    local h53 = { { "red" }, rep("soy", 5), { "red" }, rep("black_eyed", 3) }
    assert.same({ 2 }, sorted(tie({ tie_break = "hand" }, h53)))
    local h44 = { { "red" }, rep("soy", 4), { "red" }, rep("black_eyed", 4) }
    assert.same({ 2, 4 }, sorted(tie({ tie_break = "hand" }, h44)))
    assert.same({ 2, 4 }, sorted(tie({ tie_break = "none" }, h35)))
  end)

  it("the seat tie-break counts from the start player", function()
    -- start 4: seat 2 sits 2 places clockwise from it, seat 4 none
    local h = { { "red" }, { "red" }, { "red" }, { "red" } }
    assert.same({ 2 }, sorted(tie(nil, h, 4)))
  end)
end)

---------------------------------------------------------------------------
describe("bohnanza editions and setup", function()
  it("Amigo setup: 104 cards of 8 types, 5 cards dealt, 3 fields with 3 players, 2 with 4-5, seat 1 starts", function()
    for n = 3, 5 do
      local s = meeple.new("bohnanza", { seed = 7, players = n })
      local t = s:table()
      assert.same(sorted(ALL_CARDS), sorted(all_cards(s)))
      assert.equal(104 - 5 * n, #t.deck)
      for p = 1, n do
        assert.equal(5, #t.players[p].hand)
        assert.equal(n == 3 and 3 or 2, #t.players[p].fields)
        assert.same({}, t.players[p].coins or {})
      end
      assert.equal(1, t.start)
      assert.equal(1, t.active)
      assert.equal(1, s:to_move())
      assert.equal(1, t.pass)
      assert.is_falsy(has(s:legal(), "buy"))
    end
  end)

  it("players: 3 to 5; unknown parameters are an error", function()
    assert.is_false(pcall(meeple.new, "bohnanza", { seed = 1, players = 2 }))
    assert.is_false(pcall(meeple.new, "bohnanza", { seed = 1, players = 6 }))
    assert.is_false(pcall(meeple.new, "bohnanza", { seed = 1, players = 4, params = { no_such_key = 1 } }))
  end)

  it("Rio Grande buying: the top 3 coins go to the discard pile bean side up, once (scenario 14)", function()
    local s = bohnanza { params = { edition = "riogrande" }, players = {
      { hand = { "soy" }, fields = { { "blue" }, { "chili" } }, coins = { "soy", "blue", "red", "chili" } },
      {}, {}, {} }, discard = {} }
    assert_legal(s, "buy")
    play(s, "buy")
    assert.same({ "chili", "red", "blue" }, discard(s))
    assert.same({ "soy" }, coins(s, 1))
    assert.is_true(player(s, 1).third_field)
    assert.equal(3, #player(s, 1).fields)
    assert.same({ "plant 3" }, legal_but_harvests(s), "the new field is usable at once")
    assert_illegal(s, "buy", "3 fields")
    play(s, "plant 3")
    assert_illegal(s, "buy", "3 fields")
  end)

  it("buying needs the coins", function()
    local s = bohnanza { params = { edition = "riogrande" }, players = {
      { hand = { "soy" }, coins = { "soy", "blue" } }, {}, {}, {} } }
    assert_illegal(s, "buy", "coins")
  end)

  it("only a player with 2 fields buys a third", function()
    local s = bohnanza { params = { fields = 1, third_field_cost = 1 }, players = {
      { hand = { "soy" }, coins = { "soy" } }, {}, {}, {} } }
    assert_illegal(s, "buy", "2 fields")
  end)

  it("Rio Grande with 3 players: 3 fields each, no buying, 150 cards without cocoa, 2 passes (scenario 14)", function()
    local s = meeple.new("bohnanza", { seed = 3, players = 3, params = { edition = "riogrande" } })
    local cards = all_cards(s)
    assert.equal(150, #cards)
    assert.equal(0, count(cards, "cocoa"))
    assert.equal(24, count(cards, "coffee"))
    assert.equal(22, count(cards, "wax"))
    for p = 1, 3 do assert.equal(3, #player(s, p).fields) end
    assert.is_false(has(s:legal(), "buy"))
    assert.is_false((s:check("buy")))

    local function end_of_pass(pass, params)
      local t = bohnanza { params = params, phase = "trade", planted = 1, pass = pass,
        players = { { hand = { "soy" } }, {}, {} }, deck = { "soy", "soy" } }
      play(t, "done")
      return t
    end
    assert.is_true(end_of_pass(2, { edition = "riogrande" }):is_over())
    local amigo = end_of_pass(2, nil)
    assert.is_false(amigo:is_over())
    assert.equal(3, T(amigo).pass)
  end)

  it("Rio Grande with 4 players: 130 cards without coffee, 2 fields, buying for 3 coins, 3 passes", function()
    local s = meeple.new("bohnanza", { seed = 3, players = 4, params = { edition = "riogrande" } })
    local cards = all_cards(s)
    assert.equal(130, #cards)
    assert.equal(0, count(cards, "coffee"))
    assert.equal(4, count(cards, "cocoa"))
    for p = 1, 4 do assert.equal(2, #player(s, p).fields) end

    -- exactly 3 coins buy the field
    local b = bohnanza { params = { edition = "riogrande" }, players = {
      { hand = { "soy" }, coins = { "red", "red", "blue" } }, {}, {}, {} }, discard = {} }
    play(b, "buy")
    assert.same({}, coins(b, 1))
    assert.same({ "blue", "red", "red" }, discard(b))

    -- 3 passes with 4 players
    local t = bohnanza { params = { edition = "riogrande" }, phase = "trade", planted = 1, pass = 2,
      players = { { hand = { "soy" } }, {}, {}, {} }, deck = { "soy", "soy" } }
    play(t, "done")
    assert.is_false(t:is_over())
    assert.equal(3, T(t).pass)
  end)

  it("Rio Grande ties go to the most cards in hand; keys set explicitly win over the edition", function()
    local rio = { edition = "riogrande" }
    local h53 = { { "red" }, rep("soy", 5), { "red" }, rep("black_eyed", 3) }
    assert.same({ 2 }, sorted(tie(rio, h53)))
    assert.same({ 4 }, sorted(tie({ edition = "riogrande", tie_break = "seat" }, h53)))
  end)
end)

---------------------------------------------------------------------------
describe("bohnanza views", function()
  it("a view hides other hands and the deck, and shows everything public", function()
    local s = bohnanza { phase = "trade", planted = 1, face_up = { "blue", "red" }, players = {
      { hand = { "soy", "chili" }, coins = { "green" } }, { hand = { "stink" }, set_aside = { "garden" } }, {}, {} } }
    local v = s:view(2)
    assert.equal(2, v.players[1].hand)
    assert.same({ "stink" }, v.players[2].hand)
    assert.same({ "green" }, v.players[1].coins)
    assert.same({ "garden" }, v.players[2].set_aside)
    assert.same({ "blue", "red" }, sorted(v.face_up))
    assert.equal(#deck(s), v.deck)
    -- proposals are public
    play(s, "propose 2", "give up blue", "give 2", "want stink")
    local pr = s:view(3).proposal
    assert.equal(1, pr.from)
    assert.equal(2, pr.to)
    assert.same({ "up blue", "hand 2 chili" }, pr.give)
    assert.same({ "stink" }, pr.want)
  end)

  it("s:sample(p) re-deals only other players' hands and the deck order", function()
    local s = bohnanza { phase = "trade", planted = 1, face_up = { "blue", "red" }, players = {
      { hand = { "soy", "chili" }, fields = { { "green" } } }, { hand = { "stink", "stink", "garden" } },
      { hand = 4 }, { hand = 2, coins = { "red", "red" } } }, discard = { "black_eyed" } }
    local v = s:view(1)
    for seed = 1, 5 do
      local x = s:sample(1, seed)
      local t = x:table()
      assert.same({ "soy", "chili" }, t.players[1].hand)
      assert.same({ { "green" }, {} }, t.players[1].fields)
      assert.same({ "black_eyed" }, t.discard)
      assert.same({ "red", "red" }, t.players[4].coins)
      assert.same({ "blue", "red" }, sorted(t.face_up))
      for p = 2, 4 do assert.equal(v.players[p].hand, #t.players[p].hand) end
      assert.equal(v.deck, #t.deck)
      assert.same(sorted(ALL_CARDS), sorted(all_cards(x)))
    end
  end)
end)

---------------------------------------------------------------------------
describe("bohnanza invariant", function()
  it("over random games every card is in exactly one place (scenario 17)", function()
    local trades = 0
    for seed = 1, 12 do
      local n = 3 + seed % 3
      local rio = seed > 6
      local s = meeple.new("bohnanza", { seed = seed, players = n, params = rio and { edition = "riogrande" } or nil })
      local total = rio and (n == 3 and 150 or 130) or 104
      local want = sorted(all_cards(s))
      assert.equal(total, #want)
      local rng = seed * 7919
      local steps = 0
      while not s:is_over() and steps < 3000 do
        local l = s:legal()
        assert.is_true(#l > 0)
        rng = (rng * 1103515245 + 12345) % 2147483648
        -- prefer ending trading quickly so games reach the later passes
        local a = l[rng % #l + 1]
        if has(l, "done") and rng % 4 ~= 0 then a = "done" end
        if has(l, "pass") and rng % 3 ~= 0 then a = "pass" end
        if a == "accept" then trades = trades + 1 end
        s:play(a)
        steps = steps + 1
        local have = sorted(all_cards(s))
        assert.equal(total, #have, ("seed %d, after %s"):format(seed, a))
        assert.same(want, have)
      end
      assert.is_true(s:is_over(), ("seed %d ends"):format(seed))
    end
    assert.is_true(trades > 0, "some deals were made")
  end)
end)

---------------------------------------------------------------------------
describe("bohnanza offered cards are shown (ruling 11)", function()
  local function trade_position()
    return bohnanza { phase = "trade", planted = 1, face_up = { "blue", "red" }, players = {
      { hand = { "soy", "garden", "chili" } }, { hand = { "stink", "green" } }, {}, {} } }
  end

  it("give K shows the card's bean to everyone, in the proposal and in every view", function()
    local s = trade_position()
    play(s, "propose 2", "give up blue", "give 2")
    for p = 1, 4 do
      local v = s:view(p)
      assert.same({ "up blue", "hand 2 garden" }, v.proposal.give)
      assert.same({ { at = 2, bean = "garden" } }, v.players[1].shown)
    end
  end)

  it("an offered card stays known to all after reject and after cancel, while it stays in the hand", function()
    local s = trade_position()
    play(s, "propose 2", "give 2", "send", "reject")
    assert.is_nil(T(s).proposal)
    assert.same({ { at = 2, bean = "garden" } }, s:view(3).players[1].shown)
    play(s, "propose 3", "give 3", "cancel")
    assert.same({ { at = 2, bean = "garden" }, { at = 3, bean = "chili" } }, s:view(2).players[1].shown)
    -- a view rebuilds a game that still knows them
    assert.same(s:view(2).players[1].shown, meeple.from_table(s:view(2)):view(2).players[1].shown)
  end)

  it("s:sample(p) never moves or changes a shown card", function()
    local s = trade_position()
    play(s, "propose 2", "give 2", "send", "reject")
    for i = 1, 200 do
      local x = s:sample(2, i)
      assert.equal("garden", hand(x, 1)[2])
    end
  end)

  it("a shown card and its hidden twin are different choices: give K lists both (scenario 9 with knowledge)", function()
    local s = bohnanza { phase = "trade", planted = 1, face_up = { "blue", "red" }, players = {
      { hand = { "blue", "blue", "red" } }, { hand = { "stink" } }, {}, {} } }
    play(s, "propose 2")
    assert_legal(s, "give 1")
    assert_illegal(s, "give 2", "give 1")
    play(s, "give 1", "cancel")
    -- card 1 is shown now, card 2 is not: giving either leaves the others knowing different things
    play(s, "propose 3")
    assert_legal(s, "give 1")
    assert_legal(s, "give 2")
  end)

  it("a pick between a shown copy and a hidden twin is a decision with both choices", function()
    local s = bohnanza { phase = "trade", planted = 1, face_up = { "blue", "red" }, players = {
      { hand = { "soy" } }, { hand = { "stink", "stink" } }, {}, {} } }
    play(s, "ask", "offer", "give 1", "cancel")          -- player 2 showed its first stink
    play(s, "pass", "pass")
    play(s, "propose 2", "give up blue", "want stink", "send", "accept")
    assert.equal(2, s:to_move())
    assert_legal(s, "pick 1")
    assert_legal(s, "pick 2")
  end)
end)

describe("bohnanza smaller rules", function()
  it("plant 9 with two fields says you have 2 fields, as plant 3 does", function()
    local s = bohnanza { players = { { hand = { "soy" } }, {}, {}, {} } }
    assert_illegal(s, "plant 9", "you have 2 fields")
    assert_illegal(s, "plant 3", "you have 2 fields")
    assert_illegal(s, "harvest 9", "you have 2 fields")
  end)

  it("last_pass_over marks a run-out before phase 4, not a game ending in phase 4 (scenario 12)", function()
    local s = bohnanza { pass = 3, players = { { hand = { "soy" } }, {}, {}, {} }, deck = { "blue", "red", "green", "red" } }
    play(s, "plant 1", "done")
    while not s:is_over() do
      assert.equal("plant_traded", T(s).phase)
      s:play(s:legal()[1])
    end
    assert.same({}, deck(s))
    assert.is_false(T(s).last_pass_over)
  end)

  it("every game ends: reveal = 0 with draw = 0 is refused with a reason", function()
    local ok, err = pcall(meeple.new, "bohnanza", { params = { reveal = 0, draw = 0 } })
    assert.is_false(ok)
    assert.truthy(tostring(err):find("never", 1, true), err)
    assert.is_true(pcall(meeple.new, "bohnanza", { params = { reveal = 0, draw = 1 } }))
    assert.is_true(pcall(meeple.new, "bohnanza", { params = { reveal = 1, draw = 0 } }))
  end)
end)

describe("bohnanza unknown words", function()
  it("an unknown word lists exactly Bohnanza's words", function()
    local _, why = meeple.new("bohnanza"):check("xyzzy")
    assert.equal("unknown action 'xyzzy'; actions: plant, done, harvest, buy, propose, ask, offer, pass, give, "
      .. "want, send, cancel, accept, reject, pick", why)
  end)
end)

describe("bohnanza picks list distinct choices only", function()
  local function two_greens()
    local s = bohnanza { phase = "trade", planted = 1, face_up = { "blue", "red" }, players = {
      { hand = { "chili" } }, { hand = { "green", "soy", "green", "green" } }, {}, {} } }
    play(s, "propose 2", "give up blue", "want green", "want green", "send", "accept")
    return s
  end

  it("two picks that leave the same hand are one choice: cards of one bean are picked front to back", function()
    -- B holds [green, soy, green, green] and gives two greens: cards {1, 3} and {3, 1} are one choice
    local s = two_greens()
    assert.equal(2, s:to_move())
    assert_legal(s, "pick 1")
    assert_legal(s, "pick 3")
    play(s, "pick 3") -- the second green must come from behind it: no choice is left
    assert.same({ "green", "soy" }, hand(s, 2))
    s = two_greens()
    play(s, "pick 1") -- [soy, green, green]: the second green is card 2 or 3, one run: no choice
    assert.same({ "soy", "green" }, hand(s, 2))
    -- after pick 3, card 1 is in front of it: refused, with the rule
    s = bohnanza { phase = "trade", planted = 1, face_up = { "blue", "red" }, players = {
      { hand = { "chili" } }, { hand = { "green", "soy", "green", "soy", "green", "soy", "green" } }, {}, {} } }
    play(s, "propose 2", "give up blue", "want green", "want green", "send", "accept", "pick 3")
    assert.equal(2, s:to_move())
    assert_illegal(s, "pick 1", "front to back")
    assert_legal(s, "pick 4")
    assert_legal(s, "pick 6")
  end)

  it("a hand card and a face-up card of one bean: the hand's goes first, when both go", function()
    local s = bohnanza { phase = "trade", planted = 1, face_up = { "soy", "red" }, players = {
      { hand = { "soy", "chili" } }, { hand = { "green" } }, {}, {} } }
    play(s, "ask", "offer", "give 1", "want soy", "want soy", "send", "accept")
    assert.same({ "chili" }, hand(s, 1))
    assert.same({ "red" }, T(s).face_up)
  end)
end)

describe("bohnanza from_table's shown cards", function()
  it("one hand card shown twice is refused, as for a hand given as a number", function()
    local ok, err = pcall(meeple.from_table, {
      game = "bohnanza",
      players = { { hand = { "soy", "garden" }, shown = { { at = 1, bean = "soy" }, { at = 1, bean = "soy" } } }, {}, {} } })
    assert.is_false(ok)
    assert.truthy(err:find("two shown cards at one place", 1, true), err)
  end)
end)

---------------------------------------------------------------------------
describe("bohnanza with four fields (the fields parameter's most)", function()
  -- A table read back under the parameters it was played with (a table does not carry them).
  local function reread(s)
    local t = T(s)
    t.params = { fields = 4 }
    return meeple.from_table(t)
  end

  it("fields takes 1 to 4: 5 is refused in one line naming the range", function()
    local ok, err = pcall(meeple.new, "bohnanza", { players = 4, params = { fields = 5 } })
    assert.is_false(ok)
    assert.truthy(tostring(err):find("fields must be 1..4, got 5", 1, true), err)
    local s = meeple.new("bohnanza", { players = 4, seed = 1, params = { fields = 4 } })
    for p = 1, 4 do assert.equal(4, #player(s, p).fields) end
  end)

  it("the fourth field is planted when the first three grow other beans, and harvested like the others", function()
    local s = bohnanza { params = { fields = 4 }, players = {
      { hand = { "garden", "red" }, fields = { { "blue", "blue" }, { "soy" }, { "chili" }, {} } }, {}, {}, {} } }
    assert.same({ "plant 4" }, legal_starting(s, "plant"))
    assert_illegal(s, "plant 5", "4 fields")
    play(s, "plant 4")
    assert.same({ "garden" }, field(s, 1, 4))
    -- bean protection counts the fourth field as any other: only the field of two may go
    assert.same({ "harvest 1" }, legal_starting(s, "harvest"))
    assert_illegal(s, "harvest 4", "lone bean")
    play(s, "harvest 1")
    assert.same({ "harvest 2", "harvest 3", "harvest 4" }, legal_starting(s, "harvest"))
    play(s, "harvest 4")
    assert.same({}, field(s, 1, 4))
    assert.equal("garden", discard(s)[#discard(s)])
  end)

  it("an empty fourth field is named only as the lowest empty one", function()
    local s = bohnanza { params = { fields = 4 }, players = {
      { hand = { "red" }, fields = { { "blue" }, {}, { "chili" }, {} } }, {}, {}, {} } }
    assert.same({ "plant 2" }, legal_starting(s, "plant"))
    assert_illegal(s, "plant 4", "field 2")
  end)

  it("views, tables, saves and from_table keep all four fields", function()
    local s = bohnanza { params = { fields = 4 }, players = {
      { hand = { "red" }, fields = { { "blue" }, { "soy" }, { "chili" }, { "green", "green" } } }, {}, {}, {} } }
    assert.same({ "green", "green" }, field(s, 1, 4))
    assert.same({ "green", "green" }, s:view(2).players[1].fields[4])
    assert.same(T(s), T(reread(s)))
    assert.same(T(s), T(meeple.load(s:save())))
    local ok, err = pcall(meeple.from_table, { game = "bohnanza", params = { fields = 3 }, players = {
      { fields = { {}, {}, {}, { "blue" } } }, {}, {}, {} } })
    assert.is_false(ok)
    assert.truthy(tostring(err):find("4 fields listed; this player has 3", 1, true), err)
  end)

  it("a third field is bought only by a player with 2: with 3 or 4 fields there is nothing to buy", function()
    for _, fields in ipairs { 3, 4 } do
      local s = bohnanza { params = { fields = fields, third_field_cost = 1 }, players = {
        { hand = { "soy" }, coins = { "soy", "red" } }, {}, {}, {} } }
      assert_illegal(s, "buy", "2 fields")
      local ok, err = pcall(meeple.from_table, { game = "bohnanza", params = { fields = fields, third_field_cost = 1 },
        players = { { third_field = true }, {}, {}, {} } })
      assert.is_false(ok)
      assert.truthy(tostring(err):find(fields == 4 and "4 fields already" or "2 fields", 1, true), err)
    end
  end)

  it("whole random games with four fields keep every card in exactly one place, and saves replay them #soak", function()
    local fourth = 0 -- decisions with a bean on some fourth field
    for seed = 1, util.soak_count(3, 12) do -- the soak (ctest -L soak) plays more
      local n = 3 + seed % 3
      local s = meeple.new("bohnanza", { seed = seed, players = n, params = { fields = 4 } })
      local want = sorted(all_cards(s))
      local rng, steps = seed * 7919, 0
      while not s:is_over() and steps < 4000 do
        local l = s:legal()
        rng = (rng * 1103515245 + 12345) % 2147483648
        local a = l[rng % #l + 1]
        if has(l, "done") and rng % 4 ~= 0 then a = "done" end
        if has(l, "pass") and rng % 3 ~= 0 then a = "pass" end
        s:play(a)
        steps = steps + 1
        assert.same(want, sorted(all_cards(s)), ("seed %d, after %s"):format(seed, a))
        for p = 1, n do
          assert.equal(4, #player(s, p).fields)
          if #field(s, p, 4) > 0 then fourth = fourth + 1 end
        end
        if steps % 97 == 0 then assert.same(T(s), T(reread(s))) end
      end
      assert.is_true(s:is_over(), ("seed %d ends"):format(seed))
      assert.same(T(s), T(meeple.load(s:save())))
    end
    assert.is_true(fourth > 0, "beans grew on fourth fields")
  end)
end)

describe("bohnanza tables say what a harvest of each field pays now", function()
  it("harvest: one entry a field, the rules' payout with the coin cap, and bean protection marked", function()
    local t = {
      game = "bohnanza", params = { beanometer = { chili = { 1, 2, 3, 4 } } },
      phase = "plant", active = 1, start = 1, to_move = 1,
      players = {
        { hand = { "soy" }, fields = { { "chili" }, { "blue", "blue", "blue", "blue", "blue", "blue", "blue", "blue",
          "blue", "blue", "blue", "blue" }, {} } },
        { hand = 5, fields = { { "garden", "garden", "garden" } } }, { hand = 5 },
      },
    }
    local s = meeple.from_table(t)
    -- chili alone pays 1 by this meter, but bean protection forbids that harvest while blue holds 12
    local want = { { pays = 1, protected = true }, { pays = 4 }, { pays = 0 } }
    assert.same(want, s:table().players[1].harvest)
    assert.same(want, s:view(2).players[1].harvest) -- public: every view says it
    assert.same({ { pays = 3 }, { pays = 0 }, { pays = 0 } }, s:view(1).players[2].harvest)
    -- what the table says is what a harvest pays
    local coins = #s:table().players[1].coins
    s:play("harvest 2")
    assert.equal(coins + 4, #s:table().players[1].coins)
    assert.same({ pays = 1 }, s:table().players[1].harvest[1]) -- no longer protected
  end)

  it("from_table accepts a stated harvest and ignores it: the fields decide", function()
    local t = meeple.new("bohnanza", { seed = 3 }):table()
    t.players[1].fields = { { "chili", "chili", "chili" }, {} }
    t.players[1].harvest = { { pays = 9, protected = true }, { pays = 5 } }
    t.deck = nil
    local s = meeple.from_table(t)
    assert.same({ { pays = 1 }, { pays = 0 } }, s:table().players[1].harvest)
  end)
end)
