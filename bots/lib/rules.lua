-- rules.lua — a strategy as a priority list of guarded rules, with a scoring fallback.
--
-- The first rule that yields a legal action decides; when none does, `score` ranks every legal
-- action and the best is played (ties: the first in `legal`). A bot then reads like a player's plan:
--
--   local rules = require "rules"
--   return rules.bot {
--     name = "builder",
--     rules = {
--       { "^build opp" },                                  -- a pattern: the first legal action matching it
--       { "^build" },
--       { "^steal", when = function(view, ctx) return rules.me(view, ctx).pawn ~= "quarry" end },
--       { "^settle", prefer = function(action, view, ctx) return #action end },  -- the best of the matches
--       { function(view, legal, ctx) return nil end },     -- any function that returns an action or nil
--     },
--     score = function(action, view, ctx) return action == "end" and 0 or 1 end,
--   }
--
-- A rule is a table: [1] a Lua pattern matched against each legal action (string.find), or a function
-- (view, legal, ctx) returning an action; `when(view, ctx)`, a guard; `prefer(action, view, ctx)`, which
-- ranks several matching actions (highest first; without it the first match is taken); `why`, a few words
-- printed (to stderr, under `meeple --debug`) when the rule decides, with `explain = true` on the bot.
local rules = {}

-- The seat's own entry in view.players, and the others' (in seat order).
function rules.me(view, ctx) return view.players[ctx.seat] end

function rules.others(view, ctx)
  local list = {}
  for i, p in ipairs(view.players) do
    if i ~= ctx.seat then list[#list + 1] = p end
  end
  return list
end

-- Every legal action matching `pattern`, in legal's order.
function rules.matching(legal, pattern)
  local list = {}
  for _, a in ipairs(legal) do
    if a:find(pattern) then list[#list + 1] = a end
  end
  return list
end

-- The item of `list` with the highest fn(item, ...); the first of equals; nil for an empty list.
function rules.best(list, fn, ...)
  local best, best_value
  for _, item in ipairs(list) do
    local v = fn(item, ...)
    if v and (best_value == nil or v > best_value) then best, best_value = item, v end
  end
  return best, best_value
end

-- Whether `list` holds `value`.
function rules.has(list, value)
  for _, v in ipairs(list) do
    if v == value then return true end
  end
  return false
end

-- The rule's action, or nil.
local function try(rule, view, legal, ctx, is_legal)
  if rule.when and not rule.when(view, ctx) then return nil end
  local what = rule[1]
  if type(what) == "function" then
    local a = what(view, legal, ctx)
    if a ~= nil and is_legal[a] then return a end
    return nil
  end
  local found = rules.matching(legal, what)
  if #found == 0 then return nil end
  if rule.prefer then return (rules.best(found, rule.prefer, view, ctx)) end
  return found[1]
end

-- Makes a bot table (name, init, choose) from a strategy (see the top of this file).
function rules.bot(strategy)
  assert(type(strategy.rules) == "table", "rules.bot: the strategy needs a rules list")
  return {
    name = strategy.name,
    init = strategy.init,
    choose = function(view, legal, ctx)
      if #legal == 1 then return legal[1] end
      local is_legal = {}
      for _, a in ipairs(legal) do is_legal[a] = true end
      for i, rule in ipairs(strategy.rules) do
        local a = try(rule, view, legal, ctx, is_legal)
        if a then
          if strategy.explain then print(("rule %d (%s): %s"):format(i, rule.why or "-", a)) end
          return a
        end
      end
      if strategy.score then
        local a = rules.best(legal, strategy.score, view, ctx)
        if a then
          if strategy.explain then print("score: " .. a) end
          return a
        end
      end
      return legal[1]
    end,
  }
end

return rules
