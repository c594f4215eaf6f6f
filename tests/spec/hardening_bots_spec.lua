-- hardening_bots_spec.lua — external bots cannot outlive or flood the host (issue 29, items 1-5): the
-- hostile programs of tests/hostile leave nothing running after a match, die with meeple when it is
-- killed, are held to an address-space cap, are told apart from a flood, and a signal stops a match
-- within 0.5 s whatever its bots do, the games finished staying logged for --resume.
local util = require "spec_util"
local quote, sh, lines = util.quote, util.sh, util.lines

local root = util.root
local hostile = root .. "/tests/hostile/"
local slow = tonumber(os.getenv("MEEPLE_SLOW") or "1")

-- meeple without LD_PRELOAD (the bots it starts would inherit the sanitizers' runtimes), with the
-- hostile bots' files in the environment.
local function env(pids, mark)
  return "env -u LD_PRELOAD HOSTILE_PIDS=" .. quote(pids) .. " HOSTILE_MARK=" .. quote(mark or pids .. ".mark")
         .. " " .. quote(util.exe) .. " "
end

local function alive(pid)
  local _, code = sh("kill -0 " .. pid .. " 2>/dev/null")
  return code == 0
end

-- The pids the bots recorded, after waiting up to a second for each to be gone.
local function survivors(pids)
  local left = {}
  for pid in util.read(pids):gmatch("%d+") do
    for _ = 1, 100 do
      if not alive(pid) then break end
      sh("sleep 0.01")
    end
    if alive(pid) then
      left[#left + 1] = pid
      sh("kill -9 " .. pid) -- not left behind by the test either
    end
  end
  return left
end

local function temp()
  local name = os.tmpname()
  return name
end

describe("an external bot's processes", function()
  it("do not survive the match: a daemon made with setsid and a double fork is ended with its bot", function()
    local pids = temp()
    local out, code = sh(env(pids) .. "match babel exec:" .. quote(hostile .. "daemon.sh")
                         .. " random --games 2 --seed 1 2>&1")
    assert.equal(0, code, out)
    assert.equal(2, #lines(util.read(pids)), util.read(pids)) -- one bot process (parked between games), one daemon
    assert.same({}, survivors(pids))
    os.remove(pids)
  end)

  it("die with meeple when meeple is killed with SIGKILL", function()
    local pids, mark = temp(), temp()
    os.remove(mark)
    local out = sh(env(pids, mark) .. "match babel exec:" .. quote(hostile .. "hangs.sh")
                   .. " random --seating rotate --games 4 --jobs 1 --ms 60000 >/dev/null 2>&1 & pid=$!; "
                   .. "i=0; while [ ! -e " .. quote(mark) .. " ] && [ $i -lt 3000 ]; do sleep 0.01; i=$((i+1)); done; "
                   .. "kill -9 $pid; wait $pid; echo killed")
    assert.truthy(out:find("killed"), out)
    assert.equal(2, #lines(util.read(pids)), util.read(pids)) -- the bot and its child
    assert.same({}, survivors(pids))
    os.remove(pids)
    os.remove(mark)
  end)

  it("are held to the memory cap (--memory), and the forfeit says so", function()
    local pids = temp()
    local log = temp()
    local out, code = sh(env(pids) .. "match babel exec:" .. quote(hostile .. "hog.py")
                         .. " random --seating random --games 1 --seed 1 --memory 64 --ms 5000 --log " .. quote(log) .. " 2>&1")
    assert.equal(1, code, out)
    assert.truthy(util.read(log):find("its memory cap: 64 MiB of address space a process", 1, true), util.read(log))
    os.remove(pids)
    os.remove(log)
  end)
end)

describe("a program that writes without reading", function()
  it("(exec:yes 1) is forfeited for answering before it was asked, not for a long line", function()
    local pids, log = temp(), temp()
    local out, code = sh(env(pids) .. "match babel 'exec:yes 1' random --seating random --games 1 --seed 1 --log " .. quote(log)
                         .. " 2>&1")
    assert.equal(1, code, out)
    local text = util.read(log)
    assert.truthy(text:find("answered before it was asked", 1, true), text)
    assert.falsy(text:find("longer than", 1, true), text)
    os.remove(pids)
    os.remove(log)
  end)
end)

-- Runs `args` in the background, waits for `ready` (a shell test), sends `signal` and reports meeple's
-- exit status and the milliseconds from the signal to its exit.
local function stop(args, ready, signal)
  local out = sh(args .. " >/dev/null 2>&1 & pid=$!; i=0; while ! " .. ready .. " && [ $i -lt 3000 ]; do "
                 .. "sleep 0.01; i=$((i+1)); done; t0=$(date +%s%N); kill -" .. signal .. " $pid; wait $pid; "
                 .. "rc=$?; t1=$(date +%s%N); echo $rc $(( (t1 - t0) / 1000000 ))")
  local rc, ms = out:match("(%d+) (%d+)")
  return tonumber(rc), tonumber(ms)
end

describe("a signal", function()
  it("stops a match within 0.5 s while an external bot thinks (--ms 8000); --resume plays the rest", function()
    local pids, mark, log = temp(), temp(), temp()
    os.remove(mark)
    local match = env(pids, mark) .. "match babel exec:" .. quote(hostile .. "hangs.sh")
                  .. " random --seating rotate --games 4 --jobs 1 --seed 7 --ms 8000 --log " .. quote(log)
    local rc, ms = stop(match, "[ -e " .. quote(mark) .. " ]", "TERM")
    assert.equal(130, rc)
    assert.is_true(ms < 500 * slow, ms .. " ms")
    assert.equal(1, #lines(util.read(log))) -- the first game, finished; the second is played again
    assert.same({}, survivors(pids))
    local out, code = sh(match .. " --resume 2>&1")
    assert.equal(0, code, out)
    assert.equal(4, #lines(util.read(log)))
    assert.same({}, survivors(pids))
    for _, f in ipairs({pids, mark, log}) do os.remove(f) end
  end)

  it("stops a match within 0.5 s while a Lua bot spins (--ms 5000)", function()
    local pids = temp()
    local rc, ms = stop(env(pids) .. "match babel " .. quote(hostile .. "spins.lua") .. " random --ms 5000",
                        "sleep 0.5", "INT")
    assert.equal(130, rc)
    assert.is_true(ms < 500 * slow, ms .. " ms")
    os.remove(pids)
  end)
end)
