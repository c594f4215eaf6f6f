-- cli_spec.lua — the `meeple` executable from the outside: output, exit statuses, one-line errors.
local util = require "spec_util"
local root, quote = util.root, util.quote

local meeple, lines = util.run, util.lines

local script = util.write

-- A parser for the flat JSON object bench prints: string and number values only.
local function parse_flat_json(text)
  local body = text:match("^%s*{(.*)}%s*$")
  if not body then return nil end
  local obj, pos = {}, 1
  while pos <= #body do
    local key, value, after = body:match('^"([^"]*)":("[^"]*")()', pos)
    if not key then key, value, after = body:match('^"([^"]*)":(-?[%d.]+)()', pos) end
    if not key then return nil end
    obj[key] = value:sub(1, 1) == '"' and value:sub(2, -2) or tonumber(value)
    pos = after
    if body:sub(pos, pos) == "," then pos = pos + 1 elseif pos <= #body then return nil end
  end
  return obj
end

describe("meeple games and rules", function()
  it("lists babel with its player count and title", function()
    local out, code = meeple("games")
    assert.equal(0, code)
    assert.truthy(out:match("babel%s+2 players%s+Babel"))
  end)

  it("prints babel's rules with the action grammar and the parameters", function()
    local out, code = meeple("rules babel")
    assert.equal(0, code)
    assert.truthy(out:find("Parameters", 1, true))
    assert.truthy(out:find("travel", 1, true))
    assert.truthy(out:find("end_total = 15", 1, true))
    assert.truthy(out:find('sumerians = "run"', 1, true))
  end)

  it("prints help, for all and for one command", function()
    local out, code = meeple("--help")
    assert.equal(0, code)
    assert.truthy(out:find("bench", 1, true))
    out, code = meeple("bench --help")
    assert.equal(0, code)
    assert.truthy(out:find("usage: meeple bench GAME", 1, true))
    out, code = meeple("</dev/null") -- `meeple` alone is the shell: it leaves at the end of its input
    assert.equal(0, code)
    assert.equal("", out)
  end)
end)

describe("bad arguments", function()
  local cases = {
    "frobnicate", "--frobnicate", "rules", "rules chess", "rules babel extra", "games extra", "run",
    "bench", "bench chess", "bench babel --games", "bench babel --games x", "bench babel --games 0",
    "bench babel --players 5", "bench babel --seed -1", "bench babel --colour red",
    "bench babel --bot /nonexistent/bot.lua",
  }
  for _, args in ipairs(cases) do
    it("'meeple " .. args .. "' gives a one-line reason, the usage, and status 2", function()
      util.assert_usage_error(args, "meeple", "usage: meeple")
    end)
  end

end)

describe("meeple run", function()
  it("runs a script with the module, arg and ...", function()
    local name = script([[
      local m = require "meeple"
      assert(m == meeple)
      local s = meeple.new("babel", { seed = 1 })
      print(meeple.games()[1], s:game(), arg[0] ~= nil, arg[1], arg[2], select("#", ...))
    ]])
    local out, code = meeple("run " .. quote(name) .. " x y")
    os.remove(name)
    assert.equal(0, code)
    assert.equal("babel\tbabel\ttrue\tx\ty\t2\n", out)
  end)

  it("reports a failing script in one line and exits 1", function()
    local name = script('local function f() error("boom") end\nf()\n')
    local out, code = meeple("run " .. quote(name), true)
    assert.equal(1, code)
    assert.equal(1, #lines(out))
    assert.truthy(out:match("^meeple: .*boom"))
    out, code = meeple("--debug run " .. quote(name), true)
    os.remove(name)
    assert.equal(1, code)
    assert.truthy(out:find("stack traceback", 1, true))
  end)

  it("reports a refused action with its reason and the script's line", function()
    local name = script('local s = meeple.new("babel")\ns:play("fly")\n')
    local out, code = meeple("run " .. quote(name), true)
    os.remove(name)
    assert.equal(1, code)
    assert.truthy(out:match("^meeple: [^\n]*:2: unknown action 'fly'"), out)
  end)

  it("reports a missing or broken script in one line", function()
    local out, code = meeple("run /nonexistent/script.lua", true)
    assert.equal(1, code)
    assert.equal(1, #lines(out))
    local name = script("this is not lua\n")
    out, code = meeple("run " .. quote(name), true)
    os.remove(name)
    assert.equal(1, code)
    assert.equal(1, #lines(out))
  end)

  it("runs the demo to a winner", function()
    local out, code = meeple("run " .. quote(root .. "/scripts/demo.lua") .. " 3")
    assert.equal(0, code)
    assert.truthy(out:find("scores: P1", 1, true))
    assert.truthy(out:find("winner", 1, true) or out:find("draw", 1, true))
  end)
end)

describe("meeple bench", function()
  it("prints one figure per line", function()
    local out, code = meeple("bench babel --games 20")
    assert.equal(0, code)
    for _, name in ipairs({ "game", "games", "decisions", "seconds", "games/s", "decisions/s",
      "ns per decision", "ns per clone", "state bytes", "peak memory KiB" }) do
      assert.truthy(out:find("\n" .. name .. ": ", 1, true) or out:find("^" .. name .. ": "), name)
    end
    assert.truthy(out:find("games: 20\n", 1, true))
  end)

  it("prints the same as one JSON object with --json", function()
    local out, code = meeple("bench babel --games 20 --seed 7 --json")
    assert.equal(0, code)
    local obj = parse_flat_json(out)
    assert.is_table(obj, out)
    assert.equal("babel", obj.game)
    assert.equal(20, obj.games)
    assert.is_number(obj["ns per decision"])
    assert.is_number(obj["ns per clone"])
  end)

  it("plays the same games from the same seed", function()
    local a = meeple("bench babel --games 10 --seed 5 --json")
    local b = meeple("bench babel --games 10 --seed 5 --json")
    assert.equal(parse_flat_json(a).decisions, parse_flat_json(b).decisions)
  end)

  it("drives a Lua bot and reports the host's overhead", function()
    local out, code = meeple("bench babel --games 5 --bot " .. quote(root .. "/bots/random.lua"))
    assert.equal(0, code)
    assert.truthy(out:find("bot: random", 1, true))
    assert.truthy(out:find("ns host overhead per decision: ", 1, true))
  end)

  it("stops with one line when a bot misbehaves", function()
    local name = script('return { name = "bad", choose = function() return "fly" end }')
    local out, code = meeple("bench babel --games 2 --bot " .. quote(name), true)
    os.remove(name)
    assert.equal(1, code)
    assert.equal(1, #lines(out))
    assert.truthy(out:find("not a legal action", 1, true))
  end)
end)
