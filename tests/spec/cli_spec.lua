-- cli_spec.lua — the `meeple` executable from the outside: output, exit statuses, one-line errors.
local util = require "spec_util"
local root, quote = util.root, util.quote

local meeple, lines = util.run, util.lines

local script = util.write

-- What `meeple ARGS` prints on stdout alone (the JSON outputs), and its exit status.
local function stdout_of(args)
  return util.sh(quote(util.exe) .. " " .. args .. " 2>/dev/null")
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
    "bench babel --bot /nonexistent/bot.lua", "bench babel --bot no_such_bot",
    -- seeds are refused, never clamped: overflow, text, fractions, signs, spaces
    "bench babel --seed 99999999999999999999", "bench babel --seed 9223372036854775808",
    "bench babel --seed seven", "bench babel --seed 1.5", "bench babel --seed +5", "bench babel --seed ' 5'",
    "bench babel --seed=", "bench babel --games=x", "bench babel --rounds 0", "bench babel --rounds 1001",
    "bench babel --rounds x", "bench babel --against greedy_babel", "bench babel --bot random --against no_such_bot",
  }
  for _, args in ipairs(cases) do
    it("'meeple " .. args .. "' gives a one-line reason, the usage, and status 2", function()
      util.assert_usage_error(args, "meeple", "usage: meeple")
    end)
  end

  it("a typo's nearest command, at a tie, is the one that starts as typed: 'hepl' is help, not repl", function()
    util.assert_usage_error("hepl", "meeple: unknown command 'hepl'; did you mean 'help'?", "usage: meeple")
    util.assert_usage_error("help hepl", "meeple: unknown command 'hepl'; did you mean 'help'?", "usage: meeple")
  end)
end)

describe("command-line conventions", function()
  it("prints the version with --version and -V, the module's own", function()
    local meeple_module = require "meeple"
    for _, flag in ipairs({ "--version", "-V" }) do
      local out, code = meeple(flag)
      assert.equal(0, code)
      assert.equal("meeple " .. meeple_module.version, lines(out)[1])
    end
    assert.matches("^%d+%.%d+%.%d+$", meeple_module.version)
  end)

  it("takes --opt=value as --opt value", function()
    local a = stdout_of("bench babel --games=7 --seed=3 --json")
    local b = stdout_of("bench babel --games 7 --seed 3 --json")
    assert.equal("7\n", (util.jq(a, ".games")))
    assert.equal(util.jq(a, ".decisions"), util.jq(b, ".decisions"))
  end)

  it("takes --debug anywhere on the line, but leaves a script's arguments to the script", function()
    local _, code = meeple("bench babel --games 2 --debug")
    assert.equal(0, code)
    local name = script("print(select('#', ...), ...)")
    local out
    out, code = meeple("run " .. quote(name) .. " --debug --x=1")
    os.remove(name)
    assert.equal(0, code)
    assert.equal("2\t--debug\t--x=1\n", out)
  end)

  it("shows a traceback only under --debug, wherever it is given", function()
    local name = script("local function f() error('boom') end f()")
    local plain = meeple("run " .. quote(name))
    local debug = meeple("--debug run " .. quote(name))
    os.remove(name)
    assert.equal(1, #lines(plain))
    assert.truthy(debug:find("stack traceback", 1, true))
  end)
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

  it("prints the same as one JSON object with snake_case keys with --json", function()
    local out, code = stdout_of("bench babel --games 20 --seed 7 --json")
    assert.equal(0, code)
    local _, ok = util.jq(out, [[.game == "babel" and .players == 2 and .games == 20 and .decisions > 0
      and .ns_per_decision > 0 and .games_per_s > 0 and .decisions_per_s > 0 and .clone_ns > 0
      and .state_bytes == 992 and .peak_memory_kib > 0 and .lua_clone_ns > 0 and .lua_legal_ns > 0
      and (keys | all(test("^[a-z_]+$")))]])
    assert.equal(0, ok, out)
  end)

  it("times the same games in rounds and reports the median and the spread", function()
    local out, code = stdout_of("bench babel --games 5 --seed 3 --rounds 3 --json")
    assert.equal(0, code)
    local _, ok = util.jq(out, [[.rounds == 3 and .ns_per_decision_min > 0
      and .ns_per_decision_min <= .ns_per_decision and .ns_per_decision <= .ns_per_decision_max]])
    assert.equal(0, ok, out)
    local one = stdout_of("bench babel --games 5 --seed 3 --rounds 1 --json")
    assert.equal(util.jq(one, ".decisions"), util.jq(out, ".decisions"))
    _, ok = util.jq(one, [[.rounds == 1 and .ns_per_decision_min == .ns_per_decision_max]])
    assert.equal(0, ok, one)
  end)

  it("reports a bot's overhead under --json too, the bot found by name", function()
    local out, code = stdout_of("bench babel --games 3 --bot random --json")
    assert.equal(0, code)
    local _, ok = util.jq(out, [[.bot == "random" and .host_overhead_ns > 0 and .host_overhead_field_ns > 0
      and .host_overhead_walk_ns > 0 and (.host_overhead_walk_net_ns | type) == "number"
      and (.lua_build_view_ns | type) == "number"
      and .lua_clone_ns > 0 and .lua_legal_ns > 0]])
    assert.equal(0, ok, out)
  end)

  it("plays the same games from the same seed", function()
    local a = stdout_of("bench babel --games 10 --seed 5 --json")
    local b = stdout_of("bench babel --games 10 --seed 5 --json")
    assert.equal(util.jq(a, ".decisions"), util.jq(b, ".decisions"))
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
