-- ismcts.lua — information-set Monte Carlo tree search for any game (Cowling, Powley & Whitehouse 2012,
-- "single-observer" ISMCTS), written only against the bot interface: ctx.sample(), and the state's
-- clone, legal, play, to_move, is_over, scores and winners.
--
-- Each iteration deals the hidden cards anew (ctx.sample: a full state consistent with what this seat
-- sees), walks down the tree choosing among the actions legal in *that* deal by UCB1 (with the
-- "availability" count in place of the parent's visits, since an action is not always on offer), adds one
-- node, and plays on (at random, or for a `greedy` share of the decisions the action that most raises
-- the mover's score) until this seat has made `rollout_moves` more decisions — far enough to see what
-- a choice leads to, whether the game gives a seat one decision at a time or a whole turn of them —
-- or `rollout_depth` in all. It scores the end position for every player: 1 for a win (shared on a
-- draw), or, where the rollout stopped short, a number from the score lead. The action tried most
-- often at the root is played.
--
--   local ismcts = require "ismcts"
--   return ismcts.bot { name = "ismcts", ms = 100 }     -- see `defaults` for every option
local ismcts = {}

ismcts.defaults = {
  name = "ismcts",
  ms = 100,              -- thinking time per decision (never more than half of ctx.budget.ms)
  iterations = false,    -- a fixed number of iterations instead of a time (reproducible)
  c = 0.7,               -- UCB1 exploration constant
  rollout_depth = 40,    -- decisions played after the tree at most (false: no limit)
  rollout_moves = 3,     -- or fewer: until this seat has made this many decisions (false: no limit)
  rollout_turns = false, -- or fewer: until s:turn() has moved on this many (1: to this turn's end)
  score_scale = 4,       -- a score lead of this many points is worth ~0.76 of a win at a cut-off
  greedy = 0.2,          -- share of rollout decisions that raise the mover's score where they can
  explain = false,       -- print (under `meeple --debug`) the iterations and the choice's visits
}

-- Rewards for every seat at the end of an iteration.
local function rewards(s, players, scale)
  local r = {}
  local winners = s:winners()
  if winners then
    for p = 1, players do r[p] = 0 end
    for _, w in ipairs(winners) do r[w] = 1 / #winners end
    return r
  end
  local scores = s:scores()
  for p = 1, players do
    local best_other = -math.huge
    for q = 1, players do
      if q ~= p and scores[q] > best_other then best_other = scores[q] end
    end
    r[p] = 1 / (1 + math.exp(-(scores[p] - best_other) / scale * 1.15))
  end
  return r
end

local function new_node(parent, action, player)
  -- player: the seat that chose `action` to reach this node (it collects the rewards here)
  return { parent = parent, action = action, player = player, children = {}, order = {},
           visits = 0, wins = 0, avail = 0 }
end

-- One iteration from a fresh deal.
local function iterate(root, ctx, o, players)
  local s = ctx.sample()
  local node = root
  -- Selection: while every action legal in this deal has a child, go down by UCB1.
  while not s:is_over() do
    local legal = s:legal()
    local untried = {}
    for _, a in ipairs(legal) do
      local child = node.children[a]
      if child then child.avail = child.avail + 1 else untried[#untried + 1] = a end
    end
    if #untried > 0 then
      -- Expansion: one new child, for an action this deal offers.
      local a = untried[ctx.rng(#untried)]
      local child = new_node(node, a, s:to_move())
      child.avail = 1
      node.children[a] = child
      node.order[#node.order + 1] = a
      s:play(a)
      node = child
      break
    end
    local best, best_ucb
    for _, a in ipairs(legal) do
      local child = node.children[a]
      local ucb = child.wins / child.visits + o.c * math.sqrt(math.log(child.avail) / child.visits)
      if not best_ucb or ucb > best_ucb then best, best_ucb = child, ucb end
    end
    s:play(best.action)
    node = best
  end
  -- Rollout: random play, cut off after rollout_depth decisions. With `greedy` > 0, that share of the
  -- rollout's decisions take the action that most raises the mover's score instead (ties: at random).
  local depth, mine, until_turn = 0, 0, o.rollout_turns and s:turn() + o.rollout_turns
  while not s:is_over() and (not o.rollout_depth or depth < o.rollout_depth)
      and (not until_turn or s:turn() < until_turn) and (not o.rollout_moves or mine < o.rollout_moves) do
    local legal = s:legal()
    if s:to_move() == ctx.seat then mine = mine + 1 end
    local pick = legal[ctx.rng(#legal)]
    if o.greedy > 0 and #legal > 1 and ctx.rng() < o.greedy then
      local me, best, ties = s:to_move(), -math.huge, 0
      for _, a in ipairs(legal) do
        local c = s:clone()
        c:play(a)
        local v = c:scores()[me]
        if v > best then best, pick, ties = v, a, 1
        elseif v == best then
          ties = ties + 1
          if ctx.rng(ties) == 1 then pick = a end
        end
      end
    end
    s:play(pick)
    depth = depth + 1
  end
  -- Backpropagation: each node credits the seat that chose its action.
  local r = rewards(s, players, o.score_scale)
  while node do
    node.visits = node.visits + 1
    if node.player then node.wins = node.wins + r[node.player] end
    node = node.parent
  end
end

-- A bot table from options (any of `defaults`).
function ismcts.bot(options)
  local o = {}
  for k, v in pairs(ismcts.defaults) do o[k] = v end
  for k, v in pairs(options or {}) do o[k] = v end
  return {
    name = o.name,
    choose = function(view, legal, ctx)
      if #legal == 1 then return legal[1] end
      local root = new_node(nil, nil, nil)
      local ms = math.min(o.ms, ctx.budget.ms / 2)
      local players, n = ctx.players, 0
      repeat
        iterate(root, ctx, o, players)
        n = n + 1
      until (o.iterations and n >= o.iterations) or (not o.iterations and ctx.clock() >= ms)
      -- The most visited action that is legal now (the root's children are all from this position).
      local best, most = legal[1], -1
      for _, a in ipairs(root.order) do
        local child = root.children[a]
        if child.visits > most then best, most = a, child.visits end
      end
      if o.explain then print(("%d iterations, %s: %d visits"):format(n, best, most)) end
      return best
    end,
  }
end

return ismcts
