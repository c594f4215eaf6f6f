-- first-edition — Amigo's 1997 first edition (Richard Ingram's English translation): every player
-- starts with 2 fields at any player count and may buy a third for 3 coins, once. The rest is as in
-- the current Amigo rules: the 104 cards of 8 types, 3 passes, the seat tie-break.
return {
  game = "bohnanza",
  name = "first-edition",
  params = { fields = 2, third_field_cost = 3 },
}
