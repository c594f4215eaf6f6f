-- bindings_spec.lua — the Lua API of API.md through meeple.so: results, refusals, and bad input.
local meeple = require "meeple"
local util = require "spec_util"

local advance = util.advance

-- The message of a refused call, or nil when it did not refuse.
local function refusal(f, ...)
  local ok, msg = pcall(f, ...)
  if ok then return nil end
  return msg
end

describe("meeple module", function()
  it("lists babel among the games", function()
    local games = meeple.games()
    assert.is_table(games)
    assert.truthy(#games >= 1)
    local found = false
    for _, g in ipairs(games) do found = found or g == "babel" end
    assert.is_true(found)
  end)

  it("deals the same game from the same seed and another from another", function()
    assert.same(meeple.new("babel", { seed = 5 }):table(), meeple.new("babel", { seed = 5 }):table())
    assert.same(meeple.new("babel"):table(), meeple.new("babel", { seed = 1 }):table())
    assert.are_not.same(meeple.new("babel", { seed = 5 }):table(), meeple.new("babel", { seed = 6 }):table())
  end)

  it("answers the basic questions about a new game", function()
    local s = meeple.new("babel", { seed = 2 })
    assert.equal("babel", s:game())
    assert.equal(2, s:num_players())
    assert.equal(1, s:to_move())
    assert.is_false(s:is_over())
    assert.is_nil(s:winners())
    assert.same({ 0, 0 }, s:scores())
    assert.truthy(#s:legal() > 0)
    assert.same({}, s:history())
  end)

  it("renders a state with tostring", function()
    local s = advance(meeple.new("babel", { seed = 3 }), 20)
    local text = tostring(s)
    assert.truthy(text:find("Babel", 1, true))
    assert.truthy(text:find("medes", 1, true))
    assert.truthy(text:find("assyrians", 1, true))
    assert.equal(text, s:tostring())
  end)
end)

describe("refused actions", function()
  it("check says false and why, and true for every legal action", function()
    local s = meeple.new("babel", { seed = 4 })
    local ok, why = s:check("fly to the moon")
    assert.is_false(ok)
    assert.is_string(why)
    assert.truthy(#why > 0)
    for _, a in ipairs(s:legal()) do assert.is_true(s:check(a)) end
  end)

  it("play raises exactly the reason check gives and changes nothing", function()
    local s = advance(meeple.new("babel", { seed = 4 }), 7)
    local before_table, before_save = s:table(), s:save()
    local bad_actions = { "fly to the moon", "settle", "build", "travel quarry", "migrate medes medes", "" }
    for _, bad in ipairs(bad_actions) do
      local _, why = s:check(bad)
      local msg = refusal(s.play, s, bad)
      assert.equal(why, msg)
      assert.same(before_table, s:table())
      assert.equal(before_save, s:save())
    end
  end)

  it("try returns true, or nil and the reason", function()
    local s = meeple.new("babel", { seed = 4 })
    local ok, why = s:try("fly to the moon")
    assert.is_nil(ok)
    assert.equal(select(2, s:check("fly to the moon")), why)
    local a = s:legal()[1]
    assert.is_true(s:try(a))
    assert.equal(a, s:history()[1].action)
  end)

  it("play returns the state, for chaining", function()
    local s = meeple.new("babel", { seed = 4 })
    assert.equal(s, s:play(s:legal()[1]))
  end)
end)

describe("state tables", function()
  it("round-trip through from_table", function()
    for _, n in ipairs({ 0, 5, 40, 120 }) do
      local t = advance(meeple.new("babel", { seed = 9 }), n):table()
      assert.same(t, meeple.from_table(t):table())
    end
  end)

  it("from_table ignores the host's own seed and params keys", function()
    local t = advance(meeple.new("babel", { seed = 9 }), 10):table()
    t.seed, t.params = 77, {}
    local back = meeple.from_table(t):table()
    t.seed, t.params = nil, nil
    assert.same(t, back)
  end)

  it("a view hides the opponent's hand and the decks, as counts", function()
    local s = advance(meeple.new("babel", { seed = 10 }), 12)
    local god = s:table()
    for p = 1, 2 do
      local v = s:view(p)
      local o = 3 - p
      assert.same(god.players[p].hand, v.players[p].hand)
      assert.equal(#god.players[o].hand, v.players[o].hand)
      assert.equal(#god.temple_deck, v.temple_deck)
      assert.equal(#god.people_deck, v.people_deck)
      assert.same(god.players[o].rows, v.players[o].rows)
    end
  end)
end)

describe("clone, undo, history", function()
  it("a clone is independent", function()
    local s = advance(meeple.new("babel", { seed = 11 }), 6)
    local c = s:clone()
    assert.same(s:table(), c:table())
    assert.same(s:history(), c:history())
    local before = s:table()
    advance(c, 10)
    assert.same(before, s:table())
    assert.are_not.same(before, c:table())
  end)

  it("a clone keeps its history in one block, and grows it past the block to the game's end", function()
    for _, game in ipairs { "babel", "citadels", "bohnanza", "rabohnzel" } do
      local s = advance(meeple.new(game, { seed = 13 }), 10)
      local c = s:clone():clone()                         -- a clone of a clone, history and all
      assert.same(s:history(), c:history())
      while not c:is_over() do c:play(c:legal()[1]) end   -- hundreds of decisions past its block
      assert.same(c:table(), meeple.load(c:save()):table(), game)
      c:undo(#c:history() - 10)
      assert.same(s:table(), c:table(), game)
      assert.same(s:history(), c:history(), game)
    end
  end)

  it("undo restores the state before the decisions", function()
    local s = advance(meeple.new("babel", { seed = 12 }), 8)
    local t0, h0 = s:table(), s:history()
    s:play(s:legal()[1])
    assert.equal(s, s:undo())
    assert.same(t0, s:table())
    advance(s, 3, 5)
    s:undo(3)
    assert.same(t0, s:table())
    assert.same(h0, s:history())
    s:undo(1000)
    assert.same(meeple.new("babel", { seed = 12 }):table(), s:table())
    assert.same({}, s:history())
  end)

  it("history lists who decided what, in order", function()
    local s = meeple.new("babel", { seed = 13 })
    local played = {}
    for _ = 1, 15 do
      local who, a = s:to_move(), s:legal()[1]
      s:play(a)
      played[#played + 1] = { player = who, action = a }
    end
    assert.same(played, s:history())
  end)
end)

describe("sample", function()
  it("keeps what the seat sees and can differ in what it does not", function()
    local s = advance(meeple.new("babel", { seed = 14 }), 10)
    local differs = false
    for seed = 1, 5 do
      local x = s:sample(1, seed)
      assert.same(s:view(1), x:view(1))
      assert.same({}, x:history())
      differs = differs or not (x:table().players[2].hand[1] == s:table().players[2].hand[1])
    end
    assert.is_true(differs)
  end)

  it("copies the position alone, not the history it drops, and plays on to the game's end", function()
    for _, game in ipairs { "babel", "citadels", "bohnanza", "rabohnzel" } do
      local fresh = meeple.new(game, { seed = 19 })
      local long = advance(meeple.new(game, { seed = 19 }), 60)
      collectgarbage()
      local before = collectgarbage("count")
      local samples = {}
      for i = 1, 50 do samples[i] = long:sample(1, i) end
      local per_sample = (collectgarbage("count") - before) * 1024 / 50
      local c = fresh:clone()                            -- a copy with no history: what a sample costs
      before = collectgarbage("count")
      local clones = {}
      for i = 1, 50 do clones[i] = c:clone() end
      local per_clone = (collectgarbage("count") - before) * 1024 / 50
      -- 60 history entries would be 480 bytes or more a sample
      assert.is_true(per_sample < per_clone + 64, ("%s: %.0f bytes a sample, %.0f a clone"):format(game, per_sample, per_clone))
      local x = samples[1]
      assert.same({}, x:history())
      for _ = 1, 20000 do                                 -- its history grows out of the block
        if x:is_over() then break end
        x:play(x:legal()[1])
      end
      assert.is_true(x:is_over(), game)
      assert.same(x:table(), meeple.load(x:save()):table(), game)
      x:undo(#x:history())
      assert.same(long:sample(1, 1):table(), x:table(), game)
    end
  end)
end)

describe("save and load", function()
  it("round-trip a dealt game: same table, same history, same text", function()
    local s = advance(meeple.new("babel", { seed = 15 }), 50)
    local text = s:save()
    local l = meeple.load(text)
    assert.same(s:table(), l:table())
    assert.same(s:history(), l:history())
    assert.equal(text, l:save())
  end)

  it("round-trip a state built from a table", function()
    local t = advance(meeple.new("babel", { seed = 16 }), 20):table()
    local s = advance(meeple.from_table(t), 10, 3)
    local l = meeple.load(s:save())
    assert.same(s:table(), l:table())
    assert.same(s:history(), l:history())
    l:undo(10)
    assert.same(t, l:table())
  end)

  it("round-trip a sample", function()
    local x = advance(meeple.new("babel", { seed = 17 }), 20):sample(2, 4)
    advance(x, 5)
    assert.same(x:table(), meeple.load(x:save()):table())
  end)

  it("refuse damaged texts with a reason", function()
    local s = advance(meeple.new("babel", { seed = 18 }), 30)
    local text = s:save()
    local table_text = advance(meeple.from_table(s:table()), 3):save()
    math.randomseed(18)
    local noise = {}
    for i = 1, 300 do noise[i] = string.char(math.random(0, 255)) end
    local damaged = {
      truncated_header = text:sub(1, 10),
      truncated_action = text:gsub("\naction [^\n]*\n$", "\naction tra\n"),
      truncated_start = table_text:gsub("(start %x+)", function(h) return h:sub(1, #h // 2) end),
      bad_action = text .. "action fly to the moon\n",
      bad_game = text:gsub("game babel", "game chess"),
      bad_seed = text:gsub("seed %d+", "seed many"),
      bad_header = text:gsub("players 2", "colour blue"),
      no_magic = text:gsub("^[^\n]*\n", ""),
      empty = "",
      noise = table.concat(noise),
    }
    for name, bad in pairs(damaged) do
      local msg = refusal(meeple.load, bad)
      assert.is_string(msg, name)
      assert.truthy(#msg > 0, name)
      assert.is_nil(msg:find("\n"), name)
    end
  end)
end)

describe("bad input", function()
  local s = meeple.new("babel", { seed = 19 })

  -- Each entry: a call that must refuse, and a piece its message must contain.
  local cases = {
    { function() return meeple.new() end, "game" },
    { function() return meeple.new(1) end, "game" },
    { function() return meeple.new("chess") end, "unknown game 'chess'; games: babel" },
    { function() return meeple.new("babel", 5) end, "options" },
    { function() return meeple.new("babel", { seed = "x" }) end, "seed" },
    { function() return meeple.new("babel", { seed = 1.5 }) end, "seed" },
    { function() return meeple.new("babel", { players = 3 }) end, "players" },
    { function() return meeple.new("babel", { players = "two" }) end, "players" },
    { function() return meeple.new("babel", { params = 5 }) end, "params" },
    { function() return meeple.new("babel", { params = { nope = 1 } }) end, "nope" },
    { function() return meeple.new("babel", { params = { end_total = "many" } }) end, "end_total" },
    { function() return meeple.new("babel", { variant = "no-such-variant" }) end, "no variant 'no-such-variant' for babel" },
    { function() return meeple.new("babel", { colour = "red" }) end, "colour" },
    { function() return meeple.new("babel", { colour = "red" }) end, "seed, players, params, variant" },
    { function() return meeple.from_table() end, "table" },
    { function() return meeple.from_table({}) end, "game" },
    { function() return meeple.from_table({ game = "chess" }) end, "unknown game" },
    { function() return meeple.from_table({ game = "babel", colour = 1 }) end, "colour" },
    { function() return meeple.from_table({ game = "babel", seed = "x" }) end, "seed" },
    { function() return meeple.from_table({ game = "babel", params = { nope = 1 } }) end, "nope" },
    { function() return meeple.load() end, "text" },
    { function() return meeple.load(5) end, "text" },
    { function() return s.play(nil, "end") end, "play" },
    { function() return s.legal({}) end, "legal" },
    { function() return s:play() end, "action" },
    { function() return s:play(5) end, "action" },
    { function() return s:play({}) end, "action" },
    { function() return s:check(nil) end, "action" },
    { function() return s:try(true) end, "action" },
    { function() return s:view() end, "player" },
    { function() return s:view(0) end, "view: player must be 1..2, got 0" },
    { function() return s:view(3) end, "view: player must be 1..2, got 3" },
    { function() return s:view("1") end, "player" },
    { function() return s:view(1.5) end, "player" },
    { function() return s:sample(9, 1) end, "sample: player must be 1..2, got 9" },
    { function() return s:sample(1, "x") end, "seed" },
    { function() return s:undo(-1) end, "undo" },
    { function() return s:undo("all") end, "undo" },
  }

  it("refuses with a clear one-line message, never a crash", function()
    for i, case in ipairs(cases) do
      local msg = refusal(case[1])
      assert.is_string(msg, "case " .. i .. " did not refuse")
      assert.truthy(msg:find(case[2], 1, true), "case " .. i .. ": '" .. msg .. "' lacks '" .. case[2] .. "'")
      assert.is_nil(msg:find("\n"), "case " .. i)
    end
  end)

  it("leaves the state usable after all of that", function()
    assert.same(meeple.new("babel", { seed = 19 }):table(), s:table())
    assert.truthy(#s:legal() > 0)
  end)
end)

describe("playout", function()
  -- Babel, seat 1 at the medes with three medes settled and a 4 on its reserve: a build fits.
  local function build_ready()
    return meeple.from_table {
      game = "babel", to_move = 1,
      players = { { hand = { "medes", "medes", "hittites" }, pawn = "medes",
                    rows = { medes = { "medes", "medes", "medes" } }, reserve = { 4, 3, 2, 1 } },
                  { hand = 3 } },
    }
  end

  it("plays to the end at random, the same from the same seed, and records every decision", function()
    for _, game in ipairs { "babel", "citadels" } do
      local a, b = meeple.new(game, { seed = 3 }), meeple.new(game, { seed = 3 })
      local n = a:playout(99)
      assert.is_true(a:is_over())
      assert.equal(n, #a:history())
      b:playout(99)
      assert.same(a:table(), b:table())
      assert.same(a:table(), meeple.load(a:save()):table())
      local c = meeple.new(game, { seed = 3 })
      c:playout(100)
      assert.is_not.same(a:history(), c:history())
      c:undo(#c:history())
      assert.same(meeple.new(game, { seed = 3 }):table(), c:table())
    end
  end)

  it("stops after n decisions", function()
    local s = meeple.new("babel", { seed = 4 })
    assert.equal(10, s:playout(5, 10))
    assert.equal(10, #s:history())
    assert.equal(0, s:playout(5, 0))
    local a, b = s:clone(), s:clone()
    a:playout(1)
    b:playout(1)
    assert.same(a:history(), b:history()) -- clones from one position play the same from one seed
  end)

  it("refuses a count it cannot play, naming the largest", function()
    local s = meeple.new("babel", { seed = 4 })
    local ok, err = pcall(s.playout, s, 1, 1 << 40)
    assert.is_false(ok)
    assert.truthy(err:find("playout: n must be a count of decisions, got 1099511627776 (nil or -1: to the end; " ..
                           "at most 1000000 are played)", 1, true), err)
    assert.equal(0, #s:history())
  end)

  it("with greedy = 1 plays the game's policy: in Babel, a build where one fits", function()
    local s = build_ready()
    local best, best_score = nil, -math.huge
    for _, a in ipairs(s:legal()) do
      local score = s:clone():play(a):scores()[1]
      if score > best_score then best, best_score = a, score end
    end
    s:playout(1, 1, 1)
    assert.equal("build own", best)
    assert.equal(best, s:history()[1].action)
    assert.equal(best_score, s:scores()[1])
    assert.truthy(best_score > 0)
  end)

  it("with greedy = 1 plays the bean games to the end, trading as the greedy bots do", function()
    -- The greedy bean bots propose while a face-up card hurts, accept deals that pay, and never
    -- invite offers (`ask`): policies_spec holds every decision to them, this a whole playout.
    for _, game in ipairs { "bohnanza", "rabohnzel" } do
      for seed = 1, 5 do
        local s = meeple.new(game, { seed = seed })
        s:playout(seed, nil, 1)
        assert.is_true(s:is_over())
        local said = {}
        for _, step in ipairs(s:history()) do
          local verb = step.action:match("^%S+")
          said[verb] = (said[verb] or 0) + 1
        end
        assert.truthy(said.propose and said.accept, game .. " " .. seed .. ": no deal was made")
        assert.is_nil(said.ask, game .. " " .. seed)
      end
    end
  end)

  it("with greedy = 1 builds the dearest Citadels district the mover can pay for, or one a gold cheaper "
    .. "in a new colour", function()
    local s = meeple.new("citadels", { seed = 2 })
    s:playout(2, nil, 1)
    local built, chances = 0, 0
    local a = meeple.new("citadels", { seed = 2 })
    for _, step in ipairs(s:history()) do
      local legal = a:legal()
      local dearest = -1
      for _, l in ipairs(legal) do
        local d = l:match("^build (%S+)")
        if d then dearest = math.max(dearest, a:cards()[d].cost) end
      end
      if dearest >= 0 and not legal[1]:match("^gold") then
        chances = chances + 1
        local d = step.action:match("^build (%S+)")
        if d and a:cards()[d].cost >= dearest - 1 then built = built + 1 end
      end
      a:play(step.action)
    end
    assert.truthy(chances > 5)
    assert.equal(chances, built)
  end)

  it("ranked lists the legal actions, the playout policy's favourites first", function()
    local s = build_ready()
    local ranked, legal = s:ranked(7), s:legal()
    assert.equal("build own", ranked[1]) -- the policy builds where it can
    table.sort(ranked)
    table.sort(legal)
    assert.same(legal, ranked)
    assert.same(s:ranked(7), s:ranked(7))
    assert.equal(0, #s:history())
    -- Random Babel positions: the same set as legal, a build or a leap first whenever one is legal.
    local seen_build = 0
    for seed = 1, 30 do
      local g = meeple.new("babel", { seed = seed })
      g:playout(seed, 10 + seed)
      if not g:is_over() then
        local r, l = g:ranked(seed), g:legal()
        assert.equal(#l, #r)
        local in_legal = {}
        for _, a in ipairs(l) do in_legal[a] = true end
        for _, a in ipairs(r) do assert.is_true(in_legal[a], a) end
        for _, a in ipairs(l) do
          if a:match("^build") or a:match("^leap") then
            seen_build = seen_build + 1
            assert.truthy(r[1]:match("^build") or r[1]:match("^leap") or r[1]:match("^steal"), r[1])
            break
          end
        end
      end
    end
    assert.truthy(seen_build > 0, "some position offered a build or a leap")
  end)

  it("ranked gives nothing for a finished game", function()
    local over = meeple.new("babel", { seed = 1 })
    over:playout(1)
    assert.same({}, over:ranked())
  end)

  it("refuses bad arguments with one line", function()
    local s = meeple.new("babel", { seed = 1 })
    assert.truthy(refusal(s.playout, s):find("playout: seed must be an integer", 1, true))
    assert.truthy(refusal(s.playout, s, 1, -2):find("playout: n must be a count", 1, true))
    assert.truthy(refusal(s.playout, s, 1, nil, 1.5):find("playout: greedy must be a share", 1, true))
    assert.truthy(refusal(s.ranked, s, "x"):find("ranked: seed must be an integer", 1, true))
    assert.equal(0, #s:history())
  end)
end)

describe("a whole game through the API", function()
  it("plays to the end", function()
    local s = meeple.new("babel", { seed = 20 })
    local steps = 0
    while not s:is_over() and steps < 100000 do
      local legal = s:legal()
      assert.truthy(#legal > 0)
      s:play(legal[(steps * 7919) % #legal + 1])
      steps = steps + 1
    end
    assert.is_true(s:is_over())
    assert.is_table(s:winners())
    assert.truthy(#s:winners() >= 1)
    assert.same({}, s:legal())
    assert.is_nil(s:to_move())
    local _, why = s:check("end")
    assert.is_string(why)
    assert.equal(steps, #s:history())
    assert.same(s:table(), meeple.load(s:save()):table())
  end)
end)

describe("an action with a NUL byte", function()
  it("is refused in every game, by check, try, play and public_text, and nothing is played", function()
    for _, game in ipairs { "babel", "citadels", "bohnanza", "rabohnzel" } do
      local s = meeple.new(game)
      local text = s:legal()[1] .. "\0x"
      local ok, why = s:check(text)
      assert.is_false(ok, game)
      assert.truthy(why:find("NUL", 1, true), why)
      assert.is_nil((s:try(text)))
      assert.has_error(function() s:play(text) end)
      assert.is_nil((s:public_text(text, 1)))
      assert.equal(0, #s:history())
    end
  end)
end)
