-- bench_lua_api.lua — what s:clone() and s:legal() cost a script or a search bot, as `meeple bench
-- GAME` times them (repl/bench.c) in a plain lua_State with the module.
--
-- Returns B: B.position makes the position, and the timed loops run one method n times on it.
local meeple = meeple
local B = {}

-- A mid-game position of the bench's first game: 20 decisions in, each the middle legal action.
function B.position(game, players, seed)
  local s = meeple.new(game, { seed = seed, players = players })
  for _ = 1, 20 do
    if s:is_over() then break end
    local legal = s:legal()
    s:play(legal[#legal // 2 + 1])
  end
  return s
end

function B.clones(s, n) for _ = 1, n do local c = s:clone() end end

function B.legals(s, n) for _ = 1, n do local l = s:legal() end end

return B
