-- play_spec.lua — `meeple play` and the shell with their input piped in: whole games from scripted
-- answers, one-line errors that do not stop anything, what a seat may see, and bad arguments.
local util = require "spec_util"
local exe, root, quote, write = util.exe, util.root, util.quote, util.write

-- Runs meeple with `args` and `input` on its stdin; returns stdout and stderr together, and the status.
-- Leak checks are on under the sanitizers: the shell must free what it takes.
local function meeple(args, input, env)
  local stdin = write(input or "")
  local p = assert(io.popen("env ASAN_OPTIONS=detect_leaks=1 MEEPLE_ROOT=" .. quote(root) .. " " ..
    (env or "") .. " " .. quote(exe) .. " " .. args .. " <" .. stdin .. " 2>&1"))
  local out = p:read("a")
  local _, _, code = p:close()
  os.remove(stdin)
  return out, code
end

local function count(text, pattern)
  local n = 0
  for _ in text:gmatch(pattern) do n = n + 1 end
  return n
end

local function has(text, plain) return text:find(plain, 1, true) ~= nil end

-- The `action` lines of a save.
local function actions_in(file)
  local list = {}
  for a in util.read(file):gmatch("\naction ([^\n]*)") do list[#list + 1] = a end
  return list
end

local function games()
  local out = meeple("games")
  local list = {}
  for name in out:gmatch("(%S+)[^\n]*\n") do list[name] = true end
  return list
end

describe("meeple play from piped answers", function()
  it("plays a game under a variant to the end, the bot choosing among the variant's actions", function()
    local out, code = meeple("play babel --variant caravan --seat 2 --seed 3", ("1\n"):rep(2000))
    assert.equal(0, code, out)
    assert.truthy(has(out, "babel (caravan)"), out)
    assert.truthy(has(out, "P1 random: "), out)
    assert.truthy(out:match("\nwinner: P%d") or out:match("\nshared win: "), out)
    local shell = meeple("repl", ":new babel 5 2 caravan\n:bot random\n:auto\ng:variant()\n")
    assert.truthy(has(shell, "caravan"), shell)
    assert.truthy(shell:match("winner: P%d") or shell:match("shared win"), shell)
    assert.is_nil(shell:find("not a game", 1, true), shell)
  end)

  it("plays Babel to the end, always answering 1, and names the winner", function()
    local out, code = meeple("play babel --seed 3", ("1\n"):rep(2000))
    assert.equal(0, code, out)
    assert.truthy(out:match("scores: P1 %(you%) %d+, P2 %d+"), out)
    assert.truthy(out:match("\nwinner: P%d") or out:match("\nshared win: "), out)
    assert.truthy(has(out, "P2 random: "))
    assert.is_nil(out:find("\27[", 1, true)) -- not a terminal: no colours
  end)

  it("never shows the human the other seat's hand", function()
    local out = meeple("play babel --seed 4", ("1\n"):rep(2000))
    assert.truthy(out:match("\nP2  [^\n]*hand %d+ cards"), out)
    assert.is_nil(out:match("\nP2  [^\n]*hand %d+: "))
  end)

  it("takes actions, prefixes and numbers; refuses the rest in one line and asks again", function()
    local out, code = meeple("play babel --seed 3",
      "travel zzz\ntr\n99\nundo\ntrav med\nhelp\nundo\n1\nquit\n")
    assert.equal(0, code, out)
    assert.truthy(has(out, "'tr' could be travel medes, travel sumerians"), out)
    assert.truthy(has(out, "there is no action 99"), out)
    assert.truthy(has(out, "nothing of yours to undo yet"), out)
    assert.truthy(has(out, "P1: travel medes"), out)
    assert.truthy(has(out, "take back your last decision"), out)
    assert.truthy(has(out, "left unfinished (seed 3)"), out)
    -- undo took travel medes back: the first board is shown again, hand and all
    assert.equal(2, count(out, "pawn quarry · reserve 1 · hand 8:"))
  end)

  it("plays against the bots given, and stops in one line when a bot breaks", function()
    local bad = write('return { name = "bad", choose = function() return "fly" end }')
    local out, code = meeple("play babel --seed 1 --seat 2 --bot " .. quote(bad), "")
    os.remove(bad)
    assert.equal(1, code, out)
    assert.truthy(has(out, "bot 'bad' chose 'fly', which is not a legal action"), out)
    out, code = meeple("play babel --seed 1 --bot " .. quote(root .. "/bots/random.lua"), "quit\n")
    assert.equal(0, code, out)
    assert.truthy(has(out, "you are P1 · P2 random"), out)
  end)

  it("plays Bohnanza and Rabohnzel to the end, trading through prompts, other hands as sizes", function()
    for _, game in ipairs { "bohnanza", "rabohnzel" } do
      local out, code = meeple("play " .. game .. " --seed 3", ("1\n"):rep(6000))
      assert.equal(0, code, out)
      assert.truthy(out:match("P%d to decide"), out:sub(1, 3000))
      assert.truthy(out:match("\nP2  coins %d+ · hand %d+ cards"), out:sub(1, 3000))
      assert.is_nil(out:match("\nP2  coins %d+ · hand %d+: "), game)
      assert.truthy(out:match("\nwinner: P%d") or out:match("\nshared win: "), out:sub(-2000))
    end
  end)

  it("says Rabohnzel's beanometers are provisional, in play, :new and :help", function()
    local out = meeple("play rabohnzel --seed 1", "quit\n")
    assert.truthy(has(out, "are PROVISIONAL"), out)
    assert.truthy(has(out, "scripts/variants/rabohnzel/beanometers.lua"), out)
    local shell = meeple("repl", ":new rabohnzel 1 4\n:help\n")
    assert.equal(3, count(shell, "are PROVISIONAL"), shell) -- :new, and :help in general and for g
    assert.truthy(has(shell, "Rabohnzel's beanometers are PROVISIONAL"), shell)
    assert.is_nil(meeple("play bohnanza --seed 1", "quit\n"):find("PROVISIONAL", 1, true))
  end)

  it("a harvest's menu entry says what the rules pay for it, a Cape field of 2+ its spell too", function()
    local shell = meeple("repl", 'g = meeple.from_table { game = "rabohnzel", phase = "plant", active = 1, start = 1, '
      .. 'to_move = 1, players = { { hand = { "wise" }, fields = { { "cape", "cape" }, { "sword" } } }, '
      .. '{ hand = 3 }, { hand = 3 } } }\n:legal\n:board\n')
    assert.truthy(has(shell, "harvest 1 (cape ×2: 0 coins + spell)"), shell)
    assert.truthy(has(shell, "field 1  cape ×2  [3:1 4:2 6:3]†  pays 0 now + spell"), shell)
  end)

  it("names the bean each number stands for in the menu; what is typed, echoed and saved stays canonical", function()
    local save = os.tmpname()
    -- seed 3: P1's hand is chili garden blue garden stink; plant 1, plant 2, propose 2, then give 2
    local out, code = meeple("play bohnanza --seed 3 --save " .. quote(save), "1\n1\n1\n4\nquit\n")
    assert.equal(0, code, out)
    assert.truthy(has(out, "  1  plant 1 (chili)\n"), out)
    assert.truthy(has(out, "plant 2 (garden)"), out)
    assert.truthy(has(out, "harvest 1 (chili: 0 coins)"), out)
    assert.truthy(has(out, "give 1 (blue)"), out)
    assert.truthy(has(out, "give 2 (garden)"), out)
    assert.truthy(has(out, "give 3 (stink)"), out)
    assert.truthy(has(out, "\nP1: give 2\n"), out)
    assert.same({ "plant 1", "plant 2", "propose 2", "give 2" }, actions_in(save))
    -- the board under the menu: the field's beanometer and what it pays now
    assert.truthy(has(out, "    field 2  garden  [2:2 3:3]  pays 0 now\n"), out)
    os.remove(save)
    local shell = meeple("repl", ":new bohnanza 3 4\n:play 1\n:legal\n")
    assert.truthy(has(shell, "plant 2 (garden)"), shell)
  end)

  it("paints the beans only on a terminal, and never with NO_COLOR", function()
    -- script(1) gives meeple a terminal for its stdout; the answers still come from a file
    local answers = write("quit\n")
    local function on_terminal(env)
      local p = assert(io.popen("env TERM=xterm MEEPLE_ROOT=" .. quote(root) .. " " .. env .. " script -qec " ..
        quote(quote(exe) .. " play bohnanza --seed 3 <" .. quote(answers)) .. " /dev/null 2>&1"))
      local out = p:read("a")
      p:close()
      return out
    end
    local painted = on_terminal("")
    assert.truthy(has(painted, "\27[31mchili\27[0m \27[32mgarden\27[0m \27[34mblue\27[0m"), painted)
    local plain = on_terminal("NO_COLOR=1")
    assert.truthy(has(plain, "hand 5: chili garden blue garden stink"), plain)
    assert.is_nil(plain:find("\27[", 1, true), plain)
    local piped = meeple("play bohnanza --seed 3", "quit\n")
    assert.truthy(has(piped, "hand 5: chili garden blue garden stink"), piped)
    assert.is_nil(piped:find("\27[", 1, true), piped)
    os.remove(answers)
  end)

  it("hides the other players' secret decisions in Citadels", function()
    if not games().citadels then return end
    local out, code = meeple("play citadels --players 4 --seed 2", ("1\n"):rep(3000))
    assert.equal(0, code, out)
    assert.truthy(has(out, "(chooses a character)"), out)
    assert.is_nil(out:find("\nP%d random: choose "))
    assert.is_nil(out:find("\nP%d random: keep "))
    assert.truthy(out:match("\nscores: "), out)
  end)

  it("refuses bad arguments with one line, the usage and status 2", function()
    for _, args in ipairs({ "play", "play chess", "play babel --variant nosuch", "play babel --seat 3",
      "play babel --seed x", "play babel --bot /nonexistent/bot.lua", "play babel --frob",
      "play babel babel", "repl chess", "repl --frob", "play babel --seed 99999999999999999999",
      "play babel --seed -1", "repl babel --seed 9007199254740992", "repl babel --seed ten",
      "repl babel --variant nope", "repl --variant nope", "repl citadels --players 9",
      "play babel --save" }) do
      local out, code = meeple(args)
      assert.equal(2, code, args)
      assert.equal(2, count(out, "\n"), args .. ": " .. out)
      assert.truthy(out:match("^meeple [a-z]+: [^\n]+\nusage: meeple "), out)
    end
    assert.truthy(has(meeple("play babel --variant nosuch"), "no variant 'nosuch' for babel"))
    assert.truthy(has(meeple("repl babel --variant nosuch"), "meeple repl: no variant 'nosuch' for babel"))
  end)
end)


-- Nothing meeple says names one of its own files and lines (a Lua chunk of its own, or a C function).
local function no_internal_paths(out)
  assert.is_nil(out:find("shell.lua", 1, true), out)
  assert.is_nil(out:find("variant.lua", 1, true), out)
  assert.is_nil(out:find("[C]", 1, true), out)
  assert.is_nil(out:find("traceback", 1, true), out)
end

describe("meeple play with saves", function()
  it("writes the game after every decision with --save, and goes on from it with --load", function()
    local save = os.tmpname()
    local out, code = meeple("play babel --seed 3 --save " .. quote(save), "trav med\n1\n")
    assert.equal(0, code, out)
    assert.truthy(has(out, "no more input: the game is left unfinished (seed 3); saved: meeple play --load " .. save), out)
    local saved = actions_in(save)
    assert.truthy(#saved >= 2, out)
    assert.equal("travel medes", saved[1])
    local resumed
    resumed, code = meeple("play --load " .. quote(save) .. " --save " .. quote(save), "1\nquit\n")
    assert.equal(0, code, resumed)
    assert.truthy(has(resumed, "babel · seed 3 · you are P1 · P2 random"), resumed)
    assert.truthy(has(resumed, "loaded " .. save .. " after " .. #saved .. " decisions"), resumed)
    assert.truthy(#actions_in(save) > #saved, resumed)
    -- the game named must be the save's, and the save fixes the seed and the player count
    out, code = meeple("play citadels --load " .. quote(save))
    assert.equal(2, code, out)
    assert.truthy(has(out, "holds a game of babel, not citadels"), out)
    out, code = meeple("play --load " .. quote(save) .. " --seed 4")
    assert.equal(2, code, out)
    assert.truthy(has(out, "--load takes the seed and players from the save"), out)
    os.remove(save)
  end)

  it("refuses a damaged or missing save in one line, status 2", function()
    local bad = write("meeple save 1\ngame babel\nplayers 2\nseed 3\naction fly away\n")
    local out, code = meeple("play babel --save /nonexistent/dir/game.save")
    assert.equal(2, code, out)
    assert.truthy(out:match("^meeple play: cannot write [^\n]*No such file or directory\nusage: "), out)
    for _, file in ipairs { bad, "/nonexistent/game.save", "/tmp" } do
      local out, code = meeple("play --load " .. quote(file))
      assert.equal(2, code, out)
      assert.equal(1, count(out, "\n"), out) -- the save is at fault, not the command: no usage
      assert.truthy(out:match("^meeple play: cannot [a-z]+ " .. file:gsub("%p", "%%%0")), out)
      no_internal_paths(out)
    end
    os.remove(bad)
  end)

  it("saves and loads at its prompt, save and :load alike", function()
    local a, b = os.tmpname(), os.tmpname()
    os.remove(b)
    local out, code = meeple("play babel --seed 3",
      "trav med\nsave " .. a .. "\nundo\n:save " .. b .. "\n:load " .. a .. "\nload /nonexistent\nsave\nquit\n")
    assert.equal(0, code, out)
    assert.truthy(has(out, "saved after 1 decisions to " .. a), out)
    assert.truthy(has(out, "saved after 0 decisions to " .. b), out)
    assert.truthy(has(out, "loaded " .. a .. " after 1 decisions"), out)
    assert.truthy(has(out, "cannot read /nonexistent: No such file or directory"), out)
    assert.truthy(has(out, "which file? save FILE (or play with --save FILE)"), out)
    assert.same({ "travel medes" }, actions_in(a))
    assert.same({}, actions_in(b))
    -- after the load, the game goes on from the save: the pawn is at the medes
    assert.equal("medes", out:match("\nloaded [^\n]*\n.-\nP1  pawn (%a+)"), out)
    os.remove(a)
    os.remove(b)
  end)

  it("takes back the bots' decisions with the human's undo, and neither says nor keeps them", function()
    if not games().citadels then return end
    local save = os.tmpname()
    local out, code = meeple("play citadels --players 4 --seed 2 --save " .. quote(save), "1\nundo\nquit\n")
    assert.equal(0, code, out)
    local before_undo, after_undo = out:match("^(.*)P1> undo\n(.*)$")
    assert.truthy(before_undo, out)
    assert.equal(3, count(before_undo, "\nP%d random: %(chooses a character%)"), out)
    assert.truthy(has(after_undo, "took back your last decision and the 3 after it"), after_undo)
    assert.is_nil(after_undo:find("\nP%d random"), after_undo)
    assert.same({}, actions_in(save)) -- the save went back too: the bots' secret choices are not in it
    -- when play resumes, the bots decide again
    out = meeple("play citadels --players 4 --seed 2", "1\nundo\n2\nquit\n")
    assert.equal(6, count(out, "\nP%d random: %(chooses a character%)"), out)
    os.remove(save)
  end)

  it("refuses an action whose variant hook fails, in one line naming the file and hook, and goes on", function()
    local variant = write([[
return {
  game = "babel", name = "boom",
  hooks = {
    apply = function(s, a)
      if a == "travel medes" then error("no medes today") end
    end,
  },
}
]], ".lua")
    local save = os.tmpname()
    local out, code = meeple("play babel --seed 3 --save " .. quote(save) .. " --variant " .. quote(variant),
      "travel medes\ntrav sum\nquit\n")
    assert.equal(0, code, out)
    assert.equal(1, count(out, "variant boom, hook apply: " .. variant:gsub("%p", "%%%0") .. ":5: no medes today\n"), out)
    assert.truthy(has(out, "P1: travel sumerians"), out)
    no_internal_paths(out)
    -- the save names the variant by its file: --load runs that file only when it is named again
    out, code = meeple("play --load " .. quote(save))
    assert.equal(2, code, out)
    assert.truthy(has(out, "to run that file, name it: --variant " .. variant), out)
    out, code = meeple("play --load " .. quote(save) .. " --variant " .. quote(variant), "quit\n")
    assert.equal(0, code, out)
    assert.truthy(has(out, "after 1 decisions"), out)
    os.remove(variant)
    os.remove(save)
  end)

  it("stops in one line when a bot raises, keeping the save", function()
    local bot = write('return { name = "broken", choose = function(s) local t = nil; return t.x end }', ".lua")
    local save = os.tmpname()
    local out, code = meeple("play babel --seed 1 --seat 2 --save " .. quote(save) .. " --bot " .. quote(bot), "")
    assert.equal(1, code, out)
    assert.truthy(out:match("bot 'broken' [^\n]*attempt to index a nil value"), out)
    assert.truthy(has(out, "the game stops here: the game is left unfinished (seed 1); saved"), out)
    no_internal_paths(out)
    assert.truthy(has(util.read(save), "seed 1\n"))
    os.remove(bot)
    os.remove(save)
  end)

  it("shows the cost beside an action that names a district", function()
    if not games().citadels then return end
    local out = meeple("play citadels --players 4 --seed 2", ("1\n"):rep(3000))
    assert.truthy(out:match("%d  build %a+ %(%d%)"), out:sub(1, 4000))
  end)
end)

describe("the shell with piped input", function()
  it("runs commands and Lua, prints values, and says each mistake in one line", function()
    local out, code = meeple("repl", table.concat({
      ":new babel 1", ":play trav", ":play fly", ":play 42", ":frob", ":load /nonexistent/save",
      "return 6 *", "7", "nosuch()", "{ 1, 'two', x = { y = true } }", "#g:legal()",
      ":undo 5", ":view 3", ":new chess", "print('done')", "",
    }, "\n"))
    assert.equal(0, code, out)
    assert.truthy(has(out, "'trav' could be travel medes, travel sumerians"), out)
    assert.truthy(has(out, "unknown action 'fly'"), out)
    assert.truthy(has(out, "there is no action 42"), out)
    assert.truthy(has(out, "unknown command ':frob'"), out)
    assert.truthy(has(out, "cannot read /nonexistent/save"), out)
    assert.truthy(has(out, "\n42\n"), out)
    assert.truthy(has(out, "attempt to call a nil value (global 'nosuch')"), out)
    assert.truthy(has(out, '{ 1, "two", x = { y = true } }'), out)
    assert.truthy(has(out, "\n5\n"), out)
    assert.truthy(has(out, "took back 0 decisions"), out)
    assert.truthy(has(out, "the player must be 1..2, got 3"), out)
    assert.truthy(has(out, "unknown game 'chess'"), out)
    assert.truthy(out:match("\ndone\n$"), out)
    assert.is_nil(out:find("traceback", 1, true))
    assert.is_nil(out:find("\27[", 1, true))
  end)

  it("saves and loads a game, and lets bots play it out", function()
    local save = os.tmpname()
    local out, code = meeple("repl babel --seed 9", table.concat({
      ":bot", ":bot " .. root .. "/bots/random.lua", ":save " .. save, ":new babel 1",
      ":load " .. save, "'n=' .. #g:history()", ":auto", "g:is_over()", "",
    }, "\n"))
    os.remove(save)
    assert.equal(0, code, out)
    assert.truthy(out:match("P1 %(random%): %a"), out)
    assert.truthy(has(out, "saved babel after 2 decisions"), out)
    assert.truthy(has(out, "n=2"), out)
    assert.truthy(out:match("\nscores: P1 %d+, P2 %d+\n"), out)
    assert.truthy(out:match("\ntrue\n$"), out)
  end)

  it("continues an unfinished expression or statement on the next line", function()
    local out, code = meeple("repl", "1 +\n41\nfunction f()\nreturn 'f' .. 'ine' end\nf()\n(2 *\n")
    assert.equal(0, code, out)
    assert.truthy(out:match("^42\nfine\n"), out)
    assert.truthy(out:match("\nstdin:1: unexpected symbol near <eof>\n$") or out:match("near <eof>\n$"), out)
  end)

  it("says a failing hook or command in one line, never with meeple's own files", function()
    local variant = write('return { game = "babel", name = "boom", hooks = { check = function(s, a) ' ..
      'if a == "travel persians" then local x = nil; return x.y end end } }', ".lua")
    local out, code = meeple("repl", ":new babel 3 2 " .. variant .. "\n:legal\n:play 1\n:load /tmp\ng:view(9)\n")
    assert.equal(0, code, out)
    assert.truthy(has(out, "variant boom, hook check: " .. variant .. ":1: attempt to index a nil value"), out)
    assert.truthy(has(out, "cannot read /tmp: Is a directory"), out)
    assert.truthy(has(out, "\nview: player must be 1..2, got 9\n"), out)
    no_internal_paths(out)
    os.remove(variant)
  end)

  it("starts as the shell with no command at all", function()
    local out, code = meeple("", "'shell' .. 'ed'\n")
    assert.equal(0, code, out)
    assert.equal("shelled\n", out)
  end)

  it("reads render.lua from MEEPLE_ROOT, else uses the built-in one", function()
    local dir = os.tmpname()
    os.remove(dir)
    os.execute("mkdir -p " .. quote(dir .. "/scripts"))
    local f = assert(io.open(dir .. "/scripts/render.lua", "w"))
    f:write('return function(t, opts) return "CUSTOM " .. t.game end\n')
    f:close()
    local input = ":new babel 1\ntostring(g)\n"
    local out = meeple("repl", input, "MEEPLE_ROOT=" .. quote(dir))
    assert.equal(2, count(out, "CUSTOM babel"), out)
    out = meeple("repl", input, "MEEPLE_ROOT=/nonexistent")
    assert.equal(2, count(out, "Babel · turn 1"), out)
    os.execute("rm -r " .. quote(dir))
  end)
end)
