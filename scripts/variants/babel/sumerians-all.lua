-- sumerians-all — the sumerian switch as the Korean and English rule texts have it: it takes every
-- card of the top card's people from the opponent's row, not only the run on top.
return {
  game = "babel",
  name = "sumerians-all",
  params = { sumerians = "all" },
}
