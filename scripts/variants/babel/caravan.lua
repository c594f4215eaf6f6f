-- caravan — an added action: once per turn, discard two identical people cards from hand to draw one
-- temple card onto your reserve ("caravan medes"). The last temple card is left for the turn's draw.
local function used_this_turn(s, player)
  local history = s:history()
  for i = #history, 1, -1 do
    local h = history[i]
    if h.action == "end" then return false end -- the turn before ours ended here
    if h.player == player and h.action:match("^caravan ") then return true end
  end
  return false
end

local function offer(s)
  local t = s:table()
  if t.phase ~= "actions" or used_this_turn(s, t.to_move) or #t.temple_deck < 2 then return {} end
  local count = {}
  for _, people in ipairs(t.players[t.to_move].hand) do count[people] = (count[people] or 0) + 1 end
  local offers = {}
  for _, people in ipairs({ "medes", "sumerians", "hittites", "persians", "assyrians" }) do
    if (count[people] or 0) >= 2 then offers[#offers + 1] = "caravan " .. people end
  end
  return offers
end

return {
  game = "babel",
  name = "caravan",
  hooks = {
    -- The rules' actions, with the caravans on offer added before `end`.
    actions = function(s, list)
      local out = {}
      for _, a in ipairs(list) do
        if a == "end" then
          for _, c in ipairs(offer(s)) do out[#out + 1] = c end
        end
        out[#out + 1] = a
      end
      return out
    end,
    -- A caravan is legal exactly when it is on offer; everything else is the rules' business.
    check = function(s, a)
      if not a:match("^caravan ") then return nil end
      for _, c in ipairs(offer(s)) do
        if c == a then return true end
      end
      return false, "a caravan needs two identical people cards in hand, once a turn, while at least 2 temple cards are left"
    end,
    apply = function(s, a)
      local people = a:match("^caravan (%a+)$")
      if not people then return false end
      local me = ("players[%d]"):format(s:to_move())
      s:move(me .. ".hand", "discard", { card = people, count = 2 })
      s:move("temple_deck", me .. ".reserve")
      return true
    end,
  },
}
