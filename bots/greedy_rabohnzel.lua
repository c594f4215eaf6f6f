-- greedy_rabohnzel.lua — a one-ply Rabohnzel player: greedy_bohnanza's trading and planting
-- (bots/lib/beans.lua) with Rabohnzel's magic on top. In the magic phase it uses every bean power
-- (plucking the biggest hand), attacks with its Sword field the player whose coins are richest in
-- Princess coins (the only coin a Sword takes) when that outweighs the Sword coins that would strike
-- back, casts Magic beans into the spells it can use, and uses luck, hand_cards, commerce and a
-- river that plants its fields. Defending, it harvests in the guard window to thin out its Princess
-- coins before a Sword attack. Meters come from ctx.cards: the provisional ones, or a variant's.
local rules = require "rules"
local beans = require "beans"

local function me(view, ctx) return view.players[ctx.seat] end

local function count(list, name)
  local n = 0
  for _, x in ipairs(type(list) == "table" and list or {}) do
    if x == name then n = n + 1 end
  end
  return n
end

local function has_field(view, ctx, type)
  for _, field in ipairs(me(view, ctx).fields) do
    if beans.type(field) == type then return true end
  end
  return false
end

-- The spells worth activating, best first; aggression only with a field that can use it.
local function spell_rank(view, ctx, spell)
  local rank = { luck = 6, hand_cards = 5, card_river = 3, commerce = 2, bean_field = 2, deck_spell = 1 }
  if spell == "aggression" and (has_field(view, ctx, "sword") or has_field(view, ctx, "common")) then return 4 end
  return rank[spell]
end

local function best_spell(view, ctx, legal, pattern)
  return rules.best(rules.matching(legal, pattern), function(a)
    return spell_rank(view, ctx, a:match(pattern .. "(%S+)"))
  end)
end

-- A Sword target's worth: the share of its coins a Sword takes, less half the share that strikes back.
local function target_value(view, action)
  local coins = view.players[tonumber(action:match("^sword (%d+)"))].coins
  local n = #coins
  if n == 0 then return nil end
  local value = (count(coins, "princess") - count(coins, "sword") / 2) / n
  return value > 0 and value + (action:find("aggression") and 0.5 or 0) or nil
end

local function sword(view, legal)
  return rules.best(rules.matching(legal, "^sword "), function(a) return target_value(view, a) end)
end

local function pluck(view, legal)
  return rules.best(rules.matching(legal, "^pluck "), function(a)
    return tonumber(view.players[tonumber(a:match("^pluck (%d+)"))].hand) or 0
  end)
end

-- A stolen, drawn or Pluck-coin card: plant it where its kind grows, else keep it.
local function place_pending(view, legal, ctx)
  if not rules.has(legal, "keep") then return nil end
  local card = view.pending and view.pending.card
  for _, a in ipairs(rules.matching(legal, "^plant ")) do
    if beans.type(me(view, ctx).fields[tonumber(a:match("(%d+)$"))]) == card then return a end
  end
  return "keep"
end

-- Aggression's two coins: what a Sword's draw does to the attacker, best first.
local COIN_RESULT = { princess = 5, magic = 4, cape = 3, common = 3, wise = 3, pluck = 1, sword = 0 }

-- Defending in the guard window: more coins of other kinds make a Princess coin less likely to go.
local function guard(view, legal, ctx)
  if view.guard ~= ctx.seat then return nil end
  if count(me(view, ctx).coins, "princess") == 0 then return "pass" end
  local a, coins = rules.best(rules.matching(legal, "^harvest"), function(h)
    local field = me(view, ctx).fields[tonumber(h:match("(%d+)$"))]
    return beans.payout(ctx, beans.type(field), beans.size(field))
  end)
  return (a and coins > 0) and a or "pass"
end

-- The river: plant while the front card grows a field.
local function river(view, legal, ctx)
  if not view.river or not rules.has(legal, "stop") then return nil end
  local front = me(view, ctx).hand[1]
  return front and beans.worth(view, ctx, front) >= 2 and beans.plant(view, legal, ctx) or "stop"
end

local function use_spell(view, legal, ctx)
  for _, a in ipairs { "use luck", "use hand_cards", "use commerce" } do
    if rules.has(legal, a) then return a end
  end
  local hand, discard = me(view, ctx).hand, view.discard
  if rules.has(legal, "use card_river") and hand[1] and beans.worth(view, ctx, hand[1]) >= 2 then return "use card_river" end
  if rules.has(legal, "use deck_spell") and type(discard) == "table" and #discard > 0
    and beans.worth(view, ctx, discard[#discard]) >= 2 then return "use deck_spell" end
  if rules.has(legal, "use bean_field") then
    for _, card in ipairs(me(view, ctx).set_aside) do
      if beans.worth(view, ctx, card) < 0 then return "use bean_field" end
    end
  end
end

local plan = {
  { beans.harvest_full, why = "a field pays its most" },
  { place_pending, why = "a pending card" },
  { "^choose ", prefer = function(a) return COIN_RESULT[a:match("^choose (%S+)")] or 2 end, why = "aggression's coin" },
  { function(view, legal, ctx) return best_spell(view, ctx, legal, "^activate ") end, why = "a Magic coin" },
  { "^place up" },
  { "^order ", prefer = function(a, view, ctx) return beans.worth(view, ctx, a:match("^order (%S+)")) end },
  { guard, why = "guard window" },
  { river, why = "the river" },
  { "^wise" }, { "^common" },
  { pluck, why = "pluck the biggest hand" },
  { sword, why = "attack the richest princess holder" },
  { function(view, legal, ctx) return best_spell(view, ctx, legal, "^magic ") end, why = "a Magic field" },
  { function(view, legal, ctx) return best_spell(view, ctx, legal, "^cast ") end, why = "cast a Magic bean" },
  { use_spell, why = "a spell" },
  { "^discard ", when = function(view, ctx)
      return beans.worth(view, ctx, view.face_up[view.commerce_card or #view.face_up]) < 0
    end },
}
for _, rule in ipairs(beans.trading_rules()) do plan[#plan + 1] = rule end
plan[#plan + 1] = { beans.plant, why = "plant where it grows" }

-- When no rule decides: end the step rather than start something.
local QUIET = { done = 3, pass = 3, draw = 3, skip = 2, stop = 2, keep = 2, ["activate none"] = 2, ["place up"] = 1 }

return rules.bot {
  name = "greedy_rabohnzel",
  rules = plan,
  score = function(action) return QUIET[action] or 0 end,
}
