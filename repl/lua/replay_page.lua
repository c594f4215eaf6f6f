-- replay_page.lua — `meeple replay LOG --html FILE` (repl/replay.c): the game as one page that
-- replays it (scripts/viewer.lua).
--
-- Run with (meeple, m, game, out): m the modules (repl/report.h), game the log's record, out the
-- page's file. Returns the page's size in bytes and the decisions.
local meeple, m, game, out = ...
local html = m.viewer.page(meeple, m.viewer.frames(meeple, game, m.render), m.parts)
m.report.write(out, html)
return #html, #game.actions
