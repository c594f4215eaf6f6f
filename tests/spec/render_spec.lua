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

  it("lists any other table generically", function()
    assert.equal('game = "x"\nn = 1', render({ game = "x", n = 1 }))
  end)
end)
