-- handicap — a later English edition's balance for the start player: hands of 3 and 5 cards at the
-- start (the start player takes 3) instead of 5 each.
return {
  game = "babel",
  name = "handicap",
  params = { hand_start = { 3, 5 } },
}
