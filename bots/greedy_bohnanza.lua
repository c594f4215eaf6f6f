-- greedy_bohnanza.lua — a one-ply Bohnanza trader. It plants where a bean grows (a second card only
-- when it joins its kind), harvests when a field can pay no more or must make room (the field that
-- pays most, losing least), gives away face-up cards and hand cards it cannot plant, asks for beans
-- that grow its fields, and accepts a deal when what it gets is worth more to its fields than what
-- it gives. Meters come from ctx.cards, so house-rule beanometers are read, not assumed. The
-- judgement lives in bots/lib/beans.lua, which greedy_rabohnzel shares.
local rules = require "rules"
local beans = require "beans"

local plan = {
  { beans.harvest_full, why = "a field pays its most" },
  { "^buy", when = function(view, ctx) return #view.players[ctx.seat].coins >= 5 end, why = "a third field" },
}
for _, rule in ipairs(beans.trading_rules()) do plan[#plan + 1] = rule end
plan[#plan + 1] = { beans.plant, why = "plant where it grows" }

return rules.bot { name = "greedy_bohnanza", rules = plan }
