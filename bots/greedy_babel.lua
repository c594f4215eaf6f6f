-- greedy_babel.lua — a one-ply Babel player: it builds whenever it can (taking the opponent's card when
-- both fit), leaps and steals, tears down the leader's tall temples, halves a full hand, and otherwise
-- tries each action on a guess of the hidden cards and keeps the one that leaves it best placed: temple
-- points first, then rows grown toward their next level, triples ready, and no card spent for nothing.
-- Babel's playout policy (core/rules/games/babel.c) plays as this bot does, and tests/spec/policies_spec.lua
-- holds the two together: a change to one is a change to the other. (A copy under another name is free.)
local rules = require "rules"

local PEOPLES = { "medes", "sumerians", "hittites", "persians", "assyrians" }

local function height(site) return site[#site] or 0 end

local function total(p)
  local t = 0
  for _, loc in ipairs(PEOPLES) do t = t + height(p.temples[loc]) end
  return t
end

local function hand_size(p) return type(p.hand) == "table" and #p.hand or p.hand end

-- What a player's rows promise: progress toward each site's next level, a bonus where that level can
-- be built from a reserve's top card, and triples ready for an ability.
local function promise(p, tops)
  local v = 0
  for _, loc in ipairs(PEOPLES) do
    local need, row = height(p.temples[loc]) + 1, p.rows[loc]
    if need <= 6 then
      v = v + math.min(#row, need) / need
      if #row >= need and tops[need] then v = v + (p.pawn == loc and 1.5 or 0.7) end
    end
    local run = 1
    for i = 2, #row do
      run = row[i] == row[i - 1] and run + 1 or 1
      if run == 3 then v = v + 0.4 end
    end
  end
  return v
end

-- The position's worth to seat `me` (view of that seat).
local function value(view, me)
  local mine, theirs = view.players[me], view.players[3 - me]
  local tops = {}
  for _, p in ipairs(view.players) do
    local top = p.reserve[#p.reserve]
    if top then tops[top] = true end
  end
  local v = 10 * (total(mine) - total(theirs))
  v = v + 2 * promise(mine, tops) - promise(theirs, tops)
  v = v + 0.35 * math.min(hand_size(mine), 10) - 0.2 * math.min(hand_size(theirs), 10)
  -- The pawn where a few more settlers reach the next level is worth a card; at the quarry, nothing.
  local at = mine.pawn
  if at ~= "quarry" then
    local short = height(mine.temples[at]) + 1 - #mine.rows[at]
    v = v + (short <= hand_size(mine) and 1.2 or 0.6)
  end
  if view.phase == "halve" and view.to_move ~= me then v = v + 0.2 * view.halve_left end
  return v
end

-- One ply: every action tried on one sample of the hidden cards; ending the turn is worth the position
-- as it stands (the draws that follow are luck, not a choice).
local function one_ply(view, legal, ctx)
  local s = ctx.sample()
  local best, best_value = "end", value(s:view(ctx.seat), ctx.seat) + 0.05
  for _, a in ipairs(legal) do
    if a ~= "end" then
      local c = s:clone()
      if c:try(a) then -- (an action a variant adds is not known to the sample: it is skipped)
        local v = value(c:view(ctx.seat), ctx.seat)
        if v > best_value then best, best_value = a, v end
      end
    end
  end
  if best == "end" and not rules.has(legal, "end") then best = legal[1] end
  return best
end

local function opponent(view, ctx) return view.players[3 - ctx.seat] end

-- Discard the people held most often: the rest keeps its variety.
local function most_held(action, view, ctx)
  local people, n = action:match("^discard (%a+)"), 0
  for _, card in ipairs(rules.me(view, ctx).hand) do
    if card == people then n = n + 1 end
  end
  return n
end

return rules.bot {
  name = "greedy_babel",
  rules = {
    { "^discard", prefer = most_held, why = "halving: keep variety" },
    { "^leap opp", why = "leap with the opponent's card" },
    { "^leap own", why = "leap" },
    { "^steal", why = "steal the top temple" },
    { "^build opp", why = "build, taking the opponent's card" },
    { "^build own", why = "build" },
    { "^collapse", why = "tear down a tall temple or the leader's",
      when = function(view, ctx)
        local me, opp = rules.me(view, ctx), opponent(view, ctx)
        return total(opp) >= total(me) or (me.pawn ~= "quarry" and height(opp.temples[me.pawn]) >= 3)
      end },
    { "^halve", why = "halve a full hand",
      when = function(view, ctx) return opponent(view, ctx).hand >= 6 end },
    { one_ply, why = "one ply on a sample" },
  },
}
