-- json_spec.lua — meeple.json: Lua values to JSON text and back, and the values that have no JSON form.
local meeple = require "meeple"
local json = meeple.json

describe("meeple.json.encode", function()
  it("writes arrays for 1..n tables, objects with sorted keys, and null", function()
    assert.equal('{"a":1,"b":[1,2,"x"],"c":[],"d":null,"e":1.5,"f":true}',
      json.encode({ f = true, e = 1.5, d = json.null, c = {}, b = { 1, 2, "x" }, a = 1 }))
  end)

  it("writes the same text for the same view, whatever the table order", function()
    local s = meeple.new("citadels", { seed = 5, players = 4 })
    local first = json.encode(s:view(2))
    for _ = 1, 5 do assert.equal(first, json.encode(s:view(2))) end
  end)

  it("keeps a view's hidden cards hidden: the opponent's hand is a number", function()
    local s = meeple.new("babel", { seed = 3 })
    local view = json.decode(json.encode(s:view(1)))
    assert.equal("table", type(view.players[1].hand))
    assert.equal("number", type(view.players[2].hand))
  end)

  it("writes every real in its shortest form that reads back exactly", function()
    assert.equal('[0.0003,0.30000000000000004,0.3333333333333333,2.0,-1e-300]', json.encode({ 0.0003, 0.1 + 0.2, 1 / 3, 2.0, -1e-300 }))
    for _, x in ipairs { 0.1, 1 / 7, 123456.789, 2 ^ -1074, 1.7976931348623157e308 } do
      assert.equal(x, json.decode(json.encode({ x }))[1])
    end
  end)

  it("writes a table without reals as with one: reals aside, one writer's text", function()
    -- Text without a real comes from jansson's writer in one pass, text with one from meeple's walk;
    -- a real added as the last key must change nothing else, in every game's tables and views.
    local function with_real(text, indent)
      if indent then return text:sub(1, -3) .. ',\n' .. (" "):rep(indent) .. '"~real": 0.5\n}' end
      return text:sub(1, -2) .. ',"~real":0.5}'
    end
    local tables = { { a = "quote \" back \\ slash / tab \t nl \n ctrl \1 ü ★", b = { {}, { x = json.null } },
      c = { true, false, -7, 9007199254740993 }, B = {}, ["_"] = { z = 1, y = { 1 } } } }
    for _, game in ipairs(meeple.games()) do
      local s = meeple.new(game, { seed = 11 })
      for _ = 1, 30 do
        if s:is_over() then break end
        s:play(s:legal()[1])
      end
      tables[#tables + 1] = s:table()
      tables[#tables + 1] = s:view(1)
    end
    for _, t in ipairs(tables) do
      for _, indent in ipairs { false, 2, 4 } do
        local opts = indent and { indent = indent } or nil
        local plain = json.encode(t, opts)
        t["~real"] = 0.5
        assert.equal(with_real(plain, indent), json.encode(t, opts))
        t["~real"] = nil
      end
    end
  end)

  it("indents on request", function()
    assert.equal('{\n  "a": [\n    1\n  ]\n}', json.encode({ a = { 1 } }, { indent = true }))
    assert.equal('{\n    "a": 1\n}', json.encode({ a = 1 }, { indent = 4 }))
  end)

  it("names where a value has no JSON form", function()
    local ok, msg = pcall(json.encode, { players = { { hand = { print } } } })
    assert.is_false(ok)
    assert.matches("players%[1%]%.hand%[1%]: a function has no JSON form", msg)
  end)

  it("refuses tables that are neither arrays nor objects, with holes, or holding themselves", function()
    assert.has_error(function() json.encode({ 1, 2, x = 3 }) end,
      "json.encode: a table is an array (keys 1..n) or an object (string keys) in JSON, not both")
    assert.has_error(function() json.encode({ [1] = 1, [3] = 3 }) end)
    local t = {}
    t.self = t
    local ok, msg = pcall(json.encode, t)
    assert.is_false(ok)
    assert.matches("nested deeper than 64", msg)
  end)

  it("refuses NaN, infinities and text that is not UTF-8", function()
    assert.has_error(function() json.encode(0 / 0) end, "json.encode: NaN and infinities have no JSON form")
    assert.has_error(function() json.encode(math.huge) end)
    assert.has_error(function() json.encode({ name = "\xff" }) end, "json.encode: name: a string is not UTF-8")
  end)
end)

describe("meeple.json.decode", function()
  it("reads objects, arrays with nulls in place, integers and reals", function()
    local v = json.decode('{"x":[1,null,3],"y":"\\u00e9","z":2.5,"n":12}')
    assert.equal(json.null, v.x[2])
    assert.equal(3, v.x[3])
    assert.equal("é", v.y)
    assert.equal(2.5, v.z)
    assert.equal(math.type(12), math.type(v.n))
  end)

  it("round-trips a whole game table", function()
    local s = meeple.new("bohnanza", { seed = 9, players = 4 })
    local text = json.encode(s:table())
    assert.equal(text, json.encode(json.decode(text)))
  end)

  it("says where text is not JSON, without raising", function()
    local v, why = json.decode("[1,")
    assert.is_nil(v)
    assert.matches("^line 1, column %d+: ", why)
    assert.is_nil((json.decode('{"a":1,"a":2}')))
    assert.is_nil((json.decode("")))
  end)
end)
