-- serve_game.lua — one game of `meeple serve` (serve/serve_game.c), in a lua_State of its own: the
-- state (under its variant, if any), what each reader may see of it, and the game document
-- (docs/serve.md) as JSON text.
--
-- Run with (meeple, game, players, seed, variant or nil, params as JSON text, render: scripts/render.lua's
-- function); returns G.
local meeple, game, players, seed, variant, params_json, render = ...
local json = meeple.json
local params, bad = json.decode(params_json)
if bad then error('params: ' .. bad, 0) end
if type(params) ~= 'table' then error('params must be an object', 0) end
if next(params) == nil then params = nil end
local s = meeple.new(game, { seed = seed, players = players, variant = variant, params = params })
local G = {}
-- The card catalogue as this game plays it (a variant's or params' beanometers and costs included): the
-- pages draw meters and costs from it, so it rides in every document.
local catalogue = s:cards()
-- The colours of this game's cards as the terminal paints them (render.lua, the one place they are
-- written), for the pages' tiles.
local colours = {}
for name, colour in pairs(render(nil, { looks = true }).colour) do
  if catalogue[name] ~= nil then colours[name] = colour end
end
-- Both never change, and the catalogue is most of a document (Citadels': 3.7 KB of JSON against a
-- view's 0.6 KB): encoded once, spliced into every document.
local constant_members = ',"cards":' .. json.encode(catalogue) .. ',"colours":' .. json.encode(colours)
local meta = {}
-- The document's fields that never change (id, game, players, variant, seats), as JSON text.
function G.set_meta(text) meta = assert(json.decode(text)) end
local forfeit
local decisions = 0 -- taken so far

local function plain() return type(s) == 'table' and s._raw or s end
G.plain = plain

function G.over() return forfeit ~= nil or s:is_over() end
function G.to_move() if G.over() then return nil end return s:to_move() end
function G.decisions() return decisions end

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

-- Each reader's history as JSON text, one entry a decision, made once as the decision is played (a
-- document then costs no more as the game grows long): seen[p] for seat p, seen[0] for spectators.
-- Each entry is what that reader saw: the action to its decider, its public text to the others
-- (s:history(p)); spectators see what the seats other than the decider saw, when they all saw the same.
local seen = {}
for p = 0, players do seen[p] = {} end
local function entry(n, seat, text) return json.encode({ n = n, seat = seat, text = text }) end

-- Plays a checked action and notes what each reader saw of it.
function G.play(a)
  local mover = s:to_move()
  local texts = {}
  for p = 1, players do texts[p] = p == mover and a or (s:public_text(a, p) or a) end
  local ok, why = s:try(a)
  if not ok then error(why, 0) end
  decisions = decisions + 1
  -- spectators: the text every other seat saw, when they all saw the same; else a text that tells nothing
  texts[0] = nil
  for p = 1, players do
    if p ~= mover then
      if texts[0] == nil then texts[0] = texts[p] elseif texts[0] ~= texts[p] then texts[0] = false end
    end
  end
  if not texts[0] then texts[0] = ('(seat %d decides)'):format(mover) end
  for p = 0, players do seen[p][decisions] = entry(decisions, mover, texts[p]) end
end

-- The legal actions of the seat to move, as texts (for a bot seat).
function G.legal() return s:legal() end

function G.forfeit(seat, reason) forfeit = { seat = seat, reason = reason } end

-- A game kept read-only (its stored events do not replay, or the database refused one): why.
local broken
function G.set_broken(reason) broken = reason end

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

local function same(a, b)
  if a == b then return true end
  if type(a) ~= 'table' or type(b) ~= 'table' then return false end
  for k, v in pairs(a) do if not same(v, b[k]) then return false end end
  for k in pairs(b) do if a[k] == nil then return false end end
  return true
end

-- What every seat's view shows alike: the spectators' view. A value the seats see differently is
-- left out, except a count that some seats see where its owner sees the list (a hand: its size).
local function meet(values)
  local first = values[1]
  local all_same, tables, counts = true, 0, {}
  for _, v in ipairs(values) do
    all_same = all_same and same(v, first)
    if type(v) == 'table' then tables = tables + 1 else counts[#counts + 1] = v end
  end
  if all_same then return first end
  if tables > 0 and #counts > 0 then
    for _, c in ipairs(counts) do
      if math.type(c) ~= 'integer' or c ~= counts[1] then return nil end
    end
    return counts[1]
  end
  if tables < #values then return nil end
  local n = #first
  for _, v in ipairs(values) do
    if #v ~= n then return nil end -- lists of different lengths: some see more of it
  end
  local out = {}
  for k in pairs(first) do
    local children = {}
    for i, v in ipairs(values) do
      if v[k] == nil then children = nil break end
      children[i] = v[k]
    end
    local m = children and meet(children)
    if m == nil and math.type(k) == 'integer' and k <= n then return nil end -- no hole in a list
    out[k] = m
  end
  return out
end

local function spectator_view()
  local views = {}
  for p = 1, players do views[p] = s:view(p) end
  return meet(views) or {}
end

-- The game document for `seat` (nil: a spectator).
function G.document(seat)
  local d = {}
  for k, v in pairs(meta) do d[k] = v end
  d.seat = seat
  d.decisions = decisions
  d.over = G.over()
  d.to_move = G.to_move() or json.null
  d.your_turn = seat ~= nil and d.to_move == seat
  d.view = seat and s:view(seat) or spectator_view()
  if d.your_turn then d.legal = s:legal() end
  if d.over then d.scores, d.winners = G.result() end
  if forfeit then d.forfeit = { seat = forfeit.seat, reason = forfeit.reason } end
  if broken then d.broken, d.your_turn, d.legal = broken, false, nil end
  -- the cards, the colours and the history's entries are JSON already: spliced in as the object's last
  -- members (the encoded object ends with its closing brace, whatever its values hold)
  local text = json.encode(d)
  return text:sub(1, -2) .. constant_members .. ',"history":[' .. table.concat(seen[seat or 0], ',') .. ']}'

end

return G
