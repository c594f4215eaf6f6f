-- tower-bonus — a finished tower is worth more: every temple of height 6 scores 3 extra points.
-- Copy this file, change BONUS, and compare: meeple compare babel --variant path/to/copy.lua BOT BOT
local BONUS = 3

return {
  game = "babel",
  name = "tower-bonus",
  hooks = {
    -- The score replaces the rules' score; s:base_score(p) is the sum of the heights.
    score = function(s, p)
      local bonus = 0
      for _, temple in pairs(s:table().players[p].temples) do
        if temple[#temple] == 6 then bonus = bonus + BONUS end
      end
      return s:base_score(p) + bonus
    end,
  },
}
