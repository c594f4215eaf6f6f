-- record.lua — writes the golden playthroughs that tests/spec/golden_spec.lua replays.
-- Run it after a rule or rendering change you mean to make, then review `git diff tests/golden`:
--   meeple run tests/golden/record.lua [DIR]
-- Each game is picked by a seeded player that favours builds and abilities, so the recorded games
-- exercise more of the rules than uniform random play would.
local meeple = require "meeple"

local dir = arg[1] or (arg[0]:match("(.*/)") or "./")

-- The recorded games. The header lines are what golden_spec.lua reads to replay them.
local games = {
  { file = "babel-seed1.txt", game = "babel", seed = 1 },
  { file = "babel-seed2.txt", game = "babel", seed = 2 },
  { file = "babel-seed3-sumerians-all.txt", game = "babel", seed = 3, params = { sumerians = "all" } },
  { file = "bohnanza-seed1.txt", game = "bohnanza", seed = 1 },
  { file = "bohnanza-seed2-riogrande.txt", game = "bohnanza", seed = 2, players = 4, params = { edition = "riogrande" } },
  { file = "rabohnzel-seed1.txt", game = "rabohnzel", seed = 1 },
  { file = "rabohnzel-seed2-5p.txt", game = "rabohnzel", seed = 2, players = 5 },
}

local weights = {
  babel = { collapse = 9, steal = 9, leap = 9, switch = 8, expel = 8, halve = 6, build = 7,
            settle = 3, migrate = 1, travel = 2, discard = 1, ["end"] = 1 },
  -- Deals that get sent and accepted, and turns that end, rather than builders that wander.
  bohnanza = { plant = 6, harvest = 1, buy = 6, propose = 2, ask = 2, offer = 3, pass = 2, give = 2,
               want = 2, send = 6, cancel = 1, accept = 6, reject = 2, pick = 1, done = 3 },
  -- Bohnanza's, and every power and spell taken whenever it is offered.
  rabohnzel = { pluck = 12, wise = 12, common = 12, magic = 12, sword = 12, cast = 8, use = 12, choose = 2,
                activate = 4, place = 2, stop = 2, enchant = 6, discard = 1, skip = 1, order = 3, draw = 1, keep = 3 },
}
for verb, w in pairs(weights.bohnanza) do weights.rabohnzel[verb] = weights.rabohnzel[verb] or w end

-- Settling onto a run of the same people is favoured most: it is what makes abilities happen.
local function weight(s, action)
  local verb, people = action:match("^(%S+) ?(%S*)")
  if verb == "settle" then
    local t = s:table()
    local me = t.players[t.to_move]
    local row = me.rows[me.pawn]
    if row[#row] == people then return 12 end
  end
  local beans = s:game() == "bohnanza" or s:game() == "rabohnzel"
  if verb == "done" and beans then return 1 + 3 * s:table().trade_steps end
  return weights[s:game()][verb] or 1
end

local function pick(s, rand)
  local legal, sum = s:legal(), 0
  local w, per_verb = {}, {}
  for _, a in ipairs(legal) do
    local verb = a:match("^%S+")
    per_verb[verb] = (per_verb[verb] or 0) + 1
  end
  for i, a in ipairs(legal) do
    w[i] = weight(s, a)
    -- Bohnanza: a verb's weight is shared by its actions (many `give K` weigh as much as one `send`).
    if s:game() == "bohnanza" or s:game() == "rabohnzel" then w[i] = w[i] * 12 // per_verb[a:match("^%S+")] + 1 end
    sum = sum + w[i]
  end
  local r = rand(sum)
  for i, a in ipairs(legal) do
    r = r - w[i]
    if r <= 0 then return a end
  end
end

for _, g in ipairs(games) do
  local s = meeple.new(g.game, { seed = g.seed, players = g.players, params = g.params })
  math.randomseed(g.seed)
  local out = { "# Golden playthrough, replayed by tests/spec/golden_spec.lua. Rewrite with",
                "#   meeple run tests/golden/record.lua",
                "# and review the diff: a change here is a change of the rules or of their rendering.",
                "game " .. g.game, "seed " .. g.seed }
  if g.players then out[#out + 1] = "players " .. g.players end
  for k, v in pairs(g.params or {}) do out[#out + 1] = ("param %s %s"):format(k, v) end
  out[#out + 1] = "--- start"
  out[#out + 1] = tostring(s)
  while not s:is_over() do
    local player, action = s:to_move(), pick(s, math.random)
    s:play(action)
    out[#out + 1] = ("--- P%d: %s"):format(player, action)
    out[#out + 1] = tostring(s)
  end
  local path = dir .. g.file
  local f = assert(io.open(path, "w"))
  f:write(table.concat(out, "\n"), "\n")
  f:close()
  print(("%s: %d decisions"):format(path, #s:history()))
end
