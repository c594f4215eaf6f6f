-- render_spec.lua — scripts/render.lua: the boards people read, plain for tostring, painted on request.
local meeple = require "meeple"

local root = os.getenv("MEEPLE_ROOT") or "."
local render = dofile(root .. "/scripts/render.lua")

local function strip(text) return (text:gsub("\27%[%d+m", "")) end

local function has_game(name)
  for _, g in ipairs(meeple.games()) do
    if g == name then return true end
  end
  return false
end

describe("render.lua", function()
  it("draws what tostring draws, from the file on disk", function()
    local s = meeple.new("babel", { seed = 5 })
    assert.equal(tostring(s), render(s:table()))
  end)

  it("paints Babel's peoples in their colours only when asked", function()
    local s = meeple.new("babel", { seed = 1 })
    local plain, painted = render(s:table()), render(s:table(), { color = true })
    assert.is_nil(plain:find("\27", 1, true))
    assert.truthy(painted:find("\27[32mmedes\27[0m", 1, true))     -- green
    assert.truthy(painted:find("\27[31msumerians\27[0m", 1, true)) -- red
    assert.truthy(painted:find("\27[33mhittites\27[0m", 1, true))  -- yellow
    assert.truthy(painted:find("\27[90mpersians\27[0m", 1, true))  -- grey
    assert.truthy(painted:find("\27[34massyrians\27[0m", 1, true)) -- blue
    assert.equal(plain, strip(painted))
  end)

  it("draws a Babel view with the hidden hand as its size", function()
    local s = meeple.new("babel", { seed = 1 })
    local text = render(s:view(1))
    assert.truthy(text:match("\nP2  [^\n]*hand 5 cards"), text)
    assert.truthy(text:match("\nP1  [^\n]*hand 8: medes"), text)
  end)

  it("draws Citadels: cities, gold, hands, characters, crown, phase; districts in their colours", function()
    if not has_game("citadels") then return end
    local s = meeple.new("citadels", { seed = 3, players = 4 })
    local text = render(s:table())
    assert.truthy(text:match("^Citadels · round 1 · choosing characters: player 1 to choose · crown P1"), text)
    assert.truthy(text:match("\nP1  gold 2 · hand 4: [^\n]* · crown"), text)
    assert.truthy(text:find("    city 0: -", 1, true), text)
    local view = render(s:view(2))
    assert.truthy(view:match("\nP1  gold 2 · hand 4 cards"), view)
    local t = s:table()
    t.players[1].city = { "manor", "temple", "tavern", "prison", "keep" }
    local painted = render(t, { color = true })
    for name, code in pairs({ manor = 33, temple = 34, tavern = 32, prison = 31, keep = 35 }) do
      assert.truthy(painted:find(("\27[%dm%s\27[0m"):format(code, name), 1, true), name)
    end
    assert.equal(render(t), strip(painted))
  end)

  it("draws Bohnanza: fields, coins, the face-up cards and an open proposal; hidden hands as sizes", function()
    local s = meeple.from_table {
      game = "bohnanza", phase = "trade", active = 1, start = 1, planted = 1, to_move = 2,
      face_up = { "blue", "soy" },
      proposal = { from = 1, to = 2, give = { "up blue" }, want = { "stink" }, stage = "answer" },
      players = {
        { hand = { "chili", "garden" }, fields = { { "green", "green" }, {} }, coins = { "red" } },
        { hand = { "stink", "garden", "red" }, fields = { {}, {} } },
        { hand = 4, fields = { {}, {} } },
      },
    }
    local text = render(s:table())
    assert.truthy(text:match("^Bohnanza · turn %d+ · P1's turn · phase 2: trade · P2 to decide"), text)
    assert.truthy(text:find("face up: blue soy", 1, true), text)
    assert.truthy(text:find("proposal P1 → P2: gives up blue · wants stink · P2 to accept or reject", 1, true), text)
    assert.truthy(text:match("\nP1  coins 1 · hand 2: chili garden · active"), text)
    assert.truthy(text:find("fields  1: green ×2   2: -", 1, true), text)
    local view = render(s:view(3))
    assert.truthy(view:match("\nP1  coins 1 · hand 2 cards"), view)
    assert.truthy(view:match("\nP3  coins 0 · hand 4: "), view)
  end)

  it("draws Rabohnzel: spells (names only where known), seen hand cards, an attack, the spell pile", function()
    local s = meeple.from_table {
      game = "rabohnzel", phase = "magic", active = 1, start = 1, countdown = "luck", to_move = 1,
      players = {
        { hand = { "wise", "magic" }, fields = { { beans = { "sword", "sword" }, power = 1 }, { "magic" } },
          spells = { { name = "luck", up = false, known = { 1, 2, 3 } }, { name = "aggression", up = true } } },
        { hand = { "cape", "pluck", "common" }, shown = { { at = 2, bean = "pluck" } }, coins = { "cape", "sword" },
          spells = { { name = "relocation", up = false } } },
        { hand = 3, spells = { { name = "commerce", up = false } } },
      },
    }
    local text = render(s:table())
    assert.truthy(text:match("^Rabohnzel · turn %d+ · P1's turn · phase 1½: magic"), text)
    assert.truthy(text:find("spells  luck, aggression (up)", 1, true), text)
    assert.truthy(text:find("fields  1: sword ×2 *   2: magic", 1, true), text)
    local view = render(s:view(1))
    assert.truthy(view:match("\nP2  coins 2 · hand 3 cards %(seen: pluck at 2%)"), view)
    assert.truthy(view:find("\n    spells  ?\n", 1, true), view) -- P2's face-down relocation is P2's secret
    assert.truthy(view:match("spell pile %d+"), view)
    local attacked = s:clone()
    attacked:play("sword 2 aggression") -- draws both of P2's coins: P1 chooses which counts
    local board = render(attacked:table())
    assert.truthy(board:find("P1 chooses the coin that counts", 1, true), board)
    assert.truthy(board:find("attack: P1's sword on P2, with aggression · drawn ", 1, true), board)
  end)

  -- The meters below are the cards' (shared/rules/bohnanza.md, Components): cards for 1, 2, 3, 4 coins.
  it("shows each bean field's beanometer and what a harvest would pay now, given the catalogue", function()
    local s = meeple.from_table {
      game = "bohnanza", phase = "plant", active = 1, start = 1, to_move = 1,
      players = {
        { hand = { "soy" }, fields = { { "garden", "garden" }, { "chili", "chili", "chili" } } },
        { hand = 5, fields = { { "blue", "blue", "blue", "blue", "blue", "blue", "blue", "blue", "blue", "blue",
          "blue", "blue" }, { "garden" } } },
        { hand = 5, fields = { {}, {} } },
      },
    }
    local text = render(s:table(), { cards = s:cards() })
    assert.truthy(text:find("\n    field 1  garden ×2  [2:2 3:3]  pays 2 now\n", 1, true), text) -- garden: – 2 3 –
    assert.truthy(text:find("\n    field 2  chili ×3  [3:1 6:2 8:3 9:4]  pays 1 now\n", 1, true), text)
    assert.truthy(text:find("\n    field 1  blue ×12  [4:1 6:2 8:3 10:4]  pays 4 now\n", 1, true), text) -- coin cap
    -- a lone bean beside a field of 2+ is protected: no harvest now, so it "would pay"
    assert.truthy(text:find("\n    field 2  garden  [2:2 3:3]  would pay 0 (protected)\n", 1, true), text)
    assert.truthy(text:find("\n    field 3  empty\nP2 ", 1, true), text) -- 3 players: 3 fields
    assert.truthy(text:find("\n    fields 1, 2, 3  empty\n", 1, true), text)
    assert.truthy(text:find("\nbeanometer [N:k]: N beans pay k coins", 1, true), text)
    assert.is_nil(text:find("provisional", 1, true), text)
    -- what a variant sets is what is shown and paid
    local v = meeple.from_table { game = "bohnanza", params = { beanometer = { chili = { 1, 2, 3, 4 } } },
      phase = "plant", active = 1, start = 1, to_move = 1,
      players = { { hand = { "soy" }, fields = { { "chili", "chili", "chili" }, {} } }, { hand = 5 }, { hand = 5 } } }
    assert.truthy(render(v:table(), { cards = v:cards() }):find("chili ×3  [1:1 2:2 3:3 4:4]  pays 3 now", 1, true))
  end)

  it("keeps tostring's board of one line of fields, without the catalogue", function()
    local s = meeple.new("bohnanza", { seed = 1 })
    s:play("plant 1")
    local text = tostring(s)
    assert.equal(text, render(s:table()))
    assert.truthy(text:find("\n    fields  1: chili   2: -\n", 1, true), text)
    assert.is_nil(text:find("pays", 1, true), text)
  end)

  it("marks Rabohnzel's provisional beanometers, and pays nothing for enchanted beans", function()
    local s = meeple.from_table {
      game = "rabohnzel", phase = "magic", active = 1, start = 1, to_move = 1,
      players = {
        { hand = { "wise" }, fields = { { beans = { "princess", "sword", "sword", "sword" }, enchanted = 1 }, { "magic" } },
          spells = { { name = "luck" } } },
        { hand = 3, spells = { { name = "relocation" } } },
        { hand = 3, spells = { { name = "commerce" } } },
      },
    }
    local text = render(s:table(), { cards = s:cards() })
    -- sword's provisional meter is 4/6/8/10: 4 beans pay 1 (the enchanted one counts toward the meter)
    assert.truthy(text:find("field 1  sword ×4 (1 enchanted) *  [4:1 6:2 8:3 10:4]†  pays 1 now", 1, true), text)
    assert.truthy(text:find("field 2  magic *  [3:1 5:2 7:3 8:4]†  would pay 0 (protected)", 1, true), text)
    assert.truthy(text:find("\n† provisional beanometer: the real one is unknown to this project (meeple rules rabohnzel)",
      1, true), text)
    local real = meeple.from_table { game = "rabohnzel", params = { beanometer = { sword = { 1, 2, 3, 4 },
      magic = { 3, 5, 7, 8 } } }, phase = "magic", active = 1, start = 1, to_move = 1,
      players = s:table().players }
    local marked = render(real:table(), { cards = real:cards() })
    -- 4 coins by the meter, but coins = min(payout, cards not enchanted): the enchanted card is discarded
    assert.truthy(marked:find("sword ×4 (1 enchanted) *  [1:1 2:2 3:3 4:4]  pays 3 now", 1, true), marked)
    assert.is_nil(marked:find("†", 1, true), marked) -- every bean on a field has its real meter now
  end)

  it("says a protected field would pay, not that it pays now, whatever its meter pays for one bean", function()
    local s = meeple.from_table { game = "bohnanza", params = { beanometer = { chili = { 1, 2, 3, 4 } } },
      phase = "plant", active = 1, start = 1, to_move = 1,
      players = { { hand = { "soy" }, fields = { { "chili" }, { "blue", "blue" } } }, { hand = 5 }, { hand = 5 } } }
    local text = render(s:table(), { cards = s:cards() })
    assert.truthy(text:find("field 1  chili  [1:1 2:2 3:3 4:4]  would pay 1 (protected)\n", 1, true), text)
    assert.truthy(text:find("field 2  blue ×2  [4:1 6:2 8:3 10:4]  pays 0 now\n", 1, true), text)
    assert.truthy(text:find("\nwould pay: bean protection forbids harvesting that lone bean now", 1, true), text)
  end)

  it("shows that a Cape field of 2+ draws a spell when harvested, as long as the spell pile has one", function()
    local t = {
      game = "rabohnzel", phase = "magic", active = 1, start = 1, to_move = 1,
      players = { { hand = { "wise" }, fields = { { "cape", "cape" }, { "cape" } } }, { hand = 3 }, { hand = 3 } },
    }
    local s = meeple.from_table(t)
    local text = render(s:table(), { cards = s:cards() })
    assert.truthy(text:find("field 1  cape ×2  [3:1 4:2 6:3]†  pays 0 now + spell\n", 1, true), text)
    -- the lone Cape draws nothing (and is protected)
    assert.truthy(text:find("field 2  cape  [3:1 4:2 6:3]†  would pay 0 (protected)\n", 1, true), text)
    assert.truthy(text:find("\n+ spell: harvesting that Cape field also draws a spell", 1, true), text)
    t.spell_pile = {} -- every spell in a row instead
    local function row(names)
      local out = {}
      for i, name in ipairs(names) do out[i] = { name = name } end
      return out
    end
    t.players[2].spells = row { "aggression", "bean_field", "card_exchange", "commerce", "card_river", "deck_spell" }
    t.players[3].spells = row { "bean_enchantment", "player_enchantment", "relocation", "hand_cards", "luck" }
    local none = meeple.from_table(t)
    text = render(none:table(), { cards = none:cards() })
    assert.truthy(text:find("field 1  cape ×2  [3:1 4:2 6:3]†  pays 0 now\n", 1, true), text)
  end)

  it("lists any other table generically", function()
    assert.equal('game = "x"\nn = 1', render({ game = "x", n = 1 }))
  end)
end)
