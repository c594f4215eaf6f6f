-- security_variants_spec.lua — a variant file, or a save naming one, written by an attacker: its
-- hooks run under a bot's limits, it cannot touch the caller's libraries, and only regular files the
-- caller names are ever read (issue 13, findings 6 and 7).
local meeple = require "meeple"

local util = require "spec_util"
local quote = util.quote

local function write_variant(body)
  return util.write("return { game = \"babel\", name = \"hostile\", hooks = {" .. body .. "} }\n", ".lua")
end

-- Runs `f`, returning its error message and the seconds it took (it must fail).
local function failing(f)
  local started = os.time()
  local ok, err = pcall(f)
  assert.is_false(ok, "expected an error")
  return tostring(err), os.time() - started
end

-- meeple with `args` under a hard timeout: its output, its exit status and the seconds it took.
local function run_bounded(args, seconds)
  local started = os.time()
  local p = assert(io.popen(("timeout %d %s %s 2>&1"):format(seconds, quote(util.exe), args)))
  local out = p:read("a")
  local _, _, code = p:close()
  return out, code, os.time() - started
end

describe("variant hooks run under limits", function()
  it("an endless loop in a hook stops at the time limit with one line", function()
    local file = write_variant("setup = function(s) while true do end end")
    local err, took = failing(function() meeple.new("babel", { variant = file }) end)
    assert.truthy(err:find("hook setup", 1, true), err)
    assert.truthy(err:find("time limit", 1, true), err)
    assert.is_nil(err:find("\n", 1, true), err)
    assert.is_true(took <= 5, "took " .. took .. " s")
  end)

  it("a pcall inside the hook cannot swallow the limit", function()
    local file = write_variant([[
      actions = function(s, list)
        while true do pcall(function() while true do end end) end
      end]])
    local s = meeple.new("babel", { variant = file, seed = 1 })
    local err, took = failing(function() s:legal() end)
    assert.truthy(err:find("hook actions", 1, true), err)
    assert.truthy(err:find("limit", 1, true), err)
    assert.is_true(took <= 5, "took " .. took .. " s")
    -- the state and the caller go on
    assert.truthy(#meeple.new("babel", { seed = 1 }):legal() > 0)
  end)

  it("a hook that allocates without end stops at the memory limit", function()
    -- 64 MiB at a time: the second step passes the cap before a byte of it is written. (Writing
    -- memory is slow on a loaded machine: creeping up on the cap in small steps could meet the
    -- time limit first, string.rep being priced by the bytes it writes.)
    local file = write_variant([[
      check = function(s, a)
        local t = {}
        local mib = ("x"):rep(1 << 20)
        for i = 1, math.huge do t[i] = mib:rep(64) end
      end]])
    local s = meeple.new("babel", { variant = file, seed = 1 })
    local before = collectgarbage("count")
    local err = failing(function() s:check("end") end)
    assert.truthy(err:find("memory limit", 1, true), err)
    collectgarbage()
    assert.is_true(collectgarbage("count") - before < 64 * 1024, "the memory came back")
  end)

  it("the variant file's own top-level code is limited too", function()
    local file = util.write("while true do end\n", ".lua")
    local err, took = failing(function() meeple.new("babel", { variant = file }) end)
    assert.truthy(err:find("time limit", 1, true), err)
    assert.is_true(took <= 5, "took " .. took .. " s")
  end)

  it("meeple play under a looping variant ends with one line, not a hang", function()
    local file = write_variant("is_over = function(s) while true do end end")
    local out, code, took = run_bounded("play babel --seed 1 --variant " .. quote(file) .. " </dev/null", 20)
    assert.are_not.equal(0, code)
    assert.are_not.equal(124, code, "timed out: " .. out)
    assert.truthy(out:find("time limit", 1, true), out)
    assert.is_true(took < 15)
  end)

  it("one string call that would run for ages is refused before it runs, with one line", function()
    -- a method call: "s:find" reaches the string metatable, not the variant's own string table
    local file = write_variant([[
      actions = function(s, list) string.rep("a", 3000):find(".-.-.-.-.-b") return list end]])
    local out, code, took = run_bounded("match babel random random --variant " .. quote(file)
      .. " --games 2 --seed 1", 20)
    assert.are_not.equal(124, code, "timed out: " .. out)
    assert.are_not.equal(0, code)
    assert.truthy(out:find("time limit", 1, true), out)
    assert.truthy(out:find("string.find", 1, true), out)
    assert.equal(1, select(2, out:gsub("\n", "")), out)
    assert.is_true(took <= 5, "took " .. took .. " s")
  end)

  it("the variant's own string table is guarded too, and string methods are the caller's after", function()
    local file = write_variant([[
      setup = function(s) string.find(string.rep("a", 3000), ".-.-.-.-.-b") end]])
    local err, took = failing(function() meeple.new("babel", { variant = file }) end)
    assert.truthy(err:find("string.find could take too long", 1, true), err)
    assert.is_true(took <= 5, "took " .. took .. " s")
    assert.equal(string, getmetatable("").__index)
  end)

  it("ordinary string and table calls in a hook work as before", function()
    local file = write_variant([[
      actions = function(s, list)
        local out = {}
        for _, a in ipairs(list) do
          if not a:match("^halve ") then out[#out + 1] = (a:gsub("%s+", " ")) end
        end
        table.sort(out)
        assert(table.concat({ ("%d"):format(#out), string.format("%s", "x") }, ","):find("^%d+,x$"))
        assert(tonumber("12") == 12 and utf8.len("ab") == 2)
        return out
      end]])
    local s = meeple.new("babel", { variant = file, seed = 1 })
    local legal = s:legal()
    assert.truthy(#legal > 0)
    for i = 2, #legal do assert.is_true(legal[i - 1] <= legal[i]) end
    for _, a in ipairs(legal) do assert.is_nil(a:match("^halve ")) end
  end)
end)

describe("a variant's environment is its own", function()
  it("rewriting string, table or math changes nothing for the caller", function()
    local format, insert, floor = string.format, table.insert, math.floor
    local file = util.write([[
      string.format = function() return "pwned" end
      table.insert = nil
      math.floor = nil
      return { game = "babel", name = "rewrite", hooks = {
        setup = function(s) string.rep = nil end } }
    ]], ".lua")
    meeple.new("babel", { variant = file })
    assert.equal(format, string.format)
    assert.equal(insert, table.insert)
    assert.equal(floor, math.floor)
    assert.equal("1", ("%d"):format(1))
    assert.equal("xx", ("x"):rep(2))
  end)

  it("the state a hook gets cannot reach the variant machinery's methods", function()
    local file = write_variant([[
      setup = function(s)
        local m = s.__index
        if type(m) == "table" then m.legal = function() return { "pwned" } end end
      end]])
    meeple.new("babel", { variant = file })
    local other = meeple.new("babel", { variant = "handicap", seed = 1 })
    for _, a in ipairs(other:legal()) do assert.are_not.equal("pwned", a) end
  end)
end)

describe("only regular files are read, and only those the caller names", function()
  it("devices, pipes and directories are refused without being read", function()
    for _, path in ipairs { "/dev/zero", "/dev/stdin", "/tmp" } do
      local err = failing(function() meeple.new("babel", { variant = path .. "/../" .. path:match("[^/]+$") }) end)
      assert.truthy(err:find("not a regular file", 1, true) or err:find("cannot be read", 1, true), err)
    end
    local fifo = os.tmpname()
    os.remove(fifo)
    assert.is_true(os.execute("mkfifo " .. quote(fifo)))
    local err, took = failing(function() meeple.new("babel", { variant = fifo }) end)
    os.remove(fifo)
    assert.truthy(err:find("not a regular file", 1, true), err)
    assert.is_true(took <= 2)
  end)

  it("a file over 1 MiB is refused", function()
    local file = util.write(("-- padding\n"):rep(120000) .. "return {}\n", ".lua")
    local err = failing(function() meeple.new("babel", { variant = file }) end)
    assert.truthy(err:find("larger than 1 MiB", 1, true), err)
  end)

  it("a name with path characters is not looked up", function()
    local err = failing(function() meeple.new("babel", { variant = "..\\x" }) end)
    assert.truthy(err:find("not a variant's name", 1, true), err)
  end)

  it("a save naming its variant by a path is refused unless the caller passes the file", function()
    local file = util.write("return { game = \"babel\", name = \"plain\" }\n", ".lua")
    local s = meeple.new("babel", { variant = file, seed = 3 })
    s:play(s:legal()[1])
    local text = s:save()
    local err = failing(function() meeple.load(text) end)
    assert.truthy(err:find("by a file's path", 1, true), err)
    local again = meeple.load(text, { variant = file })
    assert.equal(s:save(), again:save())
    -- a save pointing at a device never reads it
    err = failing(function() meeple.load((text:gsub("variant [^\n]+", "variant /dev/zero"))) end)
    assert.truthy(err:find("by a file's path", 1, true), err)
  end)

  it("a log naming its variant by a path replays only from the file the user passes", function()
    local file = util.write("return { game = \"babel\", name = \"plain\" }\n", ".lua")
    local log = os.tmpname() .. ".jsonl"
    local out, code = util.run(("match babel random random --games 2 --seed 4 --variant %s --log %s")
      :format(quote(file), quote(log)))
    assert.equal(0, code, out)
    out, code = util.run(("replay %s </dev/null"):format(quote(log)))
    assert.are_not.equal(0, code)
    assert.truthy(out:find("by a file's path", 1, true), out)
    assert.is_nil(out:find("== decision", 1, true), out)
    -- a forged log pointing at a device: refused before anything is opened
    local text = util.read(log):gsub('"variant":"[^"]*"', '"variant":"/dev/zero"')
    local forged = util.write(text, ".jsonl")
    out, code = run_bounded("replay " .. quote(forged) .. " </dev/null", 20)
    assert.are_not.equal(0, code)
    assert.truthy(out:find("by a file's path", 1, true), out)
    out, code = util.run(("replay %s --variant %s </dev/null"):format(quote(log), quote(file)))
    assert.equal(0, code, out)
    assert.truthy(out:find("== decision", 1, true), out)
  end)

  it("a save naming a shipped variant by name loads as before", function()
    local s = meeple.new("babel", { variant = "handicap", seed = 2 })
    s:play(s:legal()[1])
    assert.equal(s:save(), meeple.load(s:save()):save())
  end)
end)

describe("the next ones: a second hostile review", function()
  it("a hook cannot swap the state's inner state for code of its own", function()
    local file = write_variant([[
      after = function(s) s._raw = { is_over = function() while true do end end } end]])
    local s = meeple.new("babel", { variant = file, seed = 1 })
    local err, took = failing(function() s:play(s:legal()[1]) end)
    assert.truthy(err:find("cannot change its state's fields", 1, true), err)
    assert.is_true(took <= 2)
    assert.is_false(s:is_over()) -- the decision was undone; the state is whole
    assert.is_nil(meeple.new("babel", { variant = file, seed = 1 }).__index)
  end)

  it("memory a variant keeps between calls is bounded too", function()
    -- A new MiB a check: each call stays quick (a call of 8 MiB checks ran into the time limit first
    -- under ASan on a loaded machine), and what is kept still outgrows the limit within a few calls.
    local file = util.write([[
      local keep, mib = {}, string.rep("m", 1 << 20)
      return { game = "babel", name = "hoard", hooks = {
        check = function(s, a) keep[#keep + 1] = mib .. #keep end } }
    ]], ".lua")
    local s = meeple.new("babel", { variant = file, seed = 1 })
    local err = failing(function() for _ = 1, 2000 do s:legal() end end)
    assert.truthy(err:find("memory limit", 1, true), err)
  end)

  it("what a variant prints has its control characters escaped", function()
    local file = write_variant([[setup = function(s) print("\27[2J", "fake\nline") end]])
    local out = util.run("run " .. quote(util.write(("require 'meeple'.new('babel', { variant = %q })"):format(file), ".lua")))
    assert.truthy(out:find("\\x1b[2J\tfake\\x0aline", 1, true), out)
    assert.is_nil(out:find("\27", 1, true), out)
  end)

  it("an actions hook must return strings, and is_over's winners must be players", function()
    local bad_list = write_variant("actions = function(s, list) return { {} } end")
    local err = failing(function() meeple.new("babel", { variant = bad_list, seed = 1 }):legal() end)
    assert.truthy(err:find("list of actions", 1, true), err)
    local bad_winners = write_variant("is_over = function(s) return true, { 7 } end")
    err = failing(function() meeple.new("babel", { variant = bad_winners, seed = 1 }):winners() end)
    assert.truthy(err:find("players 1..2", 1, true), err)
  end)

  it("the hooks of one decision share one budget: a slow check per action cannot add up", function()
    local file = write_variant("check = function(s, a) local x = 0 for i = 1, 5e7 do x = x + i end end")
    local s = meeple.new("babel", { variant = file, seed = 1 })
    local started = os.clock()
    local err = failing(function() s:legal() end)
    assert.truthy(err:find("variant hostile, hook check: exceeded the time limit", 1, true), err)
    assert.is_true(os.clock() - started < 3, "took " .. (os.clock() - started) .. " s of CPU")
  end)
end)
