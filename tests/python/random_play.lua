-- random_play.lua GAME:PLAYERS:SEED... — the Lua half of test_conformance_with_lua.py: plays each game
-- with the chooser both halves share (a 31-bit LCG picking an index into legal()), and prints as JSON
-- what Python must reproduce move by move: legal lists, actions, seats, scores, tables and views, a
-- sample, a playout, ranked lists, the history and the save.
local meeple = require "meeple"

-- The shared chooser: the same numbers in Python (random_play in the test).
local function chooser(seed)
  local x = seed % 2147483648
  return function(n)
    x = (x * 1103515245 + 12345) % 2147483648
    return x % n + 1
  end
end

local function play(game, players, seed)
  local s = meeple.new(game, { players = players, seed = seed })
  local pick = chooser(seed)
  local steps, marks = {}, {}
  local mid = nil
  while not s:is_over() do
    local legal = s:legal()
    local action = legal[pick(#legal)]
    steps[#steps + 1] = { to_move = s:to_move(), legal = legal, action = action, scores = s:scores() }
    if #steps % 25 == 1 then
      local p = s:to_move()
      marks[#marks + 1] = {
        step = #steps, table = s:table(), view = s:view(p), ranked = s:ranked(seed),
        sample = s:sample(p, seed + #steps):table(),
        public = s:public_text(action, p % s:num_players() + 1),
      }
    end
    if #steps == 40 then mid = s:clone() end
    s:play(action)
  end
  local out = { game = game, players = players, seed = seed, steps = steps, marks = marks,
                winners = s:winners(), scores = s:scores(), save = s:save(), history = s:history(),
                history_seen = s:history(1), final = s:table() }
  if mid then
    local played = mid:playout(seed, 30, 0.5)
    out.playout = { played = played, table = mid:table(), save = mid:save() }
  end
  return out
end

local results = {}
for _, spec in ipairs(arg) do
  local game, players, seed = spec:match("^(%w+):(%d+):(%d+)$")
  results[#results + 1] = play(game, tonumber(players), tonumber(seed))
end
print(meeple.json.encode(results))
