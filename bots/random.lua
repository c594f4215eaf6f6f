-- random.lua — the simplest bot: every legal action is equally likely. Copy it to start your own.
--
-- A bot is a table with a name and choose(view, legal, ctx), which returns one string of `legal`.
--   view   what this seat can see: s:view(seat), a plain table (the opponent's hand is a count)
--   legal  the actions allowed now, as strings ("travel medes", "end", ...)
--   ctx    ctx.seat (1-based); ctx.rng, seeded by the host so games replay: ctx.rng(n) like
--          math.random, or ctx.rng:random(m, n), ctx.rng:pick(list); ctx.sample() (a full state
--          consistent with the view, for search bots); ctx.budget ({ms, instructions, memory})
return {
  name = "random",

  choose = function(view, legal, ctx)
    return legal[ctx.rng(#legal)]
  end,
}
