-- bots_sandbox_spec.lua — hostile bots: every escape and abuse ends in a forfeit with the right reason,
-- logged, while the host plays on and exits normally.
local util = require "spec_util"
local exe, root, quote, write, read = util.exe, util.root, util.quote, util.write, util.read

-- Plays `games` games of babel (default 2: one deal) between the bot (seat 1 first) and random, with
-- `limits` (extra arguments). Returns the log's first line, the output and the exit status.
local function against_random(source, limits, games)
  local bot, log = write(source), os.tmpname()
  local p = assert(io.popen(("%s match babel %s %s --games %d --log %s %s 2>&1"):format(quote(exe), quote(bot),
    quote(root .. "/bots/random.lua"), games or 2, quote(log), limits or "")))
  local out = p:read("a")
  local _, _, code = p:close()
  local line = read(log):match("[^\n]*")
  os.remove(bot)
  os.remove(log)
  return line, out, code
end

-- The forfeit reason of game 1's seat 1, from its log line ("" when none).
local function reason_of(line)
  local seat, reason = line:match('"forfeits":%[{"seat":(%d+),"reason":"(.-)"}%]')
  return seat == "1" and reason or ""
end

-- Each case: a bot's source, the limits it runs under, and what the forfeit must say.
local cases = {
  {
    "reading io and os",
    [[return { choose = function(view, legal) return io.open("/etc/passwd"):read("a") end }]],
    "", "global 'io'",
  },
  {
    "calling os.execute",
    [[return { choose = function(view, legal) os.execute("touch /tmp/meeple_pwned") return legal[1] end }]],
    "", "global 'os'",
  },
  {
    "loading a binary chunk",
    [[return { choose = function(view, legal)
        assert(load("\27Lua\84\0\25\147\13\10\26\10\4\8\8\120\86\0\0\0\0\0\0\0\0\0\0\0\40\119\64"))
        return legal[1]
      end }]],
    "", "binary chunk",
  },
  {
    "an infinite loop",
    [[return { choose = function() while true do end end }]],
    "--instructions 2000000", "instruction budget",
  },
  {
    "an infinite loop past the clock",
    [[return { choose = function() local x = 0 while true do x = x + 1 end end }]],
    "--ms 100", "time limit",
  },
  {
    "an infinite loop inside pcall, in a loop",
    [[return { choose = function()
        while true do pcall(function() while true do end end) end
      end }]],
    "--instructions 2000000", "instruction budget",
  },
  {
    "a coroutine made at load time and resumed later",
    [[local co = coroutine.create(function() while true do end end)
      return { choose = function(view, legal) coroutine.resume(co) return legal[1] end }]],
    "--instructions 2000000", "instruction budget",
  },
  {
    "a coroutine wrapped in pcall that swallows the trip",
    [[local co = coroutine.wrap(function() while true do pcall(function() while true do end end) end end)
      return { choose = function(view, legal) pcall(co) pcall(co) return legal[1] end }]],
    "--instructions 2000000", "instruction budget",
  },
  {
    "a __gc finalizer loop",
    [[return { choose = function(view, legal)
        setmetatable({}, { __gc = function() while true do end end })
        return legal[1]
      end }]],
    "", "__gc",
  },
  {
    "a __gc slipped into the host's metatables",
    [[return { choose = function(view, legal, ctx)
        local mt = getmetatable(ctx.sample()) or getmetatable("") or getmetatable(ctx.rng)
        mt.__gc = function() while true do end end
        return legal[1]
      end }]],
    "", "index a boolean value",
  },
  {
    "string.rep of gigabytes",
    [[return { choose = function() return string.rep("x", 3 * 2^29) end }]],
    "--memory 64", "memory cap",
  },
  {
    "string.rep of gigabytes, the error caught",
    [[return { choose = function(view, legal)
        for i = 1, 3 do pcall(string.rep, "x", 3 * 2^29) end
        return legal[1]
      end }]],
    "--memory 64", "memory cap",
  },
  {
    "a table filled past the memory cap",
    [[return { choose = function()
        local t = {}
        for i = 1, 1e9 do t[i] = i end
      end }]],
    "--memory 16", "memory cap",
  },
  {
    "game states hoarded past the memory cap",
    [[return { choose = function(view, legal, ctx)
        local t = {}
        while true do t[#t + 1] = ctx.sample() end
      end }]],
    "--memory 16", "memory cap",
  },
  {
    "a pattern that would backtrack for hours",
    [[return { choose = function()
        return (("a"):rep(20000)):find(("a*"):rep(8) .. "b")
      end }]],
    "", "too long",
  },
  {
    "table.move over a trillion slots",
    [[return { choose = function() table.move({}, 1, 1e12, 1, {}) end }]],
    "", "instruction budget",
  },
  {
    "returning an illegal action",
    [[return { choose = function() return "fly to the moon" end }]],
    "", "chose 'fly to the moon', which is not a legal action",
  },
  {
    "returning nothing",
    [[return { choose = function() end }]],
    "", "returned nothing instead of an action",
  },
  {
    "raising an error",
    [[return { choose = function() error("boom") end }]],
    "", "error: .*:1: boom",
  },
  {
    "raising an error in init",
    [[return { init = function() error("no init for me") end, choose = function(v, l) return l[1] end }]],
    "", "error in init: .*no init for me",
  },
  {
    "requiring a file outside bots/lib",
    [[return { choose = function(view, legal)
        local passwd = require("../../etc/passwd")
        return legal[1]
      end }]],
    "", "not a module name",
  },
}

describe("a hostile bot forfeits while the host plays on:", function()
  for _, case in ipairs(cases) do
    local what, source, limits, expected = case[1], case[2], case[3], case[4]
    it(what, function()
      local line, out, code = against_random(source, limits)
      assert.equal(1, code, out) -- its games are forfeits: a match of forfeits exits 1
      local reason = reason_of(line)
      assert.truthy(reason:find(expected) or reason:find(expected, 1, true), reason .. "\n" .. line)
      assert.truthy(line:find('"winners":[2]', 1, true), line)
      assert.truthy(out:find("forfeits: 2", 1, true), out)
    end)
  end

  it("nothing was written by the bot that called os.execute", function()
    assert.is_nil(io.open("/tmp/meeple_pwned"))
  end)

  it("the next game goes on after a forfeit", function()
    local line, out, code = against_random([[return { choose = function() error("boom") end }]], "", 4)
    assert.equal(1, code, out) -- every game forfeited
    assert.truthy(out:find("forfeits: 4", 1, true), out)
    assert.truthy(line:find('"index":1', 1, true))
  end)
end)

-- Plays a bot that raises "sealed" when it found no way in, and checks that it did.
local function assert_sealed(source)
  local line, out, code = against_random(source, "")
  assert.equal(1, code, out) -- it forfeits its games
  assert.truthy(reason_of(line):find("sealed", 1, true), line)
end

describe("the true state is out of a bot's reach", function()
  it("the view is plain data, the sample a copy: nothing leads back to the game", function()
    -- The bot looks everywhere it can; when it finds a way in it says so as its action (not legal,
    -- so the reason shows it), else it raises "sealed".
    assert_sealed [[
      local found
      local function scan(t, path, seen)
        if seen[t] then return end
        seen[t] = true
        if getmetatable(t) then found = found or (path .. " has a metatable") end
        for k, v in next, t do
          local kind = type(v)
          if kind == "userdata" or kind == "function" or kind == "thread" then
            found = found or (path .. "." .. tostring(k) .. " is a " .. kind)
          elseif kind == "table" then
            scan(v, path .. "." .. tostring(k), seen)
          end
        end
      end
      return { choose = function(view, legal, ctx)
        if debug or io or os or package or collectgarbage("count") == nil then return "found: a library" end
        scan(view, "view", {})
        scan(legal, "legal", {})
        if type(view.players[2].hand) ~= "number" then found = found or "the opponent's hand" end
        -- A sample is a fresh state: playing it changes nothing in the game.
        local s = ctx.sample()
        s:play(s:legal()[1])
        if view.turn ~= 1 then found = found or "the view changed" end
        -- Two samples deal the hidden cards differently.
        local a, b = ctx.sample():table(), ctx.sample():table()
        if table.concat(a.people_deck, ",") == table.concat(b.people_deck, ",") then found = found or "no re-deal" end
        if found then return "found: " .. found end
        error("sealed")
      end }
    ]]
  end)

  it("an unread table shows no hidden key, whatever next the bot gets hold of", function()
    -- Unread tables keep their data under hidden keys; every `next` a bot can reach (the global, the
    -- one pairs returns for a plain table or for a view) fills a table before walking it. (A key
    -- that showed could be written over, and the host would read garbage as a view.)
    assert_sealed [[
      local function hidden_key(t, step)
        for k in step, t do
          if type(k) ~= "string" and math.type(k) ~= "integer" then return k end
        end
      end
      return { choose = function(view, legal, ctx)
        local plain_next, view_next = (pairs({})), nil
        local k = hidden_key(view, next)                                -- the unread root
        local players = rawget(view, "players")
        k = k or hidden_key(players, plain_next)                        -- an unread list
        view_next = (pairs(view))
        k = k or hidden_key(rawget(players, 1), view_next)              -- an unread map
        k = k or hidden_key(rawget(rawget(players, 2), "rows"), plain_next)
        if k ~= nil then return "found: a hidden key, " .. tostring(k) end
        error("sealed")
      end }
    ]]
  end)
end)
