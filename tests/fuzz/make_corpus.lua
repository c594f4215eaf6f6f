-- make_corpus.lua — writes the fuzz targets' seed corpus from real games:
--   meeple run tests/fuzz/make_corpus.lua tests/fuzz/corpus
-- load/: saves (dealt and from a table); state/: positions to change (fuzz_state.c: game, setup,
-- decisions); table/: state tables and views as JSON; log/: match log lines. Small on purpose: a few
-- positions per game, early, middle and late, where most of the rules are in play.
local meeple = require "meeple"
local out = assert(arg[1], "usage: make_corpus.lua OUTDIR")

local function write(path, text)
  local f = assert(io.open(out .. "/" .. path, "wb"))
  f:write(text)
  f:close()
end

-- JSON with sorted keys, so the corpus does not change from one run to the next.
local function json(v)
  local t = type(v)
  if t == "string" then
    return '"' .. v:gsub('[%c"\\]', function(c) return ("\\u%04x"):format(c:byte()) end) .. '"'
  elseif t == "number" or t == "boolean" then
    return tostring(v)
  elseif t ~= "table" then
    return "null"
  end
  if #v > 0 or next(v) == nil then
    local items = {}
    for i = 1, #v do items[i] = json(v[i]) end
    return "[" .. table.concat(items, ",") .. "]"
  end
  local keys = {}
  for k in pairs(v) do keys[#keys + 1] = k end
  table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
  local items = {}
  for i, k in ipairs(keys) do
    local name = type(k) == "number" and ("[" .. k .. "]") or k
    items[i] = json(name) .. ":" .. json(v[k])
  end
  return "{" .. table.concat(items, ",") .. "}"
end

local games = meeple.games()
local setups = {
  babel = { { players = 2 } },
  citadels = { { players = 2 }, { players = 4 }, { players = 7 } },
  bohnanza = { { players = 3 }, { players = 5, params = { edition = "riogrande" } } },
  rabohnzel = { { players = 3 }, { players = 5 } },
}

for index = 1, #games do
  for _, setup in ipairs({ 0, 1, 2, 5 }) do
    for _, steps in ipairs({ 0, 9, 40, 120 }) do
      write(("state/g%d-s%d-d%d.bin"):format(index - 1, setup, steps), string.char(index - 1, setup, steps))
    end
  end
end

for _, game in ipairs(games) do
  for k, setup in ipairs(setups[game] or { {} }) do
    local s = meeple.new(game, { seed = k, players = setup.players, params = setup.params })
    local log = {}
    for _, stop in ipairs({ 0, 12, 60 }) do
      while #s:history() < stop and not s:is_over() do
        local legal = s:legal()
        local a = legal[(#s:history() * 7 + k) % #legal + 1]
        log[#log + 1] = a
        s:play(a)
      end
      local name = ("%s-%d-%d"):format(game, k, stop)
      write("load/" .. name .. ".txt", s:save())
      local sample = s:sample(1, stop + 1)
      write("load/" .. name .. "-sample.txt", sample:save())
      local t = s:table()
      t.seed = 3
      write("table/" .. name .. ".json", json(t))
      local view = s:view(2)
      view.game = game
      write("table/" .. name .. "-view.json", json(view))
    end
    local line = { index = 1, game = game, seed = k, seats = {}, scores = {}, winners = { 1 }, forfeits = {},
                   actions = log }
    for p = 1, s:num_players() do line.seats[p] = "random#" .. p; line.scores[p] = 0 end
    write("log/" .. game .. "-" .. k .. ".jsonl", json(line) .. "\n")
  end
end
