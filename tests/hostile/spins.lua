-- spins.lua — a Lua bot that never decides: it spins until a limit (or a signal) stops it.
return {
  name = "spins",
  choose = function()
    while true do end
  end,
}
