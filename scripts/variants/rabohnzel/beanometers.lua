-- beanometers — Rabohnzel with the real beanometers, once you have them.
--
-- meeple does not know Rabohnzel's real beanometers: it plays with PROVISIONAL ones (each bean takes
-- the Bohnanza meter of the bean with the nearest card count; Princess and Cape follow the rulebook's
-- hints; `meeple rules rabohnzel` tells the whole story). If you own the game, copy the numbers
-- printed on the cards here: for each bean, how many cards pay 1, 2, 3 and 4 coins (0 where the card
-- has no such entry). Remove the `--` in front of a line to use it; beans left commented out keep the
-- provisional meter, and meeple keeps saying so (`meeple.cards("rabohnzel")`, the shell's :help).
--
-- Then play with it:  meeple play rabohnzel --variant beanometers
--                     meeple match rabohnzel bots/greedy_rabohnzel.lua bots/random.lua ... --variant beanometers
--
-- The lines below hold the provisional values, to be replaced.
return {
  game = "rabohnzel",
  name = "beanometers",
  params = {
    beanometer = {
      -- pluck    = { 2, 4, 5, 6 },   --  9 cards
      -- cape     = { 3, 4, 6, 0 },   -- 11 cards (no 4-coin entry)
      -- common   = { 3, 5, 6, 7 },   -- 13 cards
      -- wise     = { 3, 5, 6, 7 },   -- 14 cards
      -- magic    = { 3, 5, 7, 8 },   -- 15 cards
      -- princess = { 2, 4, 5, 6 },   -- 17 cards
      -- sword    = { 4, 6, 8, 10 },  -- 19 cards
    },
  },
}
