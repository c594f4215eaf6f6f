-- short — a quicker game: 12 ends it (or starts the end phase), an opponent under 8 loses, and the
-- end phase ends at 16.
return {
  game = "babel",
  name = "short",
  params = { end_total = 12, end_floor = 8, end_phase_total = 16 },
}
