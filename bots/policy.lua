-- policy.lua — the game's playout policy as a bot: at each decision, what a search's imagined players
-- do (s:ranked's first, on a sample of what this seat cannot see). In every shipped game that is the
-- shipped greedy bot's play (tests/spec/policies_spec.lua), computed in C at a tenth of its cost or
-- less: a fast sparring partner, and a way to watch what ismcts assumes its opponents will do.
return {
  name = "policy",

  choose = function(view, legal, ctx)
    if #legal == 1 then return legal[1] end
    return ctx.sample():ranked(ctx.rng(0x7fffffff))[1]
  end,
}
