-- shell_spec.lua — the interactive shell at a real terminal: `meeple repl` runs in a tmux pane of its
-- own, keys are sent with send-keys, and the screen is read back with capture-pane until the text a
-- user would see shows up (or a timeout says what was on the screen instead).
local util = require "spec_util"
local exe, root, quote = util.exe, util.root, util.quote

local function run(cmd)
  local p = assert(io.popen(cmd .. " 2>&1"))
  local out = p:read("a")
  p:close()
  return out
end

local function sleep(seconds) os.execute("sleep " .. seconds) end

local function tmpname()
  local name = os.tmpname()
  os.remove(name)
  return name
end

-- A terminal running one command: its own tmux server (a socket file of its own, removed at the end),
-- 100x40, no user config.
-- The sanitizers' preload is left out: tmux is not built with them, meeple links them itself.
local Term = {}
Term.__index = Term

local function term(args, env)
  assert(run("command -v tmux"):find("tmux", 1, true), "these tests need tmux (apt-get install tmux)")
  local t = setmetatable({ socket = tmpname() }, Term)
  if not (env and env.history) then t.history = tmpname() end -- a history of its own, removed at the end
  local vars = { "MEEPLE_ROOT=" .. quote(root), "MEEPLE_HISTORY=" .. quote(env and env.history or t.history) }
  for k, v in pairs(env or {}) do
    if k ~= "history" then vars[#vars + 1] = k .. "=" .. quote(v) end
  end
  -- When meeple ends, the pane says so and stays, so what it printed last can still be read.
  local command = "env -u NO_COLOR " .. table.concat(vars, " ") .. " " .. quote(exe) .. " " .. args ..
    "; echo \"[exit $?]\"; sleep 60"
  t:tmux("new-session -d -x 100 -y 40 " .. quote(command))
  return t
end

function Term:tmux(args)
  return run("env -u LD_PRELOAD tmux -f /dev/null -S " .. quote(self.socket) .. " " .. args)
end

-- Keys by tmux name ("Enter", "Tab", "C-c", "Up"), or text typed as it is.
function Term:key(name) self:tmux("send-keys " .. name) end
function Term:type(text) self:tmux("send-keys -l " .. quote(text)) end
function Term:line(text)
  self:type(text)
  self:key("Enter")
end

-- The screen and its scrollback, wrapped lines joined; with escapes (colours) when asked.
function Term:screen(escapes)
  return self:tmux("capture-pane -p -J -S -300" .. (escapes and " -e" or ""))
end

-- Waits until `text` is on the screen `times` times (default once); fails with the screen if not.
function Term:wait(text, times)
  local screen
  for _ = 1, 300 do
    screen = self:screen()
    local n, at = 0, 1
    while true do
      local s, e = screen:find(text, at, true)
      if not s then break end
      n, at = n + 1, e + 1
    end
    if n >= (times or 1) then return screen end
    sleep(0.05)
  end
  error(("timed out waiting for %q; the screen:\n%s"):format(text, screen), 2)
end

-- Waits for meeple to end; returns its exit status.
function Term:status()
  return tonumber(self:wait("[exit "):match("%[exit (%d+)%]"))
end

function Term:close()
  self:tmux("kill-server")
  os.remove(self.socket)
  if self.history then os.remove(self.history) end
end

local function with_term(args, env, body)
  local t = term(args, env)
  local ok, err = pcall(body, t)
  t:close()
  if not ok then error(err, 0) end
end

describe("the shell at a terminal", function()
  it("completes a method name: g:le<Tab> gives g:legal(", function()
    with_term("repl babel --seed 1", nil, function(t)
      t:wait("> ")
      t:type("g:le")
      t:key("Tab")
      t:wait("> g:legal(")
      t:line(")[1]")
      t:wait("travel ")
    end)
  end)

  it("completes a legal action after :play, word by word", function()
    with_term("repl babel --seed 1", nil, function(t)
      t:wait("> ")
      t:type(":play trav")
      t:key("Tab")
      t:wait("> :play travel ")
      t:type("med")
      t:key("Tab")
      t:wait("> :play travel medes")
      t:key("Enter")
      t:wait("P1: travel medes")
    end)
  end)

  it("reads a function over several lines, and calls it", function()
    with_term("repl", nil, function(t)
      t:wait("> ")
      t:line("function twice(x)")
      t:wait(">> ")
      t:line("  return 2 * x")
      t:line("end")
      t:line("twice(21)")
      t:wait("\n42")
    end)
  end)

  it("continues an unfinished expression on a >> prompt, as a statement", function()
    with_term("repl", nil, function(t)
      t:wait("> ")
      t:line("1 +")
      t:wait(">> ")
      t:line("41")
      t:wait("\n42")
      t:line("(2 *")
      t:wait(">> ", 2)
      t:line("21)")
      t:wait("\n42", 2)
    end)
  end)

  it("leaves internal names out of completion until a _ is typed", function()
    with_term("repl babel --seed 1", nil, function(t)
      t:wait("> ")
      t:type("g:")
      t:key("Tab")
      t:key("Tab")
      local screen = t:wait("legal(")
      assert.truthy(screen:find("to_move(", 1, true), screen)
      assert.is_nil(screen:find("_turn_key", 1, true), screen)
      t:key("C-u")
      t:type("g:_")
      t:key("Tab")
      t:wait("> g:_turn_key(")
    end)
  end)

  it("shows an error in one line and goes on", function()
    with_term("repl", nil, function(t)
      t:wait("> ")
      t:line("nosuch.field = 1")
      local screen = t:wait("attempt to index a nil value (global 'nosuch')")
      assert.is_nil(screen:find("traceback", 1, true))
      t:line("'still' .. ' here'")
      t:wait("\nstill here")
    end)
  end)

  it("plays and takes back with :new, :play and :undo", function()
    with_term("repl", nil, function(t)
      t:wait("> ")
      t:line(":new babel 1")
      t:wait("seed 1 · 2 players")
      t:line(":play trav med")
      t:wait("P1: travel medes")
      t:line("'n=' .. #g:history()")
      t:wait("n=1")
      t:line(":undo")
      t:wait("took back 1 decision")
      t:line("'n=' .. #g:history()")
      t:wait("n=0")
    end)
  end)

  it("keeps its history across a restart", function()
    local history = tmpname()
    with_term("repl", { history = history }, function(t)
      t:wait("> ")
      t:line("'remember' .. 'ed'")
      t:wait("\nremembered")
      t:key("C-d")
      assert.equal(0, t:status())
    end)
    with_term("repl", { history = history }, function(t)
      t:wait("> ")
      t:key("Up")
      t:wait("> 'remember' .. 'ed'")
    end)
    os.remove(history)
  end)

  it("paints cards on a terminal, and not with NO_COLOR", function()
    with_term("repl babel --seed 1", nil, function(t)
      t:wait("temple deck")
      assert.truthy(t:screen(true):find("\27[", 1, true))
    end)
    with_term("repl babel --seed 1", { NO_COLOR = "1" }, function(t)
      t:wait("temple deck")
      assert.is_nil(t:screen(true):find("\27[", 1, true))
    end)
  end)

  it("stops a running chunk on Ctrl-C and stays", function()
    with_term("repl", nil, function(t)
      t:wait("> ")
      t:line("while true do end")
      sleep(0.2)
      t:key("C-c")
      t:wait("interrupted")
      t:line("'after' .. 'wards'")
      t:wait("\nafterwards")
    end)
  end)

  it("plays a game with meeple play: completion, prefixes, undo, quit", function()
    with_term("play babel --seed 3", nil, function(t)
      t:wait("P1> ")
      t:type("tr")
      t:key("Tab")
      t:wait("P1> travel ")
      t:line("med")
      t:wait("P1: travel medes")
      t:line("undo")
      t:wait("P1> ", 3)
      t:line("quit")
      t:wait("left unfinished")
      assert.equal(0, t:status())
    end)
  end)

  it("stops meeple play on Ctrl-C with status 130, the game saved for --load", function()
    local save = tmpname()
    with_term("play babel --seed 3 --save " .. quote(save), nil, function(t)
      t:wait("P1> ")
      t:line("trav med")
      t:wait("P1: travel medes")
      t:wait("P1> ", 2)
      t:key("C-c")
      t:wait("interrupted: the game is left unfinished (seed 3); saved: meeple play --load " .. save)
      assert.equal(130, t:status())
    end)
    -- while a bot thinks (each of its decisions a busy quarter second or so), before any prompt of ours
    local bot = tmpname() .. ".lua"
    local f = assert(io.open(bot, "w"))
    f:write('return { name = "slow", choose = function(view, legal) local x = 0; ' ..
      'for i = 1, 2e7 do x = x + i end; return legal[1] end }')
    f:close()
    with_term("play babel --seed 3 --seat 2 --bot " .. quote(bot) .. " --save " .. quote(save .. "2"), nil,
      function(t)
        t:wait("you are P2 · P1 slow")
        sleep(0.3)
        t:key("C-c")
        local screen = t:wait("interrupted: the game is left unfinished (seed 3); saved")
        assert.is_nil(screen:find("P2> ", 1, true), screen)
        assert.equal(130, t:status())
      end)
    os.remove(bot)
    os.remove(save .. "2")
    with_term("play --load " .. quote(save), nil, function(t)
      t:wait("loaded " .. save .. " after 1 decisions")
      t:wait("P1  pawn medes")
      t:key("C-d")
      assert.equal(0, t:status())
    end)
    os.remove(save)
  end)
end)
