-- greedy_bohnanza.lua — a one-ply Bohnanza trader. It plants where a bean grows (a second card only
-- when it joins its kind), harvests when a field can pay no more or must make room (the field that
-- pays most, losing least), gives away face-up cards and hand cards it cannot plant, asks for beans
-- that grow its fields, and accepts a deal when what it gets is worth more to its fields than what
-- it gives. Meters come from ctx.cards, so house-rule beanometers are read, not assumed.
local rules = require "rules"

local function me(view, ctx) return view.players[ctx.seat] end

local function field_type(field) return field[#field] end

-- The coins a field of `n` beans of `type` pays now, and the most it could ever pay.
local function payout(ctx, type, n)
  local coins = 0
  for k, need in ipairs(ctx.cards[type].meter) do
    if need > 0 and need <= n then coins = k end
  end
  return coins
end

local function best_payout(ctx, type)
  local best = 0
  for k, need in ipairs(ctx.cards[type].meter) do
    if need > 0 then best = k end
  end
  return best
end

-- How much one more bean of `type` is worth to me: a bean growing on a field, a bean for an empty
-- field, or a bean that would force a harvest.
local function worth(view, ctx, type)
  local empty = false
  for _, field in ipairs(me(view, ctx).fields) do
    if #field == 0 then empty = true
    elseif field_type(field) == type then return 2 + #field / 4 end
  end
  return empty and 0.5 or -1.5
end

-- The field to harvest when one must go: the one that pays most for what it holds, then the smaller.
local function harvest_choice(view, legal, ctx)
  local fields = me(view, ctx).fields
  return rules.best(rules.matching(legal, "^harvest"), function(a)
    local field = fields[tonumber(a:match("%d+"))]
    return payout(ctx, field_type(field), #field) * 10 - #field
  end)
end

-- A field that can pay no more (or holds every bean of its kind still out there): harvest it.
local function harvest_full(view, legal, ctx)
  for _, a in ipairs(rules.matching(legal, "^harvest")) do
    local field = me(view, ctx).fields[tonumber(a:match("%d+"))]
    local type = field_type(field)
    local coins = payout(ctx, type, #field)
    if coins > 0 and coins == best_payout(ctx, type) then return a end
  end
end

-- Phase 1 and 3: plant where the bean grows; a second phase-1 card only onto its own kind.
local function plant(view, legal, ctx)
  local plants = rules.matching(legal, "^plant")
  if #plants == 0 then
    if view.phase ~= "trade" and not rules.has(legal, "done") then return harvest_choice(view, legal, ctx) end
    return nil
  end
  local fields = me(view, ctx).fields
  local best = rules.best(plants, function(a)
    local f = tonumber(a:match("(%d+)$"))
    return #fields[f] > 0 and 10 + #fields[f] or 0
  end)
  if view.phase == "plant" and view.planted >= 1 then
    local front = me(view, ctx).hand[1]
    if worth(view, ctx, front) < 2 then return "done" end
  end
  return best
end

-- Building a proposal or offer: give what hurts me, want one bean that grows a field, then send.
local function build(view, legal, ctx)
  local deal = view.proposal
  for _, a in ipairs(rules.matching(legal, "^give up")) do
    if worth(view, ctx, a:match("up (%S+)")) < 0 then return a end
  end
  local hand = me(view, ctx).hand
  if #deal.give < 2 then
    for k = 1, math.min(#hand, 3) do
      if rules.has(legal, "give " .. k) and worth(view, ctx, hand[k]) < 0 then return "give " .. k end
    end
  end
  if #deal.want == 0 then
    local want = rules.best(rules.matching(legal, "^want"), function(a) return worth(view, ctx, a:match("want (%S+)")) end)
    if want and worth(view, ctx, want:match("want (%S+)")) >= 2 then return want end
  end
  return rules.has(legal, "send") and "send" or "cancel"
end

-- An answer: the beans I receive against those I give, each by what it does to my fields.
local function answer(view, ctx)
  local deal, value = view.proposal, 0
  for _, item in ipairs(deal.give) do
    local up = item:match("^up (%S+)")
    value = value + (up and worth(view, ctx, up) or -0.5)
  end
  local given = {}
  for _, type in ipairs(deal.want) do
    value = value - math.max(worth(view, ctx, type), 0) - (given[type] or 0)
    given[type] = (given[type] or 0) + 1
  end
  return value > 0 and "accept" or "reject"
end

-- The active player's main decision: one proposal per other player while a face-up card would
-- hurt, then done.
local function trade(view, legal, ctx)
  if view.active ~= ctx.seat then
    local hand = me(view, ctx).hand
    local hurts = #hand > 0 and worth(view, ctx, hand[1]) < 0
    return (hurts and rules.has(legal, "offer")) and "offer" or "pass"
  end
  for _, card in ipairs(view.face_up) do
    if worth(view, ctx, card) < 0 and view.trade_steps < #view.players - 1 then
      local target = (ctx.seat + view.trade_steps) % #view.players + 1
      if rules.has(legal, "propose " .. target) then return "propose " .. target end
    end
  end
  return "done"
end

return rules.bot {
  name = "greedy_bohnanza",
  rules = {
    { harvest_full, why = "a field pays its most" },
    { "^buy", when = function(view, ctx) return #me(view, ctx).coins >= 5 end, why = "a third field" },
    { function(view, legal, ctx) return view.proposal and view.proposal.stage == "build" and build(view, legal, ctx) end },
    { function(view, legal, ctx) return rules.has(legal, "accept") and answer(view, ctx) end },
    { "^reject" },
    { "^pick" },
    { function(view, legal, ctx)
        if view.phase == "trade" and not view.proposal then return trade(view, legal, ctx) end
      end },
    { plant, why = "plant where it grows" },
  },
}
