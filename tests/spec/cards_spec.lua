-- cards_spec.lua — the card catalogue (`meeple.cards(game)`, `s:cards()`): each game's cards with the
-- data a bot would otherwise hard-code, counts that add up to the cards a game deals, and the
-- changes parameters and variants make.
local meeple = require "meeple"

-- Counts the cards a state table holds: names listed in its stacks, and records naming a card
-- ({name = "luck", up = false}, as Rabohnzel's spell rows).
local function held(t, cards, got)
  local n = rawlen(t)
  for k, v in pairs(t) do
    local name = type(v) == "table" and v.name or v
    local in_stack = math.type(k) == "integer" and k >= 1 and k <= n
    if in_stack and (type(name) == "string" or math.type(name) == "integer") and cards[tostring(name)] then
      got[tostring(name)] = (got[tostring(name)] or 0) + 1
    elseif type(v) == "table" then
      held(v, cards, got)
    end
  end
  return got
end

local function fields_of(card)
  local list = {}
  for k in pairs(card) do list[#list + 1] = k end
  table.sort(list)
  return table.concat(list, " ")
end

describe("the card catalogue", function()
  it("counts, for every game, exactly the cards a new game deals", function()
    for _, game in ipairs(meeple.games()) do
      for _, seed in ipairs { 1, 2, 3 } do
        local s = meeple.new(game, { seed = seed })
        local cards = s:cards()
        local got = held(s:table(), cards, {})
        for name, card in pairs(cards) do
          if card.count then assert.equal(card.count, got[name] or 0, game .. " " .. name) end
        end
      end
    end
  end)

  it("gives Babel's peoples with their power and the temple levels with their counts", function()
    local cards = meeple.cards("babel")
    for _, people in ipairs { "medes", "sumerians", "hittites", "persians", "assyrians" } do
      assert.equal("count kind text", fields_of(cards[people]), people)
      assert.equal("people", cards[people].kind)
      assert.equal(12, cards[people].count)
      assert.truthy(#cards[people].text > 10, people)
    end
    for level = 1, 6 do
      assert.same({ kind = "temple", level = level, count = 11 - level }, cards[tostring(level)])
    end
    assert.truthy(cards.hittites.text:find("^steal"), cards.hittites.text)
  end)

  it("gives Citadels' districts with cost, colour, points and purple powers, and the characters", function()
    local cards, districts = meeple.cards("citadels"), 0
    for name, card in pairs(cards) do
      if card.kind == "district" then
        districts = districts + card.count
        assert.truthy(math.type(card.cost) == "integer" and card.cost >= 1 and card.cost <= 6, name)
        assert.truthy(({ red = 1, blue = 1, green = 1, yellow = 1, purple = 1 })[card.colour], name)
        assert.equal(card.colour == "purple", card.text ~= nil, name)
      else
        assert.equal("character", card.kind, name)
        assert.truthy(#card.text > 10, name)
      end
    end
    assert.equal(66, districts)
    assert.same({ kind = "district", count = 3, cost = 3, colour = "red", points = 3 }, cards.battlefield)
    assert.equal(8, cards.university.points)
    assert.equal(6, cards.university.cost)
    assert.equal(8, cards.warlord.rank)
    assert.equal("red", cards.warlord.colour)
    assert.is_nil(cards.assassin.colour)
  end)

  it("gives the beans with counts and beanometers, Rabohnzel's marked provisional", function()
    local bohnanza = meeple.cards("bohnanza")
    assert.same({ kind = "bean", count = 20, meter = { 4, 6, 8, 10 }, german = "Blaue Bohne" }, bohnanza.blue)
    local total = 0
    for name, card in pairs(bohnanza) do
      assert.equal("bean", card.kind, name)
      assert.equal(4, #card.meter, name)
      assert.is_nil(card.provisional, name)
      total = total + card.count
    end
    assert.equal(104, total)
    local rabohnzel, beans = meeple.cards("rabohnzel"), 0
    for name, card in pairs(rabohnzel) do
      if card.kind == "bean" then
        beans = beans + 1
        assert.is_true(card.provisional, name)
        assert.equal(4, #card.meter, name)
      else
        assert.equal("spell", card.kind, name)
        assert.truthy(math.type(card.value) == "integer", name)
      end
    end
    assert.equal(7, beans)
  end)

  it("follows the parameters and variants the game is played with", function()
    local riogrande = meeple.cards("bohnanza", { players = 4, params = { edition = "riogrande" } })
    assert.truthy(riogrande.cocoa.count > 0)
    assert.equal(0, riogrande.coffee.count)
    -- a real beanometer given ends its bean's provisional mark, and only its
    local real = meeple.cards("rabohnzel", { params = { beanometer = { sword = { 5, 7, 9, 11 } } } })
    assert.same({ 5, 7, 9, 11 }, real.sword.meter)
    assert.is_false(real.sword.provisional)
    assert.is_true(real.wise.provisional)
    local s = meeple.new("rabohnzel", { params = { beanometer = { sword = { 5, 7, 9, 11 } } } })
    assert.same(real, s:cards())
  end)

  it("refuses what is not a game", function()
    assert.has_error(function() meeple.cards("chess") end)
    assert.has_error(function() meeple.cards(42) end)
  end)
end)
