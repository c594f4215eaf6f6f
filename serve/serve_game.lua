-- serve_game.lua — one game of `meeple serve` (serve/serve_game.c), in a lua_State of its own: the
-- state (under its variant, if any), what each reader may see of it, and the game document
-- (docs/serve.md) as JSON text.
--
-- Run with (meeple, game, players, seed, variant or nil, params as JSON text, spectator_view); returns
-- G. spectator_view(plain) is C's: the table of a viewer who holds no seat.
local meeple, game, players, seed, variant, params_json, spectator_view = ...
local json = meeple.json
local params, bad = json.decode(params_json)
if bad then error('params: ' .. bad, 0) end
if type(params) ~= 'table' then error('params must be an object', 0) end
if next(params) == nil then params = nil end
local s = meeple.new(game, { seed = seed, players = players, variant = variant, params = params })
local G = {}
local meta = {}
-- The document's fields that never change (id, game, players, variant, seats), as JSON text.
function G.set_meta(text) meta = assert(json.decode(text)) end
-- What a spectator saw of each decision: the decider's secret is secret to them as to any other seat.
local watched = {}
local forfeit

local function plain() return type(s) == 'table' and s._raw or s end
G.plain = plain

function G.over() return forfeit ~= nil or s:is_over() end
function G.to_move() if G.over() then return nil end return s:to_move() end
function G.decisions() return #watched end

-- Whether `seat` may play `a` now: true, or nil and the reason a player reads.
function G.check(seat, a)
  if forfeit then return nil, ('the game is over: seat %d forfeited'):format(forfeit.seat) end
  if s:is_over() then return nil, 'the game is over' end
  local mover = s:to_move()
  if seat ~= mover then return nil, ('it is not your turn: seat %d decides'):format(mover) end
  local ok, why = s:check(a)
  if not ok then return nil, why end
  return true
end

-- Plays a checked action; its text as the spectators see it goes into their history.
function G.play(a)
  local mover = s:to_move()
  local shown = a
  for p = 1, players do
    if p ~= mover then shown = s:public_text(a, p) or a break end
  end
  local ok, why = s:try(a)
  if not ok then error(why, 0) end
  watched[#watched + 1] = { player = mover, action = shown }
end

-- The legal actions of the seat to move, as texts (for a bot seat).
function G.legal() return s:legal() end

function G.forfeit(seat, reason) forfeit = { seat = seat, reason = reason } end

-- Scores and winners: after a forfeit, the other seats with the best score as it stands.
function G.result()
  local scores = s:scores()
  if not forfeit then return scores, s:winners() end
  local best
  for p = 1, players do
    if p ~= forfeit.seat and (best == nil or scores[p] > best) then best = scores[p] end
  end
  local winners = {}
  for p = 1, players do
    if p ~= forfeit.seat and scores[p] == best then winners[#winners + 1] = p end
  end
  return scores, winners
end

-- The scores as the end event stores them.
function G.result_json()
  local scores, winners = G.result()
  return json.encode({ scores = scores, winners = winners })
end

local function history_of(seat)
  local out = {}
  local h = seat and s:history(seat) or watched
  for i, e in ipairs(h) do out[i] = { n = i, seat = e.player, text = e.action } end
  return out
end

-- The game document for `seat` (nil: a spectator).
function G.document(seat)
  local d = {}
  for k, v in pairs(meta) do d[k] = v end
  d.seat = seat
  d.decisions = #watched
  d.over = G.over()
  d.to_move = G.to_move() or json.null
  d.your_turn = seat ~= nil and d.to_move == seat
  d.view = seat and s:view(seat) or spectator_view(plain())
  if d.your_turn then d.legal = s:legal() end
  if d.over then d.scores, d.winners = G.result() end
  if forfeit then d.forfeit = { seat = forfeit.seat, reason = forfeit.reason } end
  d.history = history_of(seat)
  return json.encode(d)
end

return G
