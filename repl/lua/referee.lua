-- referee.lua — the referee of `meeple match` (repl/match.c): plays each game under a --variant, one
-- lua_State per worker (the base rules are played in C), and plays logged games again to check them,
-- base rules or variant, on --resume and in `meeple merge`.
--
-- Run with (meeple, game, players, variant or nil); returns the referee R. Errors are one line.
local meeple, game, players, variant = ...
local R = {}
-- The plain state under a game: the variant's wrapper keeps it in _raw.
local function plain(s) return type(s) == 'table' and s._raw or s end
-- A new game, and the plain state underneath.
function R.new(seed)
  local s = meeple.new(game, { seed = seed, players = players, variant = variant })
  return s, plain(s)
end
-- The seat to move (nil once over), the legal actions, and the plain state underneath.
function R.step(s)
  if s:is_over() then return nil, nil, plain(s) end
  return s:to_move(), s:legal(), plain(s)
end
function R.play(s, a) local ok, why = s:try(a) if not ok then error(why, 0) end end
function R.result(s) return s:scores(), s:winners() end
-- A logged game played again: its scores, winners and the seat that took each action, or an error
-- naming what does not reproduce. An unfinished game (stopped at the decision cap) is still running
-- after its actions, and every seat is its winner: a draw shared by all.
function R.replay(seed, actions, forfeit, unfinished)
  local s, by = R.new(seed), {}
  for i, a in ipairs(actions) do
    if s:is_over() then error(('decision %d: the game was already over'):format(i), 0) end
    by[i] = s:to_move()
    local ok, why = s:try(a)
    if not ok then error(('decision %d, "%s": %s'):format(i, a, why), 0) end
  end
  if forfeit and s:is_over() then error('a forfeit is logged in a game its actions end', 0) end
  if forfeit and #actions > 0 and s:to_move() ~= forfeit then
    error(('seat %d forfeited, but seat %d was to decide'):format(forfeit, s:to_move()), 0)
  end
  if unfinished then
    if s:is_over() then error(('it is logged unfinished, but its %d actions end the game'):format(#actions), 0) end
    local all = {}
    for seat = 1, players do all[seat] = seat end
    return s:scores(), all, by
  end
  if not forfeit and not s:is_over() then error(('its %d actions do not end the game'):format(#actions), 0) end
  return s:scores(), s:winners(), by
end
return R
