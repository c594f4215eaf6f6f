-- report_command.lua — `meeple report` (repl/report.c): the logs read and summed up by
-- scripts/report.lua, as text, JSON (--json) or a page (--html) with a replay page a game.
--
-- Run with (meeple, m, paths, html, as_json, dir, href, progress, max_pages): m the modules
-- (repl/report.h); dir and href the folder of the replay pages and its name as a link (nil with
-- --no-replays); progress a line redrawn in place on stderr. Returns the games, the replay pages
-- written and those skipped past max_pages (--pages).
local meeple, m, paths, html, as_json, dir, href, progress, max_pages = ...
local games = m.report.read(meeple, paths)
local stats = m.report.summarize(games, m.ratings)
if as_json then
  io.write(meeple.json.encode(m.report.json(stats, meeple.json.null), { indent = true }), '\n')
elseif not html then
  io.write(m.report.text(stats, m.escape))
end
if not html then return end
local links, written, skipped = {}, 0, 0
if dir then
  for name, text in pairs(m.viewer.shared_files(m.parts)) do m.report.write(dir .. '/' .. name, text) end
end
for i, g in ipairs(games) do
  if progress and dir then io.stderr:write(('\rmeeple report: replay page %d of %d'):format(i, #games)) end
  local why
  if not dir then why = 'meeple replay ' .. g.log .. ' --game ' .. g.line
  elseif written >= max_pages then
    why = ('past the %d pages written (--pages): meeple replay %s --game %d'):format(max_pages, g.log, g.line)
    skipped = skipped + 1
  elseif not m.titles[g.game] then why = 'unknown game'
  elseif math.type(g.seed) ~= 'integer' then why = 'no seed'
  elseif type(g.variant) == 'string' and (g.variant:find('/', 1, true) or g.variant:find('%.lua$')) then
    why = 'variant named by its path: meeple replay --variant FILE'
  end
  if not why then
    local record = { game = g.game, title = m.titles[g.game], seed = g.seed, seats = g.seats,
      actions = g.actions, variant = type(g.variant) == 'string' and g.variant or nil, index = g.line,
      log = g.log:match('[^/]*$'), scores = g.scores, winners = g.winners, forfeits = g.forfeits,
      decisions = g.decisions, ms = g.ms }
    local ok, page = pcall(function()
      for _, a in ipairs(record.actions) do
        if type(a) ~= 'string' then error('an action is not text', 0) end
      end
      return m.viewer.page(meeple, m.viewer.frames(meeple, record, m.render), m.parts, true)
    end)
    if ok then
      local name = ('game-%d.html'):format(i)
      m.report.write(dir .. '/' .. name, page)
      links[i] = { href = href .. '/' .. name }
      written = written + 1
    else
      links[i] = { why = 'cannot replay: ' .. tostring(page) }
    end
  else
    links[i] = { why = why }
  end
end
if progress and dir then io.stderr:write('\r\27[K') end
m.report.write(html, m.report.html(stats, links))
return #games, written, skipped
