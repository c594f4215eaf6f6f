-- lab_spec.lua — the variant lab: `meeple evaluate`'s metrics on games whose value is known by
-- construction (variants whose hooks decide the winner and the scores), on the four games, and
-- `meeple tune`'s successive halving and the variant file it writes.
local util = require "spec_util"
local meeple = util.run
local json = require("meeple").json

-- The metrics of `meeple evaluate ARGS --json` (stdout only), keyed by name.
local function evaluate(args)
  local out, code = util.sh(util.quote(util.exe) .. " evaluate " .. args .. " --json 2>/dev/null")
  assert.are.equal(0, code, out)
  return assert(json.decode(out))
end

-- A Babel variant whose game ends after `after` decisions with `winners` (a Lua expression over the
-- state `s` and `deal`, the deal's own number drawn at setup); `score`, if given, replaces the scores.
local function babel_variant(after, winners, score)
  return util.write(([[
local deal = 0
return {
  game = "babel", name = "constructed",
  hooks = {
    setup = function(s)
      -- a number of the deal alone: both games of a deal see the same cards
      local t = s:table()
      deal = #t.people_deck[#t.people_deck] + #t.people_deck[#t.people_deck - 1]
    end,
    is_over = function(s)
      if #s:history() >= %d then return true, %s end
    end,
    %s
  },
}]]):format(after, winners, score and ("score = function(s, p) return " .. score .. " end,") or ""), ".lua")
end

local function near(expected, got, what, tolerance)
  assert.is_true(math.abs(expected - got) <= (tolerance or 1e-9), ("%s: expected %s, got %s"):format(what, expected, got))
end

local function within(m, value, what)
  assert.is_true(m.ci_low - 1e-9 <= value and value <= m.ci_high + 1e-9,
                 ("%s: %s outside [%s, %s]"):format(what, value, m.ci_low, m.ci_high))
end

describe("meeple evaluate", function()
  it("measures a game the first player always wins: balance 1, first-player advantage 1, skill 0, luck 0", function()
    local v = babel_variant(4, "{ 1 }")
    local r = evaluate("babel greedy_babel random --games 24 --seed 3 --variant " .. v)
    os.remove(v)
    local m = r.variant_metrics
    near(1, m.balance.value, "balance")
    near(1, m.balance.ci_high, "balance's upper bound")
    -- every deal alike: Wilson's bound over the 12 deals (Bonferroni's t for the pair), not [1, 1]
    assert.is_true(m.balance.ci_low > 0.1 and m.balance.ci_low < 0.9, "balance's lower bound")
    near(1 - 2 * 1.96 ^ 2 / (12 + 1.96 ^ 2), m.first_player.ci_low, "first-player advantage's lower bound", 1e-3)
    near(1, m.first_player.value, "first-player advantage")
    near(0, m.skill.value, "skill")
    -- the seat decides, not the deal: once the seats' means are removed nothing is left to luck
    near(0, m.luck.value, "luck")
    near(0, m.drawishness.value, "drawishness")
    near(4, m.decisions.value, "decisions")
    -- the base rules beside it: greedy_babel beats random, the seat does not decide
    assert.is_true(r.metrics.skill.value > 0.5, "greedy_babel's skill under the base rules")
    assert.is_true(r.differences.balance.beyond_chance)
    assert.is_true(r.differences.skill.beyond_chance)
  end)

  it("measures a coin flip decided by the deal: skill 0, luck 1, first-player advantage about 0", function()
    local v = babel_variant(2, "{ deal % 2 + 1 }")
    local m = evaluate("babel greedy_babel random --games 60 --seed 5 --variant " .. v).variant_metrics
    os.remove(v)
    near(0, m.skill.value, "skill")
    near(1, m.luck.value, "luck")
    within(m.first_player, 0, "first-player advantage")
    within(m.balance, 0, "balance")
  end)

  it("measures a game every seat shares: drawishness 1, balance 0, no advantage", function()
    local v = babel_variant(2, "{ 1, 2 }")
    local m = evaluate("babel random random --games 8 --seed 1 --variant " .. v).variant_metrics
    os.remove(v)
    near(1, m.drawishness.value, "drawishness")
    near(0, m.balance.value, "balance")
    near(0, m.first_player.value, "first-player advantage")
    -- the same bot in every seat replays one game per deal: luck would be 1 by construction
    assert.is_nil(m.luck, "luck in a mirror match")
  end)

  it("counts lead changes, drama and uncertainty by the game's scores", function()
    -- The lead passes at every decision (seat 1 after an even count, seat 2 after an odd one) for
    -- ten decisions, and seat 1 wins: 10 lead changes, the winner once 1 behind at a spread of 1
    -- (drama 1), and alone ahead for good only at the last of the 11 moments (uncertainty 10/11).
    local v = babel_variant(10, "{ 1 }", "(#s:history() % 2 == p - 1) and 1 or 0")
    local m = evaluate("babel random random --games 4 --seed 1 --variant " .. v).variant_metrics
    os.remove(v)
    near(10, m.lead_changes.value, "lead changes")
    near(1, m.drama.value, "drama")
    near(10 / 11, m.uncertainty.value, "uncertainty")
    near(10, m.decisions.value, "decisions")
  end)

  it("measures luck 0 for a coin flipped per game, whatever the deal", function()
    -- the winner is a hash of the game's first six actions: the two seatings of a deal play
    -- different actions (the bots sit elsewhere), so each game flips its own coin
    local v = util.write([[
return {
  game = "babel", name = "coin",
  hooks = {
    is_over = function(s)
      local h = s:history()
      if #h >= 6 then
        local sum = 0
        for i, a in ipairs(h) do
          local text = a.action -- the text: a history entry is a table, whose tostring is its address
          for k = 1, #text do sum = sum + text:byte(k) * (i + k) end
        end
        return true, { sum % 2 + 1 }
      end
    end,
  },
}]], ".lua")
    -- 200 deals: at 40 the estimate's spread under no luck at all is about 0.16 (one seed gave 0.30,
    -- its interval [0.09, 0.49] missing 0: the F interval is rough with few deals, docs/lab.md says so).
    local m = evaluate("babel greedy_babel random --games 400 --jobs 2 --seed 5 --variant " .. v).variant_metrics
    os.remove(v)
    within(m.luck, 0, "luck")
    assert.is_true(m.luck.value < 0.2 and m.luck.ci_high < 0.5, "luck " .. m.luck.value .. " " .. m.luck.ci_high)
    -- No skill check here: this coin is a hash of the game's actions, which the bots choose, so it need
    -- not be fair between them (at 200 deals greedy_babel measurably loses it); skill 0 for a coin that
    -- ignores the bots is the deal's-coin test above.
  end)

  it("gives no interval of width 0 when every deal came out alike", function()
    local v = babel_variant(4, "{ 1 }")
    local r = evaluate("babel greedy_babel random --games 20 --seed 3 --variant " .. v)
    os.remove(v)
    local m = r.variant_metrics
    for _, key in ipairs({ "decisions", "rounds", "first_player", "drawishness", "skill", "luck", "balance" }) do
      assert.is_true(m[key].ci_high - m[key].ci_low > 0.05, key .. ": [" .. m[key].ci_low .. ", " .. m[key].ci_high .. "]")
    end
    -- a count's interval reaches Wilson's share of the 10 deals one unit either way
    near(4 - 1.96 ^ 2 / (10 + 1.96 ^ 2), m.decisions.ci_low, "decisions' lower bound", 1e-3)
    near(4 + 1.96 ^ 2 / (10 + 1.96 ^ 2), m.decisions.ci_high, "decisions' upper bound", 1e-3)
  end)

  it("calls no change beyond chance from two deals that each came out alike", function()
    -- base rules: greedy_babel wins both games of each deal (first-player advantage 0 in every
    -- deal); the variant: seat 1 wins (1 in every deal). Two deals cannot tell that apart from chance.
    local v = babel_variant(4, "{ 1 }")
    local r = evaluate("babel greedy_babel random --games 4 --seed 3 --variant " .. v)
    os.remove(v)
    near(0, r.metrics.first_player.value, "base first-player advantage")
    near(1, r.variant_metrics.first_player.value, "variant first-player advantage")
    for key, d in pairs(r.differences) do assert.is_false(d.beyond_chance, key) end
    near(0.5, r.differences.first_player.p_value, "the sign test's p-value for 2 deals")
  end)

  it("marks changes by a paired test over the deals, Holm-corrected, and says so", function()
    local out, code = meeple("evaluate babel greedy_babel random --variant short --games 20 --seed 1")
    assert.are.equal(0, code, out)
    assert.is_truthy(out:find("paired t test over the\ndeals both rule sets played, Holm-corrected", 1, true)
                     or out:find("paired t test over the deals both rule sets played, Holm-corrected", 1, true), out)
    local r = evaluate("babel greedy_babel random --variant short --games 20 --seed 1")
    local d = r.differences.decisions
    assert.is_true(d.beyond_chance and d.p_value < 0.05 / 11, "decisions: " .. tostring(d.p_value))
  end)

  it("measures the branching factor per phase and overall, and Citadels' rounds by its turn counter", function()
    -- exactly 2 choices at every choosing decision and 5 at every turn decision (the rules' first
    -- ones, made up to 5 with "wait" actions that do nothing), over when the second round begins:
    -- 6 choosing decisions a game (3 players choose two characters each), the rest turn decisions
    local v = util.write([[
return {
  game = "citadels", name = "fixed-branching",
  hooks = {
    actions = function(s, list)
      local out, k = {}, s:table().phase == "choose" and 2 or 5
      for i = 1, math.min(k, #list) do out[i] = list[i] end
      for i = #out + 1, k do out[i] = "wait " .. i end
      return out
    end,
    apply = function(s, a) if a:find("^wait ") then return true end end,
    is_over = function(s) if s:turn() >= 2 then return true, { 1 } end end,
  },
}]], ".lua")
    local m = evaluate("citadels random random random --games 6 --seating rotate --seed 1 --variant " .. v).variant_metrics
    os.remove(v)
    near(2, m["branching.choose"].value, "branching in phase choose")
    near(5, m["branching.turns"].value, "branching in phase turns")
    -- overall: (2 * 6 + 5 * (N - 6)) / N for N decisions a game
    near(5 - 18 / m.decisions.value, m.branching.value, "branching overall")
    -- Citadels' s:turn() counts rounds: the second round began (ceil(2 / 3) would say 1)
    near(2, m.rounds.value, "rounds")
  end)

  it("counts a game's rounds as the turns begun over the players, rounded up (Babel)", function()
    local log = os.tmpname()
    local out, code = meeple("match babel greedy_babel random --games 8 --seed 2 --log " .. log)
    assert.are.equal(0, code, out)
    local sum, games = 0, 0
    for line in io.lines(log) do
      local rec = json.decode(line)
      if rec.actions then
        local s = require("meeple").new("babel", { seed = rec.seed, players = 2 })
        for _, a in ipairs(rec.actions) do s:play(a) end
        sum, games = sum + math.ceil(s:turn() / 2), games + 1
      end
    end
    os.remove(log)
    assert.are.equal(8, games)
    local m = evaluate("babel greedy_babel random --games 8 --seed 2").metrics
    near(sum / games, m.rounds.value, "rounds")
  end)

  it("measures each of the four games", function()
    for _, case in ipairs({ "babel greedy_babel random --games 4", "citadels random random random --games 12",
                            "bohnanza random random random --games 6 --seating rotate",
                            "rabohnzel random random random --games 6 --seating rotate" }) do
      local m = evaluate(case .. " --seed 2").metrics
      local mirrored = not case:find("greedy", 1, true) -- the same bot in every seat: no luck (a test above)
      assert.are.equal(mirrored, m.luck == nil, case .. ": luck")
      for _, key in ipairs({ "balance", "first_player", "drawishness", "decisions", "rounds", "branching", "skill",
                             "luck", "lead_changes", "drama", "uncertainty" }) do
        local e = m[key]
        if key == "luck" and mirrored then goto next end
        assert.is_truthy(e, case .. ": " .. key)
        assert.is_true(e.ci_low <= e.value and e.value <= e.ci_high, case .. ": " .. key .. "'s interval")
        assert.is_truthy(e.assumes:find("deals independent", 1, true), case .. ": " .. key)
        ::next::
      end
      assert.is_true(m.decisions.value > 10 and m.rounds.value >= 1 and m.branching.value > 1, case)
      local phases = 0
      for key in pairs(m) do if key:find("^branching%.") then phases = phases + 1 end end
      assert.is_true(phases >= 2, case .. ": branching per phase")
    end
  end)

  it("prints base rules and variant side by side and writes a page with no network", function()
    local page = os.tmpname() .. ".html"
    local out, code = meeple("evaluate babel greedy_babel random --variant short --games 20 --seed 1 --html " .. page)
    assert.are.equal(0, code, out)
    assert.is_truthy(out:find("metric%s+base rules%s+short%s+change"), out)
    assert.is_truthy(out:find("duration (decisions)", 1, true), out)
    assert.is_truthy(out:find("duration %(decisions%)[^\n]*%*"), "the short game is shorter beyond chance: " .. out)
    assert.is_truthy(out:find("Under short, duration (decisions) falls from", 1, true), out)
    assert.is_truthy(out:find("over the 10 deals", 1, true), out)
    local html = util.read(page)
    os.remove(page)
    assert.is_truthy(html:find("^<!DOCTYPE html>"))
    assert.is_falsy(html:find("https?://"), "a page that loads nothing")
    assert.is_truthy(html:find("first-player advantage", 1, true))
  end)

  it("refuses bad arguments with one line, the usage and status 2", function()
    for _, case in ipairs({
      { "evaluate", "which game" }, { "evaluate chess random random", "unknown game 'chess'" },
      { "evaluate babel", "name a bot" }, { "evaluate babel random random random", "players" },
      { "evaluate babel random random --games 3", "not a whole number of deals" },
      { "evaluate babel random random --games", "--games needs a value" },
      { "evaluate babel random random --frobs 2", "unknown option '--frobs'" },
      { "evaluate babel random random --ms 0", "--ms" },
      { "evaluate babel random random --variant no-such-variant", "no-such-variant" },
      { "evaluate babel random random --json --html x.html", "not both" },
      { "evaluate babel random no-such-bot --games 2 --seed 1", "no-such-bot" },
    }) do
      local out, code = meeple(case[1])
      assert.are.equal(2, code, case[1] .. ": " .. out)
      assert.is_truthy(out:find("^meeple evaluate: [^\n]+\nusage: meeple evaluate"), case[1] .. ": " .. out)
      assert.is_truthy(out:find(case[2], 1, true), case[1] .. ": " .. out)
    end
  end)
end)

describe("meeple tune", function()
  it("halves the candidates round by round, prints the evidence and writes a variant that loads", function()
    local out_file = os.tmpname() .. ".lua"
    local out, code = meeple("tune babel greedy_babel random --param end_total=12..15 --objective duration:8"
                             .. " --games 4 --seed 1 --out " .. out_file)
    assert.are.equal(0, code, out)
    assert.is_truthy(out:find("4 candidates", 1, true), out)
    assert.is_truthy(out:find("round 1: 4 games each"), out)
    assert.is_truthy(out:find("round 2: 8 games each"), out)
    assert.is_falsy(out:find("round 3"), "two rounds leave one of four: " .. out)
    local _, dropped = out:gsub("dropped", "")
    assert.are.equal(3, dropped, out)
    assert.is_truthy(out:find("confirmation: end_total=%d+ on 8 fresh games %(seed 3%)"), out)
    local best = out:match("best: end_total=(%d+) over 8 confirmation games")
    assert.is_truthy(best, out)
    assert.is_truthy(out:find("wrote " .. out_file, 1, true), out)
    -- the file is a variant: a match plays it, and it sets the value found
    local text = util.read(out_file)
    assert.is_truthy(text:find("end_total = " .. best, 1, true), text)
    local m
    out, code = meeple("match babel random random --games 2 --seed 1 --json --variant " .. out_file)
    assert.are.equal(0, code, out)
    local s = require("meeple").new("babel", { variant = out_file })
    m = s:table()
    os.remove(out_file)
    assert.is_truthy(m)
  end)

  it("counts a deal of each round apart: deal 1 of round 2 is not deal 1 of round 1", function()
    local out_file = os.tmpname() .. ".lua"
    local out, code = util.sh(util.quote(util.exe) .. " tune babel greedy_babel random --param end_total=12..15"
      .. " --objective duration:8 --games 4 --seed 1 --json --out " .. util.quote(out_file) .. " 2>/dev/null")
    os.remove(out_file)
    assert.are.equal(0, code, out)
    local r = json.decode(out)
    -- round 1: 4 games, 2 deals; round 2: 8 more games, 4 new deals
    assert.are.equal(2, r.rounds[1].candidates[1].deals)
    assert.are.equal(6, r.rounds[2].candidates[1].deals)
  end)

  it("reports the chosen value from a fresh confirmation run, not the halving that chose it", function()
    local out_file = os.tmpname() .. ".lua"
    local out, code = util.sh(util.quote(util.exe) .. " tune babel greedy_babel random --param end_total=12..15"
      .. " --objective duration:8 --games 4 --seed 1 --json --out " .. util.quote(out_file) .. " 2>/dev/null")
    os.remove(out_file)
    assert.are.equal(0, code, out)
    local r = json.decode(out)
    -- the last round played 8 games on seed 2; the confirmation 8 games on seed 3, alone
    assert.are.equal(3, r.confirmation.seed)
    assert.are.equal(8, r.confirmation.games)
    assert.are.equal(8, r.best.games)
    assert.are.equal(12, r.best.halving_games)
    -- the confirmation is what `evaluate` measures of the chosen value on seed 3
    local v = util.write(("return { game = 'babel', name = 'c', params = { end_total = %d } }"):format(
      r.best.params.end_total), ".lua")
    local m = evaluate("babel greedy_babel random --games 8 --seed 3 --variant " .. v).variant_metrics
    os.remove(v)
    near(m.rounds.value, r.best.estimate, "the confirmation's rounds")
  end)

  it("picks the value a constructed variant makes fair, for first_player and for balance", function()
    -- seat 1 wins iff (deal mod 4) < hand_start (the deal's number from the temple deck, which
    -- hand_start leaves alone; the hand holds hand_start + 3 cards after the first draw): seat 1's
    -- win chance is hand_start / 4, so hand_start 2 is fair, 1 and 3 are 0.5 off, 4 is 1 off
    local v = util.write([[
local deal = 0
return {
  game = "babel", name = "first-by-hand",
  hooks = {
    setup = function(s)
      local t = s:table()
      deal = 0
      for i, card in ipairs(t.temple_deck) do deal = deal + i * card end
      deal = deal % 4 < #t.players[1].hand - 3 and 1 or 2
    end,
    is_over = function(s) if #s:history() >= 2 then return true, { deal } end end,
  },
}]], ".lua")
    local out_file = os.tmpname() .. ".lua"
    for _, objective in ipairs({ "first_player", "balance" }) do
      local out, code = util.sh(util.quote(util.exe) .. (" tune babel greedy_babel random --param hand_start=1..4"
        .. " --objective %s --games 40 --seed 1 --json --variant %s --out %s 2>/dev/null"):format(objective,
        util.quote(v), util.quote(out_file)))
      assert.are.equal(0, code, out)
      local r = json.decode(out)
      assert.are.equal(2, r.best.params.hand_start, objective)
      within({ ci_low = r.best.ci_low, ci_high = r.best.ci_high }, 0, objective .. ": the fair value's estimate")
      -- the file written plays the variant's rules at the value found
      local s = require("meeple").new("babel", { variant = out_file, seed = 1 })
      assert.are.equal(5, #s:table().players[1].hand, objective)
      os.remove(out_file)
    end
    os.remove(v)
  end)

  it("measures the first bot's skill when it is named by its file", function()
    local out_file = os.tmpname() .. ".lua"
    local out, code = meeple(("tune babel %s random --param end_total=14..15 --objective decisiveness --games 2"
                              .. " --seed 1 --out %s"):format(util.quote(util.root .. "/bots/greedy_babel.lua"), out_file))
    os.remove(out_file)
    assert.are.equal(0, code, out)
    assert.is_truthy(out:find("skill (greedy_babel) 1.000", 1, true), out)
    assert.is_truthy(out:find("best: end_total=14 over 2 confirmation games: skill", 1, true), out)
  end)

  it("refuses bad arguments with one line, the usage and status 2", function()
    for _, case in ipairs({
      { "tune babel random random --objective balance", "--param KEY=LO..HI" },
      { "tune babel random random --param end_total=10..20", "--objective" },
      { "tune babel random random --param end_total=20..10 --objective balance", "is empty" },
      { "tune babel random random --param end_total=10-20 --objective balance", "KEY=LO..HI" },
      { "tune babel random random --param end_total=10..20 --objective fun", "--objective must be" },
      { "tune babel random random --param end_total=10..20 --objective balance --ms x", "--ms" },
      { "tune babel random random --param nope=1..2 --objective balance", "nope" },
      { "tune babel random random --param end_total=25..40 --objective balance", "end_total" },
      { "tune babel random random --param end_total=1..100 --objective balance", "more than 64" },
      { "tune babel random --param end_total=10..12 --objective decisiveness", "two bots" },
      { "tune babel random random --param end_total=10..12 --objective balance --variant short", "variant file" },
    }) do
      local out, code = meeple(case[1])
      assert.are.equal(2, code, case[1] .. ": " .. out)
      assert.is_truthy(out:find("^meeple tune: [^\n]+\nusage: meeple tune"), case[1] .. ": " .. out)
      assert.is_truthy(out:find(case[2], 1, true), case[1] .. ": " .. out)
    end
  end)

  -- issue 35: the value tune picks for Babel's balance has a first-player advantage within the
  -- interval of the best value a full grid finds (the grid: each value alone, at more games). The
  -- quick run tunes a narrower range at fewer games.
  it("picks a Babel end_total as balanced as a full grid's best #soak", function()
    local lo, hi = util.soak_count(14, 10), util.soak_count(17, 20)
    local games, grid_games = util.soak_count(4, 20), util.soak_count(20, 120)
    local out_file = os.tmpname() .. ".lua"
    local started = os.time()
    local out, code = meeple(("tune babel greedy_babel greedy_babel --param end_total=%d..%d --objective balance"
                              .. " --games %d --seed 11 --jobs 2 --out %s"):format(lo, hi, games, out_file))
    assert.are.equal(0, code, out)
    -- Its time is a figure (docs/lab.md: 36 s for the issue's command on two cores), not a check: the
    -- sanitizers' build runs this too, several times slower.
    io.stderr:write(("# tune took %d s\n"):format(os.time() - started))
    local chosen = tonumber(out:match("best: end_total=(%d+)"))
    -- the file it wrote loads as a variant
    out, code = meeple("match babel random random --games 2 --seed 1 --variant " .. out_file)
    os.remove(out_file)
    assert.are.equal(0, code, out)
    local best, best_fp, chosen_fp
    for value = lo, hi do
      -- one candidate: tune plays it alone, one round, and says its first-player advantage
      out, code = util.sh(util.quote(util.exe) .. (" tune babel greedy_babel greedy_babel --param end_total=%d..%d"
        .. " --objective balance --games %d --seed 7 --jobs 2 --json --out %s 2>/dev/null"):format(value, value,
        grid_games, util.quote(out_file)))
      os.remove(out_file)
      assert.are.equal(0, code, out)
      local r = json.decode(out).best
      if not best or r.estimate < best then best, best_fp = r.estimate, r.first_player end
      if value == chosen then chosen_fp = r.first_player end
    end
    within(best_fp, chosen_fp.value, "the chosen end_total's first-player advantage")
  end)
end)
