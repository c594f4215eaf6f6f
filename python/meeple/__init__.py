"""meeple: card and board games with seeded states, views and samples (docs/python.md).

The C core's rules, through the same surface as the Lua module: seats are 1-based, actions are the
canonical strings legal() lists, and every refusal carries the one-line reason a player reads.

    import meeple
    s = meeple.new("babel", seed=7)
    while not s.is_over():
        s.play(s.legal()[0])
    print(s.scores(), s.winners())
"""
from meeple._meeple import (Error, IllegalAction, SEED_MAX, State, cards, from_table, games, info, load,
                            new,
                            version)
from meeple import actions, env

__all__ = ["Error", "IllegalAction", "SEED_MAX", "State", "actions", "cards", "env", "from_table", "games", "info", "load", "new",
           "version"]
