-- bots_ctx_spec.lua — what a bot is given: the view, legal, ctx (seat, rng, sample, budget, clock), the
-- helper library; and the shipped bots playing whole games. A probing bot prints what it finds (bots
-- print to stderr under `meeple --debug`) and the spec reads it.
local util = require "spec_util"
local exe, root, quote = util.exe, util.root, util.quote

local function write(source) return util.write(source, ".lua") end

-- Runs a match of the probe (seat 1 in game 1) against `other`; returns the output and status.
local function probe(source, args, other)
  local bot = write(source)
  local p = assert(io.popen(("%s --debug match babel %s %s %s 2>&1"):format(quote(exe), quote(bot),
    other or quote(root .. "/bots/random.lua"), args or "--games 2")))
  local out = p:read("a")
  local _, _, code = p:close()
  os.remove(bot)
  return out, code
end

-- The probe's printed lines ("[probe] ..." on stderr), without the prefix.
local function said(out)
  local t = {}
  for line in out:gmatch("%[probe%] ([^\n]*)") do t[#t + 1] = line end
  return t
end

-- A canonical text of a plain table (keys sorted), for comparing views.
local serialize = [[
  local function ser(v)
    if type(v) ~= "table" then return tostring(v) end
    local keys = {}
    for k in pairs(v) do keys[#keys + 1] = tostring(k) end
    table.sort(keys)
    local parts = {}
    for _, k in ipairs(keys) do parts[#parts + 1] = k .. "=" .. ser(v[k] == nil and v[tonumber(k)] or v[k]) end
    return "{" .. table.concat(parts, ",") .. "}"
  end
]]

-- Probe source: spy_on(bot, method, spy, after) makes the bot's samples answer s:method(...) with
-- spy(s, ...), and calls after(legal, choice) once each decision is made.
local spying = [[
  local function spy_on(bot, method, spy, after)
    local choose = bot.choose
    bot.choose = function(view, legal, ctx)
      local sample = ctx.sample
      ctx.sample = function()
        local s = sample()
        return setmetatable({}, { __index = function(_, k)
          if k == method then return function(_, ...) return spy(s, ...) end end
          local v = s[k]
          return type(v) == "function" and function(_, ...) return v(s, ...) end or v
        end })
      end
      local a = choose(view, legal, ctx)
      ctx.sample = sample
      if after then after(legal, a) end
      return a
    end
    return bot
  end
]]

-- Runs a probe (with `ser` defined) that prints "ok" once it has checked what it came to check.
local function assert_probe_ok(source)
  local out, code = probe(serialize .. source, "--games 2")
  assert.equal(0, code, out)
  assert.same({ "ok", "ok" }, said(out)) -- one a game: a deal of two
end

describe("ctx", function()
  it("carries the seat, the game, the player count and the budget", function()
    local out, code = probe([[
      return { name = "probe", choose = function(view, legal, ctx)
        print(ctx.seat, ctx.game, ctx.players, ctx.budget.ms, ctx.budget.instructions, ctx.budget.memory,
          type(ctx.clock()))
        return legal[1]
      end }
    ]], "--games 2 --ms 250 --instructions 5000000 --memory 32")
    assert.equal(0, code, out)
    assert.equal("1\tbabel\t2\t250.0\t5000000\t33554432\tnumber", said(out)[1])
  end)

  it("has a seeded rng: callable like math.random, with :random, :pick and :shuffle", function()
    local source = [[
      return { name = "probe", choose = function(view, legal, ctx)
        local r = ctx.rng
        local a, b, c = r(6), r:random(10, 12), r()
        assert(a >= 1 and a <= 6 and b >= 10 and b <= 12 and c >= 0 and c < 1)
        local pick = r:pick(legal)
        local found = false
        for _, x in ipairs(legal) do found = found or x == pick end
        assert(found, "pick is one of legal")
        local list = r:shuffle({ 1, 2, 3, 4, 5 })
        table.sort(list)
        assert(table.concat(list) == "12345")
        print(a, b, c, math.random(1000))
        return legal[1]
      end }
    ]]
    local out1 = probe(source, "--games 2 --seed 4")
    local out2 = probe(source, "--games 2 --seed 4")
    local out3 = probe(source, "--games 2 --seed 5")
    assert.truthy(#said(out1) > 3, out1)
    assert.same(said(out1), said(out2))
    assert.are_not.same(said(out1), said(out3))
  end)

  it("samples a full state consistent with the view: same position, same view, hidden cards re-dealt", function()
    local out, code = probe(serialize .. [[
      return { name = "probe", choose = function(view, legal, ctx)
        local s = ctx.sample()
        assert(s:game() == "babel" and s:to_move() == ctx.seat)
        assert(table.concat(s:legal(), "|") == table.concat(legal, "|"), "the same actions")
        assert(ser(s:view(ctx.seat)) == ser(view), "the same view")
        local c = s:clone()
        c:play(legal[#legal])
        assert(ser(s:view(ctx.seat)) == ser(view), "a clone is independent")
        print(ser(s:table().players[2].hand))
        return legal[1]
      end }
    ]], "--games 2")
    assert.equal(0, code, out)
    local hands = said(out)
    assert.truthy(#hands >= 10, out)
    -- The opponent's hand is guessed anew each time: not always the same.
    local different = false
    for i = 2, #hands do different = different or hands[i] ~= hands[1] end
    assert.truthy(different, out)
  end)

  it("hands over a view that reads like a table, and keeps its decision's state", function()
    assert_probe_ok [[
      local kept, expected, n = nil, nil, 0
      return { name = "probe", choose = function(view, legal, ctx)
        n = n + 1
        if n == 1 then
          kept, expected = view, ser(ctx.sample():view(ctx.seat))   -- kept unread
        elseif n == 6 then
          assert(ser(kept) == expected, "a kept view shows its own decision")
          local count = 0
          for _ in next, view do count = count + 1 end
          assert(count > 5 and rawget(view, "game") == "babel" and #view.players == 2)
          for i, p in ipairs(view.players) do assert(p.pawn) end
          print("ok")
        end
        return legal[1]
      end }
    ]]
  end)

  it("fills the view table by table: unread tables read alike whichever way, and keep their decision", function()
    -- view.players (a list of maps), view.players[i] and .rows are unread until touched: each
    -- decision touches them first in another way.
    assert_probe_ok [[
      local me_then, rows_then, expected, n = nil, nil, nil, 0
      return { name = "probe", choose = function(view, legal, ctx)
        n = n + 1
        local truth = ctx.sample():view(ctx.seat)
        local me, other = ctx.seat, 3 - ctx.seat
        if n == 1 then
          me_then = view.players[me]                       -- taken unread, read decisions later
          rows_then = view.players[other].rows
          expected = ser(truth.players[me]) .. ser(truth.players[other].rows)
        elseif n == 2 then
          assert(#view.players == 2, "#")
          assert(rawlen(view.players[me].rows.medes) == #truth.players[me].rows.medes, "rawlen")
        elseif n == 3 then
          local pawns = {}
          for i, p in ipairs(view.players) do pawns[i] = p.pawn end
          assert(pawns[2] == truth.players[2].pawn, "ipairs")
          assert(next(view.players[other].rows) ~= nil, "next")
        elseif n == 4 then
          assert(rawget(view.players, other).pawn == truth.players[other].pawn, "rawget")
          assert(getmetatable(view.players[me].temples) == nil, "getmetatable: a plain table")
          setmetatable(view.players[other].rows, { __index = function() return "x" end })
          assert(view.players[other].rows.nowhere == "x", "setmetatable: the bot's own")
        elseif n == 5 then
          table.sort(view.players, function(a, b) return a.pawn < b.pawn end)
          local co = coroutine.wrap(function() return ser(view.players[1].temples) end)
          assert(co() == ser(view.players[1].temples), "in a coroutine")
          view.players = nil                                -- the bot's own, to spoil
        elseif n == 6 then
          assert(ser(view) == ser(truth), "a new decision's view is whole again")
          assert(ser(me_then) .. ser(rows_then) == expected, "kept unread tables show their own decision")
          print("ok")
        end
        return legal[1]
      end }
    ]]
  end)

  it("writes the view field by field, and takes back a legal text however it was made", function()
    assert_probe_ok [[
      local partly, expected, n = nil, nil, 0
      return { name = "probe", choose = function(view, legal, ctx)
        n = n + 1
        local truth = ctx.sample():view(ctx.seat)
        if n == 1 then
          assert(view.turn == truth.turn, "a field read alone")
          partly, expected = view, ser(truth)                  -- kept partly read
        elseif n == 2 then
          view.turn = nil
          assert(view.turn == nil, "a field removed stays removed")
          view.mine = 1
          assert(view.mine == 1 and view.phase == truth.phase and view.turn == nil, "a new key, then the rest")
        elseif n == 3 then
          assert(ser(partly) == expected, "a view kept partly read shows its own decision")
          assert(ser(view) == ser(truth), "pairs writes every field")
        elseif n == 4 then
          local answer = legal[#legal]
          legal[#legal] = "nonsense"                            -- the bot's own list, to spoil
          return answer:sub(1, 2) .. answer:sub(3)              -- the same text, made anew
        elseif n == 5 then
          print("ok")
        end
        return legal[1]
      end }
    ]]
  end)

  it("ismcts refuses an option it does not have, naming the ones it has, or what became of it", function()
    local out, code = probe([[return require("ismcts").bot { name = "odd", rollouts = 3 }]])
    assert.equal(2, code, out)
    assert.truthy(out:find("ismcts: no option 'rollouts' (options: c, engine, expand, explain, greedy", 1, true), out)
    out, code = probe([[return require("ismcts").bot { name = "old", rollout_depth = 40 }]])
    assert.equal(2, code, out)
    assert.truthy(out:find("ismcts: option 'rollout_depth' is now 'playout_depth'", 1, true), out)
  end)

  -- Each value of `option` stops the match with `message`.
  local function refused(option, values, message)
    for _, bad in ipairs(values) do
      local out, code = probe(("return require('ismcts').bot { name = 'odd', %s = %s }"):format(option, bad))
      assert.equal(2, code, out)
      assert.truthy(out:find(message, 1, true), out)
    end
  end

  it("ismcts refuses a playouts count that is not a whole number from 1 to 64", function()
    refused("playouts", { "0", "65", "1.5", "'4'" }, "ismcts: option 'playouts' must be a whole number from 1 to 64")
  end)

  it("ismcts refuses a greedy share outside 0..1, or a table of them without a default", function()
    refused("greedy", { "1.5", "-0.1", "'all'", "{ babel = 1 }", "{ default = 2 }", "{ default = 0.2, 1 }" },
            "ismcts: option 'greedy' must be a share from 0 to 1")
  end)

  it("ismcts refuses a margin outside 0..1, or a table of them without a default", function()
    refused("margin", { "1.5", "-0.1", "'all'", "{ babel = 0.3 }", "{ default = 2 }" },
            "ismcts: option 'margin' must be a share from 0 to 1")
  end)

  it("ismcts refuses an expansion other than random or policy, or a table of them without a default", function()
    refused("expand",
            { "'best'", "1", "{ babel = 'policy' }", "{ default = 'first' }", "{ default = 'random', 'policy' }" },
            "ismcts: option 'expand' must be \"random\" or \"policy\"")
  end)

  it("ismcts with expand = policy (or widen) tries the playout policy's favourite first, by game name", function()
    -- One iteration a decision: the one action tried is the choice. The proxy reports s:ranked's first.
    local source = spying .. [[
      local bot = require("ismcts").bot { name = "probe", engine = "lua", iterations = 1, %s }
      local first, ranked = nil, 0
      return spy_on(bot, "ranked", function(s, seed)
        local r = s:ranked(seed)
        first, ranked = first or r[1], ranked + 1
        return r
      end, function(legal, a)
        if #legal > 1 then print(ranked, a == first) end
        first, ranked = nil, 0
      end)
    ]]
    -- widen adds children in the policy's order whatever `expand` says.
    for _, options in ipairs { "expand = 'policy'", "expand = 'random', widen = 2" } do
      local out, code = probe(source:format(options), "--games 2 --seed 5")
      assert.equal(0, code, out)
      local lines = said(out)
      assert.truthy(#lines > 5, out)
      for _, line in ipairs(lines) do assert.equal("1\ttrue", line) end
    end
    local out, code = probe(source:format("expand = { babel = 'random', default = 'policy' }"), "--games 2 --seed 5")
    assert.equal(0, code, out)
    local lines = said(out)
    assert.truthy(#lines > 5, out)
    for _, line in ipairs(lines) do assert.equal("0\tfalse", line) end
  end)

  it("ismcts scores a finished game by the win, and by the score lead for the margin's share", function()
    local ismcts = dofile(root .. "/bots/lib/ismcts.lua")
    local function finished(scores, winners)
      return { scores = function() return scores end, winners = function() return winners end }
    end
    local won = finished({ 20, 12 }, { 1 })
    assert.same({ 1, 0 }, ismcts.rewards(won, 2))                -- the default: the win alone
    local lead = ismcts.rewards(won, 2, 1, 4)                    -- the lead alone: 8 points at scale 4
    assert.near(1 / (1 + math.exp(-2 * 1.15)), lead[1], 1e-12)
    assert.near(1 - lead[1], lead[2], 1e-12)
    local mixed = ismcts.rewards(won, 2, 0.25, 4)
    assert.near(0.75 + 0.25 * lead[1], mixed[1], 1e-12)
    assert.near(0.25 * lead[2], mixed[2], 1e-12)
    local close = ismcts.rewards(finished({ 13, 12 }, { 1 }), 2, 0.25, 4)
    assert.is_true(close[1] < mixed[1] and close[2] > mixed[2])  -- winning by more is worth more
    local drawn = ismcts.rewards(finished({ 12, 12, 3 }, { 1, 2 }), 3, 0.25, 4)
    assert.near(drawn[1], drawn[2], 1e-12)
    assert.is_true(drawn[1] > 0.375 and drawn[3] < 0.25 * 0.5)
    local cut_short = ismcts.rewards(finished({ 20, 12 }, nil), 2, 0, 4) -- not over: the lead decides
    assert.near(lead[1], cut_short[1], 1e-12)
    assert.has_error(function() ismcts.rewards(won, 2, { default = 0.5 }) end,
                     "ismcts.rewards: margin must be a share from 0 to 1")
    assert.has_error(function() ismcts.rewards(won, 2, 0.5, 0) end, "ismcts.rewards: scale must be a number above 0")
  end)

  it("ismcts refuses a score_scale that is not a number above 0, or a table of them without a default", function()
    refused("score_scale", { "0", "-1", "'big'", "1/0", "{ rabohnzel = 150 }", "{ default = 4, babel = 0 }" },
            "ismcts: option 'score_scale' must be a number above 0")
  end)

  it("ismcts refuses a widening that is not false or a number above 0, or a table of them without a default", function()
    refused("widen", { "true", "0", "-1", "'wide'", "{ babel = 1 }", "{ default = false, babel = 'x' }" },
            "ismcts: option 'widen' must be false or a number above 0")
    -- The error shows what was given.
    refused("widen", { "true" }, "a table of them by game name with a default (got true)")
    refused("widen", { "{ default = 0 }" }, "(its default is 0)")
    refused("score_scale", { "{ default = 4, babel = 'big' }" }, '(babel = "big")')
  end)

  it("ismcts refuses a playout_depth that is not false or a count of decisions, or a table of them without a default", function()
    refused("playout_depth", { "true", "-1", "2.5", "20001", "'deep'", "{ babel = 20 }", "{ default = false, babel = 1.5 }" },
            "ismcts: option 'playout_depth' must be false or a count of decisions from 0 to 20000")
    refused("playout_depth", { "{ default = false, citadels = -3 }" }, "(citadels = -3)")
  end)

  -- The explained decisions of a probe ismcts with `options` (the iterations, actions tried at the root
  -- and actions legal, from `explain`), against random in Babel.
  local function explained(options)
    local out, code = probe(("return require('ismcts').bot { name = 'probe', explain = true, %s }"):format(options),
                            "--games 2 --seed 7")
    assert.equal(0, code, out)
    local decisions = {}
    for _, line in ipairs(said(out)) do
      local n, tried, legal = line:match("^(%d+) iterations, (%d+) of (%d+) actions tried")
      assert.truthy(n, line)
      decisions[#decisions + 1] = { n = tonumber(n), tried = tonumber(tried), legal = tonumber(legal) }
    end
    assert.truthy(#decisions > 5, out)
    return decisions
  end

  it("ismcts with widen tries at most ceil(widen * sqrt(visits)) actions at a node, by game name", function()
    -- Ten iterations: the root's visits before each were 0..9, so widen = 1 allows 1, 1, 2, 2, 2, 3, 3,
    -- 3, 3, 3 children: three actions tried where more are legal; without widening, each untried
    -- action is tried before any is tried again.
    local wide, narrow = 0, 0
    for _, d in ipairs(explained("iterations = 10, widen = { babel = 1, default = false }")) do
      assert.equal(10, d.n)
      assert.equal(math.min(3, d.legal), d.tried)
      if d.legal > 3 then wide = wide + 1 end
    end
    for _, d in ipairs(explained("iterations = 10, widen = { babel = false, default = 1 }")) do
      assert.equal(math.min(10, d.legal), d.tried)
      if d.legal > 3 then narrow = narrow + 1 end
    end
    assert.truthy(wide > 0 and narrow > 0)
    -- A wider search: widen = 3 allows 3 children at 1 visit, 6 at 3, 9 at 8 and 9: nine at most.
    for _, d in ipairs(explained("iterations = 10, widen = 3")) do assert.equal(math.min(9, d.legal), d.tried) end
  end)

  it("ismcts takes its greedy share by game name, else the default", function()
    local out, code = probe(spying .. [[
      local bot = require("ismcts").bot { name = "probe", engine = "lua", iterations = 5, greedy = { babel = 0, default = 1 } }
      return spy_on(bot, "playout", function(s, seed, n, greedy)
        print(greedy)
        return s:playout(seed, n, greedy)
      end)
    ]], "--games 2 --seed 4")
    assert.equal(0, code, out)
    local shares = said(out)
    assert.truthy(#shares > 0, out)
    for _, share in ipairs(shares) do assert.equal("0", share) end
  end)

  it("ismcts with several playouts a node plays the same game again from the same seed", function()
    local function game()
      local out, code = probe([[
        local ismcts = require("ismcts").bot { name = "probe", iterations = 40, playouts = 3, greedy = 1 }
        local choose = ismcts.choose
        ismcts.choose = function(view, legal, ctx)
          local a = choose(view, legal, ctx)
          print(a)
          return a
        end
        return ismcts
      ]], "--games 2 --seed 21", quote(root .. "/bots/greedy_babel.lua"))
      assert.equal(0, code, out)
      return said(out)
    end
    local first = game()
    assert.truthy(#first > 10)
    assert.same(first, game())
  end)

  it("requires the project's helper library, and nothing else", function()
    local out, code = probe([[
      local rules = require "rules"
      local ok, err = pcall(require, "socket")
      print(type(rules.bot), ok, (err:gsub(" in .*", "")))
      return { name = "probe", choose = function(view, legal) return legal[1] end }
    ]], "--games 2")
    assert.equal(0, code, out)
    assert.equal("function\tfalse\trequire: no module 'socket'", said(out)[1])
  end)
end)

describe("the shipped bots", function()
  -- The table of a Babel match between the bot `source` and greedy_babel.
  local function against_greedy_babel(source, args)
    local bot = write(source)
    local p = assert(io.popen(("%s match babel %s %s %s 2>&1"):format(quote(exe), quote(bot),
      quote(root .. "/bots/greedy_babel.lua"), args)))
    local out = p:read("a")
    p:close()
    os.remove(bot)
    return out
  end

  it("random, greedy_babel and a quick ismcts play babel without a forfeit", function()
    local out = against_greedy_babel([[return require("ismcts").bot { name = "ismcts_quick", iterations = 30 }]],
                                     "--games 2")
    assert.truthy(out:match("\nismcts_quick +2 +%d+ +%d+ +%d+ +0 "), out)
    assert.truthy(out:match("\ngreedy_babel +2 +%d+ +%d+ +%d+ +0 "), out)
  end)

  it("greedy_bohnanza and greedy_rabohnzel play their games without a forfeit and beat random", function()
    for _, game in ipairs { "bohnanza", "rabohnzel" } do
      local greedy = root .. "/bots/greedy_" .. game .. ".lua"
      local random = root .. "/bots/random.lua"
      local p = assert(io.popen(("%s match %s %s %s %s %s --games 12 --seed 5 2>&1"):format(quote(exe), game,
        quote(greedy), quote(random), quote(random), quote(random))))
      local out = p:read("a")
      p:close()
      -- one balanced deal of 12 games; a one-ply trader wins nearly all against random traders
      local wins = tonumber(out:match("\ngreedy_" .. game .. " +12 +(%d+) +%d+ +%d+ +0 "))
      assert.truthy(wins and wins >= 9, out)
    end
  end)

  it("ismcts cuts a playout nobody can end: wholly greedy Babel playouts, seed 11, no forfeit", function()
    -- This deal samples a game the Babel policy alone never ends: uncut, the playout ran into the memory cap.
    local out = against_greedy_babel(
      [[return require("ismcts").bot { name = "ismcts_greedy", iterations = 500, greedy = 1 }]],
      "--games 2 --seed 11 --ms 60000") -- (the memory cap is the point: a far time limit, for load and the sanitizers)
    assert.truthy(out:match("\nismcts_greedy +2 +%d+ +%d+ +%d+ +0 "), out)
  end)

  it("a quick ismcts plays Rabohnzel through samples without a forfeit", function()
    local quick = write([[return require("ismcts").bot { name = "ismcts_quick", iterations = 8, playout_depth = 30 }]])
    local p = assert(io.popen(("%s match rabohnzel %s %s %s --games 1 --seating random 2>&1"):format(quote(exe), quote(quick),
      quote(root .. "/bots/greedy_rabohnzel.lua"), quote(root .. "/bots/random.lua"))))
    local out = p:read("a")
    p:close()
    os.remove(quick)
    assert.truthy(out:match("\nismcts_quick +1 +%d+ +%d+ +%d+ +0 "), out)
  end)

  it("a strategy from the rules helper follows its priorities", function()
    local out, code = probe([[
      local rules = require "rules"
      return rules.bot {
        name = "probe", explain = true,
        rules = {
          { "^build opp", why = "deny" },
          { "^build", why = "build" },
          { "^settle", prefer = function(a) return #a end, why = "longest" },
        },
        score = function(a) return a == "end" and 1 or 0 end,
      }
    ]], "--games 2")
    assert.equal(0, code, out)
    local lines = said(out)
    assert.truthy(#lines > 5, out)
    for _, line in ipairs(lines) do
      assert.truthy(line:match("^rule %d %(%a+%): %a") or line:match("^score: "), line)
    end
  end)
end)
