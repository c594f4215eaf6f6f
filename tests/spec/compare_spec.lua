-- compare_spec.lua — `meeple compare`: base rules against a variant on the same seeds, side by side.
local util = require "spec_util"
local meeple = util.run

describe("meeple compare", function()
  it("prints both rule sets side by side with intervals and says what changed", function()
    local out, code = meeple("compare babel --variant short greedy_babel random --games 40 --seed 1")
    assert.are.equal(0, code, out)
    assert.is_truthy(out:find("base rules", 1, true))
    assert.is_truthy(out:find("seat 1 win rate", 1, true))
    assert.is_truthy(out:find("seat 2 win rate", 1, true))
    assert.is_truthy(out:find("game length (decisions)", 1, true))
    assert.is_truthy(out:find("greedy_babel mean score", 1, true))
    assert.is_truthy(out:match("%d+%.%d%% %[%d+%.%d, %d+%.%d%]"), "intervals")
    -- The short game is shorter beyond chance: the sentence says so.
    assert.is_truthy(out:find("Under short, [^\n]*length falls"), out)
  end)

  it("says so when nothing changed beyond chance", function()
    local out, code = meeple("compare babel --variant handicap random random --games 10 --seed 1")
    assert.are.equal(0, code, out)
    assert.is_truthy(out:find("within chance") or out:find("Nothing changed beyond chance"), out)
  end)

  it("plays the same seeds as meeple match would, whatever --jobs is", function()
    local one = meeple("compare babel --variant short random random --games 12 --seed 1 --jobs 1")
    local two = meeple("compare babel --variant short random random --games 12 --seed 1 --jobs 2")
    local per_core = meeple("compare babel --variant short random random --games 12 --seed 1 --jobs 0")
    assert.are.equal(one, two)
    assert.are.equal(one, per_core)
  end)

  it("refuses bad arguments with one line, the usage and status 2", function()
    for _, args in ipairs({ "compare", "compare chess --variant short random random",
                            "compare babel random random", "compare babel --variant short",
                            "compare babel --variant short random random --games 0" }) do
      local out, code = meeple(args)
      assert.are.equal(2, code, args)
      assert.is_truthy(out:find("^meeple compare: [^\n]+\nusage: meeple compare"), args .. ": " .. out)
    end
    local out, code = meeple("compare babel --variant no-such-variant random random --games 2")
    assert.are.equal(2, code)
    assert.is_truthy(out:find("no variant 'no-such-variant'", 1, true))
  end)

  it("plays both halves under the seating design given, whole deals of it", function()
    local out, code = meeple("compare citadels --variant taxes random random random --games 3 --seed 1 --seating rotate")
    assert.are.equal(0, code, out)
    assert.is_truthy(out:find("3 games each, match seed 1 (--seed), rotate seating", 1, true), out)
    out, code = meeple("compare citadels --variant taxes random random random --games 3 --seed 1")
    assert.are.equal(2, code, out)
    assert.is_truthy(out:find("balanced seating plays 6 games a deal with 3 players; give --games 6", 1, true), out)
    -- refused before either half starts: no "3 games under the base rules..." first
    assert.is_truthy(out:find("^meeple compare: %-%-games 3 is not a whole number of deals"), out)
    assert.is_falsy(out:find("under the base rules", 1, true), out)
    out, code = meeple("compare babel --variant short random random --seating rotat")
    assert.are.equal(2, code, out)
    assert.is_truthy(out:find("did you mean 'rotate'?", 1, true), out)
  end)

  it("refuses a misspelt variant before any game is played, in one line", function()
    local out, code = meeple("compare babel --variant shrot ismcts random --games 4 --seed 1")
    assert.are.equal(2, code, out)
    assert.is_truthy(out:find("^meeple compare: no variant 'shrot' for babel; did you mean 'short'%?"), out)
    assert.is_nil(out:find("games under", 1, true), out)
  end)

  it("shows each half's progress with the time left on a terminal", function()
    local out = util.sh("script -qec " .. util.quote(util.quote(util.exe) ..
      " compare babel --variant short greedy_babel random --games 400 --seed 1") .. " /dev/null")
    assert.is_truthy(out:find("compare, base rules: %d+/400 games, about %d+ s left"), out)
    assert.is_truthy(out:find("compare, short: %d+/400 games, about %d+ s left"), out)
  end)

  it("names itself in every error, the match's included, with its own usage", function()
    for _, args in ipairs({ "compare babel --variant no-such-variant random random --games 2 --seed 1",
                            "compare babel --variant short random no-such-bot --games 2 --seed 1",
                            "compare babel --variant short random random --json --html /tmp/x.html" }) do
      local out, code = meeple(args, true)
      assert.are.equal(2, code, args)
      assert.is_nil(out:find("meeple match", 1, true), out)
      assert.is_truthy(out:find("\nmeeple compare: [^\n]+\nusage: meeple compare [^\n]+\n$") or
                       out:find("^meeple compare: [^\n]+\nusage: meeple compare [^\n]+\n$"), args .. ": " .. out)
    end
  end)

  it("--json prints one object: both rule sets per bot and per seat, and the differences", function()
    local out, code = util.sh(util.quote(util.exe) ..
      " compare babel --variant short greedy_babel random --games 20 --seed 1 --json 2>/dev/null")
    assert.are.equal(0, code, out)
    local file = util.write(out, ".json")
    local function jq(filter) return (util.sh("jq -r " .. util.quote(filter) .. " " .. util.quote(file)):gsub("\n$", "")) end
    assert.are.equal("babel short 20 1", jq('"\\(.game) \\(.variant) \\(.games) \\(.match_seed)"'))
    for _, rules in ipairs { "base_rules", "variant_rules" } do
      assert.are.equal("true", jq("[." .. rules .. ".bots[] | has(\"name\") and has(\"games\") and has(\"wins\") and "
        .. "has(\"draws\") and has(\"losses\") and has(\"forfeits\") and has(\"win_rate\") and has(\"ci_low\") "
        .. "and has(\"ci_high\") and has(\"mean_score\")] | all"))
      assert.are.equal("20 20", jq("." .. rules .. ".seats | map(.games) | join(\" \")"))
      assert.are.equal("true", jq("[." .. rules .. ".bots[] | .wins + .draws + .losses == .games] | all"))
    end
    assert.are.equal("true", jq('[.differences[] | select(.quantity == "game length (decisions)")][0].beyond_chance'))
    assert.are.equal("true", jq('[paths | .[] | strings | test("^[a-z_]+$")] | all'))
    os.remove(file)
  end)

  it("--html writes the report's plots for both rule sets side by side", function()
    local page = os.tmpname() .. ".html"
    local out, code = meeple("compare babel --variant short greedy_babel random --games 10 --seed 1 --html " ..
      util.quote(page))
    assert.are.equal(0, code, out)
    assert.is_truthy(out:find("base rules", 1, true), "the text report is still printed")
    local html = util.read(page)
    os.remove(page)
    assert.is_truthy(html:find('<section data-rules="base rules">', 1, true))
    assert.is_truthy(html:find('<section data-rules="short">', 1, true))
    assert.are.equal(8, select(2, html:gsub("<svg", "")))
  end)
end)
