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
    assert.are.equal(one, two)
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
end)
