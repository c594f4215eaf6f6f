-- check_pages.lua — the replay page and the report page as a browser shows them, after their scripts
-- ran: headless Chromium (Debian's `chromium`) dumps the DOM, and this checks the bots, the moves, the
-- board at step N against the rules' own tables, and that a seat's view leaves out the cards it must.
-- Exits 77 (ctest: skipped) with a message when no Chromium is installed.
-- Run by ctest with MEEPLE_EXE, and LUA_CPATH finding meeple.so.
local meeple = require "meeple"

local exe = assert(os.getenv("MEEPLE_EXE"), "MEEPLE_EXE: the meeple executable")

local function quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

local function sh(command)
  local p = assert(io.popen(command))
  local out = p:read("a")
  local _, _, code = p:close()
  return out, code
end

local function read(name)
  local f = assert(io.open(name, "rb"))
  local text = f:read("a")
  f:close()
  return text
end

local chromium = os.getenv("CHROMIUM")
if not chromium or chromium == "" then
  chromium = sh("command -v chromium || command -v chromium-browser"):match("[^\n]+")
end
if not chromium then
  print("SKIP: no chromium on PATH (Debian: apt-get install chromium); the HTML pages were not checked in a browser")
  os.exit(77)
end

local dir = sh("mktemp -d \"${TMPDIR:-/tmp}/meeple-browser-XXXXXX\""):match("[^\n]+")
local as_root = sh("id -u"):match("^0") ~= nil
local failures = 0

local function check(ok, what)
  print((ok and "ok - " or "not ok - ") .. what)
  if not ok then failures = failures + 1 end
end

-- The DOM of `file` (with a #fragment) after its scripts ran.
local function dom(file, fragment)
  -- Under the sanitizers LD_PRELOAD carries their runtimes for this interpreter: not for the browser.
  local args = { "env", "-u", "LD_PRELOAD", "-u", "ASAN_OPTIONS", "timeout", "120", quote(chromium), "--headless", "--disable-gpu", "--no-first-run",
    "--user-data-dir=" .. quote(dir .. "/profile"), "--virtual-time-budget=10000" }
  if as_root then args[#args + 1] = "--no-sandbox" end
  args[#args + 1] = "--dump-dom"
  args[#args + 1] = quote("file://" .. file .. (fragment or ""))
  local out, code = sh(table.concat(args, " ") .. " 2>/dev/null")
  assert(code == 0 and #out > 0, "chromium failed on " .. file .. " (status " .. tostring(code) .. ")")
  return out
end

local function run(args)
  local out, code = sh(quote(exe) .. " " .. args .. " 2>&1")
  assert(code == 0, args .. ": " .. out)
  return out
end

-- The cards a zone row shows (data-card), and how many face-down tiles, for seat `seat`'s `zone`.
local function zone(page, seat, name)
  local body = page:match('data%-zone="' .. name .. '" data%-seat="' .. seat .. '">(.-)</div>')
  assert(body, ("no %s of P%d on the page"):format(name, seat))
  local cards = {}
  for card in body:gmatch('data%-card="([^"]*)"') do cards[#cards + 1] = card end
  local hidden = select(2, body:gsub('data%-hidden="1"', ""))
  return cards, hidden
end

-- The first game of a log.
local function record_of(file) return meeple.json.decode(read(file):match("[^\n]+")) end

local function same_list(a, b)
  if #a ~= #b then return false end
  for i = 1, #a do
    if a[i] ~= b[i] then return false end
  end
  return true
end

-- ------------------------------------------------------------------ a Babel game's page
local log = dir .. "/babel.jsonl"
run(("match babel greedy_babel random --games 4 --seed 11 --log %s"):format(quote(log)))
local record = meeple.json.decode(read(log):match("[^\n]+"))
local page = dir .. "/game.html"
run(("replay %s --game 1 --html %s"):format(quote(log), quote(page)))

-- The rules' own tables at step N.
local N = 9
local s = meeple.new("babel", { seed = record.seed, players = 2 })
local movers = {}
for i = 1, N do
  movers[i] = s:to_move()
  s:play(record.actions[i])
end
local god, view1 = s:table(), s:view(1)
assert(type(view1.players[2].hand) == "number" and god.players[2].hand[1], "P2 holds cards P1 cannot see")

local html = dom(page, ("#step=%d&seat=god"):format(N))
check(html:find('id="board" data%-step="' .. N .. '" data%-seat="god" data%-drawn="board"') ~= nil,
  "the page's script ran and drew step " .. N .. " with Babel's board")
check(html:find(">P1 greedy_babel<", 1, true) and html:find(">P2 random<", 1, true),
  "the seat selector names both bots")
local items = select(2, html:gsub('<li[^>]* data%-step="%d+"', ""))
check(items == #record.actions + 1, ("the move list has the deal and %d moves (got %d)"):format(#record.actions, items - 1))
local nth = html:match('<li[^>]* data%-step="' .. N .. '"[^>]*>([^<]*)</li>')
local who = record.seats[movers[N]]
check(nth == ("P%d %s: %s"):format(movers[N], who, record.actions[N]),
  ("move %d says who played what: %s"):format(N, tostring(nth)))
check(same_list((zone(html, 1, "hand")), god.players[1].hand), "the god view shows P1's hand at step " .. N)
check(same_list((zone(html, 2, "hand")), god.players[2].hand), "the god view shows P2's hand at step " .. N)

html = dom(page, ("#step=%d&seat=1"):format(N))
check(html:find('data%-step="' .. N .. '" data%-seat="1"') ~= nil, "the seat selector's view: P1 at step " .. N)
local cards, hidden = zone(html, 2, "hand")
check(#cards == 0 and hidden == math.min(view1.players[2].hand, 12),
  ("P1's view shows P2's %d cards face down, none named (named %d, face down %d)")
  :format(view1.players[2].hand, #cards, hidden))
check(same_list((zone(html, 1, "hand")), view1.players[1].hand), "P1's view shows P1's own hand")
local deck = html:match('data%-zone="people_deck"') -- table rows carry no seat; the deck is a count
check(html:find(view1.people_deck .. " cards, face down", 1, true) ~= nil and not deck,
  "P1's view shows the people deck as a count")

html = dom(page, "#step=0&seat=2")
check(html:find('data%-step="0" data%-seat="2"') ~= nil, "step 0 is the deal")

-- A record of log format 2 shows each seat's thinking time.
record.log, record.ms, record.decisions = 2, { 12, 30 }, { 40, 44 }
local v2 = dir .. "/v2.jsonl"
local f2 = assert(io.open(v2, "wb"))
f2:write(meeple.json.encode(record), "\n")
f2:close()
run(("replay %s --html %s"):format(quote(v2), quote(dir .. "/v2.html")))
html = dom(dir .. "/v2.html")
check(html:find("thinking: P1 12 ms over 40 decisions, P2 30 ms over 44 decisions", 1, true) ~= nil,
  "a format-2 record's thinking times are shown")

-- A game with no drawing function of its own gets the plain listing, hidden cards still face down.
local unknown = dir .. "/unknown.html"
local text = read(page)
local f = assert(io.open(unknown, "wb"))
f:write((text:gsub('"game":"babel"', '"game":"a_new_game"', 1)))
f:close()
html = dom(unknown, ("#step=%d&seat=1"):format(N))
check(html:find('data%-step="' .. N .. '" data%-seat="1" data%-drawn="listing"') ~= nil,
  "a game without a drawing function is drawn as a listing")
cards = zone(html, 2, "hand")
local count = html:match('data%-zone="hand" data%-seat="2"><span class="label">hand</span> (%d+)</div>')
check(#cards == 0 and tonumber(count) == view1.players[2].hand, "the listing shows P2's hand as a count in P1's view")
check(same_list((zone(html, 1, "hand")), view1.players[1].hand), "the listing shows P1's own hand as cards")

-- ------------------------------------------------------------------ the other games draw their boards
for _, game in ipairs { { "citadels", "random random random random" }, { "bohnanza", "random random random" },
  { "rabohnzel", "random random random" } } do
  local glog = dir .. "/" .. game[1] .. ".jsonl"
  run(("match %s %s --games 1 --seating random --seed 3 --log %s"):format(game[1], game[2], quote(glog)))
  local gpage = dir .. "/" .. game[1] .. ".html"
  run(("replay %s --html %s"):format(quote(glog), quote(gpage)))
  html = dom(gpage, "#step=30&seat=2")
  check(html:find('data%-step="30" data%-seat="2" data%-drawn="board"') ~= nil, game[1] .. " draws its board at step 30")
  local _, face_down = zone(html, 1, "hand")
  check(face_down > 0, game[1] .. ": P2's view shows P1's hand face down")
  if game[1] ~= "citadels" then
    -- Coin counts and each field's beanometer with what it pays now, against the rules' own view and
    -- catalogue; Rabohnzel's meters marked provisional, with the note saying so.
    local played = record_of(glog)
    local replayed = meeple.new(game[1], { seed = played.seed, players = #played.seats })
    for i = 1, 30 do replayed:play(played.actions[i]) end
    local seen, cards = replayed:view(2), replayed:cards()
    local coins_ok, pays_ok, metered = true, true, 0
    for p = 1, 3 do
      local row = html:match('data%-zone="coins" data%-seat="' .. p .. '">(.-)</div>') or ""
      coins_ok = coins_ok and tonumber(row:match('data%-coins="(%d+)"')) == #seen.players[p].coins
      local fields = html:match('data%-zone="fields" data%-seat="' .. p .. '">(.-)</div>') or ""
      for f, field in ipairs(seen.players[p].fields) do
        local beans = field.beans or field
        local body = fields:match('data%-field="' .. f .. '">(.-)</span></span>') or ""
        if #beans > 0 then
          metered = metered + 1
          -- the rules' own figure (the view's harvest entry), worded as the terminal words it
          local h = seen.players[p].harvest[f]
          pays_ok = pays_ok and cards[beans[#beans]].meter ~= nil and tonumber(body:match('data%-pays="(%d+)"')) == h.pays
            and body:find(h.protected and "would pay " .. h.pays or "pays " .. h.pays .. " now", 1, true) ~= nil
        end
      end
    end
    check(coins_ok, game[1] .. ": each player's coin count is shown")
    check(metered > 0 and pays_ok, game[1] .. ": each planted field shows what a harvest pays now (" .. metered .. " fields)")
    check(html:find('class="meter"', 1, true) ~= nil, game[1] .. ": the fields show their beanometers")
    -- the dagger itself: the page's script writes it as \u2020, so only a drawn note holds it
    local provisional = html:find("† Provisional beanometer", 1, true) ~= nil
    check(provisional == (game[1] == "rabohnzel"), game[1] .. ": the provisional note shows for Rabohnzel only")
  end
  if game[1] == "citadels" then
    -- Secret decisions stay secret: P2's list of moves names no other seat's pick, and the god view does.
    local others = 0
    for by, text in html:gmatch('<li data%-step="%d+" data%-by="(%d)">P%d [^:]*: ([^<]*)</li>') do
      if by ~= "2" and text:match("^choose ") then others = others + 1 end
    end
    check(others == 0, "citadels: P2's move list names no other seat's character pick")
    check(html:find("(chooses a character)", 1, true) ~= nil, "citadels: P2's move list shows the others' picks as secret")
    html = dom(gpage, "#step=30&seat=god")
    check(html:find('data%-by="1">P1 [^:]*: choose ') ~= nil, "citadels: the god view names every pick")
  end
end

-- ------------------------------------------------------------------ the report
local log2 = dir .. "/babel2.jsonl"
-- The shipped search bot, with a fixed amount of work a decision instead of its 100 ms (12 s a run).
local search = dir .. "/ismcts.lua"
local fs = assert(io.open(search, "wb"))
fs:write('return require("ismcts").bot { name = "ismcts", iterations = 200 }\n')
fs:close()
run(("match babel random %s --games 2 --seed 5 --log %s"):format(quote(search), quote(log2)))
local report = dir .. "/report.html"
run(("report %s %s --html %s"):format(quote(log), quote(log2), quote(report)))
html = dom(report)
for _, bot in ipairs { "greedy_babel", "random", "ismcts" } do
  check(html:find('<tr data%-bot="' .. bot .. '">') ~= nil, "the report has a row for " .. bot)
end
check(select(2, html:gsub("<svg", "")) == 4, "the report draws four plots")
check(html:find("Win rate by seat", 1, true) ~= nil and html:find("Rating", 1, true) ~= nil,
  "the plots: win rate by seat, rating")
local link = html:match('<a href="([^"]+)">watch</a>')
check(link ~= nil, "each game links to its replay page")
if link then
  html = dom(dir .. "/" .. link, "#step=3&seat=2")
  check(html:find('data%-step="3" data%-seat="2"') ~= nil, "a game from the report opens, as P2 saw it")
end

sh("rm -rf " .. quote(dir))
if failures > 0 then
  print(failures .. " check(s) failed")
  os.exit(1)
end
print("all checks passed")
