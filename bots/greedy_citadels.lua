-- greedy_citadels.lua — a one-ply Citadels player. It drafts the character whose income or power pays
-- most this round, takes gold while it has something to build and cards when it has not, builds the
-- dearest district it can afford (a new colour first), collects income after building, robs and kills
-- where the money and the threat are, and lets the warlord knock a cheap district out of the leader's city.
-- Citadels' playout policy (core/rules/games/citadels.c) plays as this bot does, and tests/spec/policies_spec.lua
-- holds the two together: a change to one is a change to the other. (A copy under another name is free.)
local rules = require "rules"

-- District costs, colours and points (rules digest): dragon_gate and university score 8.
local DISTRICTS = {}
local function districts(colour, list)
  for name, cost in pairs(list) do DISTRICTS[name] = { cost = cost, colour = colour, points = cost } end
end
districts("yellow", { manor = 3, castle = 4, palace = 5 })
districts("blue", { temple = 1, church = 2, monastery = 3, cathedral = 5 })
districts("green", { tavern = 1, market = 2, trading_post = 2, docks = 3, harbor = 4, town_hall = 5 })
districts("red", { watchtower = 1, prison = 2, battlefield = 3, fortress = 5 })
districts("purple", { haunted_city = 2, keep = 3, laboratory = 5, smithy = 5, observatory = 5, graveyard = 5,
  dragon_gate = 6, university = 6, library = 6, great_wall = 6, school_of_magic = 6 })
DISTRICTS.dragon_gate.points, DISTRICTS.university.points = 8, 8

local INCOME = { king = "yellow", bishop = "blue", merchant = "green", warlord = "red" }

local function me(view, ctx) return view.players[ctx.seat] end
local function count(list) return type(list) == "table" and #list or list end

local function colours_in(city)
  local n = {}
  for _, d in ipairs(city) do
    local c = DISTRICTS[d].colour
    n[c] = (n[c] or 0) + 1
  end
  return n
end

local function has(city, name) return rules.has(city, name) end

-- The player (not me) with the biggest city, and its size.
local function leader(view, ctx)
  local best, size = nil, -1
  for i, p in ipairs(view.players) do
    if i ~= ctx.seat and #p.city > size then best, size = i, #p.city end
  end
  return best, size
end

-- Drafting: what each character is worth to me this round.
local function character_value(action, view, ctx)
  local c = action:match("^%a+ (%a+)")
  local p = me(view, ctx)
  local colours, hand = colours_in(p.city), count(p.hand)
  local _, lead = leader(view, ctx)
  local richest = 0
  for i, q in ipairs(view.players) do
    if i ~= ctx.seat and q.gold > richest then richest = q.gold end
  end
  if INCOME[c] then
    local v = (colours[INCOME[c]] or 0) + 0.5
    if c == "merchant" then v = v + 1 end
    if c == "king" and view.crown ~= ctx.seat then v = v + 0.7 end
    if c == "warlord" and lead >= 6 then v = v + 2 end
    if c == "bishop" and #p.city >= 5 then v = v + 1 end
    return v
  end
  if c == "architect" then return (hand >= 2 and p.gold >= 4) and 3.5 or 2 end
  if c == "thief" then return 1 + richest / 3 end
  if c == "magician" then return hand == 0 and 3 or 1 end
  if c == "assassin" then return lead >= 6 and 3 or 1.5 end
  return 0
end

-- Building: points, a colour the city lacks, and the purple districts' extras.
local function build_value(action, view, ctx)
  local d = DISTRICTS[action:match("^build (%S+)")]
  local v = d.points
  if not colours_in(me(view, ctx).city)[d.colour] then v = v + 1.5 end
  return v
end

-- Keeping a drawn card: one that is not already in the city, affordable soon, worth the most.
local function keep_value(action, view, ctx)
  local name = action:match("^keep (%S+)")
  local p, d = me(view, ctx), DISTRICTS[name]
  if has(p.city, name) then return -10 end
  if type(p.hand) == "table" and has(p.hand, name) then return -5 end
  return d.points - math.max(0, d.cost - p.gold - 2) * 0.7
end

-- The turn's action: gold while the hand holds something worth building, cards when it does not.
local function take_action(view, legal, ctx)
  if not rules.has(legal, "gold") then return nil end
  local p = me(view, ctx)
  for _, name in ipairs(p.hand) do
    if not has(p.city, name) and DISTRICTS[name].cost <= p.gold + 6 then return "gold" end
  end
  return "draw"
end

local KILL = { architect = 3, merchant = 3, king = 2, warlord = 2.5, thief = 2, bishop = 1.5, magician = 1 }
local ROB = { merchant = 3, king = 2.5, architect = 2, warlord = 2, bishop = 1.5, magician = 1 }

local function power_value(table_of)
  return function(action) return table_of[action:match("(%a+)$")] or 0 end
end

-- The warlord: a district of the leader that costs at most its cost - 1 = what can be spared.
local function destroy(view, legal, ctx)
  local target, size = leader(view, ctx)
  if not target or size < 5 then return nil end
  local gold, best, best_points = me(view, ctx).gold, nil, -1
  for _, a in ipairs(rules.matching(legal, "^destroy " .. target .. " ")) do
    local d = DISTRICTS[a:match("(%S+)$")]
    if d.cost - 1 <= gold and d.points > best_points then best, best_points = a, d.points end
  end
  return best
end

-- The magician: swap hands with the player holding the most cards, when that is more than mine.
local function swap(view, legal, ctx)
  local mine, best, most = count(me(view, ctx).hand), nil, -1
  for i, p in ipairs(view.players) do
    if i ~= ctx.seat and count(p.hand) > most then best, most = i, count(p.hand) end
  end
  if best and most >= mine + 2 and rules.has(legal, "swap " .. best) then return "swap " .. best end
end

return rules.bot {
  name = "greedy_citadels",
  rules = {
    { "^choose", prefer = character_value, why = "the character that pays most" },
    { "^bury", prefer = character_value, why = "bury what an opponent would want" },
    { "^graveyard yes", when = function(view, ctx) return me(view, ctx).gold >= 2 end, why = "save it" },
    { "^keep", prefer = keep_value, why = "keep the best card" },
    { "^replace done", why = "finish replacing" },
    { take_action, why = "gold or cards" },
    { "^build", prefer = build_value, why = "build the dearest" },
    { "^income", why = "income after building" },
    { "^kill", prefer = power_value(KILL), why = "kill" },
    { "^rob", prefer = power_value(ROB), why = "rob the rich" },
    { swap, why = "swap for more cards" },
    { "^smithy", when = function(view, ctx) local p = me(view, ctx) return p.gold >= 5 and #p.hand <= 1 end },
    { destroy, why = "knock down the leader" },
    { "^graveyard no" },
    { "^end", why = "nothing more to do" },
  },
}
