-- demo.lua — two random players play one game of Babel through the module.
-- Usage: meeple run scripts/demo.lua [SEED]

local meeple = require "meeple"

local seed = math.tointeger(tonumber(arg and arg[1] or "1"))
if not seed then error("the seed must be a whole number, got '" .. tostring(arg[1]) .. "'") end

local s = meeple.new("babel", { seed = seed })
math.randomseed(seed) -- the players' choices replay too

-- One line per turn: whose turn it was and what they did, in order.
local turn, player, actions = s:turn(), s:to_move(), {}
local function flush()
  if #actions == 0 then return end
  print(string.format("turn %3d  P%d  %s", turn, player, table.concat(actions, ", ")))
  actions = {}
end

while not s:is_over() do
  local legal = s:legal()
  local who = s:to_move()
  local action = legal[math.random(#legal)]
  s:play(action)
  -- A halving discard is the opponent's decision inside this turn: mark it with the seat.
  actions[#actions + 1] = who == player and action or string.format("[P%d %s]", who, action)
  if s:turn() ~= turn and not s:is_over() then
    flush()
    turn, player = s:turn(), s:to_move()
  end
end
flush()

print()
print(tostring(s))
print()
local scores, winners = s:scores(), s:winners()
print(string.format("scores: P1 %d, P2 %d", scores[1], scores[2]))
if #winners == 1 then
  print(string.format("winner: P%d after %d decisions", winners[1], #s:history()))
else
  print(string.format("a draw after %d decisions", #s:history()))
end
