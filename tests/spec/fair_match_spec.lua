-- fair_match_spec.lua — matches whose numbers a bot author can trust (issue 30): the seating designs
-- with duplicate deals (identical bots come out even under the default design, biased under rotate),
-- SPRT (decides, stops, and does not depend on --jobs or a resume), results independent of --jobs and
-- shards under every design, whole deals or a refusal naming the nearest counts, JSON numbers in their
-- shortest form, `meeple help`, and the nearest name for a typo.
local util = require "spec_util"
local meeple_lib = require "meeple"
local exe, quote, meeple, lines, sh = util.exe, util.quote, util.run, util.lines, util.sh
local read, write, untimed = util.read_bytes, util.write_bytes, util.untimed

local function results(out) return (out:match("^(.-)\n[^\n]*decision time")) end

-- `meeple match ARGS --json`, decoded.
local function match_json(args)
  local out, code = sh(quote(exe) .. " match " .. args .. " --json 2>&1")
  assert.equal(0, code, out)
  return meeple_lib.json.decode(out)
end

-- The bots named `a` and `b` of a --json result, by name.
local function bot(result, name)
  for _, b in ipairs(result.bots) do if b.name == name then return b end end
  error("no bot " .. name)
end

-- The gap between two bots' win rates, and its sampling error: each bot's 95% interval (by deal) is
-- 1.96 standard errors on each side, and the error of a difference is at most the sum of theirs.
local function gap(result, a, b)
  local x, y = bot(result, a), bot(result, b)
  local se = (x.ci_high - x.ci_low) / (2 * 1.96) + (y.ci_high - y.ci_low) / (2 * 1.96)
  return math.abs(x.win_rate - y.win_rate), 1.96 * se
end

describe("identical bots come out even under the default design, and biased under rotate", function()
  local cases = {
    { "Bohnanza, A A B B", "bohnanza greedy_bohnanza greedy_bohnanza random random --games 480 --seed 11",
      "greedy_bohnanza" },
    { "Citadels, A A B B", "citadels greedy_citadels greedy_citadels random random --games 1920 --seed 11",
      "greedy_citadels" },
    { "Citadels, A B B", "citadels random greedy_citadels greedy_citadels --games 2880 --seed 12", "greedy_citadels" },
  }
  for _, case in ipairs(cases) do
    local title, args, name = case[1], case[2], case[3]
    it(title, function()
      local fair = match_json(args .. " --jobs 2")
      assert.equal("balanced", fair.seating)
      local d, err = gap(fair, name, name .. "#2")
      assert.truthy(d <= err, ("balanced: %s %.3f against %s#2 %.3f, beyond %.3f"):format(name,
        bot(fair, name).win_rate, name, bot(fair, name .. "#2").win_rate, err))
      local rotated = match_json(args .. " --jobs 2 --seating rotate")
      d, err = gap(rotated, name, name .. "#2")
      assert.truthy(d > err, ("rotate: %s %.3f against %s#2 %.3f, within %.3f"):format(name,
        bot(rotated, name).win_rate, name, bot(rotated, name .. "#2").win_rate, err))
    end)
  end
end)

describe("intervals by deal", function()
  -- Student's t (97.5%) for 1 to 9 degrees of freedom, and Wilson's interval of p over n trials.
  local T = { 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262 }
  local function wilson(p, n)
    local z = 1.959963984540054
    local d, c = 1 + z * z / n, p + z * z / (2 * n)
    local h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return math.max(0, (c - h) / d), math.min(1, (c + h) / d)
  end
  -- The interval of a mean of per-deal values, as docs/api.md says the table computes it.
  local function expected(values)
    local n, sum, sq = #values, 0, 0
    for _, v in ipairs(values) do sum = sum + v end
    local mean = sum / n
    for _, v in ipairs(values) do sq = sq + (v - mean) ^ 2 end
    if sq < 1e-12 then return wilson(mean, n) end
    local half = T[n - 1] * math.sqrt(sq / (n - 1) / n)
    return math.max(0, mean - half), math.min(1, mean + half), mean - half > 0 and mean + half < 1
  end

  it("bots and seats: Student's t over the deals' win fractions, Wilson's over the deals when all alike", function()
    local args = "bohnanza greedy_bohnanza greedy_bohnanza random --games 24 --seed 2"
    local log = os.tmpname()
    local out, code = meeple("match " .. args .. " --log " .. quote(log))
    assert.equal(0, code, out)
    local by_bot, by_seat = {}, {}
    for _, line in ipairs(lines(read(log))) do
      local rec = meeple_lib.json.decode(line)
      for seat, name in ipairs(rec.seats) do
        by_bot[name] = by_bot[name] or { 0, 0, 0, 0 }
        by_seat[seat] = by_seat[seat] or { 0, 0, 0, 0 }
        local won = #rec.winners == 1 and rec.winners[1] == seat and 1 / 6 or 0
        by_bot[name][rec.deal] = by_bot[name][rec.deal] + won
        by_seat[seat][rec.deal] = by_seat[seat][rec.deal] + won
      end
    end
    os.remove(log)
    local r = match_json(args)
    local spread = 0
    for _, b in ipairs(r.bots) do
      local lo, hi = expected(by_bot[b.name])
      assert.truthy(math.abs(lo - b.ci_low) < 1e-9 and math.abs(hi - b.ci_high) < 1e-9,
        ("%s [%g, %g], expected [%g, %g]"):format(b.name, b.ci_low, b.ci_high, lo, hi))
      assert.truthy(b.ci_high > b.ci_low, b.name .. ": a zero-width interval")
    end
    for _, seat in ipairs(r.seats) do
      local lo, hi, by_t = expected(by_seat[seat.seat])
      if by_t then spread = spread + 1 end
      assert.truthy(math.abs(lo - seat.ci_low) < 1e-9 and math.abs(hi - seat.ci_high) < 1e-9,
        ("seat %d [%g, %g], expected [%g, %g]"):format(seat.seat, seat.ci_low, seat.ci_high, lo, hi))
      assert.truthy(seat.ci_high > seat.ci_low, "seat " .. seat.seat .. ": a zero-width interval")
    end
    assert.truthy(spread > 0, "no seat's interval came from a spread between deals")
  end)

  it("a seat that won all 12 games of 2 deals is not pinned to [75.8%, 100%] as if the games were independent", function()
    local r = match_json("citadels random random random --games 12 --seed 7")
    local lo, hi = wilson(1, 2)
    assert.equal(1, r.seats[1].win_rate)
    assert.truthy(math.abs(r.seats[1].ci_low - lo) < 1e-9 and r.seats[1].ci_high == hi, r.seats[1].ci_low)
  end)
end)

describe("--sprt", function()
  local function sprt_log(args, jobs)
    local log = os.tmpname()
    local out, code = meeple("match " .. args .. " --jobs " .. jobs .. " --log " .. quote(log))
    local text = read(log)
    os.remove(log)
    assert.equal(0, code, out)
    return text, out
  end

  it("accepts H1 on a clear difference and H0 on none, stops there, and logs the same with --jobs 1 and 2", function()
    for _, case in ipairs {
      { "babel greedy_babel random --games 400 --seed 3 --sprt 0.5,0.6", "H1" },
      { "babel greedy_babel greedy_babel --games 400 --seed 3 --sprt 0.5,0.6", "H0" },
      { "bohnanza greedy_bohnanza random random random --games 1200 --seed 4 --sprt 0.25,0.4", "H1" },
    } do
      local one, out = sprt_log(case[1], 1)
      local two = sprt_log(case[1], 2)
      local games = #lines(one)
      assert.truthy(games > 0 and games < tonumber(case[1]:match("%-%-games (%d+)")), "stopped early: " .. games)
      assert.equal(untimed(one), untimed(two))
      assert.truthy(out:find(case[2] .. " accepted after " .. games .. " games", 1, true), out)
      local r = match_json(case[1])
      assert.equal(case[2], r.sprt.result)
      assert.equal(games, r.sprt.games)
      -- no decision before 10 completed deals, however alike the first ones come out
      assert.truthy(games >= 10 * r.deal_games and games % r.deal_games == 0, "decided after " .. games)
      assert.equal(games, r.games)
      assert.truthy(r.sprt.lower < 0 and r.sprt.upper > 0, out)
      if case[2] == "H1" then assert.truthy(r.sprt.llr >= r.sprt.upper) else assert.truthy(r.sprt.llr <= r.sprt.lower) end
      -- Wald's bounds: log(beta / (1 - alpha)) and log((1 - beta) / alpha), alpha = beta = 0.05 by default.
      assert.truthy(math.abs(r.sprt.upper - math.log(0.95 / 0.05)) < 1e-12)
      assert.truthy(math.abs(r.sprt.lower - math.log(0.05 / 0.95)) < 1e-12)
    end
  end)

  it("takes --alpha and --beta, and leaves the result null when --games ends it first", function()
    local r = match_json("babel greedy_babel greedy_babel --games 40 --seed 3 --sprt 0.45,0.55 --alpha 0.01 --beta 0.1")
    assert.equal(meeple_lib.json.null, r.sprt.result)
    assert.equal(40, r.sprt.games)
    assert.truthy(math.abs(r.sprt.upper - math.log(0.9 / 0.01)) < 1e-12)
    assert.truthy(math.abs(r.sprt.lower - math.log(0.1 / 0.99)) < 1e-12)
  end)

  it("resumes: a cut log goes on to the same decision, a decided log plays nothing more", function()
    local args = "match babel greedy_babel greedy_babel --games 400 --seed 3 --sprt 0.5,0.6"
    local whole = sprt_log(args:sub(7), 1)
    local l = lines(whole)
    local log = os.tmpname()
    write(log, table.concat(l, "\n", 1, 4) .. "\n")
    local out, code = meeple(args .. " --log " .. quote(log) .. " --resume")
    assert.equal(0, code, out)
    assert.equal(untimed(whole), untimed(read(log)))
    assert.truthy(out:find("H0 accepted after " .. #l .. " games", 1, true), out)
    out, code = meeple(args .. " --log " .. quote(log) .. " --resume")
    assert.equal(0, code, out)
    assert.truthy(out:find("(" .. #l .. " from the log)", 1, true), out)
    assert.equal(untimed(whole), untimed(read(log)))
    os.remove(log)
  end)

  it("logs its settings in every record, and a resume with other settings is refused in one line", function()
    local args = "match babel greedy_babel greedy_babel --games 400 --seed 3 --sprt 0.5,0.6 --alpha 0.01"
    local whole = sprt_log(args:sub(7), 1)
    local l = lines(whole)
    for _, line in ipairs(l) do
      local rec = meeple_lib.json.decode(line)
      assert.same({ p0 = 0.5, p1 = 0.6, alpha = 0.01, beta = 0.05 }, rec.sprt)
    end
    local log = os.tmpname()
    for _, other in ipairs { "", " --sprt 0.5,0.6", " --sprt 0.5,0.65 --alpha 0.01", " --sprt 0.5,0.6 --alpha 0.01 --beta 0.1" } do
      write(log, table.concat(l, "\n", 1, 4) .. "\n")
      local out, code = meeple("match babel greedy_babel greedy_babel --games 400 --seed 3" .. other .. " --log "
        .. quote(log) .. " --resume")
      assert.equal(2, code, out)
      assert.equal(1, #lines(out), out)
      assert.truthy(out:find("its match ran --sprt 0.5,0.6 --alpha 0.01 --beta 0.05, this run ", 1, true), out)
      assert.equal(4, #lines(read(log)))
    end
    -- and a log without a test is not resumed into one
    local plain = sprt_log("babel greedy_babel greedy_babel --games 8 --seed 3", 1)
    write(log, table.concat(lines(plain), "\n", 1, 2) .. "\n")
    local out, code = meeple("match babel greedy_babel greedy_babel --games 8 --seed 3 --sprt 0.5,0.6 --log "
      .. quote(log) .. " --resume")
    assert.equal(2, code, out)
    assert.truthy(out:find("its match ran no --sprt, this run --sprt 0.5,0.6 --alpha 0.05 --beta 0.05", 1, true), out)
    os.remove(log)
  end)

  it("refuses --sprt with --shard, bad hypotheses and bounds, in one line", function()
    util.assert_usage_error("match babel random random --games 4 --seed 1 --shard 1/2 --sprt 0.5,0.6",
      "meeple match: --sprt cannot run in a shard", "usage: meeple match")
    for _, bad in ipairs { "0.5", "0.5,0.5", "0,0.5", "0.5,1", "a,b", "0.5,0.6,0.7", "-0.1,0.5" } do
      util.assert_usage_error("match babel random random --sprt " .. bad, "meeple match: --sprt must be P0,P1",
        "usage: meeple match")
    end
    util.assert_usage_error("match babel random random --sprt 0.5,0.6 --alpha 0.7",
      "meeple match: --alpha must be a probability between 0 and 0.5", "usage: meeple match")
    util.assert_usage_error("match babel random random --beta 0.1",
      "meeple match: --alpha and --beta are the SPRT's", "usage: meeple match")
  end)
end)

describe("the seating designs", function()
  local designs = { rotate = 3, balanced = 6, permute = 6, random = 1 }

  it("give the same log and table whatever --jobs, and shards that merge into the whole match", function()
    for design in pairs(designs) do
      local args = "match citadels random greedy_citadels random --games 12 --seed 5 --seating " .. design
      local a, b, s1, s2, merged = os.tmpname(), os.tmpname(), os.tmpname(), os.tmpname(), os.tmpname()
      local out1 = meeple(args .. " --jobs 1 --log " .. quote(a))
      local out2 = meeple(args .. " --jobs 2 --log " .. quote(b))
      meeple(args .. " --shard 1/2 --log " .. quote(s1))
      meeple(args .. " --shard 2/2 --jobs 2 --log " .. quote(s2))
      local mout, code = meeple("merge " .. quote(s2) .. " " .. quote(s1) .. " --log " .. quote(merged))
      local la, lb, lm = read(a), read(b), read(merged)
      for _, f in ipairs { a, b, s1, s2, merged } do os.remove(f) end
      assert.equal(0, code, mout)
      assert.equal(12, #lines(la), out1)
      assert.equal(untimed(la), untimed(lb))
      assert.equal(untimed(la), untimed(lm))
      assert.equal(results(out1), results(out2))
      assert.equal(results(out1), results(mout))
      assert.truthy(la:find('"seating":"' .. design .. '"', 1, true), la)
    end
  end)

  it("play every game of a deal with the deal's seed, each bot in each seat equally often", function()
    for design, block in pairs(designs) do
      local log = os.tmpname()
      meeple("match citadels random random random --games 12 --seed 5 --seating " .. design .. " --log " .. quote(log))
      local seeds, seats = {}, {}
      for i, line in ipairs(lines(read(log))) do
        local deal, seed = line:match('"deal":(%d+),.*"seed":(%d+),')
        deal = tonumber(deal)
        assert.equal((i - 1) // block + 1, deal, line)
        assert.equal(seeds[deal] or seed, seed, "a deal's games share its seed")
        seeds[deal] = seed
        local names = {}
        for name in line:match('"seats":%[(.-)%]'):gmatch('"([^"]*)"') do names[#names + 1] = name end
        for s, name in ipairs(names) do seats[name .. "@" .. s] = (seats[name .. "@" .. s] or 0) + 1 end
      end
      os.remove(log)
      if design ~= "random" then
        for _, name in ipairs { "random", "random#2", "random#3" } do
          for s = 1, 3 do assert.equal(4, seats[name .. "@" .. s], design .. ": " .. name .. " in seat " .. s) end
        end
      end
    end
  end)

  it("refuse a game count that is not whole deals with the nearest counts, and permute beyond 5 players", function()
    util.assert_usage_error("match bohnanza random random random random --games 100",
      "meeple match: --games 100 is not a whole number of deals: balanced seating plays 12 games a deal with 4 players; "
      .. "give --games 96 or 108", "usage: meeple match")
    util.assert_usage_error("match citadels random random random --games 4 --seating permute",
      "meeple match: --games 4 is not a whole number of deals: permute seating plays 6 games a deal with 3 players; "
      .. "give --games 6", "usage: meeple match")
    util.assert_usage_error("match citadels random random random random random random --seating permute",
      "meeple match: --seating permute plays all 6! orders of 6 bots; it stops at 5 players", "usage: meeple match")
    util.assert_usage_error("match babel random random --seating rotat",
      "meeple match: --seating must be one of rotate, balanced, permute, random, got 'rotat'; did you mean 'rotate'?",
      "usage: meeple match")
    -- Without --games, the default 100 is rounded up to whole deals.
    local r = match_json("bohnanza random random random random --seed 2 --jobs 2")
    assert.equal(108, r.games)
    assert.equal(9, r.deals)
  end)
end)

describe("outputs", function()
  it("--json writes every real in its shortest exact form, and calls the match seed match_seed", function()
    local out = sh(quote(exe) .. " match citadels random random random --games 24 --seed 5 --json")
    local reals = 0
    for token in out:gmatch("[:,%[](%-?%d+%.%d+[eE]?[-+]?%d*)") do
      reals = reals + 1
      local x = tonumber(token)
      local shortest
      for digits = 1, 17 do
        shortest = ("%." .. digits .. "g"):format(x)
        if tonumber(shortest) == x then break end
      end
      assert.truthy(#token <= #shortest + 2, token .. " is not as short as " .. shortest)
    end
    assert.truthy(reals > 10, out)
    assert.truthy(out:find('"match_seed":5,', 1, true), out)
    assert.truthy(out:find('"seed":5,', 1, true), out) -- the deprecated alias, for one release
  end)

  it("meeple help [COMMAND] prints the commands or one command's usage", function()
    local out, code = sh(quote(exe) .. " help")
    assert.equal(0, code)
    assert.truthy(out:find("commands:", 1, true) and out:find("  match ", 1, true), out)
    out, code = sh(quote(exe) .. " help match")
    assert.equal(0, code)
    assert.truthy(out:find("^usage: meeple match GAME BOT BOT"), out)
    assert.truthy(out:find("--seating", 1, true) and out:find("--sprt", 1, true), out)
    util.assert_usage_error("help mtch", "meeple: unknown command 'mtch'; did you mean 'match'?", "usage: meeple")
  end)

  it("an unknown game, command or option names the nearest", function()
    util.assert_usage_error("match citadel random random", "meeple match: unknown game 'citadel'; did you mean 'citadels'?",
      "usage: meeple match")
    util.assert_usage_error("rules bohnaza", "meeple rules: unknown game 'bohnaza'; did you mean 'bohnanza'?",
      "usage: meeple rules")
    util.assert_usage_error("mach babel", "meeple: unknown command 'mach'; did you mean 'match'?", "usage: meeple")
    util.assert_usage_error("match babel random random --seeed 3", "meeple match: unknown option '--seeed'; did you mean '--seed'?",
      "usage: meeple match")
    util.assert_usage_error("match chess random random", "meeple match: unknown game 'chess'; games: babel", "usage: meeple match")
  end)
end)
