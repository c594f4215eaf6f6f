-- shell.lua — the Lua side of the shell (`meeple repl`) and of `meeple play`: the `:` commands, tab
-- completion, how values are printed, and a human's game against bots.
--
-- repl/shell.c loads this chunk with its native helpers as the argument and calls the functions of the
-- table it returns:
--   start{game, seed, players}              once, before the first prompt
--   command(line)                            a line starting with ":"; returns "quit" to leave
--   complete(line, start, stop)              the words that may replace line:sub(start + 1, stop), or
--                                            "files" for file names
--   show(...)                                prints the values an expression returned
--   play{game, seed, players, seat, bots}    `meeple play`; returns the exit status
-- The shell reads this file from the source tree when it can (README, "The shell"): a change here
-- shows at the next `meeple repl` without recompiling.

local native = ...
local meeple = require "meeple"

local format, concat, sort = string.format, table.concat, table.sort
local render, color = native.render, native.color

local M = {}

local DEFAULT_BOT = "bots/random.lua"

local function say(...) io.write(format(...), "\n") end

-- An error the user caused: the shell shows its message alone, on one line.
local function fail(...) error(format(...), 0) end

local function words(text)
  local t = {}
  for w in text:gmatch("%S+") do t[#t + 1] = w end
  return t
end

-- The message of an error, without the name and line of one of meeple's own chunks at its head
-- ("/usr/share/meeple/repl/shell.lua:669: ", "[C]: "): a user is told what went wrong, not where
-- inside meeple it was noticed. A bot's or a variant's file and line further on are kept: those
-- are the user's to fix.
local INTERNAL = { "^%[C%]: ", "^[^\n:]-shell%.lua:%d+: ", "^[^\n:]-render%.lua:%d+: ", "^[^\n:]-variant%.lua:%d+: " }
local function plain(e)
  local msg, cut = tostring(e), true
  while cut do
    cut = false
    for _, head in ipairs(INTERNAL) do
      local s, e2 = msg:find(head)
      if s then msg, cut = msg:sub(e2 + 1), true end
    end
  end
  return msg
end
M.plain = plain

-- Ctrl-C arrives as the error "interrupted" in whatever Lua code runs then (shell.c): a pcall that
-- catches errors to say them must let that one through, so that it stops what it was meant to.
local function pass_interrupt(e)
  if e == "interrupted" then error(e, 0) end
  return e
end

local function whole(text, what)
  local n = math.tointeger(tonumber(text))
  if not n then fail("%s must be a whole number, got '%s'", what, text) end
  return n
end

-- =====================================================================================================
-- Games, boards and bots
-- =====================================================================================================

local function current()
  local g = rawget(_G, "g")
  if g == nil then
    fail("no game yet: start one with :new GAME (games: %s)", concat(meeple.games(), ", "))
  end
  if not native.is_state(g) then fail("g is a %s, not a game: start one with :new GAME", type(g)) end
  return g
end

-- The board as `who` sees it (everything when nil), in colour on a terminal.
-- The catalogue goes along: bean fields then show their beanometers and what they pay now.
local function board(s, who)
  print(render(who and s:view(who) or s:table(), { color = color, cards = s:cards() }))
end

local function result(s, me)
  local scores, winners = s:scores(), s:winners() or {}
  local function name(p) return format("P%d%s", p, p == me and " (you)" or "") end
  local parts, won = {}, {}
  for p, score in ipairs(scores) do parts[p] = name(p) .. " " .. score end
  for i, p in ipairs(winners) do won[i] = name(p) end
  local verdict = #won == 1 and "winner: " .. won[1] or "shared win: " .. concat(won, ", ")
  return "scores: " .. concat(parts, ", ") .. "\n" .. verdict
end

-- Numbered, in columns down then across.
local function numbered(list)
  if #list == 0 then return print("  (no legal actions: the game is over)") end
  local cells, width = {}, 0
  for i, a in ipairs(list) do
    cells[i] = format("%" .. #tostring(#list) .. "d  %s", i, a)
    width = math.max(width, #cells[i] + 3)
  end
  local cols = math.max(1, math.min(4, math.floor(80 / width)))
  local rows = math.ceil(#list / cols)
  for r = 1, rows do
    local line = {}
    for c = 0, cols - 1 do
      local cell = cells[r + c * rows]
      if cell then line[#line + 1] = cell .. string.rep(" ", width - #cell) end
    end
    print((("  " .. concat(line)):gsub("%s+$", "")))
  end
end

-- What a bean action's number stands for, as `who` sees it in `v` (the view): the bean at a hand
-- position, the bean planted, the field harvested and what it pays, a spell at a row position.
local function bean_note(v, who, a)
  local me = v.players[who] or {}
  local hand = type(me.hand) == "table" and me.hand or {}
  local verb, n = a:match("^(%a+) (%d+)$")
  n = tonumber(n)
  if verb == "give" or verb == "pick" then return hand[n] end
  if verb == "plant" then
    local pending = type(v.pending) == "table" and v.pending.owner == who and v.pending.card
    return pending or hand[1]
  end
  if verb == "harvest" then
    local field = type(me.fields) == "table" and me.fields[n]
    local beans = type(field) == "table" and (field.beans or field) or {}
    local kind = beans[#beans]
    if not kind then return nil end
    -- what it pays: the rules' own figure in the view (harvest), never worked out again here
    local h = type(me.harvest) == "table" and me.harvest[n]
    local coins = type(h) == "table" and math.tointeger(h.pays)
    local what = #beans > 1 and format("%s ×%d", kind, #beans) or kind
    if not coins then return what end
    return format("%s: %d coin%s%s", what, coins, coins == 1 and "" or "s", h.spell and " + spell" or "")
  end
  local seat, at = a:match("^use card_exchange (%d+) (%d+)$")
  if seat then
    local row = (v.players[tonumber(seat)] or {}).spells
    local spell = type(row) == "table" and row[tonumber(at)]
    return type(spell) == "table" and spell.name or nil
  end
  return nil
end

-- The actions as the menu shows them: the canonical text a player types (and logs keep), with what its
-- number or card stands for after it: "give 4 (garden)", "harvest 2 (chili ×3: 1 coin)", "build
-- battlefield (3)" (a card's cost, from the catalogue). `who` is the player deciding.
function M.menu(s, legal, who)
  local cards, out = s:cards(), {}
  local beans = false -- a game of beans (its catalogue says so), whose numbers stand for beans
  for _, card in pairs(cards) do beans = beans or card.kind == "bean" end
  local v = beans and who and s:view(who)
  for i, a in ipairs(legal) do
    local card = cards[a:match("(%S+)$")]
    local note = v and bean_note(v, who, a)
    if note then out[i] = format("%s (%s)", a, note)
    elseif type(card) == "table" and card.cost then out[i] = format("%s (%s)", a, card.cost)
    else out[i] = a end
  end
  return out
end

-- The legal action `text` names: its number in `legal`, the action itself, or the first letters of
-- its words ("trav med" for "travel medes"). nil and one line saying why otherwise.
function M.resolve(s, text, legal)
  legal = legal or s:legal()
  text = text:lower():gsub("^%s+", ""):gsub("%s+$", ""):gsub("%s+", " ")
  if #legal == 0 then return nil, "the game is over" end
  if text == "" then return nil, "which action? (:legal lists them)" end
  local n = math.tointeger(tonumber(text))
  if n then
    if legal[n] then return legal[n] end
    return nil, format("there is no action %d: they are numbered 1..%d", n, #legal)
  end
  for _, a in ipairs(legal) do
    if a == text then return a end
  end
  local typed, found = words(text), {}
  for _, a in ipairs(legal) do
    local full = words(a)
    local fits = #typed <= #full
    for i = 1, #typed do
      fits = fits and full[i]:sub(1, #typed[i]) == typed[i]
    end
    if fits then found[#found + 1] = a end
  end
  if #found == 1 then return found[1] end
  if #found > 1 then
    local shown = {}
    for i = 1, math.min(#found, 8) do shown[i] = found[i] end
    local more = #found > 8 and format(" and %d more", #found - 8) or ""
    return nil, format("'%s' could be %s%s", text, concat(shown, ", "), more)
  end
  -- Nothing fits: the rules say why, and the legal actions of the same kind are named.
  local _, why = s:check(text)
  why = why or format("no legal action matches '%s'", text)
  local kind = {}
  for _, a in ipairs(legal) do
    if a:match("^%S+"):sub(1, #typed[1]) == typed[1] then kind[#kind + 1] = a end
  end
  if #kind == 0 or #kind > 6 then return nil, why end
  return nil, format("%s (legal now: %s)", why, concat(kind, ", "))
end

-- A bot file as given, a name ("random": bots/NAME.lua where meeple looks bots up, docs/api.md), else
-- a path under the source tree, so `bots/random.lua` works from anywhere.
local function find_file(file)
  local found = native.find_bot(file)
  if found then return found end
  -- bots/random.lua and the like from anywhere: a path under the source tree the shell came from
  if native.root and file:sub(1, 1) ~= "/" then
    local path = native.root .. "/" .. file
    local f = io.open(path, "r")
    if f then
      f:close()
      return path
    end
  end
end

-- Stands in for bots/random.lua when the file is nowhere to be found.
local builtin_random = {
  name = function() return "random" end,
  choose = function(_, s)
    local legal = s:legal()
    return legal[math.random(#legal)]
  end,
}

local function load_bot(file, seed, echo)
  local path = find_file(file)
  if not path and file == DEFAULT_BOT then return builtin_random end
  if not path then fail("cannot read the bot file '%s'", file) end
  local bot, why = native.bot(path, seed, echo)
  if not bot then fail("%s", why) end
  return bot
end

-- Plays the bot's choice for the seat to move; returns the seat and the action.
local function bot_move(s, bot)
  local p = s:to_move()
  local action, why = bot:choose(s)
  if not action then fail("%s", why) end
  s:play(action)
  return p, action
end

-- =====================================================================================================
-- The `:` commands
-- =====================================================================================================

local commands, order = {}, {}
local function command(name, args, help, fn)
  commands[name] = { args = args, help = help, fn = fn }
  order[#order + 1] = name
end

local bots = {}                 -- loaded bots by file, so a bot keeps its ctx between decisions
local last_bot = DEFAULT_BOT    -- what :auto uses when given no file

local function shell_bot(file)
  if not bots[file] then bots[file] = load_bot(file, math.random(1, 1 << 30), true) end
  last_bot = file
  return bots[file]
end

-- The beans whose beanometers are provisional in `s` (Rabohnzel's real ones are unknown to this
-- project), sorted; empty for every other game, and once a variant sets them all.
local function provisional_meters(s)
  local names = {}
  for name, card in pairs(s:cards()) do
    if card.provisional then names[#names + 1] = name end
  end
  sort(names)
  return names
end

local function say_provisional(s)
  local names = provisional_meters(s)
  if #names == 0 then return end
  say("note: the beanometers of %s are PROVISIONAL (the real ones are unknown to this project);", concat(names, ", "))
  say("      put the real ones in scripts/variants/%s/beanometers.lua and play --variant beanometers", s:game())
end

-- =====================================================================================================
-- Save files: written whole or not at all, read within a bound (a save may come from anyone)
-- =====================================================================================================

local MAX_SAVE = 16 << 20 -- bytes; a save of the longest game is a few KiB

local function read_save(path)
  local f, why = io.open(path, "rb")
  if not f then fail("cannot read %s", why) end
  local text, err = f:read(MAX_SAVE + 1)
  f:close()
  if not text and err then fail("cannot read %s: %s", path, err) end
  text = text or ""
  if #text > MAX_SAVE then fail("cannot read %s: larger than a save can be (%d MiB)", path, MAX_SAVE >> 20) end
  return text
end

-- meeple.load on a file's text; the reason for a refusal names the file.
local function load_save(path, variant)
  local text = read_save(path)
  local ok, s = pcall(meeple.load, text, { variant = variant })
  if not ok then fail("cannot load %s: %s", path, plain(pass_interrupt(s))) end
  return s, text
end

-- Writes the text beside the file, then renames it over: a Ctrl-C or a full disk never leaves half
-- a save where a whole one was.
local function write_save(path, s)
  local tmp = path .. ".tmp"
  local f, why = io.open(tmp, "wb")
  if not f then fail("cannot write %s", why) end
  local wrote, err = f:write(s:save())
  local closed, cerr = f:close()
  local moved, merr = false, nil
  if wrote and closed then moved, merr = os.rename(tmp, path) end
  if not moved then
    os.remove(tmp)
    fail("cannot write %s: %s", path, err or cerr or merr)
  end
end

local function new_game(name, seed, players, variant)
  local s = meeple.new(name, { seed = seed, players = players, variant = variant })
  rawset(_G, "g", s)
  say("g = a new game of %s%s · seed %d · %d players", name, variant and " (" .. variant .. ")" or "", seed,
    s:num_players())
  say_provisional(s)
  board(s)
end

command("help", "", "this list", function()
  say("A Lua prompt with the meeple module; the current game is g: g:legal(), g:play(\"...\"),")
  say("g:view(1), g:undo() ... (the whole API: docs/api.md). Commands on g:")
  local width = 0
  for _, name in ipairs(order) do width = math.max(width, #name + #commands[name].args + 2) end
  for _, name in ipairs(order) do
    local c = commands[name]
    local head = ":" .. name .. (c.args ~= "" and " " .. c.args or "")
    say("  %-" .. width .. "s  %s", head, c.help)
  end
  say("Tab completes Lua names (g:le -> g:legal()) and, after :play, the legal actions.")
  say("An action may be shortened to the first letters of its words (\"trav med\"). Ctrl-C stops")
  say("what is running, Ctrl-D leaves. Games: %s.", concat(meeple.games(), ", "))
  say("Rabohnzel's beanometers are PROVISIONAL: nobody on this project has found the real ones; each")
  say("bean takes the Bohnanza meter of the nearest card count (:rules rabohnzel says how they were")
  say("chosen). Put the real ones in scripts/variants/rabohnzel/beanometers.lua, then :new rabohnzel 1 4 beanometers.")
  if native.is_state(rawget(_G, "g")) then say_provisional(rawget(_G, "g")) end
end)

command("new", "GAME [SEED] [PLAYERS] [VARIANT]", "a new game in g (a fresh seed unless given)",
  function(arg)
    local a = words(arg)
    if not a[1] then
      fail("which game? :new GAME [SEED] [PLAYERS] [VARIANT]; games: %s", concat(meeple.games(), ", "))
    end
    local seed = a[2] and whole(a[2], "the seed") or math.random(0, 999999)
    local players = a[3] and whole(a[3], "the player count") or nil
    new_game(a[1], seed, players, a[4])
  end)

command("play", "ACTION", "an action, its number in :legal, or its first letters",
  function(arg)
    local s = current()
    local action, why = M.resolve(s, arg)
    if not action then fail("%s", why) end
    local p = s:to_move()
    s:play(action)
    say("P%d: %s", p, action)
    board(s)
    if s:is_over() then print(result(s)) end
  end)

command("undo", "[N]", "take back the last N decisions (1)", function(arg)
  local s = current()
  local n = arg ~= "" and whole(arg, "N") or 1
  local before = #s:history()
  s:undo(math.max(n, 0))
  say("took back %d decision%s", before - #s:history(), before - #s:history() == 1 and "" or "s")
  board(s)
end)

command("legal", "", "the legal actions, numbered", function()
  local s = current()
  if not s:is_over() then say("P%d to move:", s:to_move()) end
  numbered(M.menu(s, s:legal(), s:to_move()))
end)

command("view", "P", "the game as player P sees it", function(arg)
  local s = current()
  if arg == "" then fail("whose view? :view P, P in 1..%d", s:num_players()) end
  local p = whole(arg, "the player")
  if p < 1 or p > s:num_players() then fail("the player must be 1..%d, got %d", s:num_players(), p) end
  board(s, p)
end)

command("board", "", "the whole game, as g prints it", function() board(current()) end)

command("bot", "[FILE]", "a bot makes the current decision (" .. DEFAULT_BOT .. ")", function(arg)
  local s = current()
  if s:is_over() then fail("the game is over: :undo, or :new") end
  local bot = shell_bot(arg ~= "" and arg or DEFAULT_BOT)
  local p, action = bot_move(s, bot)
  say("P%d (%s): %s", p, bot:name(), action)
  board(s)
  if s:is_over() then print(result(s)) end
end)

command("auto", "[FILE...]", "bots play to the end: seat k takes file k (the last :bot)",
  function(arg)
    local s = current()
    local files = words(arg)
    if #files == 0 then files[1] = last_bot end
    local by_seat = {}
    for p = 1, s:num_players() do by_seat[p] = shell_bot(files[(p - 1) % #files + 1]) end
    local moves = 0
    while not s:is_over() do
      local bot = by_seat[s:to_move()]
      local p, action = bot_move(s, bot)
      say("P%d (%s): %s", p, bot:name(), action)
      moves = moves + 1
    end
    board(s)
    print(result(s))
  end)

command("save", "FILE", "write g:save() to FILE", function(arg)
  local s = current()
  if arg == "" then fail("which file? :save FILE") end
  write_save(arg, s)
  say("saved %s after %d decisions to %s", s:game(), #s:history(), arg)
end)

command("load", "FILE", "g from a file written by :save (or s:save())", function(arg)
  if arg == "" then fail("which file? :load FILE") end
  local s = load_save(arg)
  rawset(_G, "g", s)
  say("g = %s after %d decisions, from %s", s:game(), #s:history(), arg)
  board(s)
end)

command("rules", "[GAME]", "the rules of the current game, or of GAME", function(arg)
  native.rules(arg ~= "" and arg or current():game())
end)

command("quit", "", "leave the shell (Ctrl-D too)", function() return "quit" end)

local function traceback(e)
  if native.debug then return debug.traceback(tostring(e), 2) end
  return plain(e)
end

function M.command(line)
  local name, arg = line:match("^%s*:(%a+)%s*(.-)%s*$")
  local c = commands[name or ""]
  if not c then
    native.error(format("unknown command ':%s' (:help lists the commands)", name or line))
    return
  end
  local ok, answer = xpcall(c.fn, traceback, arg)
  if not ok then native.error(answer) end
  return ok and answer or nil
end

-- Returns the reason when the game the command line asked for cannot be made: shell.c refuses
-- the arguments then, and no session starts.
function M.start(o)
  local opts = { seed = o.seed, players = o.players, variant = o.variant }
  local made, why = true, nil
  if o.game then made, why = pcall(meeple.new, o.game, opts) end
  if not made then return plain(why) end
  if native.interactive then
    say("meeple %s · %s · games: %s", native.version, _VERSION, concat(meeple.games(), ", "))
    say(":help lists the commands · Tab completes · Ctrl-D leaves")
  end
  if o.game then new_game(o.game, o.seed, o.players, o.variant) end
end

-- =====================================================================================================
-- Completion
-- =====================================================================================================

local KEYWORDS = { "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "goto",
  "if", "in", "local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while" }
local IS_KEYWORD = {}
for _, k in ipairs(KEYWORDS) do IS_KEYWORD[k] = true end

local function is_name(k)
  return type(k) == "string" and k:match("^[%a_][%w_]*$") ~= nil and not IS_KEYWORD[k]
end

-- The table a value's fields come from beyond its own: its metatable's __index, when a table.
local function index_table(v)
  local mt = getmetatable(v)
  if type(mt) == "table" then
    local index = rawget(mt, "__index")
    if type(index) == "table" then return index end
  end
end

-- The value a dotted path names in the globals, without running any metamethod.
local function lookup(path)
  local v = _G
  for name in path:gmatch("[^.]+") do
    local found = type(v) == "table" and rawget(v, name) or nil
    if found == nil then
      local index = index_table(v)
      found = index and rawget(index, name)
    end
    if found == nil then return nil end
    v = found
  end
  return v
end

-- Internal names (`_turn_key`, a variant state's `_v`) are for meeple itself: offered only once a
-- "_" is typed. _G, _VERSION and _ENV are Lua's own, and stay.
local function is_internal(k) return k:match("^_%l") ~= nil end

-- Names of v's fields (and its __index table's) starting with `partial`, with their values.
local function fields(v, partial, out)
  local sources = { type(v) == "table" and v or nil, index_table(v) }
  local hide = partial:sub(1, 1) ~= "_"
  for i = 1, 2 do
    local t = sources[i]
    if t then
      for k, x in next, t do
        if is_name(k) and k:sub(1, #partial) == partial and out[k] == nil and not (hide and is_internal(k)) then
          out[k] = x
        end
      end
    end
  end
  return out
end

local function sorted(set)
  local list = {}
  for k in pairs(set) do list[#list + 1] = k end
  sort(list)
  return list
end

local function complete_lua(word)
  local path, sep, partial = word:match("^(.-)([.:])([%w_]*)$")
  local found, out = {}, {}
  if not path then
    fields(_G, word, found)
    for _, k in ipairs(KEYWORDS) do
      if k:sub(1, #word) == word then found[k] = found[k] or false end
    end
    for _, name in ipairs(sorted(found)) do
      out[#out + 1] = name .. (type(found[name]) == "function" and "(" or "")
    end
    return out
  end
  if not path:match("^[%a_][%w_%.]*$") or path:find("..", 1, true) or path:sub(-1) == "." then return out end
  local v = lookup(path)
  if v == nil then return out end
  fields(v, partial, found)
  for _, name in ipairs(sorted(found)) do
    local is_fn = type(found[name]) == "function"
    if sep == "." or is_fn then out[#out + 1] = path .. sep .. name .. (is_fn and "(" or "") end
  end
  return out
end

local FILE_ARGS = { bot = true, auto = true, save = true, load = true }

local function complete_command(line, start, stop)
  local upto = line:sub(1, stop)
  local partial = upto:match("^%s*:(%a*)$")
  if partial then
    local out = {}
    for _, name in ipairs(order) do
      if name:sub(1, #partial) == partial then out[#out + 1] = ":" .. name .. " " end
    end
    return out
  end
  local name, arg = upto:match("^%s*:(%a+)%s+(.*)$")
  if FILE_ARGS[name] then return "files" end
  local choices = {}
  if name == "play" then
    local g = rawget(_G, "g")
    choices = native.is_state(g) and g:legal() or {}
  elseif name == "new" or name == "rules" then
    choices = meeple.games()
  elseif name == "view" then
    local g = rawget(_G, "g")
    for p = 1, native.is_state(g) and g:num_players() or 0 do choices[p] = tostring(p) end
  end
  -- The argument may hold spaces ("travel m"): the candidates are cut where the word being
  -- completed starts, and what was typed before it must match literally.
  local arg_start = stop - #arg
  local out = {}
  for _, c in ipairs(choices) do
    if c:sub(1, #arg) == arg then out[#out + 1] = c:sub(start - arg_start + 1) end
  end
  return out
end

local playing -- the game of `meeple play`, whose answers are its legal actions

function M.complete(line, start, stop)
  if playing then
    local out, typed = {}, line:sub(1, stop)
    for _, a in ipairs(playing:legal()) do
      if a:sub(1, #typed) == typed then out[#out + 1] = a:sub(start + 1) end
    end
    return out
  end
  if line:match("^%s*:") then return complete_command(line, start, stop) end
  return complete_lua(line:sub(start + 1, stop))
end

-- =====================================================================================================
-- Printing values
-- =====================================================================================================

local MAX_DEPTH, MAX_ITEMS, WIDTH = 4, 60, 78

local function quote(s)
  return (format("%q", s):gsub("\\\n", "\\n"))
end

-- Numbers first, then strings, then the rest by their text: the same order on every run.
local function key_order(a, b)
  local ta, tb = type(a), type(b)
  if ta == tb and (ta == "number" or ta == "string") then return a < b end
  if ta == "number" or tb == "number" then return ta == "number" end
  if ta == "string" or tb == "string" then return ta == "string" end
  return tostring(a) < tostring(b)
end

local function scalar(v)
  if type(v) == "string" then return quote(v) end
  if native.is_state(v) then return format("<%s state, turn %d>", v:game(), v:turn()) end
  return tostring(v)
end

local function has_tostring(v)
  local mt = getmetatable(v)
  return type(mt) == "table" and rawget(mt, "__tostring") ~= nil
end

-- A table on one line when it fits, else one item per line; nested to MAX_DEPTH, cycles marked.
local function pretty(v, indent, depth, seen)
  if type(v) ~= "table" or has_tostring(v) then return scalar(v) end
  if seen[v] then return "<cycle>" end
  if next(v) == nil then return "{}" end
  if depth > MAX_DEPTH then return "{...}" end
  seen[v] = true
  local items, n, inner = {}, rawlen(v), indent .. "  "
  for i = 1, math.min(n, MAX_ITEMS) do items[i] = pretty(rawget(v, i), inner, depth + 1, seen) end
  local keys = {}
  for k in next, v do
    if not (math.type(k) == "integer" and k >= 1 and k <= n) then keys[#keys + 1] = k end
  end
  sort(keys, key_order)
  for _, k in ipairs(keys) do
    if #items >= MAX_ITEMS then break end
    local name = is_name(k) and k or "[" .. scalar(k) .. "]"
    items[#items + 1] = name .. " = " .. pretty(rawget(v, k), inner, depth + 1, seen)
  end
  seen[v] = nil
  local total = n + #keys
  if total > #items then items[#items + 1] = format("... (%d more)", total - #items) end
  local one = "{ " .. concat(items, ", ") .. " }"
  if #indent + #one <= WIDTH and not one:find("\n", 1, true) then return one end
  if #keys == 0 and not one:find("\n", 1, true) then -- a long list of plain values: lines filled up
    local lines, line = {}, ""
    for i, item in ipairs(items) do
      local piece = item .. (i < #items and "," or "")
      if line ~= "" and #inner + #line + 1 + #piece > WIDTH then
        lines[#lines + 1] = line
        line = piece
      else
        line = line == "" and piece or line .. " " .. piece
      end
    end
    lines[#lines + 1] = line
    return "{\n" .. inner .. concat(lines, "\n" .. inner) .. "\n" .. indent .. "}"
  end
  return "{\n" .. inner .. concat(items, ",\n" .. inner) .. "\n" .. indent .. "}"
end

M.pretty = function(v) return pretty(v, "", 1, {}) end

function M.show(...)
  local parts = {}
  for i = 1, select("#", ...) do
    local v = select(i, ...)
    if type(v) == "string" then parts[i] = v
    elseif native.is_state(v) then parts[i] = render(v:table(), { color = color, cards = v:cards() })
    else parts[i] = pretty(v, "", 1, {}) end
  end
  print(concat(parts, "\t"))
end

-- =====================================================================================================
-- `meeple play`: a human against bots
-- =====================================================================================================

-- Who acts, as the others see it, when a player acts in several roles: by game, from a view.
local ROLE = {
  citadels = function(view) return view.phase == "turns" and view.current or nil end,
}

local PLAY_HELP = [[
Answer with the number of an action, the action, or the first letters of its words ("trav med").
  undo         take back your last decision (and the bots' decisions since)
  save [FILE]  write the game to FILE (the --save file when left out)
  load FILE    go on with the game a save holds (the same game and player count)
  board        show the game again          rules   the rules
  help         this text                    quit    stop (Ctrl-D too)
A command may start with ':' (:save, :undo).]]

-- Takes back the human's last decision and everything after it; how many decisions, or nil when
-- there is none of theirs. What the bots chose after it is gone with it: they decide again.
local function undo_mine(s, me)
  local history = s:history()
  for i = #history, 1, -1 do
    if history[i].player == me then
      s:undo(#history - i + 1)
      return #history - i + 1
    end
  end
end

-- The seed a state was dealt with, as its save records it.
local function seed_of(s) return s:save():match("\nseed (%d+)\n") or "?" end

-- Writes the --save file after each decision, so an interruption or a crash loses nothing. A file
-- that cannot be written is said once.
local function autosave(P)
  if not P.save then return end
  local ok, why = pcall(write_save, P.save, P.s)
  if ok then return end
  pass_interrupt(why)
  if not P.save_failed then native.error(plain(why)) end
  P.save_failed = true
end

-- Leaves the game unfinished, saved first when there is a --save file; returns `status`.
local function leave(P, cause, status)
  autosave(P)
  local where = P.save and not P.save_failed and format("; saved: meeple play --load %s", P.save) or ""
  say("%sthe game is left unfinished (seed %s)%s", cause and cause .. ": " or "", seed_of(P.s), where)
  return status
end

-- A decision played through s:try, so that a variant's hook that fails refuses the action (one
-- line, the state as it was) instead of ending the game.
local function try(s, action)
  local ran, ok, why = pcall(s.try, s, action)
  if not ran then return nil, plain(pass_interrupt(ok)) end
  return ok, ok or plain(why)
end

-- The bot of the seat to move decides; false and why when it cannot.
local function bot_turn(P)
  local s = P.s
  local p = s:to_move()
  local bot = P.seats[p]
  local role = ROLE[P.game] and ROLE[P.game](s:view(P.me))
  local action, why = bot:choose(s)
  if not action then return false, plain(why) end
  -- What the human sees of it, as the game says (a secret pick shows as "(chooses a character)").
  local seen = s:public_text(action, P.me) or action
  local ok, err = try(s, action)
  if not ok then return false, format("bot '%s' chose '%s': %s", bot:name(), action, err) end
  say("P%d %s%s: %s", p, bot:name(), role and " as " .. role or "", seen)
  autosave(P)
  return true
end

-- `load FILE` at the prompt: the same game and player count, so the bots still fit their seats.
local function load_into(P, file)
  if file == "" then fail("which file? load FILE") end
  local s = load_save(file, P.variant_file)
  if s:game() ~= P.game or s:num_players() ~= P.s:num_players() then
    fail("%s holds %s for %d players; this is %s for %d", file, s:game(), s:num_players(), P.game,
      P.s:num_players())
  end
  P.s, playing, P.shown = s, s, nil
  say("loaded %s after %d decisions", file, #s:history())
  autosave(P)
end

local PLAY_COMMANDS = {
  help = function() print(PLAY_HELP) end,
  board = function(P) P.shown = nil end,
  rules = function(P) native.rules(P.game) end,
  undo = function(P)
    local n = undo_mine(P.s, P.me)
    if not n then fail("nothing of yours to undo yet") end
    -- Only a count: which bot decisions went with it stays unsaid (some were secret).
    say("took back your last decision%s", n > 1 and format(" and the %d after it", n - 1) or "")
    P.shown = nil
    autosave(P)
  end,
  save = function(P, file)
    file = file ~= "" and file or P.save
    if not file then fail("which file? save FILE (or play with --save FILE)") end
    write_save(file, P.s)
    say("saved after %d decisions to %s (meeple play --load %s)", #P.s:history(), file, file)
  end,
  load = load_into,
}
PLAY_COMMANDS["?"] = PLAY_COMMANDS.help

-- The human's answer at the prompt; returns an exit status when play ends here.
local function human_turn(P)
  local s = P.s
  local legal = s:legal()
  if P.shown ~= #s:history() then
    print()
    board(s, P.me)
    numbered(M.menu(s, legal, P.me))
    P.shown = #s:history()
  end
  local line, why = native.readline(format("P%d> ", P.me))
  if not line then
    if why == "interrupt" then return leave(P, "interrupted", 130) end
    return leave(P, "no more input", 0)
  end
  local word, arg = line:match("^%s*:?(%S*)%s*(.-)%s*$")
  word = word:lower()
  if word == "quit" or word == "q" or word == "exit" then return leave(P, nil, 0) end
  if word == "" then
    P.shown = nil
    return
  end
  local command = PLAY_COMMANDS[word]
  if command then
    local ok, err = pcall(command, P, arg)
    if not ok then native.error(plain(pass_interrupt(err))) end
    return
  end
  local answer = line:match("^%s*(.-)%s*$"):lower()
  local action, reason = M.resolve(s, answer, legal)
  if not action then return native.error(reason) end
  local ok, err = try(s, action)
  if not ok then return native.error(err) end
  if action ~= answer then say("P%d: %s", P.me, action) end
  autosave(P)
end

-- What a failed pcall of read_save or load_save raised, as a save problem: the save itself is at fault
-- (missing, unreadable, refused), so `meeple play` says it in one line, without its usage.
local function or_save_problem(ok, ...)
  if not ok then error({ save_problem = plain(pass_interrupt((...))) }, 0) end
  return ...
end

-- The game `meeple play` was asked for: a new one, or the one a save holds. Raises one line, or a
-- save problem.
local function play_game(o)
  if not o.load then
    return meeple.new(o.game, { seed = o.seed, players = o.players, variant = o.variant })
  end
  local text = or_save_problem(pcall(read_save, o.load))
  local by_path = not o.variant and (text:match("\nvariant ([^\n]*[/][^\n]*)\n")
    or text:match("\nvariant ([^\n]*%.lua)\n"))
  if by_path then
    fail("%s was played under the variant file %s: to run that file, name it: --variant %s", o.load,
      by_path, by_path)
  end
  local s = or_save_problem(pcall(load_save, o.load, o.variant))
  if o.game and s:game() ~= o.game then fail("%s holds a game of %s, not %s", o.load, s:game(), o.game) end
  return s
end

-- The bots of the other seats: --bot files in seat order, the last one filling the rest.
local function seat_bots(o, s, seed)
  local seats, others = {}, {}
  for p = 1, s:num_players() do
    if p ~= o.seat then
      local file = o.bots[#others + 1] or o.bots[#o.bots] or DEFAULT_BOT
      seats[p] = load_bot(file, seed * 1000 + p, native.debug)
      others[#others + 1] = format("P%d %s", p, seats[p]:name())
    end
  end
  return seats, others
end

local function play_loop(P)
  while not P.s:is_over() do
    if P.s:to_move() ~= P.me then
      local ok, why = bot_turn(P)
      if not ok then
        native.error(why)
        return leave(P, "the game stops here", 1)
      end
    else
      local status = human_turn(P)
      if status then return status end
    end
  end
end

-- `meeple play`: returns the exit status, and the reason when the arguments cannot make a game, with
-- true when that reason is the save's (said without the usage).
function M.play(o)
  local made, s = pcall(play_game, o)
  if not made then
    if type(s) == "table" and s.save_problem then return 2, s.save_problem, true end
    return 2, plain(s)
  end
  if o.seat > s:num_players() then
    return 2, format("--seat must be 1..%d, got %d", s:num_players(), o.seat)
  end
  local seed = math.tointeger(tonumber(seed_of(s))) or 0
  local ok, seats, others = pcall(seat_bots, o, s, seed)
  if not ok then return 2, plain(seats) end
  if o.save then -- a --save file that cannot be written is a bad argument, found before any play
    local wrote, why = pcall(write_save, o.save, s)
    if not wrote then return 2, plain(why) end
  end
  local P = { s = s, me = o.seat, game = s:game(), seats = seats, save = o.save, variant_file = o.variant }
  playing = s
  local variant = s:variant()
  say("%s%s · seed %d · you are P%d · %s", P.game, variant and " (" .. variant .. ")" or "", seed, P.me,
    concat(others, ", "))
  if o.load then say("loaded %s after %d decisions", o.load, #s:history()) end
  say_provisional(s)
  say("Answer with a number, an action or its first letters; undo, save, help, quit.")
  -- Ctrl-C while a bot thinks arrives as the error "interrupted"; anything else that escapes is said
  -- in one line, and the game is saved so that it can go on.
  local ran, status = pcall(play_loop, P)
  if not ran then
    if status == "interrupted" then return leave(P, "interrupted", 130) end
    native.error(plain(status))
    return leave(P, "the game stops here", 1)
  end
  if status then return status end
  print()
  board(P.s, P.me)
  print(result(P.s, P.me))
  return 0
end

return M
