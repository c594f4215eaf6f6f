-- taxes — at the start of each round, every player with 5 or more gold pays 1 to the bank.
local THRESHOLD, TAX = 5, 1

local function collect(s)
  for p, player in ipairs(s:table().players) do
    if player.gold >= THRESHOLD then s:add(("players[%d].gold"):format(p), -TAX) end
  end
end

return {
  game = "citadels",
  name = "taxes",
  hooks = {
    setup = collect, -- the first round starts with the setup
    -- A round starts when the last character's turn has ended: the draft is back at its first step.
    after = function(s)
      local t = s:table()
      if t.phase == "choose" and t.step == 1 then collect(s) end
    end,
  },
}
