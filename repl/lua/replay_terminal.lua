-- replay_terminal.lua — `meeple replay LOG` at the terminal (repl/replay.c): the game played again
-- from its seed and actions, the board printed after each decision; stepping (a terminal on both
-- ends) waits for Enter, b goes back (s:undo()), q quits.
--
-- Run with (meeple, m, game, seat, stepping): m the modules (repl/report.h), game the log's record
-- (its by and shown filled in here), seat the one whose view is shown or nil for the whole table.
-- Errors are one line; names from the log are escaped.
local meeple, m, game, seat, stepping = ...
local s = meeple.new(game.game, { seed = game.seed, players = #game.seats, variant = game.variant })
local function board() print(m.render(seat and s:view(seat) or s:table(), { cards = s:cards() })) end
local function name(p) return m.escape(game.seats[p] or '?') end
board()
local i, actions = 0, game.actions
while true do
  if stepping then
    io.write(i < #actions and '-- Enter: next step, b: back, q: quit -- ' or '-- the end; b: back, Enter: quit -- ')
    io.flush()
    local answer = io.read('l')
    if not answer or answer:sub(1, 1) == 'q' or (answer:sub(1, 1) ~= 'b' and i == #actions) then return end
    if answer:sub(1, 1) == 'b' and i > 0 then
      s:undo()
      i = i - 1
      print(i == 0 and '\n== back to the deal\n' or ('\n== back to decision %d: P%d (%s) %s\n')
        :format(i, game.by[i], name(game.by[i]), game.shown[i]))
      board()
      goto continue
    elseif answer:sub(1, 1) == 'b' then
      goto continue
    end
  end
  if i == #actions then return end
  i = i + 1
  local p = s:to_move()
  if not p then error(('decision %d: the game is already over'):format(i), 0) end
  -- as the seat saw it: another seat's secret pick is not shown (the game's public text)
  game.shown[i] = seat and s:public_text(actions[i], seat) or actions[i]
  local ok, why = s:try(actions[i])
  if not ok then error(('decision %d: %s cannot be played: %s'):format(i, actions[i], why), 0) end
  game.by[i] = p
  print(('\n== decision %d: P%d (%s) %s\n'):format(i, p, name(p), game.shown[i]))
  board()
  ::continue::
end
