-- match_cli_spec.lua — `meeple match` and `meeple replay` from the outside: the table, the log, the
-- same results whatever --jobs, resuming a killed run, bad arguments, the README's example bot.
local util = require "spec_util"
local exe, root, quote, meeple, lines = util.exe, util.root, util.quote, util.run, util.lines

local sh = util.sh

local read, write, untimed = util.read_bytes, util.write_bytes, util.untimed

-- The results table without the decision times (which are measured, so they differ between runs).
local function results(out) return (out:match("^(.-)\n[^\n]*decision time")) end

local bots = quote(root .. "/bots/greedy_babel.lua") .. " " .. quote(root .. "/bots/random.lua")

describe("meeple match", function()
  it("prints a table per bot and per seat, with 95% intervals", function()
    local out, code = meeple("match babel " .. bots .. " --games 6 --seed 3")
    assert.equal(0, code, out)
    assert.truthy(out:find("babel: 6 games, 3 deals of 2, balanced seating, seed 3", 1, true), out)
    assert.truthy(out:match("\ngreedy_babel +6 +%d+ +%d+ +%d+ +0 +[%d.]+%% +%[ *[%d.]+%%, +[%d.]+%%%] +[%d.]+%% +%[ *[%d.]+%%, +[%d.]+%%%] +[%d.]+\n"), out)
    assert.truthy(out:match("\nrandom +6 "), out)
    assert.truthy(out:match("\n1 +6 +%d+ +[%d.]+%%"), out)
    assert.truthy(out:match("\n2 +6 +%d+ +[%d.]+%%"), out)
    assert.truthy(out:find("mean ms", 1, true), out)
  end)

  it("finds the shipped bots by name", function()
    local out, code = meeple("match babel greedy_babel random --games 2")
    assert.equal(0, code, out)
    assert.truthy(out:find("greedy_babel", 1, true), out)
  end)

  it("logs one JSON line per game (format 3) with the deal, seed, seats, actions, scores, winners and forfeits", function()
    local log = os.tmpname()
    local _, code = meeple("match babel " .. bots .. " --games 4 --seed 5 --log " .. quote(log))
    assert.equal(0, code)
    local l = lines(read(log))
    os.remove(log)
    assert.equal(4, #l)
    -- Each deal's seed is derived from the match's, which every line carries with the match's identity;
    -- the two games of a deal (a block of the balanced design) play the same one.
    local seeds = {}
    for i, line in ipairs(l) do
      local deal = (i + 1) // 2
      local seed = line:match('^{"log":3,"meeple":"[%d.]+","index":' .. i .. ',"deal":' .. deal ..
        ',"game":"babel","games":4,"seating":"balanced","match_seed":5,"seed":(%d+),"variant":null,' ..
        '"params":{[^}]*},"players":2,"bots":%["greedy_babel","random"%],')
      assert.truthy(seed, line)
      if i % 2 == 0 then
        assert.equal(seeds[deal], seed, "a deal's two games have different seeds")
      else
        assert.is_nil(seeds[deal - 1] == seed or nil, "two deals share a seed")
        seeds[deal] = seed
      end
      assert.truthy(line:find('"seats":%["[%w_#]+","[%w_#]+"%]'), line)
      assert.truthy(line:find('"scores":%[%-?%d+,%-?%d+%]'), line)
      assert.truthy(line:find('"winners":%[[%d,]+%]'), line)
      assert.truthy(line:find('"forfeits":[]', 1, true), line)
      assert.truthy(line:find('"actions":%["[a-z]'), line)
    end
    -- Two seats: the deal's second game swaps the first's.
    assert.truthy(l[1]:find('"seats":["greedy_babel","random"]', 1, true))
    assert.truthy(l[2]:find('"seats":["random","greedy_babel"]', 1, true))
  end)

  it("gives byte-identical logs and tables with --jobs 1 and --jobs 2", function()
    local a, b = os.tmpname(), os.tmpname()
    local out1 = meeple("match babel " .. bots .. " --games 12 --seed 9 --jobs 1 --log " .. quote(a))
    local out2 = meeple("match babel " .. bots .. " --games 12 --seed 9 --jobs 2 --log " .. quote(b))
    local la, lb = read(a), read(b)
    os.remove(a)
    os.remove(b)
    assert.equal(12, #lines(la))
    assert.equal(untimed(la), untimed(lb))
    assert.equal(results(out1), results(out2))
  end)

  it("gives byte-identical Bohnanza and Rabohnzel logs with --jobs 1 and --jobs 2 (actions parsed in parallel)", function()
    for _, game in ipairs { "bohnanza", "rabohnzel" } do
      local greedy = quote(root .. "/bots/greedy_" .. game .. ".lua")
      local four = greedy .. " " .. quote(root .. "/bots/random.lua") .. " " .. greedy .. " " .. quote(root .. "/bots/random.lua")
      local a, b = os.tmpname(), os.tmpname()
      local out1 = meeple("match " .. game .. " " .. four .. " --games 24 --seed 4 --jobs 1 --log " .. quote(a))
      local out2 = meeple("match " .. game .. " " .. four .. " --games 24 --seed 4 --jobs 2 --log " .. quote(b))
      local la, lb = read(a), read(b)
      os.remove(a)
      os.remove(b)
      assert.equal(24, #lines(la), out1)
      assert.equal(untimed(la), untimed(lb))
      assert.equal(results(out1), results(out2))
    end
  end)

  it("resumes a killed run without losing or repeating a game", function()
    local log, whole = os.tmpname(), os.tmpname()
    local args = "match babel " .. bots .. " --games 300 --seed 2 --jobs 2 "
    local started = tonumber((sh("date +%s.%N")))
    local reference = meeple(args .. "--log " .. quote(whole))
    local took = tonumber((sh("date +%s.%N"))) - started
    -- Killed about half way through.
    sh(("timeout -s KILL %.3f %s %s--log %s >/dev/null 2>&1"):format(took / 2, quote(exe), args, quote(log)))
    local partial = read(log) or ""
    assert.truthy(#lines(partial) < 300, "the run was killed before its end")
    -- Half a line, as a kill in the middle of a write leaves it.
    write(log, partial .. '{"index":' .. (#lines(partial) + 1) .. ',"game":"bab')
    local out, code = meeple(args .. "--log " .. quote(log) .. " --resume")
    local resumed = read(log)
    local reference_log = read(whole)
    os.remove(log)
    os.remove(whole)
    assert.equal(0, code, out)
    assert.equal(untimed(reference_log), untimed(resumed))
    local table_resumed, table_whole = results(out), results(reference)
    assert.truthy(table_resumed, out)
    -- The title says how many games came from the log; everything below it is the same.
    assert.equal(table_whole:gsub("^[^\n]*", ""), (table_resumed:gsub("^[^\n]*", "")))
  end)

  it("refuses to resume another match's log", function()
    local log = os.tmpname()
    meeple("match babel " .. bots .. " --games 2 --seed 1 --log " .. quote(log))
    local out, code = meeple("match babel " .. bots .. " --games 4 --seed 7 --log " .. quote(log) .. " --resume", true)
    os.remove(log)
    assert.equal(2, code)
    assert.equal(1, #lines(out), out)
    assert.truthy(out:find("not this match's", 1, true), out)
  end)
end)

describe("meeple match, bad arguments", function()
  local cases = {
    "match", "match chess random random", "match babel random", "match babel random random random",
    "match babel random /nonexistent/bot.lua", "match babel random random --games 0",
    "match babel random random --jobs x", "match babel random random --resume",
    "match babel random random --colour red", "match babel random random --ms 0",
  }
  for _, args in ipairs(cases) do
    it("'meeple " .. args .. "' gives a one-line reason, the usage, and status 2", function()
      util.assert_usage_error(args, "meeple match: ", "usage: meeple match")
    end)
  end

  it("refuses a variant that does not exist, naming it", function()
    local out, code = meeple("match babel random random --variant nowhere", true)
    assert.equal(2, code)
    assert.truthy(lines(out)[1]:find("nowhere", 1, true), out)
  end)

  it("names a bot file that fails to load, in one line", function()
    local bot = os.tmpname()
    for _, source in ipairs({ "this is not lua", "return 42", "return {}", "error('at load')" }) do
      write(bot, source)
      local out, code = meeple("match babel random " .. quote(bot), true)
      assert.equal(2, code)
      assert.truthy(lines(out)[1]:find("bot file '" .. bot .. "'", 1, true), out)
      assert.is_nil(out:find("traceback", 1, true))
    end
    os.remove(bot)
  end)
end)

describe("meeple match --variant", function()
  it("plays through the variant's hooks, logs it, and replays and resumes under it", function()
    local log = os.tmpname()
    local out, code = meeple("match babel " .. bots .. " --games 4 --seed 1 --variant short --log " .. quote(log))
    assert.equal(0, code, out)
    local l = lines(read(log))
    assert.equal(4, #l)
    assert.truthy(l[1]:find('"variant":"short"', 1, true), l[1])
    -- The short game ends at 12 against an opponent under 8: greedy stops there instead of at 15.
    local short_ends = 0
    for _, line in ipairs(l) do
      local a, b = line:match('"scores":%[(%d+),(%d+)%]')
      local high, low = math.max(tonumber(a), tonumber(b)), math.min(tonumber(a), tonumber(b))
      if high >= 12 and high < 15 and low < 8 then short_ends = short_ends + 1 end
    end
    assert.truthy(short_ends > 0, table.concat(l, "\n"))
    out, code = meeple("replay " .. quote(log) .. " --game 2")
    assert.equal(0, code, out)
    assert.truthy(out:find("variant short", 1, true), out)
    -- A log under one variant does not resume under the base rules.
    out, code = meeple("match babel " .. bots .. " --games 4 --log " .. quote(log) .. " --resume", true)
    assert.equal(2, code)
    assert.truthy(out:find("not this match's", 1, true), out)
    write(log, table.concat(l, "\n", 1, 2) .. "\n")
    out, code = meeple("match babel " .. bots .. " --games 4 --seed 1 --variant short --log " .. quote(log) .. " --resume")
    assert.equal(0, code, out)
    assert.truthy(out:find("4 games, 2 deals of 2, balanced seating, seed 1 (2 from the log)", 1, true), out)
    assert.equal(untimed(table.concat(l, "\n") .. "\n"), untimed(read(log)))
    os.remove(log)
  end)

  it("a bot that simulates an action the variant added skips it, and plays on", function()
    local out, code = meeple("match babel " .. bots .. " --games 2 --variant caravan")
    assert.equal(0, code, out)
    assert.is_nil(out:find("forfeits:", 1, true), out)
  end)
end)

describe("meeple replay", function()
  it("prints a logged game step by step with the board, and the result", function()
    local log = os.tmpname()
    meeple("match babel " .. bots .. " --games 2 --log " .. quote(log))
    local out, code = meeple("replay " .. quote(log) .. " --game 2")
    local actions = #lines(read(log))
    os.remove(log)
    assert.equal(2, actions)
    assert.equal(0, code, out)
    assert.truthy(out:find("^Babel, game 2 of"), out)
    assert.truthy(out:find("seats: P1 random, P2 greedy_babel", 1, true), out)
    assert.truthy(out:find("== decision 1: P1 (random) ", 1, true), out)
    assert.truthy(out:find("temple deck", 1, true), out)
    assert.truthy(out:find("\nwinner: P%d") or out:find("\nwinners %(shared%):"), out)
  end)

  it("refuses a missing game or file with one line and status 2", function()
    local log = os.tmpname()
    meeple("match babel " .. bots .. " --games 1 --seating random --log " .. quote(log))
    for _, args in ipairs({ "replay", "replay /nonexistent.jsonl", "replay " .. quote(log) .. " --game 5",
      "replay " .. quote(log) .. " --game x" }) do
      local out, code = meeple(args, true)
      assert.equal(2, code, args)
      assert.truthy(lines(out)[1]:match("^meeple replay: "), out)
    end
    os.remove(log)
  end)
end)

describe("the README's example bot", function()
  it("plays a match against the shipped bots and reads a clear table", function()
    local readme = assert(read(root .. "/README.md"))
    local source = readme:match("```lua\n(%-%- my_bot%.lua.-)```")
    assert.truthy(source, "README.md has a ```lua block starting with -- my_bot.lua")
    local n = #lines(source)
    assert.truthy(n <= 25, "the example is " .. n .. " lines")
    local bot = os.tmpname() .. ".lua"
    write(bot, source)
    local out, code = meeple("match babel " .. quote(bot) .. " random --games 10")
    os.remove(bot)
    assert.equal(0, code, out)
    assert.truthy(out:match("\nmy_bot +10 +%d+ +%d+ +%d+ +0 "), out)
  end)

  it("the trading example is under 40 lines and beats three random traders", function()
    local readme = assert(read(root .. "/README.md"))
    local source = readme:match("```lua\n(%-%- my_trader%.lua.-)```")
    assert.truthy(source, "README.md has a ```lua block starting with -- my_trader.lua")
    local n = #lines(source)
    assert.truthy(n < 40, "the example is " .. n .. " lines")
    local bot = os.tmpname() .. ".lua"
    write(bot, source)
    local out, code = meeple("match bohnanza " .. quote(bot) .. " random random random --games 12 --seed 1")
    os.remove(bot)
    assert.equal(0, code, out)
    local wins = tonumber(out:match("\nmy_trader +12 +(%d+) +%d+ +%d+ +0 "))
    assert.truthy(wins and wins >= 6, out) -- a seat's share would be 3
  end)
end)
