local meeple = require "meeple"

-- Babel rule scenarios: one `it` per rule of ../shared/rules/babel.md.
-- Positions are built with meeple.from_table; zones not named are empty, the
-- two decks receive every card not placed elsewhere.

---------------------------------------------------------------------------
-- helpers
---------------------------------------------------------------------------
local M, S, H, P, A = "medes", "sumerians", "hittites", "persians", "assyrians"

local function rep(card, n)
  local t = {}
  for i = 1, n do t[i] = card end
  return t
end

local util = require "spec_util"
local cat, count, has, sorted = util.cat, util.count, util.has, util.sorted

-- every temple card of the game, ascending
local ALL_TEMPLES = {}
for level, n in ipairs { 10, 9, 8, 7, 6, 5 } do
  for _ = 1, n do ALL_TEMPLES[#ALL_TEMPLES + 1] = level end
end

local minus = util.minus

local function babel(t)
  t.game = "babel"
  return meeple.from_table(t)
end

local function player(s, p) return s:table().players[p] end
local function row(s, p, loc) return (player(s, p).rows or {})[loc] or {} end
local function temple(s, p, loc) return (player(s, p).temples or {})[loc] or {} end
local function hand(s, p) return player(s, p).hand end
local function list_of(s, key) return s:table()[key] or {} end

local legal_text, assert_legal, assert_illegal, play = util.legal_text, util.assert_legal, util.assert_illegal, util.play

local function card_total(s)
  local t, n = s:table(), 0
  n = n + #t.people_deck + #t.discard
  for p = 1, 2 do
    n = n + #t.players[p].hand
    for _, r in pairs(t.players[p].rows) do n = n + #r end
  end
  return n
end

---------------------------------------------------------------------------
describe("babel travel", function()
  it("travel discards the card and moves the pawn", function()
    local s = babel { players = { { hand = { M, S } }, {} } }
    play(s, "travel medes")
    assert.equal(M, player(s, 1).pawn)
    assert.same({ S }, hand(s, 1))
    assert.same({ M }, list_of(s, "discard"))
    play(s, "travel sumerians")
    assert.equal(S, player(s, 1).pawn)
    assert.same({}, hand(s, 1))
    assert.same({ M, S }, list_of(s, "discard"))
  end)

  it("travel needs a card of the destination's people in hand", function()
    local s = babel { players = { { hand = { S } }, {} } }
    assert_illegal(s, "travel medes")
    assert_legal(s, "travel sumerians")
  end)

  it("travel destination must differ from the pawn's location", function()
    local s = babel { players = { { pawn = M, hand = { M, S } }, {} } }
    assert_illegal(s, "travel medes")
    assert_legal(s, "travel sumerians")
  end)

  it("both pawns may stand at the same location", function()
    local s = babel { players = { { hand = { M } }, { pawn = M } } }
    play(s, "travel medes")
    assert.equal(M, player(s, 1).pawn)
    assert.equal(M, player(s, 2).pawn)
  end)
end)

---------------------------------------------------------------------------
describe("babel settle", function()
  it("settle puts the card on top of own row at the pawn's location", function()
    local s = babel { players = { { pawn = H, hand = { M, M, P }, rows = { hittites = { A } } }, {} } }
    assert.equal(1, count(s:legal(), "settle medes"), "settling one of two identical cards is one action")
    play(s, "settle persians")
    assert.same({ A, P }, row(s, 1, H))
    assert.same({ M, M }, hand(s, 1))
    play(s, "settle medes")
    assert.same({ A, P, M }, row(s, 1, H))
    assert.same({}, list_of(s, "discard"))
  end)

  it("settle is illegal while the pawn is at the quarry", function()
    local s = babel { players = { { hand = { M } }, {} } }
    assert_illegal(s, "settle medes")
  end)

  it("settle needs the card in hand", function()
    local s = babel { players = { { pawn = M, hand = { S } }, {} } }
    assert_illegal(s, "settle medes")
  end)
end)

---------------------------------------------------------------------------
describe("babel build", function()
  it("build takes the top card of own reserve", function()
    local s = babel { players = { { pawn = M, rows = { medes = { S } }, reserve = { 3, 1 } }, {} } }
    play(s, "build own")
    assert.same({ 1 }, temple(s, 1, M))
    assert.same({ 3 }, player(s, 1).reserve)
    assert.same({ 1, 0 }, s:scores())
  end)

  it("build takes the top card of the opponent's reserve", function()
    local s = babel { players = {
      { pawn = M, rows = { medes = { S, S } }, temples = { medes = { 1 } } },
      { reserve = { 5, 2 } } } }
    assert_illegal(s, "build own")
    play(s, "build opp")
    assert.same({ 1, 2 }, temple(s, 1, M))
    assert.same({ 5 }, player(s, 2).reserve)
  end)

  it("build level must be exactly one more than the site's top", function()
    local s = babel { players = {
      { pawn = M, rows = { medes = rep(S, 5), sumerians = rep(S, 5) },
        temples = { medes = { 1 } }, reserve = { 3 } },
      { reserve = { 1 } } } }
    assert_illegal(s, "build own")            -- 3 on a 1
    assert_illegal(s, "build opp")            -- 1 on a 1
    local t = babel { players = { { pawn = S, rows = { sumerians = rep(S, 5) }, reserve = { 2 } }, {} } }
    assert_illegal(t, "build own")            -- an empty site takes a 1
  end)

  it("build needs at least as many cards in own row as the level", function()
    local short = babel { players = {
      { pawn = M, rows = { medes = { S, H } }, temples = { medes = { 1, 2 } }, reserve = { 3 } }, {} } }
    assert_illegal(short, "build own")
    local enough = babel { players = {
      { pawn = M, rows = { medes = { S, H, P } }, temples = { medes = { 1, 2 } }, reserve = { 3 } }, {} } }
    play(enough, "build own")
    assert.same({ 1, 2, 3 }, temple(enough, 1, M))
  end)

  it("build counts only own row, not the opponent's", function()
    local s = babel { players = {
      { pawn = M, rows = { medes = { S } }, temples = { medes = { 1 } }, reserve = { 2 } },
      { rows = { medes = rep(H, 5) } } } }
    assert_illegal(s, "build own")
  end)

  it("build is illegal from the quarry or with nothing to take", function()
    local s = babel { players = { { rows = { medes = { S } }, reserve = { 1 } }, {} } }
    assert_illegal(s, "build own")
    local t = babel { players = { { pawn = M, rows = { medes = { S } } }, {} } }
    assert_illegal(t, "build own")
    assert_illegal(t, "build opp")
  end)

  it("a built level stays when the row shrinks", function()
    local s = babel { players = {
      { pawn = M, rows = { medes = { S, H, P } }, temples = { medes = { 1, 2 } }, reserve = { 3 } }, {} } }
    play(s, "build own", "migrate medes sumerians")
    assert.same({}, row(s, 1, M))
    assert.same({ 1, 2, 3 }, temple(s, 1, M))
    assert.same({ 3, 0 }, s:scores())
  end)
end)

---------------------------------------------------------------------------
describe("babel migration", function()
  it("migration moves exactly the top three cards in order", function()
    local s = babel { players = { { rows = { medes = { A, S, H, P }, sumerians = { M } } }, {} } }
    play(s, "migrate medes sumerians")
    assert.same({ A }, row(s, 1, M))
    assert.same({ M, S, H, P }, row(s, 1, S))
    assert.is_true(s:table().migrated)
  end)

  it("migration into an empty row lays the three cards out in order", function()
    local s = babel { players = { { rows = { persians = { S, S, H } } }, {} } }
    play(s, "migrate persians assyrians")
    assert.same({}, row(s, 1, P))
    assert.same({ S, S, H }, row(s, 1, A))
  end)

  it("migration ignores the pawn's location", function()
    local s = babel { players = { { pawn = H, rows = { medes = { A, S, H }, hittites = { M } } }, {} } }
    play(s, "migrate medes persians")
    assert.same({ A, S, H }, row(s, 1, P))
    assert.equal(H, player(s, 1).pawn)
  end)

  it("migration needs at least three cards at the source", function()
    local s = babel { players = { { rows = { medes = { A, S } } }, {} } }
    assert_illegal(s, "migrate medes sumerians")
  end)

  it("migration source and destination must differ", function()
    local s = babel { players = { { rows = { medes = { A, S, H, P } } }, {} } }
    assert_illegal(s, "migrate medes medes")
  end)

  it("migration is allowed once per turn", function()
    local s = babel { players = {
      { rows = { medes = rep(S, 6) }, hand = { H } },
      { rows = { medes = { A, A, A } } } } }
    play(s, "migrate medes sumerians")
    assert_illegal(s, "migrate medes hittites")
    assert_illegal(s, "migrate sumerians hittites")
    play(s, "end")
    assert.equal(2, s:to_move())
    assert.is_false(s:table().migrated)
    play(s, "migrate medes sumerians")          -- a new turn, a new migration
  end)
end)

---------------------------------------------------------------------------
describe("babel abilities", function()
  it("an ability needs three identical cards directly adjacent", function()
    local s = babel { players = {
      { pawn = H, rows = { hittites = { A, A, M, A } } },
      { temples = { hittites = { 1 } }, hand = { M, M } } } }
    assert_illegal(s, "collapse")
    assert_illegal(s, "halve assyrians")
  end)

  it("a triple anywhere in the row enables the ability", function()
    local s = babel { players = {
      { pawn = H, rows = { hittites = { A, A, A, M, S } } },
      { temples = { hittites = { 1 } } } } }
    play(s, "collapse")
    assert.same({ A, A, M, S }, row(s, 1, H))
    assert.same({ A }, list_of(s, "discard"))
  end)

  it("an ability works only with the triple at the pawn's location", function()
    local s = babel { players = {
      { pawn = M, rows = { hittites = { A, A, A } } },
      { temples = { hittites = { 1 }, medes = { 1 } }, hand = { M, M } } } }
    assert_illegal(s, "collapse")
    assert_illegal(s, "halve assyrians")
  end)

  it("a run of four can be used twice", function()
    local s = babel { players = {
      { pawn = S, rows = { sumerians = { M, M, M, M } } },
      { rows = { sumerians = { H, P, A } } } } }
    assert.is_false(has(s:legal(), "expel hittites @1"), "one run needs no @N")
    play(s, "expel hittites")
    assert.same({ M, M, M }, row(s, 1, S))
    play(s, "expel persians")
    assert.same({ M, M }, row(s, 1, S))
    assert.same({ A }, row(s, 2, S))
    assert_illegal(s, "expel assyrians")
  end)

  it("two separate runs of the same people are named with @N", function()
    local s = babel { players = {
      { pawn = A, rows = { assyrians = { S, S, S, M, S, S, S } } },
      { rows = { assyrians = { P, H } } } } }
    local legal = s:legal()
    assert.is_true(has(legal, "switch @1"), legal_text(s))
    assert.is_true(has(legal, "switch @5"), legal_text(s))
    assert_illegal(s, "switch")
    play(s, "switch @5")
    assert.same({ S, S, S, M, S, S, H }, row(s, 1, A))
    assert.same({ P }, row(s, 2, A))
    -- now only the first run qualifies: no suffix any more
    assert.is_true(has(s:legal(), "switch"), legal_text(s))
    assert.is_false(has(s:legal(), "switch @1"), legal_text(s))
  end)

  it("two separate runs are named with @N for halving as well", function()
    local s = babel { players = {
      { pawn = A, rows = { assyrians = { P, P, P, M, P, P, P } } },
      { hand = { M, M, S, H } } } }
    assert.is_true(has(s:legal(), "halve persians @1"), legal_text(s))
    assert.is_true(has(s:legal(), "halve persians @5"), legal_text(s))
    play(s, "halve persians @1")
    assert.same({ P, P, M, P, P, P }, row(s, 1, A))
  end)

  it("a run of three and a pair are one qualifying run without a suffix", function()
    local s = babel { players = {
      { pawn = A, rows = { assyrians = { S, S, M, S, S, S } } },
      { rows = { assyrians = { H } } } } }
    play(s, "switch")
    assert.same({ S, S, M, S, S, H }, row(s, 1, A))
  end)
end)

---------------------------------------------------------------------------
describe("babel assyrian collapse", function()
  it("assyrian collapse puts the temple on the deck so the next draws are 1, 2, ...", function()
    local s = babel { players = {
      { pawn = P, rows = { persians = { A, A, A, M } }, temples = { persians = { 1 } } },
      { temples = { persians = { 1, 2, 3 }, medes = { 1, 2 } } } } }
    play(s, "collapse")
    assert.same({}, temple(s, 2, P))
    assert.same({ 1, 2 }, temple(s, 2, M))      -- other locations untouched
    assert.same({ 1 }, temple(s, 1, P))         -- own temple untouched
    assert.same({ A, A, M }, row(s, 1, P))
    assert.same({ 3, 2, 1 }, list_of(s, "temple_top"))
    assert.same({ 1, 2 }, s:scores())
    -- the put-back cards are known to both players
    local v = s:view(2)
    assert.same({ 3, 2, 1 }, v.temple_top)
    assert.is_number(v.temple_deck)
    -- the draw takes 1 and 2 and lays the higher first
    play(s, "end")
    assert.same({ 2, 1 }, player(s, 1).reserve)
    assert.same({ 3 }, list_of(s, "temple_top"))
    play(s, "end")
    assert.is_true(has(player(s, 2).reserve, 3))
    assert.same({}, list_of(s, "temple_top"))
  end)

  it("assyrian collapse is illegal without an opponent temple here", function()
    local s = babel { players = {
      { pawn = P, rows = { persians = { A, A, A } }, temples = { persians = { 1 } } },
      { temples = { medes = { 1 } } } } }
    assert_illegal(s, "collapse")
  end)
end)

---------------------------------------------------------------------------
describe("babel hittite steal", function()
  it("hittite steal takes the opponent's top card and may skip levels", function()
    local s = babel { players = {
      { pawn = M, rows = { medes = { H, H, H, M, M } }, temples = { medes = { 1 } } },
      { temples = { medes = { 1, 2, 3, 4 } } } } }
    play(s, "steal")
    assert.same({ 1, 4 }, temple(s, 1, M))
    assert.same({ 1, 2, 3 }, temple(s, 2, M))
    assert.same({ H, H, M, M }, row(s, 1, M))
    assert.same({ H }, list_of(s, "discard"))
    assert.same({ 4, 3 }, s:scores())
  end)

  it("hittite steal needs a level higher than own top", function()
    local equal = babel { players = {
      { pawn = M, rows = { medes = rep(H, 6) }, temples = { medes = { 1, 2, 3 } } },
      { temples = { medes = { 1, 2, 3 } } } } }
    assert_illegal(equal, "steal")
    local lower = babel { players = {
      { pawn = M, rows = { medes = rep(H, 6) }, temples = { medes = { 1, 2, 3, 4 } } },
      { temples = { medes = { 1, 2, 3 } } } } }
    assert_illegal(lower, "steal")
  end)

  it("hittite steal is allowed onto an empty own site", function()
    local s = babel { players = {
      { pawn = M, rows = { medes = { H, H, H } } },
      { temples = { medes = { 1, 2 } } } } }
    play(s, "steal")
    assert.same({ 2 }, temple(s, 1, M))
    assert.same({ 1 }, temple(s, 2, M))
  end)

  it("hittite steal counts the discarded card", function()
    local s = babel { players = {
      { pawn = M, rows = { medes = { H, H, H } } },
      { temples = { medes = { 1, 2, 3 } } } } }
    play(s, "steal")
    assert.same({ 3 }, temple(s, 1, M))
    assert.same({ H, H }, row(s, 1, M))
  end)

  it("hittite steal needs as many cards as the level even counting the discarded card", function()
    local s = babel { players = {
      { pawn = M, rows = { medes = { H, H, H } } },
      { temples = { medes = { 1, 2, 3, 4 } } } } }
    assert_illegal(s, "steal", "4")
  end)

  it("hittite steal is illegal without an opponent temple here", function()
    local s = babel { players = {
      { pawn = M, rows = { medes = { H, H, H } } },
      { temples = { sumerians = { 1 } } } } }
    assert_illegal(s, "steal")
  end)
end)

---------------------------------------------------------------------------
describe("babel median expel", function()
  it("median expel discards every Q card anywhere in the opponent's row", function()
    local s = babel { players = {
      { pawn = S, rows = { sumerians = { M, M, M } } },
      { rows = { sumerians = { H, P, H, H, S, H }, medes = { H } } } } }
    local legal = s:legal()
    for _, q in ipairs { H, P, S } do
      assert.is_true(has(legal, "expel " .. q), legal_text(s))
    end
    play(s, "expel hittites")
    assert.same({ P, S }, row(s, 2, S))
    assert.same({ H }, row(s, 2, M))             -- other locations untouched
    assert.same({ M, M }, row(s, 1, S))
    local d = list_of(s, "discard")
    assert.equal(5, #d)
    assert.equal(4, count(d, H))
    assert.equal(1, count(d, M))
  end)

  it("median expel is illegal when the opponent has no such card here", function()
    local s = babel { players = {
      { pawn = S, rows = { sumerians = { M, M, M, M } } },
      { rows = { sumerians = { H, P }, medes = { A } } } } }
    assert_illegal(s, "expel assyrians")
    assert_illegal(s, "expel medes")
    play(s, "expel hittites")
    assert_illegal(s, "expel hittites")
    assert_legal(s, "expel persians")
  end)
end)

---------------------------------------------------------------------------
describe("babel sumerian switch", function()
  it("sumerian switch takes only the top run of the opponent's row", function()
    local s = babel { players = {
      { pawn = A, rows = { assyrians = { S, S, S } } },
      { rows = { assyrians = { A, M, A, A } } } } }
    play(s, "switch")
    assert.same({ S, S, A, A }, row(s, 1, A))
    assert.same({ A, M }, row(s, 2, A))
    assert.same({ S }, list_of(s, "discard"))
  end)

  it("sumerian switch with sumerians=all takes every card of the top card's people", function()
    local s = babel { params = { sumerians = "all" }, players = {
      { pawn = A, rows = { assyrians = { S, S, S } } },
      { rows = { assyrians = { A, M, A, A } } } } }
    play(s, "switch")
    assert.same({ S, S, A, A, A }, row(s, 1, A))
    assert.same({ M }, row(s, 2, A))
  end)

  it("sumerian switch is illegal when the opponent's row here is empty", function()
    local s = babel { players = {
      { pawn = A, rows = { assyrians = { S, S, S } } },
      { rows = { medes = { A } } } } }
    assert_illegal(s, "switch")
  end)
end)

---------------------------------------------------------------------------
describe("babel persian leap", function()
  it("persian leap builds own top level plus two from own reserve", function()
    local s = babel { players = {
      { pawn = M, rows = { medes = { P, P, P, M } }, temples = { medes = { 1, 2 } }, reserve = { 4 } },
      {} } }
    play(s, "leap own")
    assert.same({ 1, 2, 4 }, temple(s, 1, M))
    assert.same({}, player(s, 1).reserve)
    assert.same({ P, P, M }, row(s, 1, M))
    assert.same({ P }, list_of(s, "discard"))
  end)

  it("persian leap can take the opponent's reserve top", function()
    local s = babel { players = {
      { pawn = M, rows = { medes = { P, P, P, M } }, temples = { medes = { 1, 2 } } },
      { reserve = { 1, 4 } } } }
    assert_illegal(s, "leap own")
    play(s, "leap opp")
    assert.same({ 1, 2, 4 }, temple(s, 1, M))
    assert.same({ 1 }, player(s, 2).reserve)
  end)

  it("persian leap onto an empty site takes a 2", function()
    local two = babel { players = { { pawn = M, rows = { medes = { P, P, P } }, reserve = { 2 } }, {} } }
    play(two, "leap own")
    assert.same({ 2 }, temple(two, 1, M))
    local one = babel { players = { { pawn = M, rows = { medes = { P, P, P } }, reserve = { 1 } }, {} } }
    assert_illegal(one, "leap own")
    local three = babel { players = { { pawn = M, rows = { medes = { P, P, P } }, reserve = { 3 } }, {} } }
    assert_illegal(three, "leap own")
  end)

  it("persian leap skips exactly one level", function()
    local function site_1_with(top)
      return babel { players = {
        { pawn = M, rows = { medes = { P, P, P, P, P } }, temples = { medes = { 1 } }, reserve = { top } }, {} } }
    end
    assert_illegal(site_1_with(2), "leap own")
    assert_illegal(site_1_with(4), "leap own")
    local s = site_1_with(3)
    play(s, "leap own")
    assert.same({ 1, 3 }, temple(s, 1, M))
  end)

  it("persian leap counts the discarded persian", function()
    local short = babel { players = {
      { pawn = M, rows = { medes = { P, P, P } }, temples = { medes = { 1, 2 } }, reserve = { 4 } }, {} } }
    assert_illegal(short, "leap own")
    local exact = babel { players = {
      { pawn = M, rows = { medes = { M, P, P, P } }, temples = { medes = { 1, 2 } }, reserve = { 4 } }, {} } }
    play(exact, "leap own")
    assert.same({ 1, 2, 4 }, temple(exact, 1, M))
    assert.same({ M, P, P }, row(exact, 1, M))
  end)
end)

---------------------------------------------------------------------------
describe("babel hand halving", function()
  local function seven()
    return babel { players = {
      { pawn = S, rows = { sumerians = { M, M, M } }, hand = { H } },
      { hand = { M, M, S, H, H, P, P } } } }
  end

  it("halving makes the opponent discard half the hand one card at a time", function()
    local s = seven()
    play(s, "halve medes")
    local t = s:table()
    assert.equal("halve", t.phase)
    assert.equal(1, t.active)
    assert.equal(2, t.to_move)
    assert.equal(2, s:to_move())
    assert.equal(3, t.halve_left)
    assert.same({ M, M }, row(s, 1, S))
    assert.same({ M }, list_of(s, "discard"))
    for _, a in ipairs(s:legal()) do
      assert.truthy(a:find("^discard "), "only discards while halving: " .. legal_text(s))
    end
    play(s, "discard persians")
    assert.equal(2, s:table().halve_left)
    assert.same({ M, P }, list_of(s, "discard"))
    assert.equal(2, s:to_move())
    play(s, "discard hittites")
    assert.same({ M, P, H }, list_of(s, "discard"))
    play(s, "discard medes")
    t = s:table()
    assert.same({ M, P, H, M }, list_of(s, "discard"))
    assert.equal("actions", t.phase)
    assert.equal(0, t.halve_left)
    assert.equal(1, s:to_move())
    assert.same({ M, S, H, P }, hand(s, 2))
  end)

  it("while halving the active player cannot act and the opponent can only discard held cards", function()
    local s = seven()
    play(s, "halve medes")
    assert_illegal(s, "end")
    assert_illegal(s, "discard assyrians")
    assert_illegal(s, "travel hittites")
    -- hidden information is kept while the opponent decides
    assert.is_number(s:view(1).players[2].hand)
    assert.equal(7, s:view(1).players[2].hand)
    assert.same({ M, M, S, H, H, P, P }, s:view(2).players[2].hand)
  end)

  it("halving rounds in the opponent's favour: 7 discards 3", function()
    local s = seven()
    play(s, "halve medes")
    assert.equal(3, s:table().halve_left)
    for _ = 1, 3 do play(s, s:legal()[1]) end
    assert.equal(4, #hand(s, 2))
    assert.equal(1, s:to_move())
  end)

  it("halving rounds in the opponent's favour: 5 discards 2", function()
    local s = babel { players = {
      { pawn = S, rows = { sumerians = { M, M, M } } },
      { hand = { M, S, H, P, A } } } }
    play(s, "halve medes")
    assert.equal(2, s:table().halve_left)
    for _ = 1, 2 do play(s, s:legal()[1]) end
    assert.equal(3, #hand(s, 2))
    assert.equal("actions", s:table().phase)
  end)

  it("halving is illegal when it would discard nothing", function()
    local one = babel { players = {
      { pawn = S, rows = { sumerians = { M, M, M } } }, { hand = { A } } } }
    assert_illegal(one, "halve medes")
    local none = babel { players = {
      { pawn = S, rows = { sumerians = { M, M, M } } }, {} } }
    assert_illegal(none, "halve medes")
    local two = babel { players = {
      { pawn = S, rows = { sumerians = { M, M, M } } }, { hand = { A, A } } } }
    play(two, "halve medes")
    assert.equal(1, two:table().halve_left)
  end)

  it("halving works with a triple of any people", function()
    -- no opponent temple: the assyrian collapse is illegal, halving is not
    local s = babel { players = {
      { pawn = H, rows = { hittites = { A, A, A } } }, { hand = { M, M, M, M } } } }
    assert_illegal(s, "collapse")
    play(s, "halve assyrians")
    assert.equal(2, s:table().halve_left)
  end)
end)

---------------------------------------------------------------------------
describe("babel first turn", function()
  it("ending the first turn is illegal while the starting temple card is in own reserve", function()
    local s = babel { players = {
      { first_turn = true, reserve = { 1 }, hand = { M, S, S } }, {} } }
    assert_illegal(s, "end")
    play(s, "travel medes", "settle sumerians")
    assert_illegal(s, "end")
    play(s, "build own")
    assert.same({ 1 }, temple(s, 1, M))
    play(s, "end")
    assert.is_false(player(s, 1).first_turn)
    assert.equal(2, s:to_move())
  end)

  it("the first-turn duty lapses when the opponent takes the card", function()
    local s = babel { players = {
      { first_turn = true, pawn = M, reserve = { 1 }, hand = { S, H },
        rows = { medes = { M }, sumerians = { S } } },
      { first_turn = true, reserve = { 1 } } } }
    play(s, "build own", "travel sumerians", "build opp")
    assert.same({ 1 }, temple(s, 1, S))
    assert.same({}, player(s, 2).reserve)
    play(s, "end")
    assert.equal(2, s:to_move())
    assert.equal(3, #hand(s, 2))
    assert.is_true(player(s, 2).first_turn)    -- still player 2's first turn
    assert_legal(s, "end")
  end)

  it("with an empty hand the first turn may end with the card unbuilt", function()
    local s = babel { players = { { first_turn = true, reserve = { 1 }, hand = { M } }, {} } }
    assert_illegal(s, "end")
    play(s, "travel medes")        -- nothing left to settle: the 1 cannot be built
    assert.same({}, hand(s, 1))
    play(s, "end")
    assert.equal(2, s:to_move())
  end)

  it("with an empty hand the duty still binds while build own is legal (people already there)", function()
    local s = babel { players = { { first_turn = true, reserve = { 1 }, hand = { S }, rows = { sumerians = { S } } }, {} } }
    play(s, "travel sumerians")    -- the hand is empty, but a sumerian stands here: the 1 can be built
    assert.same({}, hand(s, 1))
    assert_illegal(s, "end", "starting temple")
    play(s, "build own")
    play(s, "end")
    assert.equal(2, s:to_move())
  end)
end)

---------------------------------------------------------------------------
describe("babel people draw", function()
  local others = function(medes)
    return cat(rep(M, medes), rep(S, 12), rep(H, 12), rep(P, 12), rep(A, 12))
  end

  it("the next player draws 3 people cards after the turn ends", function()
    local s = babel { players = { { hand = { M } }, { hand = { S } } } }
    local deck = #s:table().people_deck
    play(s, "end")
    assert.equal(2, s:to_move())
    assert.equal(4, #hand(s, 2))
    assert.equal(deck - 3, #s:table().people_deck)
    assert.same({ M }, hand(s, 1))
  end)

  it("an empty people deck is refilled by shuffling the discard", function()
    local s = babel { players = { { hand = { M } }, {} }, discard = others(11) }
    assert.equal(0, #s:table().people_deck)
    play(s, "end")
    assert.equal(3, #hand(s, 2))
    assert.equal(56, #s:table().people_deck)
    assert.equal(0, #list_of(s, "discard"))
    assert.equal(60, card_total(s))
  end)

  it("a draw that empties the people deck goes on from the shuffled discard", function()
    local s = babel { players = { { hand = { M } }, {} }, discard = others(10) }
    assert.same({ M }, s:table().people_deck)
    play(s, "end")
    assert.equal(3, #hand(s, 2))
    assert.is_true(has(hand(s, 2), M))
    assert.equal(56, #s:table().people_deck)
    assert.equal(0, #list_of(s, "discard"))
    assert.equal(60, card_total(s))
  end)

  local full_rows = { medes = rep(M, 11), sumerians = rep(S, 12), hittites = rep(H, 12),
                      persians = rep(P, 12), assyrians = rep(A, 11) }

  it("with deck and discard both empty a player draws what there is", function()
    local s = babel { players = { { hand = { M }, rows = full_rows }, {} } }
    assert.same({ A }, s:table().people_deck)
    play(s, "end")
    assert.same({ A }, hand(s, 2))
    assert.equal(0, #s:table().people_deck)
    assert.equal(2, s:to_move())
  end)

  it("with no people cards left anywhere a player draws nothing and may still end", function()
    local s = babel { players = { { hand = { M, A }, rows = full_rows }, {} } }
    play(s, "end")
    assert.same({}, hand(s, 2))
    assert.equal(2, s:to_move())
    assert_legal(s, "end")
  end)
end)

---------------------------------------------------------------------------
describe("babel temple draw", function()
  it("the temple draw lays the higher card first and the lower on top of own reserve", function()
    for _, top in ipairs { { 5, 2 }, { 2, 5 } } do
      local s = babel { temple_top = top, players = { { reserve = { 3 }, hand = { M } }, {} } }
      play(s, "end")
      assert.same({ 3, 5, 2 }, player(s, 1).reserve)
      assert.same({}, list_of(s, "temple_top"))
    end
  end)

  -- all temple cards except those named go to player 2's reserve (no score), so the
  -- temple deck holds exactly `deck`
  local function nearly_empty_deck(o)
    local rest = minus(ALL_TEMPLES, cat(o.t1, o.t2, o.deck))
    local s = babel { players = {
      { hand = o.h1, temples = { medes = o.t1 } },
      { hand = o.h2, temples = { medes = o.t2 }, reserve = rest } } }
    assert.equal(#o.deck, #s:table().temple_deck)
    assert.is_false(s:is_over())
    return s
  end

  it("only one temple card is drawn when only one is left, and the game ends", function()
    local s = nearly_empty_deck { t1 = { 1, 2, 3 }, t2 = { 1, 2, 3 }, deck = { 6 }, h1 = { M, S }, h2 = { H } }
    play(s, "end")
    assert.same({ 6 }, player(s, 1).reserve)
    assert.equal(0, #s:table().temple_deck)
    assert.is_true(s:is_over())
  end)

  it("the game ends at once when the last temple card is drawn", function()
    local s = nearly_empty_deck { t1 = { 1, 2, 3, 4 }, t2 = { 1, 2, 3 }, deck = { 2, 6 }, h1 = {}, h2 = { H, H, P, P, A } }
    play(s, "end")
    assert.same({ 6, 2 }, player(s, 1).reserve)
    assert.is_true(s:is_over())
    assert.is_nil(s:to_move())
    assert.is_nil(s:table().to_move)
    assert.equal("over", s:table().phase)
    assert.same({}, s:legal())
    assert.equal(5, #hand(s, 2))               -- no people draw for a next turn
  end)

  it("tie-break: the higher total wins regardless of hand cards", function()
    local s = nearly_empty_deck { t1 = { 1, 2, 3, 4 }, t2 = { 1, 2, 3 }, deck = { 6 }, h1 = {}, h2 = { H, H, P, P, A } }
    play(s, "end")
    assert.same({ 4, 3 }, s:scores())
    assert.same({ 1 }, s:winners())
  end)

  it("tie-break: on equal totals the player with more hand cards wins", function()
    local s = nearly_empty_deck { t1 = { 1, 2, 3 }, t2 = { 1, 2, 3 }, deck = { 6 }, h1 = { M }, h2 = { H, S } }
    play(s, "end")
    assert.same({ 3, 3 }, s:scores())
    assert.same({ 2 }, s:winners())
  end)

  it("tie-break: equal totals and equal hands are a draw listing both winners", function()
    local s = nearly_empty_deck { t1 = { 1, 2, 3 }, t2 = { 1, 2, 3 }, deck = { 6 }, h1 = { M }, h2 = { H } }
    play(s, "end")
    assert.is_true(s:is_over())
    assert.same({ 3, 3 }, s:scores())
    assert.same({ 1, 2 }, sorted(s:winners()))
  end)
end)

---------------------------------------------------------------------------
describe("babel end of the game", function()
  local function fourteen_against(p2_temples)
    return babel { players = {
      { pawn = H, rows = { hittites = { M, M, M, M } }, reserve = { 4 }, hand = { S },
        temples = { medes = { 1, 2, 3, 4, 5 }, sumerians = { 1, 2, 3, 4, 5, 6 }, hittites = { 1, 2, 3 } } },
      { temples = p2_temples } } }
  end

  it("reaching 15 while the opponent has under 10 ends the game at once", function()
    local s = fourteen_against { medes = { 1, 2, 3, 4, 5 }, persians = { 1, 2, 3, 4 } }
    assert.same({ 14, 9 }, s:scores())
    assert.is_false(s:is_over())
    play(s, "build own")
    assert.is_true(s:is_over())
    assert.same({ 15, 9 }, s:scores())
    assert.same({ 1 }, s:winners())
    assert.is_nil(s:to_move())
    assert.same({}, s:legal())
  end)

  it("reaching 15 while the opponent has 10 or more starts the end phase", function()
    local s = fourteen_against { medes = { 1, 2, 3, 4, 5 }, persians = { 1, 2, 3, 4, 5 } }
    assert.is_false(s:table().end_phase)
    play(s, "build own")
    assert.same({ 15, 10 }, s:scores())
    assert.is_false(s:is_over())
    assert.is_nil(s:winners())
    assert.is_true(s:table().end_phase)
    play(s, "end")
    assert.is_false(s:is_over())
    assert.is_true(s:table().end_phase)
    assert.equal(2, s:to_move())
  end)

  -- player 1 at 15, player 2 at 12, player 2 to move
  local function end_phase_table(p2)
    p2.temples = p2.temples or { medes = { 1, 2, 3, 4, 5, 6 }, persians = { 1, 2, 3, 4, 5, 6 } }
    return babel { turn = 2, active = 2, to_move = 2, players = {
      { temples = { medes = { 1, 2, 3, 4 }, sumerians = { 1, 2, 3, 4, 5 }, hittites = { 1, 2, 3, 4, 5, 6 } } },
      p2 } }
  end

  it("a table built with 15 against 12 is already in the end phase", function()
    local s = end_phase_table {}
    assert.same({ 15, 12 }, s:scores())
    assert.is_true(s:table().end_phase)
    assert.is_false(s:is_over())
    assert.equal(2, s:to_move())
  end)

  it("the end phase lasts when totals fall and ends when a total falls under 10", function()
    local s = end_phase_table { pawn = S, hand = { H },
      rows = { sumerians = { A, A, A }, hittites = { A, A, A } } }
    play(s, "collapse")
    assert.same({ 10, 12 }, s:scores())       -- nobody has 15 any more
    assert.is_true(s:table().end_phase)
    assert.is_false(s:is_over())
    play(s, "travel hittites", "collapse")
    assert.same({ 4, 12 }, s:scores())
    assert.is_true(s:is_over())
    assert.same({ 2 }, s:winners())
  end)

  it("in the end phase 20 or more ends the game, whoever reached 15 first", function()
    local s = babel { turn = 2, active = 2, to_move = 2, players = {
      { temples = { medes = { 1, 2, 3, 4, 5 }, sumerians = { 1, 2, 3, 4, 5 }, hittites = { 1, 2, 3, 4, 5 } } },
      { pawn = A, rows = { assyrians = { M, M } }, reserve = { 2 },
        temples = { medes = { 1, 2, 3, 4, 5, 6 }, sumerians = { 1, 2, 3, 4, 5, 6 },
                    persians = { 1, 2, 3, 4, 5, 6 }, assyrians = { 1 } } } } }
    assert.same({ 15, 19 }, s:scores())
    assert.is_true(s:table().end_phase)
    assert.is_false(s:is_over())
    play(s, "build own")
    assert.same({ 15, 20 }, s:scores())
    assert.is_true(s:is_over())
    assert.same({ 2 }, s:winners())
  end)
end)

---------------------------------------------------------------------------
describe("babel worked example", function()
  it("the rulebook's example plays out step by step", function()
    local s = babel { players = {
      { pawn = H, hand = { S, H, A },
        rows = { hittites = { S, S, S, S, A, P, P }, sumerians = { P, P }, assyrians = { H, H } } },
      { hand = { M, M, S, H, H, P, A },
        rows = { hittites = { P, S, A, A, M } },
        temples = { hittites = { 1, 2, 3, 4, 5, 6 }, assyrians = { 1, 2, 3 } } } } }
    assert.same({ 0, 9 }, s:scores())

    -- sumerian switch takes the medes
    play(s, "switch")
    assert.same({ S, S, S, A, P, P, M }, row(s, 1, H))
    assert.same({ P, S, A, A }, row(s, 2, H))

    -- migration of persians, persians, medes to the sumerians
    play(s, "migrate hittites sumerians")
    assert.same({ S, S, S, A }, row(s, 1, H))
    assert.same({ P, P, P, P, M }, row(s, 1, S))

    -- switch again takes both assyrians
    play(s, "switch")
    assert.same({ S, S, A, A, A }, row(s, 1, H))
    assert.same({ P, S }, row(s, 2, H))

    -- assyrian collapse of the height-6 temple
    play(s, "collapse")
    assert.same({}, temple(s, 2, H))
    assert.same({ S, S, A, A }, row(s, 1, H))
    assert.same({ 6, 5, 4, 3, 2, 1 }, list_of(s, "temple_top"))
    assert.same({ 0, 3 }, s:scores())

    -- travel to the assyrians, settle the hittite: exactly three hittites
    play(s, "travel assyrians", "settle hittites")
    assert.equal(A, player(s, 1).pawn)
    assert.same({ H, H, H }, row(s, 1, A))
    assert.same({ S }, hand(s, 1))

    -- hittite steal of the 3 onto the empty site: the discarded hittite counts
    play(s, "steal")
    assert.same({ 3 }, temple(s, 1, A))
    assert.same({ 1, 2 }, temple(s, 2, A))
    assert.same({ H, H }, row(s, 1, A))
    assert.same({ 3, 2 }, s:scores())

    -- travel to the sumerians and halve twice with the persians
    play(s, "travel sumerians")
    assert.same({}, hand(s, 1))
    assert.same({ P, P, P, P, M }, row(s, 1, S))
    assert.equal(7, #hand(s, 2))
    play(s, "halve persians")
    assert.equal(2, s:to_move())
    assert.equal(3, s:table().halve_left)
    for _ = 1, 3 do play(s, s:legal()[1]) end
    assert.equal(4, #hand(s, 2))
    assert.equal(1, s:to_move())
    play(s, "halve persians")
    assert.equal(2, s:table().halve_left)
    for _ = 1, 2 do play(s, s:legal()[1]) end
    assert.equal(2, #hand(s, 2))
    assert.same({ P, P, M }, row(s, 1, S))
    assert_illegal(s, "halve persians")

    -- the next two temple cards are the 1 and the 2 of the collapsed temple
    play(s, "end")
    assert.same({ 2, 1 }, player(s, 1).reserve)
    assert.same({ 6, 5, 4, 3 }, list_of(s, "temple_top"))
    assert.equal(2, s:to_move())
    assert.equal(5, #hand(s, 2))
    assert.equal(60, card_total(s))
  end)
end)

---------------------------------------------------------------------------
describe("babel illegal actions", function()
  it("an illegal action raises an error with the reason and changes nothing", function()
    local s = babel { players = { { hand = { M } }, {} } }
    local before = s:table()
    local ok, why = s:check("settle medes")
    assert.equal(false, ok)
    assert.is_string(why)
    assert.is_true(#why > 0)
    local played, err = pcall(s.play, s, "settle medes")
    assert.is_false(played)
    assert.truthy(tostring(err):find(why, 1, true), "the error should carry the reason: " .. tostring(err))
    assert.same(before, s:table())
  end)

  it("an unknown action is illegal with a reason", function()
    local s = babel { players = { { hand = { M } }, {} } }
    assert_illegal(s, "fly to babylon")
    assert_illegal(s, "travel babylon")
  end)

  it("the opponent's view hides the hand and the decks but not the hand size", function()
    local s = babel { players = { { hand = { M, S } }, { hand = { H, H, P } } } }
    local v = s:view(1)
    assert.same({ M, S }, v.players[1].hand)
    assert.equal(3, v.players[2].hand)
    assert.is_number(v.people_deck)
    assert.is_number(v.temple_deck)
    assert.equal(#s:table().people_deck, v.people_deck)
    assert.equal(2, s:view(2).players[1].hand)
  end)
end)

-- Every action a position could mean, as text: each kind with each argument, and the abilities
-- without a row position (such a text names the one qualifying run, when there is one).
local function action_candidates()
  local texts = { "build own", "build opp", "end", "collapse", "steal", "switch", "leap own", "leap opp" }
  for _, p in ipairs { M, S, H, P, A } do
    for _, verb in ipairs { "travel", "settle", "discard", "expel", "halve" } do
      texts[#texts + 1] = verb .. " " .. p
    end
    for _, q in ipairs { M, S, H, P, A } do
      if q ~= p then texts[#texts + 1] = "migrate " .. p .. " " .. q end
    end
  end
  return texts
end

describe("babel's legal actions under house parameters", function()
  -- The generator tests rows for runs and migration sizes word-wise, by the parameters: the default
  -- games of the conformance tests never vary them.
  it("lists exactly what check accepts, each once, whatever the triple and the migration size", function()
    local candidates = action_candidates()
    for _, params in ipairs {
      { triple = 2, migrate_count = 1 }, { triple = 4, migrate_count = 5 },
      { triple = 6, migrate_count = 12, draw_people = 8 }, { triple = 12, migrate_count = 2 },
    } do
      for seed = 1, 6 do
        local s = meeple.new("babel", { seed = seed, params = params })
        local pick = seed
        while not s:is_over() do
          local legal, listed = s:legal(), {}
          for _, a in ipairs(legal) do
            assert.is_nil(listed[a], a .. " is listed twice")
            listed[a] = true
            assert.is_true((s:check(a)), a .. " is listed but refused")
          end
          for _, a in ipairs(candidates) do
            if s:check(a) then assert.is_true(listed[a], a .. " is accepted but not listed") end
          end
          pick = (pick * 1103515245 + 12345) % 2147483648
          s:play(legal[pick % #legal + 1])
        end
      end
    end
  end)
end)
