-- decision_cap_spec.lua — match's --max-decisions: a game still running at the cap ends unfinished,
-- is logged so ("unfinished": the cap) and counts as a draw shared by all seats (Ludii's convention at
-- a move limit), in match, evaluate, tune, compare, --resume, merge, report and replay. The game that
-- needs it: Babel, match seed 101, deal 17 (games 33 and 34), where greedy_babel collapses the
-- opponent's temple, halves their hand and settles assyrians turn after turn while the opponent
-- rebuilds the same temple from the cards the collapse put back on the temple deck — its totals stay
-- at 17 and 11..16 in the end phase, so no end condition is ever met.
local util = require "spec_util"
local meeple, quote = util.run, util.quote
local json = require("meeple").json

local LOOP = "babel greedy_babel greedy_babel --games 34 --seed 101"

-- stdout only (progress and "meeple evaluate: ..." lines go to stderr).
local function stdout(args)
  local out, code = util.sh(quote(util.exe) .. " " .. args .. " 2>/dev/null")
  return out, code
end

local function records(path)
  local list = {}
  for _, line in ipairs(util.lines(util.read_bytes(path))) do list[#list + 1] = json.decode(line) end
  return list
end

describe("a game that does not end (match --max-decisions)", function()
  it("ends unfinished at the game's default cap, counted as a draw, and match says how many", function()
    local log = os.tmpname()
    local started = os.time()
    local out, code = meeple("match " .. LOOP .. " --log " .. quote(log))
    assert.are.equal(0, code, out)
    assert.is_true(os.time() - started < 60, "reaching the cap took a minute or more")
    assert.is_truthy(out:find("\n2 games of 34 unfinished at 2,000 decisions, counted as a draw shared by all "
                              .. "seats (--max-decisions).", 1, true), out)
    assert.is_truthy(out:match("\ngreedy_babel +34 +16 +2 +16 "), out)
    local list = records(log)
    os.remove(log)
    assert.are.equal(34, #list)
    for i, r in ipairs(list) do
      if i >= 33 then
        assert.are.equal(2000, r.unfinished)
        assert.are.equal(2000, #r.actions)
        assert.are.same({ 1, 2 }, r.winners)
      else
        assert.is_nil(r.unfinished, "a game that ended is logged as unfinished")
      end
    end
  end)

  it("counts the unfinished games in match's --json", function()
    local out, code = stdout("match " .. LOOP .. " --max-decisions 300 --json")
    assert.are.equal(0, code, out)
    local r = json.decode(out)
    assert.are.equal(2, r.capped_games)
    assert.are.equal(300, r.max_decisions)
    assert.are.equal(2, r.bots[1].draws)
    out, code = stdout("match babel greedy_babel random --games 2 --seed 1 --json")
    assert.are.equal(0, code, out)
    r = json.decode(out)
    assert.are.equal(0, r.capped_games)
    assert.are.equal(json.null, r.max_decisions)
  end)

  it("lets evaluate go on: drawishness includes the unfinished games, and the report says how many", function()
    local out, code = stdout("evaluate " .. LOOP .. " --max-decisions 300 --json")
    assert.are.equal(0, code, out)
    local r = json.decode(out)
    assert.are.equal(2, r.unfinished)
    assert.are.equal(300, r.max_decisions)
    assert.is_true(r.metrics.drawishness.value >= 1 / 17 - 1e-9, out)
    out, code = stdout("evaluate " .. LOOP .. " --max-decisions 300")
    assert.are.equal(0, code, out)
    assert.is_truthy(out:find("2 games of 34 unfinished at 300 decisions, counted as a draw", 1, true), out)
  end)

  it("lets tune go on and says how many games were unfinished", function()
    local out_file = os.tmpname() .. ".lua"
    local out, code = stdout(("tune %s --param end_total=15..15 --objective balance --max-decisions 300 --json --out %s")
                             :format(LOOP, quote(out_file)))
    os.remove(out_file)
    assert.are.equal(0, code, out)
    local r = json.decode(out)
    assert.are.equal(2, r.unfinished)
    assert.are.equal(300, r.max_decisions)
  end)

  it("lets compare go on", function()
    local out, code = stdout("compare " .. LOOP .. " --variant short --max-decisions 300 --json")
    assert.are.equal(0, code, out)
    assert.is_truthy(json.decode(out))
  end)

  it("resumes, merges, reports and replays a log with an unfinished game", function()
    local log = os.tmpname()
    local out, code = meeple("match " .. LOOP .. " --max-decisions 300 --log " .. quote(log))
    assert.are.equal(0, code, out)
    local whole = util.read_bytes(log)
    local l = util.lines(whole)
    -- killed while writing game 34's line: the resumed run plays it again
    util.write_bytes(log, table.concat(l, "\n", 1, 33) .. "\n" .. l[34]:sub(1, 200))
    out, code = meeple("match " .. LOOP .. " --max-decisions 300 --resume --log " .. quote(log))
    assert.are.equal(0, code, out)
    assert.is_truthy(out:find("2 games of 34 unfinished at 300 decisions", 1, true), out)
    assert.are.equal(util.untimed(whole), util.untimed(util.read_bytes(log)))
    out, code = meeple("merge " .. quote(log))
    assert.are.equal(0, code, out)
    assert.is_truthy(out:find("2 games of 34 unfinished at 300 decisions", 1, true), out)
    out, code = stdout("report " .. quote(log) .. " --json")
    assert.are.equal(0, code, out)
    assert.are.equal(2, json.decode(out).unfinished)
    out, code = meeple("replay " .. quote(log) .. " --game 33 </dev/null")
    assert.are.equal(0, code, out)
    assert.is_truthy(out:find("unfinished at 300 decisions", 1, true), out)
    os.remove(log)
  end)

  it("refuses a record whose unfinished mark does not match its actions", function()
    local log = os.tmpname()
    local out, code = meeple("match " .. LOOP .. " --max-decisions 300 --log " .. quote(log))
    assert.are.equal(0, code, out)
    local l = util.lines(util.read_bytes(log))
    local function merged(lines)
      local edited = os.tmpname()
      util.write_bytes(edited, table.concat(lines, "\n") .. "\n")
      local said, status = meeple("merge " .. quote(edited))
      os.remove(edited)
      return said, status
    end
    local cases = {
      -- the mark taken off: 300 actions do not end the game
      { 33, function(line) return (line:gsub(',"unfinished":300', '')) end, "do not end the game" },
      -- a finished game marked unfinished
      { 1, function(line) return (line:gsub(',"actions"', ',"unfinished":5,"actions"')) end, "unfinished" },
      -- the cap not the number of actions
      { 33, function(line) return (line:gsub('"unfinished":300', '"unfinished":299')) end, "299" },
      -- an unfinished game with a single winner
      { 33, function(line) return (line:gsub('"winners":%[1,2%]', '"winners":[1]')) end, "winners" },
      { 33, function(line) return (line:gsub('"unfinished":300', '"unfinished":"many"')) end, "unfinished" },
    }
    for _, case in ipairs(cases) do
      local edited = { table.unpack(l) }
      edited[case[1]] = case[2](edited[case[1]])
      assert.are_not.equal(l[case[1]], edited[case[1]], "the edit did not apply")
      out, code = merged(edited)
      assert.are.equal(1, code, out)
      assert.is_truthy(out:find(case[3], 1, true), out)
    end
    os.remove(log)
  end)

  it("refuses a bad --max-decisions in one line, in every command that takes it", function()
    for _, cmd in ipairs({ "match babel random random", "evaluate babel random random",
                           "tune babel random random --param end_total=14..15 --objective balance",
                           "compare babel random random --variant short" }) do
      for _, bad in ipairs({ "0", "-3", "200001", "many", "1.5" }) do
        local out, code = meeple(cmd .. " --games 2 --seed 1 --max-decisions " .. bad)
        assert.are.equal(2, code, cmd .. ": " .. out)
        local first = out:match("^[^\n]*")
        assert.is_truthy(first:find("--max-decisions", 1, true) and first:find(bad, 1, true)
                         and first:find("200000", 1, true), cmd .. ": " .. out)
      end
      local out, code = meeple(cmd .. " --games 2 --seed 1 --max-decisions")
      assert.are.equal(2, code, cmd .. ": " .. out)
      assert.is_truthy(out:find("--max-decisions needs a value", 1, true), cmd .. ": " .. out)
    end
  end)
end)
