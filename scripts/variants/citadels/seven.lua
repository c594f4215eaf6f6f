-- seven — a shorter game: a city of 7 districts ends it after the round.
return {
  game = "citadels",
  name = "seven",
  params = { city_size = 7 },
}
