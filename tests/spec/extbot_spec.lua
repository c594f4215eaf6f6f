-- extbot_spec.lua — external bots (docs/protocol.md) from the command line: the examples in C and
-- Python play matches against the shipped Lua bots; exec: works in match, compare, bench and play;
-- a program that forfeits lets the match go on and leaves no process behind; its stderr shows under
-- --debug only; a bad command is a bad argument. Fake bots are /bin/sh scripts. The protocol's every
-- fault, the view's schema and zombies are checked in tests/test_extbot.c.
local util = require "spec_util"
local meeple_module = require "meeple"
local quote, lines, sh = util.quote, util.lines, util.sh

-- meeple as util.run runs it, but without LD_PRELOAD: under the sanitizers it holds their runtimes for
-- the stock interpreter, and the bots meeple starts (python3, sh) would inherit them and crawl.
local function meeple(args, stderr_only)
  return sh("env -u LD_PRELOAD " .. quote(util.exe) .. " " .. args .. (stderr_only and " 2>&1 >/dev/null" or " 2>&1"))
end

local root = util.root
local c_bot = util.exe:match("^(.*)/[^/]*$") .. "/examples/first_bot"
local py_random = root .. "/examples/python/random_bot.py"
local py_greedy = root .. "/examples/python/babel_greedy.py"

local function python()
  local _, code = sh("command -v python3 >/dev/null 2>&1")
  assert(code == 0, "the Python examples need python3 on PATH")
end

-- A fake bot: /bin/sh running `body` for each line it reads (in $l); records its pid in `pids`.
local function fake(body, pids)
  return util.write("#!/bin/sh\nread -r pid _ < /proc/self/stat; echo $pid >> " .. quote(pids) .. "\nwhile IFS= read -r l; do\n" .. body .. "\ndone\n")
end

-- Plays a match with a log; returns the log's lines and the output. The bots' time is ample (--ms 5000):
-- a loaded machine can take seconds to start an interpreter, and these bots answer at once anyway. The
-- exit status expected: 0, or 1 when every game is a forfeit.
local function match(args, status)
  local log = os.tmpname()
  local out, code = meeple("match " .. args .. " --ms 5000 --log " .. quote(log))
  assert.equal(status or 0, code, out)
  local l = lines(util.read(log))
  os.remove(log)
  return l, out
end

-- Games won by the bot seated as `name`.
local function wins(log, name)
  local n = 0
  for _, line in ipairs(log) do
    local seats, winners = line:match('"seats":%[(.-)%]'), line:match('"winners":%[(.-)%]')
    local i = 0
    for seat in seats:gmatch('"([^"]+)"') do
      i = i + 1
      if seat == name and winners == tostring(i) then n = n + 1 end
    end
  end
  return n
end

local function no_forfeits(log, games)
  assert.equal(games, #log)
  for _, line in ipairs(log) do assert.truthy(line:find('"forfeits":[]', 1, true), line) end
end

describe("the example bots", function()
  it("C: first_bot plays Babel against random and greedy_babel, and Citadels against random", function()
    no_forfeits(match("babel exec:" .. quote(c_bot) .. " random --games 20 --seed 1"), 20)
    no_forfeits(match("babel greedy_babel " .. quote(c_bot) .. " --games 10 --seed 2"), 10)
    no_forfeits(match("citadels " .. quote(c_bot) .. " random random --games 6 --seed 3"), 6)
  end)

  it("Python: random_bot.py plays Babel against random", function()
    python()
    no_forfeits(match("babel exec:" .. quote(py_random) .. " random --games 10 --seed 4"), 10)
  end)

  it("Python: babel_greedy.py beats random and plays greedy_babel", function()
    python()
    local log = match("babel " .. quote(py_greedy) .. " random --games 40 --seed 3")
    no_forfeits(log, 40)
    assert.is_true(wins(log, "babel_greedy") >= 28, "won " .. wins(log, "babel_greedy") .. " of 40")
    no_forfeits(match("babel " .. quote(py_greedy) .. " greedy_babel --games 10 --seed 5"), 10)
  end)

  it("the same match with --jobs 1 and --jobs 2, a process per seat and worker", function()
    python()
    local args = "babel " .. quote(py_greedy) .. " 'exec:python3 " .. py_random .. "' --games 12 --seed 6"
    local function untimed(log) -- the decision times are measured: they differ from run to run
      for i, line in ipairs(log) do log[i] = line:gsub(',"ms":%b[],"ms_max":%b[]', "") end
      return log
    end
    local one, two = untimed(match(args .. " --jobs 1")), untimed(match(args .. " --jobs 2"))
    assert.truthy(one[1]:find('"decisions"', 1, true) and not one[1]:find('"ms"', 1, true), one[1])
    assert.same(one, two)
  end)

  it("plays under a variant, through its hooks", function()
    no_forfeits(match("babel exec:" .. quote(c_bot) .. " random --games 6 --seed 7 --variant short"), 6)
  end)
end)

describe("docs/protocol.md", function()
  it("its 20-line Python bot runs as written: meeple match babel exec:./my_bot.py greedy_babel", function()
    python()
    local code_block = util.read(root .. "/docs/protocol.md"):match("```python\n(.-)```")
    assert.truthy(code_block)
    assert.is_true(#lines(code_block) <= 20)
    local dir = os.tmpname()
    os.remove(dir)
    sh("mkdir " .. quote(dir))
    util.write_bytes(dir .. "/my_bot.py", code_block)
    local out, code = sh("cd " .. quote(dir) .. " && chmod +x my_bot.py && env -u LD_PRELOAD " .. quote(util.exe)
                         .. " match babel exec:./my_bot.py greedy_babel --games 4 --seed 1 2>&1")
    sh("rm -r " .. quote(dir))
    assert.equal(0, code, out)
    assert.truthy(out:match("\nmy_bot +4 +%d+ +%d+ +%d+ +0 "), out)
  end)
end)

describe("exec: in the commands", function()
  it("compare, bench and play take an external bot", function()
    local out, code = meeple("compare babel --variant short exec:" .. quote(c_bot) .. " random --games 4 --seed 1")
    assert.equal(0, code, out)
    out, code = meeple("bench babel --games 5 --bot exec:" .. quote(c_bot))
    assert.equal(0, code, out)
    assert.truthy(out:find("bot: first_bot", 1, true), out)
    assert.truthy(out:find("decisions/s: %d"), out)
    out, code = sh("printf 'quit\\n' | env -u LD_PRELOAD " .. quote(util.exe) .. " play babel --seat 2 --seed 1 --bot exec:"
                        .. quote(c_bot) .. " 2>&1")
    assert.truthy(out:find("the game is left unfinished", 1, true), out)
    assert.truthy(out:find("P1 (first_bot)", 1, true) or out:find("first_bot", 1, true), out)
  end)

  it("refuses a bad command as a bad argument, in one line", function()
    for bot, why in pairs {
      ["exec:"] = "'exec:' names no program",
      ["exec:./no-such-bot"] = "the bot program './no-such-bot' is not an executable file",
      ["exec:no-such-bot-anywhere"] = "is not on PATH",
      ["'exec:python3 -c \"x'"] = "quote is not closed",
    } do
      local out, code = meeple("match babel " .. (bot:sub(1, 1) == "'" and bot or quote(bot)) .. " random", true)
      assert.equal(2, code, out)
      assert.truthy(out:find("^meeple match: [^\n]*" .. why:gsub("%p", "%%%0")), out)
      assert.truthy(out:find("\nusage: meeple match"), out)
    end
  end)
end)

describe("a program that forfeits", function()
  it("loses each game with the reason, the match goes on, and no process is left", function()
    local pids = os.tmpname()
    -- pids as the host sees them (/proc/self/stat): the bot runs in a PID namespace of its own
    local bot = fake("case \"$l\" in *'\"decide\"'*) (sh -c 'read -r p _ < /proc/self/stat; echo $p; "
                     .. "exec sleep 1000 >/dev/null' &) | head -n 1 >> " .. quote(pids) .. "; echo fly;; esac", pids)
    sh("chmod +x " .. quote(bot))
    local log, out = match("babel " .. quote(bot) .. " random --games 4 --seed 1", 1)
    assert.equal(4, #log)
    for _, line in ipairs(log) do
      assert.truthy(line:find('"reason":"chose \'fly\', which is not a legal action"', 1, true), line)
    end
    assert.truthy(out:find("chose 'fly', which is not a legal action", 1, true), out)
    local n = 0
    for pid in util.read(pids):gmatch("%d+") do
      n = n + 1
      local _, alive = sh("kill -0 " .. pid .. " 2>/dev/null")
      assert.is_not.equal(0, alive, "process " .. pid .. " is still there")
    end
    assert.equal(8, n) -- four bots, four children
    os.remove(pids)
    os.remove(bot)
  end)

  it("shows its stderr under --debug, prefixed with its name, and nowhere else", function()
    local pids = os.tmpname()
    local bot = fake("case \"$l\" in *'\"decide\"'*) echo 'thinking hard' >&2; echo 1;; esac", pids)
    sh("chmod +x " .. quote(bot))
    local name = bot:match("([^/]*)$"):gsub("%..*", "")
    local out = meeple("match babel " .. quote(bot) .. " random --games 2 --seed 1", true)
    assert.falsy(out:find("thinking hard", 1, true), out)
    out = meeple("--debug match babel " .. quote(bot) .. " random --games 2 --seed 1", true)
    assert.truthy(out:find("[" .. name .. "] thinking hard", 1, true), out)
    os.remove(pids)
    os.remove(bot)
  end)
end)

-- A Python bot that asks for samples (docs/protocol.md, `sample`): at each decision it sends the
-- requests in the file REQUESTS (a JSON list of lines; "$d" in one stands for the decision's number), sleeping PAUSE
-- seconds after each reply, records each reply with the decide's view in RECORD, then plays the first
-- legal action.
local sampler = [[
import json, sys, time
requests, pause, record = json.load(open(sys.argv[1])), float(sys.argv[2]), open(sys.argv[3], "a")
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        record.write(json.dumps({"hello": msg}) + "\n")
    elif msg["type"] == "decide":
        for req in requests:
            print(req.replace("$d", str(msg["decision"])), flush=True)
            reply = json.loads(sys.stdin.readline())
            record.write(json.dumps({"view": msg["view"], "reply": reply}) + "\n")
            record.flush()
            time.sleep(pause)
        print(1, flush=True)
    elif msg["type"] == "game_over":
        print("ready", flush=True)
]]

describe("samples over protocol 1", function()
  local script = util.write(sampler, ".py")

  local function sampling(requests, pause)
    local record = os.tmpname()
    local list = util.write(meeple_module.json.encode(requests), ".json")
    return quote("exec:python3 " .. script .. " " .. list .. " " .. pause .. " " .. record), record
  end

  it("a bot that asks gets K loadable saves, its own seat's view in each, and the caps in hello", function()
    python()
    -- the same request twice at each decision: the same seed gives the same samples
    local bot, record = sampling({ '{"type":"sample","n":3,"seed":$d}', '{"type":"sample","n":3,"seed":$d}' }, 0)
    no_forfeits(match("babel " .. bot .. " random --games 2 --seed 7"), 2)
    local replies, hellos, previous = 0, 0, nil
    for _, line in ipairs(lines(util.read(record))) do
      local r = meeple_module.json.decode(line)
      if r.hello then
        hellos = hellos + 1
        assert.equal(64, r.hello.sample_max)
        assert.equal(4 * 1024 * 1024, r.hello.sample_bytes)
        assert.equal(1024, r.hello.sample_requests)
      else
        replies = replies + 1
        assert.equal("samples", r.reply.type)
        assert.equal(3, #r.reply.saves)
        local seat = r.view.to_move
        local tables = {}
        for i, save in ipairs(r.reply.saves) do
          local x = meeple_module.load(save)
          assert.same(r.view, x:view(seat))          -- its own hand, and all it sees, as it saw them
          tables[i] = x:table()
        end
        assert.is_false(util.deep_equal(tables[1], tables[2]) and util.deep_equal(tables[2], tables[3]))
        if replies % 2 == 0 then assert.same(previous, r.reply.saves) end
        previous = r.reply.saves
      end
    end
    assert.equal(2, hellos)
    assert.is_true(replies > 20, replies .. " replies")
    os.remove(record)
  end)

  it("forfeits a request over a cap, a malformed one, or one too many, with the reason", function()
    python()
    local cases = {
      { { '{"type":"sample","n":65,"seed":1}' }, "asked for samples with n not a whole number from 1 to 64 (sample_max)" },
      { { '{"type":"sample","n":0,"seed":1}' }, "asked for samples with n not a whole number from 1 to 64 (sample_max)" },
      { { '{"type":"sample","seed":1}' }, "asked for samples with n not a whole number from 1 to 64 (sample_max)" },
      { { '{"type":"sample","n":"3","seed":1}' }, "asked for samples with n not a whole number from 1 to 64 (sample_max)" },
      { { '{"type":"sample","n":3,"seed":-1}' }, "asked for samples with seed not a whole number from 0 to 2^53-1" },
      { { '{"type":"sample","n":3,"seed":9007199254740992}' }, "asked for samples with seed not a whole number from 0 to 2^53-1" },
      { { '{"type":"sample","n":3}' }, "asked for samples with seed not a whole number from 0 to 2^53-1" },
      { { '{"type":"peek","n":3,"seed":1}' }, "made a request of type 'peek': the only request is \\\"sample\\\"" },
      { { '{"n":3' }, "answered '{\\\"n\\\":3', which is neither a legal action nor a request" },
    }
    local many = {}
    for i = 1, 1025 do many[i] = '{"type":"sample","n":1,"seed":' .. i .. '}' end
    cases[#cases + 1] = { many, "made more than 1024 sample requests in one decision (sample_requests)" }
    local big = {}
    for i = 1, 40 do big[i] = '{"type":"sample","n":64,"seed":' .. i .. '}' end
    cases[#cases + 1] = { big, "asked for more than 4194304 bytes of samples in one decision (sample_bytes)" }
    for _, case in ipairs(cases) do
      local bot, record = sampling(case[1], 0)
      local log = match("babel " .. bot .. " random --games 2 --seed 1", 1)
      for _, line in ipairs(log) do
        assert.truthy(line:find('"reason":"' .. case[2], 1, true), line)
      end
      os.remove(record)
    end
  end)

  it("counts the requests against the decision's time: the deadline does not move", function()
    python()
    -- each request is answered at once, but the bot pauses 0.2 s after each: three take 0.6 s > 0.4 s
    local bot, record = sampling({ '{"type":"sample","n":1,"seed":1}', '{"type":"sample","n":1,"seed":2}',
                                   '{"type":"sample","n":1,"seed":3}' }, 0.2)
    local log = os.tmpname()
    local out, code = meeple("match babel " .. bot .. " random --games 2 --seed 1 --ms 400 --log " .. quote(log))
    assert.equal(1, code, out)
    for _, line in ipairs(lines(util.read(log))) do
      assert.truthy(line:find('"reason":"did not answer decision 1 within the time limit', 1, true)
                    or line:find('"reason":"exceeded the time limit (400 ms per decision)', 1, true), line)
    end
    os.remove(log)
    os.remove(record)
  end)
end)
