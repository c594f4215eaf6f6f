-- beans.lua — what a Bohnanza-family bot needs to judge beans: payouts by the game's own meters
-- (ctx.cards, so a variant's beanometers are read, not assumed), what one more bean is worth to a
-- player's fields, and the one-ply trading and planting plan greedy_bohnanza plays. Rabohnzel's
-- fields are {beans = {...}, ...}; Bohnanza's are plain lists: both are read here.
local rules = require "rules"

local beans = {}

-- A field's cards, bottom first, in either game's shape.
function beans.of(field) return field.beans or field end

function beans.type(field)
  local list = beans.of(field)
  return list[#list]
end

function beans.size(field) return #beans.of(field) end

local function me(view, ctx) return view.players[ctx.seat] end

-- The coins a field of `n` beans of `type` pays now, and the most it could ever pay.
function beans.payout(ctx, type, n)
  local coins = 0
  for k, need in ipairs(ctx.cards[type].meter) do
    if need > 0 and need <= n then coins = k end
  end
  return coins
end

function beans.best_payout(ctx, type)
  local best = 0
  for k, need in ipairs(ctx.cards[type].meter) do
    if need > 0 then best = k end
  end
  return best
end

-- How much one more bean of `type` is worth to me: a bean growing on a field, a bean for an empty
-- field, or a bean that would force a harvest.
function beans.worth(view, ctx, type)
  local empty = false
  for _, field in ipairs(me(view, ctx).fields) do
    if beans.size(field) == 0 then empty = true
    elseif beans.type(field) == type then return 2 + beans.size(field) / 4 end
  end
  return empty and 0.5 or -1.5
end

-- The field of mine numbered in an action ("harvest 2", "plant 1").
local function field_in(view, ctx, action) return me(view, ctx).fields[tonumber(action:match("(%d+)$"))] end

-- The field to harvest when one must go: the one that pays most for what it holds, then the smaller.
function beans.harvest_choice(view, legal, ctx)
  return rules.best(rules.matching(legal, "^harvest"), function(a)
    local field = field_in(view, ctx, a)
    return beans.payout(ctx, beans.type(field), beans.size(field)) * 10 - beans.size(field)
  end)
end

-- A field that can pay no more: harvest it.
function beans.harvest_full(view, legal, ctx)
  for _, a in ipairs(rules.matching(legal, "^harvest")) do
    local field = field_in(view, ctx, a)
    local coins = beans.payout(ctx, beans.type(field), beans.size(field))
    if coins > 0 and coins == beans.best_payout(ctx, beans.type(field)) then return a end
  end
end

-- Phase 1 and 3: plant where the bean grows; a second phase-1 card only onto its own kind.
function beans.plant(view, legal, ctx)
  local plants = rules.matching(legal, "^plant")
  if #plants == 0 then
    if view.phase ~= "trade" and not rules.has(legal, "done") then return beans.harvest_choice(view, legal, ctx) end
    return nil
  end
  local best = rules.best(plants, function(a)
    local n = beans.size(field_in(view, ctx, a))
    return n > 0 and 10 + n or 0
  end)
  if view.phase == "plant" and view.planted >= 1 then
    local front = me(view, ctx).hand[1]
    if beans.worth(view, ctx, front) < 2 then return "done" end
  end
  return best
end

-- Building a proposal or offer: give what hurts me, want one bean that grows a field, then send.
function beans.build(view, legal, ctx)
  local deal = view.proposal
  for _, a in ipairs(rules.matching(legal, "^give up")) do
    if beans.worth(view, ctx, a:match("up (%S+)")) < 0 then return a end
  end
  local hand = me(view, ctx).hand
  if #deal.give < 2 then
    for k = 1, math.min(#hand, 3) do
      if rules.has(legal, "give " .. k) and beans.worth(view, ctx, hand[k]) < 0 then return "give " .. k end
    end
  end
  if #deal.want == 0 then
    local want = rules.best(rules.matching(legal, "^want"), function(a)
      return beans.worth(view, ctx, a:match("want (%S+)"))
    end)
    if want and beans.worth(view, ctx, want:match("want (%S+)")) >= 2 then return want end
  end
  return rules.has(legal, "send") and "send" or "cancel"
end

-- An answer: the beans I receive against those I give, each by what it does to my fields.
function beans.answer(view, ctx)
  local deal, value = view.proposal, 0
  for _, item in ipairs(deal.give) do
    local up = item:match("^up (%S+)")
    value = value + (up and beans.worth(view, ctx, up) or -0.5)
  end
  local given = {}
  for _, type in ipairs(deal.want) do
    value = value - math.max(beans.worth(view, ctx, type), 0) - (given[type] or 0)
    given[type] = (given[type] or 0) + 1
  end
  return value > 0 and "accept" or "reject"
end

-- The active player's main trading decision: one proposal per other player while a face-up card
-- would hurt, then done. Others offer when their front card hurts them.
function beans.trade(view, legal, ctx)
  if view.active ~= ctx.seat then
    local hand = me(view, ctx).hand
    local hurts = #hand > 0 and beans.worth(view, ctx, hand[1]) < 0
    return (hurts and rules.has(legal, "offer")) and "offer" or "pass"
  end
  for _, card in ipairs(view.face_up) do
    if beans.worth(view, ctx, card) < 0 and view.trade_steps < #view.players - 1 then
      local target = (ctx.seat + view.trade_steps) % #view.players + 1
      if rules.has(legal, "propose " .. target) then return "propose " .. target end
    end
  end
  return "done"
end

-- The trading rules, in greedy_bohnanza's order, for a bot's rules list.
function beans.trading_rules()
  return {
    { function(view, legal, ctx)
        return view.proposal and view.proposal.stage == "build" and beans.build(view, legal, ctx) or nil
      end, why = "build a deal" },
    { function(view, legal, ctx) return rules.has(legal, "accept") and beans.answer(view, ctx) or nil end,
      why = "answer a deal" },
    { "^reject" },
    { "^pick" },
    { function(view, legal, ctx)
        if view.phase == "trade" and not view.proposal then return beans.trade(view, legal, ctx) end
      end, why = "trade" },
  }
end

return beans
