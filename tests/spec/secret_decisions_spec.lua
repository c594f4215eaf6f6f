-- secret_decisions_spec.lua — issue 28, item 7: secret decisions stay secret everywhere. Each game says
-- what the others see of an action (s:public_text) and whether it has hidden information; a seat's
-- history (s:history(p)), `meeple replay --seat`, a Lua bot's ctx.history and an external bot's `seen`
-- show another seat's secret pick (Citadels' choose, bury, keep) only as its public text. (The C
-- conformance test checks every game's public text against its views; check_pages.lua the HTML page.)
local meeple = require "meeple"
local util = require "spec_util"
local quote, sh = util.quote, util.sh

-- A Citadels game's first `n` decisions, each the first legal action.
local function citadels(n, opts)
  local s = meeple.new("citadels", opts or { seed = 2, players = 4 })
  for _ = 1, n do s:play(s:legal()[1]) end
  return s
end

-- Whether any entry of a history by a player other than `me` names a secret pick.
local function secret_of_others(history, me)
  for _, h in ipairs(history) do
    if h.player ~= me and (h.action:match("^choose ") or h.action:match("^bury ") or h.action:match("^keep ")) then
      return h.action
    end
  end
end

describe("secret decisions stay secret", function()
  it("every game says whether it has hidden information", function()
    for _, game in ipairs(meeple.games()) do
      assert.is_true(meeple.new(game):hidden_information(), game)
    end
  end)

  it("another seat's character pick shows as its public text, the decider's own as the action", function()
    local s = meeple.new("citadels", { seed = 2, players = 4 })
    local p, a = s:to_move(), s:legal()[1]
    assert.equal(a, s:public_text(a, p))
    for q = 1, 4 do
      if q ~= p then assert.equal("(chooses a character)", s:public_text(a, q)) end
    end
    local none, why = s:public_text("choose nobody", p)
    assert.is_nil(none)
    assert.truthy(why:find("nobody", 1, true), why)
  end)

  it("a seat's history never names another seat's secret pick; the whole history does", function()
    local s = citadels(40)
    for p = 1, 4 do
      local seen = s:history(p)
      assert.equal(40, #seen)
      assert.is_nil(secret_of_others(seen, p))
      for i, h in ipairs(s:history()) do
        if h.player == p then assert.equal(h.action, seen[i].action) end
      end
    end
    assert.truthy(secret_of_others(s:history(), 0))
    assert.has_error(function() s:history(5) end, "history: player must be 1..4, got 5")
  end)

  it("holds under a variant too", function()
    local s = meeple.new("citadels", { seed = 2, players = 4, variant = util.root .. "/scripts/variants/citadels/taxes.lua" })
    for _ = 1, 20 do s:play(s:legal()[1]) end
    assert.is_nil(secret_of_others(s:history(2), 2))
    assert.truthy(secret_of_others(s:history(), 0))
    local p, a = s:to_move(), s:legal()[1]
    assert.equal(a, s:public_text(a, p))
    assert.is_true(s:hidden_information())
  end)

  it("meeple replay --seat shows another seat's pick as secret", function()
    local log = os.tmpname()
    local out, code = util.run("match citadels random random random random --seating random --games 1 --seed 4 --log " .. quote(log))
    assert.equal(0, code, out)
    out, code = util.run("replay " .. quote(log) .. " --seat 2 </dev/null")
    assert.equal(0, code, out)
    local others, mine = 0, 0
    for by, text in out:gmatch("== decision %d+: P(%d) %([^)]*%) ([^\n]*)") do
      if by ~= "2" and text:match("^choose ") then others = others + 1 end
      if by == "2" and text:match("^choose ") then mine = mine + 1 end
    end
    assert.equal(0, others, out)
    assert.is_true(mine > 0, out)
    assert.truthy(out:find("(chooses a character)", 1, true), out)
    out = util.run("replay " .. quote(log) .. " </dev/null")
    assert.truthy(out:find("== decision 1: P%d %([^)]*%) choose "), out) -- the whole table sees it all
    os.remove(log)
  end)

  it("a Lua bot's ctx.history shows its own decisions and hides the others' secret picks", function()
    local bot = util.write([[
local mine, begun = {}, false
return { name = "spy", choose = function(view, legal, ctx)
  if getmetatable(ctx) ~= false then error("ctx's metatable is within reach") end
  local k = 0
  for _, h in ipairs(ctx.history) do
    if h.player == ctx.seat then
      k = k + 1
      if not begun then mine[k] = h.action end -- begun mid-game (after an undo): the past is given
      if h.action ~= mine[k] then error("own decision " .. k .. " shows as " .. h.action) end
    elseif h.action:match("^choose ") or h.action:match("^bury ") or h.action:match("^keep ") then
      error("saw " .. h.action)
    end
  end
  if k ~= #mine then error(("history holds %d of my %d decisions"):format(k, #mine)) end
  begun = true
  mine[#mine + 1] = legal[1]
  return legal[1]
end }
]], ".lua")
    local log = os.tmpname()
    local out, code = util.run("match citadels " .. quote(bot) .. " random random random --seating rotate --games 4 --seed 4 --log " .. quote(log))
    assert.equal(0, code, out)
    local text = util.read(log)
    assert.truthy(text:find('"forfeits":[]', 1, true), text)
    assert.is_nil(text:find('"forfeits":[{', 1, true), text)
    -- and at `meeple play`, where an undo takes decisions back (a bot that saw them starts afresh)
    local input = util.write(("1\n"):rep(40) .. "undo\n" .. ("1\n"):rep(3000))
    out, code = util.run("play citadels --players 4 --seed 2 --bot " .. quote(bot) .. " <" .. quote(input))
    assert.equal(0, code, out)
    assert.truthy(out:match("\nscores: "), out)
    assert.is_nil(out:find("bot 'spy'", 1, true), out)
    os.remove(input)
    os.remove(bot)
    os.remove(log)
  end)

  it("an external bot's seen shows its own decisions and hides the others' secret picks", function()
    local _, has_python = sh("command -v python3 >/dev/null 2>&1")
    assert.equal(0, has_python, "this test needs python3")
    local bot = util.write([[#!/usr/bin/env python3
import json, sys
mine, seen, seat = [], [], 0
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        mine, seen, seat = [], [], msg["seat"]
    elif msg["type"] == "decide":
        seen += msg["seen"]
        own = [h["action"] for h in seen if h["player"] == seat]
        if own != mine:
            sys.exit("own decisions %r shown as %r" % (mine, own))
        for h in seen:
            if h["player"] != seat and h["action"].split(" ")[0] in ("choose", "bury", "keep"):
                sys.exit("saw " + h["action"])
        mine.append(msg["legal"][0])
        print(msg["legal"][0], flush=True)
    elif msg["type"] == "game_over":
        print("ready", flush=True)
]])
    sh("chmod +x " .. quote(bot))
    local log = os.tmpname()
    local out, code = sh("env -u LD_PRELOAD " .. quote(util.exe) .. " match citadels " .. quote(bot) ..
      " random random random --seating rotate --games 4 --seed 4 --ms 5000 --log " .. quote(log) .. " 2>&1")
    assert.equal(0, code, out)
    local text = util.read(log)
    assert.is_nil(text:find('"forfeits":[{', 1, true), text)
    os.remove(bot)
    os.remove(log)
  end)
end)

describe("canonical actions only", function()
  it("check and play refuse a form legal() never lists, naming the canonical text", function()
    local s = meeple.new("bohnanza", { seed = 1 })
    assert.truthy(s:check("plant 1"))
    for _, form in ipairs { "plant 01", "plant +1", "plant\t1", "plant  1", "plant 1 ", " plant 1" } do
      local ok, why = s:check(form)
      assert.is_false(ok, form)
      assert.truthy(why:find("did you mean 'plant 1'?", 1, true), why)
      assert.is_nil(s:try(form))
      assert.has_error(function() s:play(form) end)
    end
    assert.equal(0, #s:history())
  end)

  it("every game refuses a misspelt legal action with the canonical text", function()
    for _, game in ipairs(meeple.games()) do
      local s = meeple.new(game, { seed = 3 })
      local a = s:legal()[1]
      local ok, why = s:check(a .. " ")
      assert.is_false(ok, game)
      assert.truthy(why:find("did you mean '" .. a .. "'?", 1, true), why)
    end
  end)

  it("the shell's abbreviations and loose spacing still play (a shell feature)", function()
    local input = util.write("  TRAV   med \nquit\n")
    local out = util.run("play babel --seed 1 <" .. quote(input))
    os.remove(input)
    assert.truthy(out:find("P1: travel medes", 1, true), out)
  end)
end)
