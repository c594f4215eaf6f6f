-- report_spec.lua — `meeple report`: results, win rates by seat, times, forfeits and ratings from one
-- or many match logs, as text, JSON (checked with jq) and a page; bad logs refused in one line.
local util = require "spec_util"
local meeple, quote, write, read = util.run, util.quote, util.write, util.read

local function match(args)
  local log = os.tmpname()
  local out, code = meeple(args .. " --log " .. quote(log))
  assert.are.equal(0, code, out)
  return log
end

-- A record of log format 2, written by hand: a 2-player Babel game with the given result.
local function v2_record(index, seats, scores, winners, extra)
  return ('{"log":2,"meeple":"0.2.0","index":%d,"game":"babel","seed":%d,"match_seed":1,"games":4,'
    .. '"bots":["fast","slow"],"players":2,"params":{},"variant":null,"seats":["%s","%s"],"scores":[%d,%d],'
    .. '"winners":[%s],"forfeits":%s,"actions":["travel medes"],"by":[1],"decisions":[10,20],"ms":[5,40],'
    .. '"ms_max":[1,7]}'):format(index, index, seats[1], seats[2], scores[1], scores[2], winners, extra or "[]")
end

local function jq(json_file, filter)
  return util.sh("jq -r " .. quote(filter) .. " " .. quote(json_file)):gsub("\n$", "")
end

-- Runs `meeple report ARGS --json`; returns expect(expected, jq filter) over its output, and the file.
local function report_json(args)
  local out, code = util.sh(quote(util.exe) .. " report " .. args .. " --json")
  assert.are.equal(0, code, out)
  local file = write(out, ".json")
  return function(expected, filter) assert.are.equal(expected, jq(file, filter), filter) end, file
end

describe("meeple report", function()
  local log1, log2, search
  setup(function()
    log1 = match("match babel greedy_babel random --games 12 --seed 3")
    -- The shipped search bot, with a fixed amount of work a decision instead of its 100 ms: the same
    -- games each run, in a second rather than 25.
    search = write('return require("ismcts").bot { name = "ismcts", iterations = 200 }', ".lua")
    log2 = match("match babel random " .. quote(search) .. " --games 4 --seed 4")
  end)
  teardown(function()
    os.remove(log1)
    os.remove(log2)
    os.remove(search)
  end)

  it("prints per bot results with intervals, win rate by seat and ratings over several logs", function()
    local out, code = meeple("report " .. quote(log1) .. " " .. quote(log2))
    assert.are.equal(0, code, out)
    assert.truthy(out:find("^babel: 16 games from"), out)
    for _, bot in ipairs { "greedy_babel", "random", "ismcts" } do
      assert.truthy(out:find("\n" .. bot .. " +%d+ +%d+ +%d+ +%d+ +%d+ +%d+%.%d%% %[[%d.]+%%, [%d.]+%%%]"), bot .. "\n" .. out)
    end
    assert.truthy(out:find("win rate by seat", 1, true), out)
    assert.truthy(out:find("%d+ ± %d+"), out)
    -- meeple match writes log format 2: each bot's time per decision
    assert.truthy(out:find("\ngreedy_babel [^\n]+ %d+%.%d%d\n"), out)
  end)

  it("--json gives one entry per bot with snake_case keys, rating and rating_sd, counts that add up", function()
    local expect, file = report_json(quote(log1) .. " " .. quote(log2))
    expect("3", ".bots | length")
    expect("16", ".games")
    expect("true", "[.bots[] | (.rating | type) == \"number\" and (.rating_sd | type) == \"number\"] | all")
    expect("true", "[.bots[] | .wins + .draws + .losses == .games] | all")
    expect("true", "[.bots[] | .ci_low <= .win_rate and .win_rate <= .ci_high] | all")
    expect("16", "[.bots[] | select(.name == \"random\") | .games] | add")
    expect("true", "[.bots[] | (.ms_per_decision | type) == \"number\"] | all")
    expect("true", "[paths | .[] | strings | test(\"^[a-z_]+$\")] | all")
    -- the ratings average 1500 and follow the results
    expect("1500", "[.bots[].rating] | add / length | round")
    expect("random", ".bots | min_by(.rating) | .name")
    os.remove(file)
  end)

  it("reads log format 2: decision times per bot, forfeits by reason", function()
    local log = write(table.concat({
      v2_record(1, { "fast", "slow" }, { 10, 3 }, "1"),
      v2_record(2, { "slow", "fast" }, { 2, 9 }, "2"),
      v2_record(3, { "fast", "slow" }, { 5, 5 }, "1,2"),
      v2_record(4, { "slow", "fast" }, { 0, 4 }, "2", '[{"seat":1,"reason":"took 1203 ms, over the limit"}]'),
    }, "\n") .. "\n")
    local expect, file = report_json(quote(log))
    expect("3 1 0", '.bots[] | select(.name == "fast") | "\\(.wins) \\(.draws) \\(.losses)"')
    -- fast: 10 decisions a game in seat 1, 20 in seat 2: 60 decisions, 5+40+5+40 ms
    expect("1.5", '.bots[] | select(.name == "fast") | .ms_per_decision')
    expect("7", '.bots[] | select(.name == "fast") | .ms_max')
    expect("1", '.bots[] | select(.name == "slow") | .forfeits')
    expect("took N ms, over the limit", '.bots[] | select(.name == "slow") | .forfeit_reasons[0].reason')
    expect("1 2", '.seats | map(.wins) | "\\(.[0]) \\(.[1])"')
    os.remove(file)
    os.remove(log)
  end)

  it("reads log format 1: no times, shown as — and null", function()
    local log = write('{"index":1,"game":"babel","seed":1,"match_seed":1,"variant":null,"seats":["a","b"],'
      .. '"scores":[3,1],"winners":[1],"forfeits":[],"actions":["travel medes"]}\n')
    local out, code = meeple("report " .. quote(log))
    assert.are.equal(0, code, out)
    assert.truthy(out:find("\na [^\n]+ —\n"), out)
    local expect, file = report_json(quote(log))
    expect("null null", '.bots[0] | "\\(.ms_per_decision) \\(.decisions)"')
    os.remove(file)
    os.remove(log)
  end)

  it("--html writes a page with the tables, four plots and a replay page for every game", function()
    local dir = util.sh("mktemp -d"):gsub("\n", "")
    local out, code = meeple("report " .. quote(log1) .. " --html " .. quote(dir .. "/r.html"))
    assert.are.equal(0, code, out)
    assert.truthy(out:find("12 replay pages", 1, true), out)
    local page = read(dir .. "/r.html")
    assert.are.equal(4, select(2, page:gsub("<svg", "")))
    assert.truthy(page:find('<tr data-bot="greedy_babel">', 1, true))
    assert.truthy(page:find('href="r-games/game-12.html"', 1, true))
    local game = read(dir .. "/r-games/game-3.html")
    assert.truthy(game:find('<script type="application/json" id="data">', 1, true))
    assert.is_nil(page:find("http://", 1, true) and page:find('src="http', 1, true))
    out, code = meeple("report " .. quote(log1) .. " --html " .. quote(dir .. "/s.html") .. " --no-replays")
    assert.are.equal(0, code, out)
    assert.is_nil(io.open(dir .. "/s-games/game-1.html"))
    assert.truthy(read(dir .. "/s.html"):find("meeple replay ", 1, true))
    util.sh("rm -rf " .. quote(dir))
  end)

  it("escapes what a log says: a bot's name cannot write into the page", function()
    local log = write(v2_record(1, { "<script>alert(1)</script>", "b&b" }, { 1, 0 }, "1") .. "\n")
    local dir = util.sh("mktemp -d"):gsub("\n", "")
    local out, code = meeple("report " .. quote(log) .. " --html " .. quote(dir .. "/r.html"))
    assert.are.equal(0, code, out)
    local page = read(dir .. "/r.html")
    assert.is_nil(page:find("<script>alert", 1, true))
    assert.truthy(page:find("&lt;script&gt;alert(1)&lt;/script&gt;", 1, true))
    local game = read(dir .. "/r-games/game-1.html")
    assert.is_nil(game:find("</script>alert", 1, true))
    assert.is_nil(game:find("<script>alert", 1, true))
    util.sh("rm -rf " .. quote(dir))
    os.remove(log)
  end)

  it("refuses bad arguments and bad logs with one line", function()
    local empty = write("")
    local garbage = write("hello\n")
    local no_seats = write('{"game":"babel","seed":1}\n')
    local other = match("match citadels random random --games 2 --seed 1")
    local cases = {
      { "report", 2, "which logs" }, { "report /nonexistent.jsonl", 2, "cannot read the log" },
      { "report /tmp", 2, "is a folder" }, { "report " .. quote(log1) .. " --frobnicate", 2, "unknown option" },
      { "report " .. quote(log1) .. " --no-replays", 2, "goes with --html" },
      { "report " .. quote(empty), 1, "is empty" }, { "report " .. quote(garbage), 1, "line 1: not JSON" },
      { "report " .. quote(no_seats), 1, "line 1: no seats" },
      { "report " .. quote(log1) .. " " .. quote(other), 1, "one game at a time" },
    }
    for _, c in ipairs(cases) do
      local out, code = meeple(c[1], true)
      assert.are.equal(c[2], code, c[1] .. ": " .. out)
      assert.truthy(out:find("^meeple report: [^\n]*" .. c[3]:gsub("%p", "%%%0")), c[1] .. ": " .. out)
      if c[2] == 1 then assert.are.equal(1, #util.lines(out), out) end
    end
    for _, f in ipairs { empty, garbage, no_seats, other } do os.remove(f) end
  end)
end)

describe("meeple report on logs with deals", function()
  it("--json writes every interval bound as a real, 1.0 and 0.0 at the ends too, never the integer 1", function()
    local log = match("match babel greedy_babel random --games 4 --seed 3")
    local out, code = util.sh(quote(util.exe) .. " report " .. quote(log) .. " --json")
    os.remove(log)
    assert.are.equal(0, code, out)
    local bounds = 0
    for key, value in out:gmatch('"([%w_]*ci_%a+)": ([^,\n}]+)') do
      bounds = bounds + 1
      assert.is_truthy(value:find("[.e]"), key .. " is " .. value)
    end
    assert.is_truthy(out:find('"ci_high": 1.0', 1, true), out) -- the winner of every game: an interval at 1
    assert.is_true(bounds >= 16, out)
  end)

  it("takes a bot's win-rate interval from the spread between deals, not from the games as if independent", function()
    local report = dofile(util.root .. "/scripts/report.lua")
    -- Two copies of a bot that split each deal of four games 2:2 are measured exactly: every deal says 50%.
    local deals = {}
    for d = 1, 10 do deals[d] = { games = 4, wins = 2 } end
    local even = report.by_deal(20, 40, deals)
    assert.equal(0.5, even.value)
    assert.is_true(even.lo == 0.5 and even.hi == 0.5, even.lo .. " " .. even.hi)
    -- Deals won whole or lost whole are as uncertain as ten coin flips, not forty.
    for d = 1, 10 do deals[d] = { games = 4, wins = d % 2 == 0 and 4 or 0 } end
    local lumpy, wilson = report.by_deal(20, 40, deals), report.proportion(20, 40)
    assert.is_true(lumpy.hi - lumpy.lo > 1.5 * (wilson.hi - wilson.lo), (lumpy.hi - lumpy.lo) .. " " .. (wilson.hi - wilson.lo))
    -- Without deals (older logs), Wilson's.
    assert.same(wilson, report.by_deal(20, 40, nil))
  end)
end)
