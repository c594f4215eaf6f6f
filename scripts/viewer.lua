-- viewer.lua — one logged game as a self-contained HTML page (`meeple replay LOG --html FILE`).
-- A chunk returning a table with
--   frames(meeple, game) -> data   the game replayed through the rules: per decision, the god table
--                                  and each seat's view, each stored as what changed since the step before
--   page(meeple, data, parts) -> html   the page: parts.page (the template), parts.app and parts.draw (its
--                                  scripts), the data embedded as JSON
-- `game` is a checked log record: {game, seed, seats, actions, variant?, index?, scores?, winners?,
-- forfeits?, decisions?, ms?}. Views come from s:view(p) only, and the moves a seat's view lists from
-- s:public_text(a, p): the page never decides what is hidden.

local concat, sort = table.concat, table.sort

-- ---------------------------------------------------------------- differences between two tables

-- A table is a list when its keys are exactly 1..#t (an empty table is both a list and a record).
local function is_list(t)
  local n = 0
  for _ in pairs(t) do n = n + 1 end
  return n == #t
end

local function is_empty(t) return next(t) == nil end

local function same(a, b)
  if type(a) ~= "table" or type(b) ~= "table" then return a == b end
  for k, v in pairs(a) do
    if not same(v, b[k]) then return false end
  end
  for k in pairs(b) do
    if a[k] == nil then return false end
  end
  return true
end

local function sorted_keys(t)
  local keys = {}
  for k in pairs(t) do keys[#keys + 1] = k end
  sort(keys, function(x, y)
    if type(x) == type(y) then return x < y end
    return type(x) == "number"
  end)
  return keys
end

local function extend(path, key)
  local p = { table.unpack(path) }
  p[#p + 1] = key
  return p
end

-- A list whose length changed: one splice (common head and tail kept), which is what a draw from a
-- deck or a card played from a hand is. `i` counts from 0, as the page's arrays do.
local function diff_lengths(old, new, path, ops)
  local head, tail = 0, 0
  while head < #old and head < #new and same(old[head + 1], new[head + 1]) do head = head + 1 end
  while tail < #old - head and tail < #new - head and same(old[#old - tail], new[#new - tail]) do
    tail = tail + 1
  end
  local added = {}
  for i = head + 1, #new - tail do added[#added + 1] = new[i] end
  ops[#ops + 1] = { p = path, i = head, n = #old - head - tail, a = added }
end

-- Appends to `ops` what turns `old` into `new`: {p = path, v = value} sets, {p = path, x = true}
-- removes, {p = path, i, n, a} splices a list. Records and equal-length lists are entered, so a step
-- stores only what it changed.
local function diff(old, new, path, ops)
  if same(old, new) then return end
  local tables = type(old) == "table" and type(new) == "table"
  if not tables or is_empty(old) or is_empty(new) or is_list(old) ~= is_list(new) then
    ops[#ops + 1] = { p = path, v = new }
    return
  end
  if is_list(new) and #old ~= #new then return diff_lengths(old, new, path, ops) end
  for _, k in ipairs(sorted_keys(new)) do
    if old[k] == nil then ops[#ops + 1] = { p = extend(path, k), v = new[k] }
    else diff(old[k], new[k], extend(path, k), ops) end
  end
  for _, k in ipairs(sorted_keys(old)) do
    if new[k] == nil then ops[#ops + 1] = { p = extend(path, k), x = true } end
  end
end

-- ---------------------------------------------------------------- the replay

-- What each perspective sees now: [1] the god table, [p + 1] seat p's view.
local function perspectives(s, players)
  local seen = { s:table() }
  for p = 1, players do seen[p + 1] = s:view(p) end
  return seen
end

-- What each seat sees of `action` before it is played (the game's public text), as a list by seat;
-- nil when every seat sees the action itself. The page shows a seat's view with these texts, so a
-- seat's list of moves holds no other seat's secret pick.
local function seen_by_seat(s, action, players)
  local seen, secret = {}, false
  for q = 1, players do
    seen[q] = s:public_text(action, q) or action
    secret = secret or seen[q] ~= action
  end
  return secret and seen or nil
end

local M = {}

-- The beanometers of the game's beans, as this game's parameters set them: name -> {meter, provisional,
-- text} (provisional: a meter meeple made up, Rabohnzel's until a variant gives the real one; text: as
-- the terminal writes it, by `looks`, render.lua's); nil for a game without them. The page draws each
-- field's meter from these; what a harvest pays comes from the table itself (each player's harvest).
function M.meters(s, looks)
  local meters
  for name, card in pairs(s:cards()) do
    if type(card) == "table" and type(card.meter) == "table" then
      meters = meters or {}
      meters[name] = { meter = card.meter, provisional = card.provisional == true,
        text = looks and looks.meter_text(card.meter) or nil }
    end
  end
  return meters
end

-- `render` (render.lua's function, optional): the page takes its colours and meter texts from it.
function M.frames(meeple, game, render)
  local players = #game.seats
  local s = meeple.new(game.game, { seed = game.seed, players = players, variant = game.variant })
  local now = perspectives(s, players)
  local data = {
    game = game.game, title = game.title, seed = game.seed, variant = game.variant,
    index = game.index, log = game.log, seats = game.seats, players = players,
    scores = game.scores, winners = game.winners, forfeits = game.forfeits, unfinished = game.unfinished,
    decisions = game.decisions, ms = game.ms,
    start = now, moves = {}, changes = {},
  }
  local looks = render and render(nil, { looks = true })
  data.meters = M.meters(s, looks)
  data.colours = looks and looks.colour
  for k = 1, players + 1 do data.changes[k] = {} end
  for i, action in ipairs(game.actions) do
    local p = s:to_move()
    if not p then error(("decision %d: the game is already over"):format(i), 0) end
    local seen = seen_by_seat(s, action, players)
    local ok, why = s:try(action)
    if not ok then error(("decision %d: %s cannot be played: %s"):format(i, action, why), 0) end
    data.moves[i] = { by = p, a = action, seen = seen }
    local after = perspectives(s, players)
    for k = 1, players + 1 do
      local ops = {}
      diff(now[k], after[k], {}, ops)
      data.changes[k][i] = ops
    end
    now = after
  end
  local final = s:scores()
  data.final_scores = final
  return data
end

-- ---------------------------------------------------------------- the page

local function html_escape(text)
  return (tostring(text):gsub("[&<>\"']", { ["&"] = "&amp;", ["<"] = "&lt;", [">"] = "&gt;",
    ['"'] = "&quot;", ["'"] = "&#39;" }))
end
M.html_escape = html_escape

-- JSON inside a <script> element: "</script" would end it and "<!--" change how it is read, so every
-- "<" (only ever inside a JSON string) is written \u003c, which JSON reads the same.
function M.script_json(meeple, value)
  return (meeple.json.encode(value):gsub("<", "\\u003c"))
end

-- `template` with each {{NAME}} replaced by fills[NAME], verbatim (no pattern characters read).
function M.fill(template, fills)
  local out, at = {}, 1
  while true do
    local open = template:find("{{", at, true)
    if not open then break end
    local close = template:find("}}", open, true)
    if not close then break end
    local name = template:sub(open + 2, close - 1)
    out[#out + 1] = template:sub(at, open - 1)
    out[#out + 1] = fills[name] or template:sub(open, close + 1)
    at = close + 2
  end
  out[#out + 1] = template:sub(at)
  return concat(out)
end

-- The files a folder of pages shares (shared_page links to them): name -> text.
local STYLE_OPEN, STYLE_CLOSE = "<style>\n", "</style>\n"
function M.shared_files(parts)
  local open = parts.page:find(STYLE_OPEN, 1, true)
  local close = open and parts.page:find(STYLE_CLOSE, open, true)
  return {
    ["viewer.css"] = open and close and parts.page:sub(open + #STYLE_OPEN, close - 1) or "",
    ["viewer-draw.js"] = parts.draw,
    ["viewer-app.js"] = parts.app,
  }
end

function M.page(meeple, data, parts, shared)
  local title = ("%s, game %s"):format(data.title or data.game, tostring(data.index or 1))
  local template = parts.page
  if shared then -- one copy of the styles and scripts beside the pages, not one in each
    local open = template:find(STYLE_OPEN, 1, true)
    local close = open and template:find(STYLE_CLOSE, open, true)
    if open and close then
      template = template:sub(1, open - 1) .. '<link rel="stylesheet" href="viewer.css">\n'
                 .. template:sub(close + #STYLE_CLOSE)
    end
    local function swap(name, file)
      local block = "<script>\n{{" .. name .. "}}\n</script>"
      local at = template:find(block, 1, true)
      if at then
        template = template:sub(1, at - 1) .. '<script src="' .. file .. '"></script>' .. template:sub(at + #block)
      end
    end
    swap("DRAW", "viewer-draw.js")
    swap("APP", "viewer-app.js")
  end
  return M.fill(template, {
    TITLE = html_escape(title),
    DATA = M.script_json(meeple, data),
    DRAW = parts.draw,
    APP = parts.app,
  })
end

return M
