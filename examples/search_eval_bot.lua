-- search_eval_bot.lua — a search bot that judges positions itself: meeple.search runs the tree and
-- the playouts in C, and calls this file's evaluation eight decisions into each playout instead of
-- playing on to the game's end. Run it: meeple match babel examples/search_eval_bot.lua greedy_babel
return {
  name = "search_eval",
  choose = function(view, legal, ctx)
    if #legal == 1 then return legal[1] end
    local me = ctx.seat
    return meeple.search(view, {
      ctx = ctx,              -- deal from what this seat sees, draw from ctx.rng, keep its limits
      ms = 50,
      playout_depth = 8,      -- then the hook judges (a finished game is judged by its result)
      greedy = 1,             -- the playouts follow the game's own playout policy
      -- How good the position is for me, from 0 to 1: my score against the best of the others'.
      evaluate = function(s)
        local scores, best = s:scores(), -math.huge
        for seat, score in ipairs(scores) do
          if seat ~= me and score > best then best = score end
        end
        return 1 / (1 + math.exp((best - scores[me]) / 4))
      end,
    })
  end,
}
