-- security_bots_spec.lua — issue 13: the limits hold where Lua runs bot code with its hook off
-- (message handlers, __close after a trip), C library calls that could outlive the clock, and
-- memory a bot makes the host hold. Every bot here would hang the host, or run for seconds past
-- its limit, without the sandbox's guards; each run is bounded by `timeout` and timed.
local util = require "spec_util"
local exe, root, quote, write, read = util.exe, util.root, util.quote, util.write, util.read

-- Under the sanitizers (MEEPLE_SLOW, a factor) everything runs slower: the slack past a limit and the
-- timeouts grow by that factor. The limits do not: each test's work is sized to overrun them.
local SLOW = tonumber(os.getenv("MEEPLE_SLOW")) or 1
local TIMEOUT = 20 * SLOW -- seconds: a run this long means a guard failed

local function now_ms()
  local p = assert(io.popen("date +%s%N"))
  local ns = tonumber(p:read("l"))
  p:close()
  return ns / 1e6
end

-- Plays one game of babel, the bot against random (one game: random seating, so its seat is drawn),
-- under `limits`. Returns the bot's forfeit reason ("" when none, or when the run was killed), the
-- whole log line, the output, the exit status and how long the run took (ms).
local function play(source, limits)
  local bot, log = write(source), os.tmpname()
  local started = now_ms()
  local p = assert(io.popen(("timeout -s KILL %d %s match babel %s %s --games 1 --seating random --log %s %s 2>&1"):format(
    TIMEOUT, quote(exe), quote(bot), quote(root .. "/bots/random.lua"), quote(log), limits)))
  local out = p:read("a")
  local _, _, code = p:close()
  local took = now_ms() - started
  local line = read(log):match("[^\n]*") or ""
  os.remove(bot)
  os.remove(log)
  local seat, reason = line:match('"forfeits":%[{"seat":(%d+),"reason":"(.-)"}%]')
  local first = line:match('"seats":%["([^"]*)"')
  local bot_seat = first and (first == "random" and "2" or "1")
  return seat == bot_seat and reason or "", line, out, code, took
end

-- The bot forfeits within `slack` ms of its limit (process start and the game included) with a
-- reason matching every pattern given (plain text).
local function assert_forfeits(source, limits, ms, slack, ...)
  local reason, line, out, code, took = play(source, limits)
  slack = slack * SLOW
  assert.equal(1, code, out) -- its one game is a forfeit: a match of forfeits exits 1
  assert.truthy(took < ms + slack, ("took %.0f ms under a %d ms limit: %s"):format(took, ms, line))
  for _, expected in ipairs { ... } do
    assert.truthy(reason:find(expected, 1, true), ("'%s' lacks '%s'"):format(reason, expected))
  end
  assert.falsy(reason:find("\n", 1, true), "one line")
  return reason, took
end

-- A bot whose choose runs `body` (Lua statements) and then answers legally.
local function bot(body)
  return "return { choose = function(view, legal, ctx)\n" .. body .. "\nreturn legal[1] end }"
end

local CLOSE_LOOP = "local loop <close> = setmetatable({}, { __close = function() while true do end end })"

describe("finding 1: limits hold in message handlers and __close", function()
  it("an endless xpcall handler after the clock trips", function()
    assert_forfeits(bot "xpcall(function() while true do end end, function() while true do end end)",
      "--ms 100", 100, 3000, "time limit")
  end)

  it("an endless xpcall handler after the instruction budget trips", function()
    assert_forfeits(bot "xpcall(function() while true do end end, function() while true do end end)",
      "--instructions 2000000", 1000, 3000, "instruction budget")
  end)

  it("xpcall handlers nested in xpcall handlers", function()
    assert_forfeits(bot [[
      local function loop() while true do end end
      xpcall(loop, function() xpcall(loop, loop) while true do end end)]],
      "--ms 100", 100, 3000, "time limit")
  end)

  it("an endless __close run by coroutine.close after a trip inside the coroutine", function()
    assert_forfeits(bot([[
      local co = coroutine.create(function() ]] .. CLOSE_LOOP .. [[ while true do end end)
      coroutine.resume(co)
      coroutine.close(co)]]), "--ms 100", 100, 3000, "time limit")
  end)

  it("an endless __close run by a wrapped coroutine's unwinding after a trip", function()
    assert_forfeits(bot([[
      local f = coroutine.wrap(function() ]] .. CLOSE_LOOP .. [[ while true do end end)
      pcall(f)]]), "--ms 100", 100, 3000, "time limit")
  end)

  it("an endless __close unwound by pcall after a trip", function()
    assert_forfeits(bot("pcall(function() " .. CLOSE_LOOP .. " while true do end end)"),
      "--ms 100", 100, 3000, "time limit")
  end)

  it("an error object whose __tostring and __index loop", function()
    local reason = assert_forfeits(bot [[
      local loop = function() while true do end end
      local e = setmetatable({}, { __tostring = loop, __index = loop, __concat = loop })
      local ok, got = xpcall(error, function(x) return x end, e)
      assert(not ok and got == e)
      error(e)]], "--ms 100", 100, 3000)
    assert.equal("error: (an error object that is a table)", reason)
  end)

  -- Metamethods that C functions call (sort's __lt, concat's and insert's __index, gsub's function):
  -- ordinary calls, under the hook.
  for _, case in ipairs {
    { "an endless __lt called by table.sort", [[
      local mt = { __lt = function() while true do end end }
      table.sort({ setmetatable({}, mt), setmetatable({}, mt) })]] },
    { "an endless __index called by table.concat", [[
      table.concat(setmetatable({}, { __index = function() while true do end end }), ",", 1, 2)]] },
    { "an endless __index called by table.insert's shift, after the trip in pcall", [[
      local t = setmetatable({}, { __len = function() return 3 end, __index = function() while true do end end })
      pcall(function() while true do end end)
      table.insert(t, 1, 0)]] },
    { "an endless gsub replacement function in xpcall", [[
      xpcall(string.gsub, function() while true do end end, "abc", "%w", function() while true do end end)]] },
  } do
    it(case[1], function() assert_forfeits(bot(case[2]), "--ms 100", 100, 3000, "time limit") end)
  end

  it("xpcall keeps its contract for a bot that plays fair", function()
    local reason, line = play(bot [[
      local ok, msg = xpcall(function() error("x", 0) end, function(e) return "got " .. e end)
      assert(not ok and msg == "got x", tostring(msg))
      local ok2, a, b = xpcall(function(x, y) return x + y, 7 end, error, 1, 2)
      assert(ok2 and a == 3 and b == 7)
      local ok3, m3 = xpcall(error, function() error("again") end, "first")
      assert(not ok3 and type(m3) == "string", tostring(m3))
      assert(not pcall(xpcall, print))
      local co = coroutine.wrap(function(x) return xpcall(coroutine.yield, function() end, x) end)
      assert(co(5) == 5 and co(6) == true)]], "")
    assert.equal("", reason, line)
    assert.truthy(line:find('"forfeits":[]', 1, true), line)
  end)
end)

describe("finding 2: no C call outlives the clock", function()
  local big = "local s = ('a'):rep(2^20) local p = ('a'):rep(2^12) .. 'b'\n"

  it("string.find with a long literal pattern", function()
    assert_forfeits(bot(big .. "s:find(p)"), "--ms 200", 200, 1500, "time limit", "string.find")
  end)

  it("string.gsub with a long literal pattern", function()
    assert_forfeits(bot(big .. "s:gsub(p, 'x')"), "--ms 200", 200, 1500, "time limit", "string.gsub")
  end)

  it("string.match with a long literal pattern, in pcall", function()
    assert_forfeits(bot(big .. "for i = 1, 10 do pcall(string.match, s, p) end"), "--ms 200", 200, 1500,
      "time limit", "string.match")
  end)

  it("string.gmatch with a long literal pattern", function()
    assert_forfeits(bot(big .. "for w in s:gmatch(p) do end"), "--ms 200", 200, 1500, "time limit",
      "string.gmatch")
  end)

  it("a plain string.find whose needle almost matches everywhere", function()
    assert_forfeits(bot "local s = ('a'):rep(2^13):rep(2^10) s:find(('a'):rep(2^16) .. 'b', 1, true)", "--ms 200",
      200, 1500, "time limit", "string.find")
  end)

  it("table.insert at the front of a table whose __len says 2^40", function()
    assert_forfeits(bot "table.insert(setmetatable({}, { __len = function() return 2^40 end }), 1, 0)",
      "--ms 200", 200, 1500, "table.insert")
  end)

  it("table.remove at the front of a table whose __len says 2^40", function()
    assert_forfeits(bot "table.remove(setmetatable({}, { __len = function() return 2^40 end }), 1)",
      "--ms 200", 200, 1500, "table.remove")
  end)

  it("table.insert at the front of a table of millions, again and again", function()
    assert_forfeits(bot [[
      local t = { string.byte(("x"):rep(900000), 1, -1) }
      while true do table.insert(t, 1, 0) end]], "--ms 1000", 1000, 800, "table.insert")
  end)

  it("string.pack padding a hundred megabytes, byte by byte", function()
    assert_forfeits(bot "string.pack('c100000000', '')", "--ms 200", 200, 1000, "time limit", "string.pack")
  end)

  it("tonumber of a numeral of 32 megabytes", function()
    assert_forfeits(bot "tonumber(('1'):rep(2^15):rep(2^10))", "--ms 500", 500, 1000, "time limit",
      "tonumber")
  end)

  it("load of a text of megabytes", function()
    assert_forfeits(bot "load(('x=1 '):rep(2^22))", "--ms 300", 300, 700, "time limit", "load")
  end)
end)

describe("finding 3: the memory a bot causes is charged to it", function()
  -- Under the sanitizers a leaked text fails the run's exit status (LeakSanitizer); test_bot checks
  -- the same from C, and that histories are charged.
  it("a save refused at the cap is neither leaked nor free", function()
    assert_forfeits(bot [[
      local s = ctx.sample()
      s:playout(1)
      local hog = {}
      pcall(function() while true do hog = { hog } end end)
      for i = 1, 1000 do pcall(s.save, s) end]], "--memory 4", 1000, 3000, "memory cap")
  end)
end)

describe("the guarded functions answer as Lua's own", function()
  -- Run by stock Lua here and by a bot in the sandbox: the two transcripts must be the same.
  local probe = [[
    local out = {}
    local function put(...)
      local t = table.pack(...)
      for i = 1, t.n do out[#out + 1] = tostring(t[i]) end
      out[#out + 1] = "|"
    end
    local t = { 1, 2, 3 }
    table.insert(t, 4) table.insert(t, 1, 0) put(table.concat(t, ","))
    put(table.remove(t)) put(table.remove(t, 1)) put(table.remove({})) put(table.remove({}, 0))
    put(#t, table.concat(t, "-", 2)) put(pcall(table.insert, t, 9, 1)) put(pcall(table.insert, t))
    put((pcall(table.remove, t, 7))) put(pcall(table.insert, t, 1, 2, 3))
    put(table.unpack({ 1, 2, 3 }, 2)) put(table.unpack({ 1, 2, 3 }, -1, 1))
    put(select("#", table.unpack({}, 1, 3))) put(pcall(table.unpack, {}, 1, 1e8))
    put(table.concat({}, "x")) put(table.concat({ 1, "a", 2.5 }, ", ", 1, 3)) put(pcall(table.concat, { 1, {}, 3 }))
    local s = "hello world from lua"
    put(s:find("o", 6)) put(s:find("o", -3)) put(s:find("l+", 1)) put(s:find(".", 1, true))
    put(s:find("", 30)) put(s:find("", 21)) put(s:find("o", -100)) put(s:match("^(%a+) (%a+)", 7))
    put(s:match("(%a+) (%a+)", 7)) put(s:gsub("o", "0", 2)) put(s:gsub("(%a+)", "<%1>"))
    put(s:gsub("%w+", { hello = "HI" })) put(s:gsub("", "-")) put(s:gsub("(l)(l)", "%2%1%%"))
    for w in s:gmatch("%a+") do put(w) end
    for a, b in s:gmatch("(%a)(%a)", 10) do put(a, b) end
    put(s:sub(-3)) put(s:sub(3, -3)) put(s:sub(0)) put(s:sub(50)) put(s:sub(-100, 2))
    put(s:byte(-1)) put(s:byte(1, 3)) put(s:byte(10, 2)) put(s:byte(-100, 2)) put(s:byte())
    put(("ab"):rep(3, ",")) put(("x"):rep(0)) put(("x"):rep(-1)) put(s:upper(), s:lower(), s:reverse())
    put(string.format("%5.2f %s %q %d %x", 3.14159, "a", "b", 7, 255))
    put(utf8.len("h\u{20AC}llo")) put(utf8.codepoint("h\u{20AC}", 1, -1)) put(utf8.offset("h\u{20AC}llo", 3))
    for p, c in utf8.codes("a\u{20AC}") do put(p, c) end
    local parts, k = { "return ", "1 + ", "2" }, 0
    put(load(function() k = k + 1 return parts[k] end)()) put(load("return 6 * 7")())
    put(select("#", load("x ="))) put(load("return 1", "=c", "t")())
    put(string.unpack("i4 z", string.pack("i4 z", 7, "ab"))) put(string.packsize("i4 i8"))
    put(tonumber("0x10"), tonumber(" 12 "), tonumber("z", 36), tonumber(7), tonumber("x"))
    local packed = table.pack(1, nil, 3) put(packed.n, packed[3])
    put(string.char(104, 105), utf8.char(72, 8364, 0x10FFFF) == "H\u{20AC}\u{10FFFF}")
    local tt = { 3, 1, 2 } table.sort(tt) put(table.concat(tt))
    tt = { 3, 1, 2 } table.sort(tt, function(a, b) return a > b end) put(table.concat(tt))
    put(table.concat(table.move({ 1, 2, 3 }, 1, 3, 2), ","))
    local co = coroutine.wrap(function(a) local b = coroutine.yield(a + 1) return b * 2 end)
    put(co(1)) put(co(5)) put(pcall(co))
    local co2 = coroutine.create(function() error("oops", 0) end)
    put(coroutine.resume(co2)) put(coroutine.status(co2)) put(coroutine.close(co2))
    local co3 = coroutine.create(function(...) return select("#", ...), coroutine.yield(...) end)
    put(coroutine.resume(co3, 1, nil, 3)) put(coroutine.resume(co3, "a", "b")) put(coroutine.status(co3))
    put(pcall(coroutine.wrap(function() error("x", 0) end))) put(pcall(coroutine.create))
    put(coroutine.isyieldable(), coroutine.wrap(function() return coroutine.isyieldable() end)())
    put(xpcall(function(...) return ... end, print, 1, nil, 3))
    put(xpcall(error, function(e) return "h:" .. tostring(e) end, "e1", 0))
    put(xpcall(function() local x = nil; return x.y end, function(e) return (e:gsub("^.-:%d+: ", "")) end))
    return table.concat(out, " ")
  ]]

  it("table, string, utf8, load, coroutine and xpcall", function()
    local expected = assert(load(probe, "=probe"))()
    local source = "local function probe()\n" .. probe .. "\nend\n" .. ([[
      return { choose = function(view, legal)
        local got = probe()
        local want, at = %q, 1
        while at <= #got and got:sub(at, at) == want:sub(at, at) do at = at + 1 end
        if got ~= want then error("differs after '" .. got:sub(at - 60, at - 1) .. "': '" .. got:sub(at, at + 60) .. "'", 0) end
        return legal[1]
      end }]]):format(expected)
    local reason, line = play(source, "")
    assert.equal("", reason, line)
    assert.truthy(line:find('"forfeits":[]', 1, true), line)
  end)
end)

describe("the next ones: a second hostile review", function()
  -- The bot builds and closes its chain (0.1 s) in its first decisions, and in every one in the soak.
  local chained_decisions = util.soak_count(3, math.maxinteger)
  it("coroutines closed inside each other thousands deep end in an error, not a crash #soak", function()
    local reason, line, out, code = play("local chains = 0\n" .. bot(([[
      chains = chains + 1
      if chains > %d then return legal[1] end
      local coro = false
      for i = 1, 20000 do
        local previous = coro
        coro = coroutine.create(function()
          local cc <close> = setmetatable({}, { __close = function()
            if previous then coroutine.close(previous) end end })
          coroutine.yield()
        end)
        coroutine.resume(coro)
      end
      coroutine.close(coro) -- the chain is cut 64 closes deep; the errors stay inside the handlers
    ]]):format(chained_decisions)), "--ms 5000")
    assert.equal(0, code, out)
    assert.truthy(line:find('"index":1', 1, true), out)
    assert.equal("", reason, "the bot plays on: " .. reason)
  end)

  it("concatenating long strings stops at the clock, though it is one instruction each", function()
    assert_forfeits(bot [[
      local p = string.rep("x", 1 << 22)
      local a = p .. p .. p .. p
      while true do local c = a .. a end
    ]], "--ms 200", 200, 3000, "time limit")
  end)
end)

describe("bot files", function()
  -- `meeple match` with `file` as seat 1's bot: its output and status, bounded by `timeout`.
  local function match_with(file)
    local p = assert(io.popen(("timeout -s KILL %d %s match babel %s random --games 2 </dev/null 2>&1"):format(
      TIMEOUT, quote(exe), quote(file))))
    local out = p:read("a")
    local _, _, code = p:close()
    return out, code
  end

  it("a device, a pipe or a directory named as a bot is refused unread, in one line", function()
    local fifo = os.tmpname()
    os.remove(fifo)
    assert.is_true(os.execute("mkfifo " .. quote(fifo)))
    for _, file in ipairs { "/dev/zero", fifo, "/tmp" } do
      local out, code = match_with(file)
      assert.equal(2, code, out)
      assert.truthy(out:find("is not a regular file", 1, true), out)
    end
    os.remove(fifo)
  end)

  it("a bot file over 1 MiB is refused before it is compiled", function()
    local file = write(("-- padding\n"):rep(100000) .. "return { choose = function(v, l) return l[1] end }\n")
    local out, code = match_with(file)
    os.remove(file)
    assert.equal(2, code, out)
    assert.truthy(out:find("larger than 1 MiB", 1, true), out)
  end)
end)
