-- ismcts.lua — information-set Monte Carlo tree search for any game (Cowling, Powley & Whitehouse 2012,
-- "single-observer" ISMCTS), written only against the bot interface: ctx.sample(), and the state's
-- legal, ranked, play, playout, to_move, scores and winners.
--
-- Each iteration deals the hidden cards anew (ctx.sample: a full state consistent with what this seat
-- sees), walks down the tree choosing among the actions legal in *that* deal by UCB1 (with the
-- "availability" count in place of the parent's visits, since an action is not always on offer), adds one
-- node (for an untried action at random, or with `expand = "policy"` the one the game's playout policy
-- wants most: s:ranked; with `widen`, only while the node has fewer than ceil(widen * sqrt(visits))
-- children, in the policy's order), and plays the game out with s:playout — in C, so thousands of
-- games fit in a decision — at random but for a `greedy` share of the decisions, which follow the
-- game's own playout policy (a plain greedy player's choice: imagined opponents then build and score
-- as real ones do), `playouts` times from the new node, the rewards averaged. It scores the end
-- position for every player: 1 for a win (shared on a draw), but for a `margin` share that is worth
-- the score lead, or, where `playout_depth` stopped it short, the score lead's worth alone. The action
-- tried most often at the root is played.
--
-- The same search runs in C as meeple.search (core/host/search.c), with the same draws from ctx.rng
-- and ctx.sample's generator and the same tie-breaks, so that for fixed iterations both choose alike
-- (tests/spec/search_spec.lua holds them to it). A bot made here runs the C one unless given
-- `engine = "lua"`; this file is the algorithm to read.
--
--   local ismcts = require "ismcts"
--   return ismcts.bot { name = "ismcts", ms = 100 }     -- see `defaults` for every option
local ismcts = {}

ismcts.defaults = {
  name = "ismcts",
  ms = 100,              -- thinking time per decision (never more than half of ctx.budget.ms)
  iterations = false,    -- a fixed number of iterations instead of a time (reproducible)
  c = 0.7,               -- UCB1 exploration constant
  playout_depth = false, -- decisions played after the tree at most (false: to the game's end, or 20000),
                         -- or a table by game name with a default ({babel = 20, default = false})
  score_scale = 4,       -- a score lead this big is worth ~0.76 of a win (where a playout stops short,
                         -- and in the `margin` share of a finished one); or a table by game name
  greedy = 0.2,          -- share of playout decisions that follow the game's playout policy (s:playout),
                         -- or a table of shares by game name with a `default` ({bohnanza = 1, default = 0.2})
  playouts = 1,          -- playouts from each new node, their rewards averaged (1 to 64)
  margin = 0,            -- share of a finished game's reward that is the score lead's (the rest is the
                         -- win): a search that also wants to win by more; a share, or a table by game
  expand = "random",     -- which untried action a node tries next: "random", or "policy" (the first in
                         -- s:ranked, the playout policy's favourite); or a table of them by game name
  widen = false,         -- progressive widening: a node visited n times has at most ceil(widen * sqrt(n))
                         -- children, added in the playout policy's order (s:ranked), so a search of a few
                         -- hundred iterations weighs the likeliest actions instead of trying each once;
                         -- false: every action is tried before any is tried again; or a table by game
  explain = false,       -- print (under `meeple --debug`) the iterations and the choice's visits
  engine = "c",          -- "c": meeple.search, the same search in C; "lua": the loop below
}

local exp, log, sqrt, huge, max, ceil = math.exp, math.log, math.sqrt, math.huge, math.max, math.ceil

local function is_share(v) return type(v) == "number" and v >= 0 and v <= 1 end
local function is_scale(v) return type(v) == "number" and v > 0 and v < huge end

-- How much the score lead of seat p is worth, from 0 to 1 (a lead of `scale` about 0.76).
local function lead_worth(scores, p, players, scale)
  local best_other = -huge
  for q = 1, players do
    if q ~= p and scores[q] > best_other then best_other = scores[q] end
  end
  return 1 / (1 + exp(-(scores[p] - best_other) / scale * 1.15))
end

-- Rewards for every seat at the end of an iteration, written into `r` (made once per decision: a table
-- per iteration is garbage the collector then spends time on). A finished
-- game gives 1 for a win (shared on a draw), but for the `margin` share that is the score lead's; a
-- game cut short, the score lead's alone.
local function rewards(s, players, margin, scale, r)
  local winners = s:winners()
  if winners and margin == 0 then
    for p = 1, players do r[p] = 0 end
    for _, w in ipairs(winners) do r[w] = 1 / #winners end
    return r
  end
  local scores = s:scores()
  for p = 1, players do r[p] = lead_worth(scores, p, players, scale) end
  if winners then
    for p = 1, players do r[p] = margin * r[p] end
    for _, w in ipairs(winners) do r[w] = r[w] + (1 - margin) / #winners end
  end
  return r
end

-- The rewards of state `s` for its `players` seats, as the search scores an iteration's end: for
-- a search of one's own (`margin` a share from 0 to 1 and `scale` as the options `margin` and
-- `score_scale`; by default 0 and 4).
function ismcts.rewards(s, players, margin, scale)
  margin, scale = margin or 0, scale or ismcts.defaults.score_scale
  if not is_share(margin) then error("ismcts.rewards: margin must be a share from 0 to 1", 2) end
  if not is_scale(scale) then error("ismcts.rewards: scale must be a number above 0", 2) end
  return rewards(s, players, margin, scale, {})
end

-- A playout still running after this many decisions is judged by the score lead: ten times the longest
-- game seen (Rabohnzel, 2,718 random decisions), and a bound where a sampled deal and a wholly greedy
-- policy meet in a game nobody can end (a Babel deal where no temple fits and none is drawn).
local PLAYOUT_CAP = 20000

-- The mean rewards of `o.playouts` playouts from `s` (the last one plays on `s` itself), into `mean`.
local function playouts(s, ctx, o, players, mean, r)
  local depth, k = o.depth_now or PLAYOUT_CAP, o.playouts
  if k == 1 then
    s:playout(ctx.rng(0x7fffffff), depth, o.greedy_now)
    return rewards(s, players, o.margin_now, o.scale_now, mean)
  end
  for p = 1, players do mean[p] = 0 end
  for i = 1, k do
    local game = i < k and s:clone() or s
    game:playout(ctx.rng(0x7fffffff), depth, o.greedy_now)
    rewards(game, players, o.margin_now, o.scale_now, r)
    for p = 1, players do mean[p] = mean[p] + r[p] / k end
  end
  return mean
end

-- player: the seat that chose `action` to reach this node (it collects the rewards here). Only the root
-- keeps the order its children came in (`order`), for a choice that does not depend on hashing.
local function new_node(parent, action, player)
  return { parent = parent, action = action, player = player, children = {}, visits = 0, wins = 0, avail = 0 }
end

-- The k-th action of `legal` that has no child yet.
local function kth_untried(legal, children, k)
  for i = 1, #legal do
    local a = legal[i]
    if not children[a] then
      k = k - 1
      if k == 0 then return a end
    end
  end
end

-- The first action of `ranked` that has no child yet.
local function first_untried(ranked, children)
  for i = 1, #ranked do
    if not children[ranked[i]] then return ranked[i] end
  end
end

-- Whether `node` takes a new child, with `tried` of this deal's actions tried and `untried` not: any
-- untried action, or with `widen` only while it has fewer than ceil(widen * sqrt(visits)) (at least one).
local function may_expand(node, tried, untried, widen)
  return untried > 0 and (not widen or tried < max(1, ceil(widen * sqrt(node.visits))))
end

-- One iteration from a fresh deal. `scratch` holds two reward tables reused by every iteration.
local function iterate(root, ctx, o, players, scratch)
  local s = ctx.sample()
  local node, c = root, o.c
  -- Selection: while every action legal in this deal has a child, go down by UCB1. A finished game
  -- has no legal action.
  local legal, widen = s:legal(), o.widen_now
  while #legal > 0 do
    local children, untried = node.children, 0
    for i = 1, #legal do
      local child = children[legal[i]]
      if child then child.avail = child.avail + 1 else untried = untried + 1 end
    end
    if may_expand(node, #legal - untried, untried, widen) then
      -- Expansion: one new child, for an action this deal offers.
      local a
      if widen or o.expand_now == "policy" then
        a = first_untried(s:ranked(ctx.rng(0x7fffffff)), children)
      else
        a = kth_untried(legal, children, ctx.rng(untried))
      end
      local child = new_node(node, a, s:to_move())
      child.avail = 1
      children[a] = child
      if node.order then node.order[#node.order + 1] = a end
      s:play(a)
      node = child
      break
    end
    local best, best_ucb
    for i = 1, #legal do
      local child = children[legal[i]]
      if child then -- (with `widen`, not every action this deal offers has one yet)
        local visits = child.visits
        local ucb = child.wins / visits + c * sqrt(log(child.avail) / visits)
        if not best or ucb > best_ucb then best, best_ucb = child, ucb end
      end
    end
    s:play(best.action)
    node = best
    legal = s:legal()
  end
  -- Playouts: on to the end (or `playout_depth` decisions) in C, at random but for a `greedy` share of
  -- the decisions, which follow the game's playout policy; `playouts` of them from one leaf give a
  -- steadier reward for fewer iterations (a greedy Babel playout is about three quarters of one).
  local r = playouts(s, ctx, o, players, scratch[1], scratch[2])
  -- Backpropagation: each node credits the seat that chose its action.
  while node do
    node.visits = node.visits + 1
    local player = node.player
    if player then node.wins = node.wins + r[player] end
    node = node.parent
  end
end

-- Options of earlier versions, and what became of them.
local RETIRED = {
  rollout_depth = "is now 'playout_depth'",
  rollout_moves = "is gone: playouts run to the game's end ('playout_depth' cuts them short)",
  rollout_turns = "is gone: playouts run to the game's end ('playout_depth' cuts them short)",
}

-- An option given once for every game, or as a table by game name that has a default: `greedy` and
-- `margin` shares, `expand` a way to expand, `score_scale` a scale, `widen` a widening. The error says
-- what was given that is not one.
local function shown(v) return type(v) == "string" and ("%q"):format(v) or tostring(v) end

local function check_by_game(name, value, is_ok, what)
  if is_ok(value) then return end
  local given
  if type(value) ~= "table" then
    given = "got " .. shown(value)
  elseif not is_ok(value.default) then
    given = "its default is " .. shown(value.default)
  else
    for game, v in pairs(value) do
      if type(game) ~= "string" or not is_ok(v) then
        local key = type(game) == "string" and game or "[" .. shown(game) .. "]"
        given = ("%s = %s"):format(key, shown(v))
        break
      end
    end
    if not given then return end
  end
  error(("ismcts: option '%s' must be %s, or a table of them by game name with a default (%s)"):format(
    name, what, given), 3)
end

local EXPANSIONS = { random = true, policy = true }
local function is_expansion(v) return EXPANSIONS[v] == true end

local function is_widening(v) return v == false or is_scale(v) end

local function is_depth(v) return v == false or (math.type(v) == "integer" and v >= 0 and v <= PLAYOUT_CAP) end

local function for_game(option, game)
  if type(option) ~= "table" then return option end
  local v = option[game]
  if v == nil then return option.default end
  return v
end

-- The bot on meeple.search: the options resolved for this game, the search in C, its root statistics
-- printed under `explain`.
local function c_bot(o)
  return {
    name = o.name,
    choose = function(view, legal, ctx)
      if #legal == 1 then return legal[1] end
      local game = ctx.game
      local action, stats = meeple.search(view, {
        ctx = ctx, ms = o.ms, iterations = o.iterations, c = o.c,
        playout_depth = for_game(o.playout_depth, game),
        greedy = for_game(o.greedy, game), margin = for_game(o.margin, game),
        score_scale = for_game(o.score_scale, game), expand = for_game(o.expand, game),
        widen = for_game(o.widen, game), playouts = o.playouts, stats = o.explain,
      })
      if o.explain then
        local best, others = stats.actions[1], {}
        for i = 2, math.min(4, #stats.actions) do
          local row = stats.actions[i]
          others[#others + 1] = ("%s %d (%.2f)"):format(row.action, row.visits, row.mean)
        end
        print(("%d iterations, %d of %d actions tried, %s: %d visits (mean reward %.2f)%s"):format(
          stats.iterations, #stats.actions, #legal, action, best.visits, best.mean,
          #others > 0 and "; next: " .. table.concat(others, ", ") or ""))
      end
      return action
    end,
  }
end

-- A bot table from options (any of `defaults`; another name is a mistake, said at once).
function ismcts.bot(options)
  local o = {}
  for k, v in pairs(ismcts.defaults) do o[k] = v end
  for k, v in pairs(options or {}) do
    if RETIRED[k] then error(("ismcts: option '%s' %s"):format(k, RETIRED[k]), 2) end
    if ismcts.defaults[k] == nil then
      local known = {}
      for name in pairs(ismcts.defaults) do known[#known + 1] = name end
      table.sort(known)
      error(("ismcts: no option '%s' (options: %s)"):format(tostring(k), table.concat(known, ", ")), 2)
    end
    o[k] = v
  end
  check_by_game("greedy", o.greedy, is_share, "a share from 0 to 1")
  check_by_game("margin", o.margin, is_share, "a share from 0 to 1")
  check_by_game("expand", o.expand, is_expansion, '"random" or "policy"')
  check_by_game("score_scale", o.score_scale, is_scale, "a number above 0")
  check_by_game("widen", o.widen, is_widening, "false or a number above 0")
  check_by_game("playout_depth", o.playout_depth, is_depth, "false or a count of decisions from 0 to 20000")
  if math.type(o.playouts) ~= "integer" or o.playouts < 1 or o.playouts > 64 then
    error(("ismcts: option 'playouts' must be a whole number from 1 to 64, got %s"):format(tostring(o.playouts)), 2)
  end
  if o.engine ~= "c" and o.engine ~= "lua" then
    error(("ismcts: option 'engine' must be \"c\" or \"lua\", got %s"):format(shown(o.engine)), 2)
  end
  if o.engine == "c" then return c_bot(o) end
  return {
    name = o.name,
    choose = function(view, legal, ctx)
      if #legal == 1 then return legal[1] end
      local root = new_node(nil, nil, nil)
      root.order = {}
      local scratch = { {}, {} }
      local ms = math.min(o.ms, ctx.budget.ms / 2)
      local players, n = ctx.players, 0
      o.greedy_now, o.margin_now = for_game(o.greedy, ctx.game), for_game(o.margin, ctx.game)
      o.expand_now, o.widen_now = for_game(o.expand, ctx.game), for_game(o.widen, ctx.game)
      o.scale_now, o.depth_now = for_game(o.score_scale, ctx.game), for_game(o.playout_depth, ctx.game)
      repeat
        iterate(root, ctx, o, players, scratch)
        n = n + 1
      until (o.iterations and n >= o.iterations) or (not o.iterations and ctx.clock() >= ms)
      -- The most visited action that is legal now (the root's children are all from this position).
      local best, most = legal[1], -1
      for _, a in ipairs(root.order) do
        local child = root.children[a]
        if child.visits > most then best, most = a, child.visits end
      end
      if o.explain then
        print(("%d iterations, %d of %d actions tried, %s: %d visits"):format(n, #root.order, #legal, best, most))
      end
      return best
    end,
  }
end

return ismcts
