-- compare_page.lua — `meeple compare --html FILE` (repl/compare.c): the base-rules and the variant
-- match logs side by side, as one page (scripts/report.lua's comparison).
--
-- Run with (meeple, m, base_log, variant_log, labels, out): m the modules (repl/report.h).
local meeple, m, base_log, variant_log, labels, out = ...
local function stats(path) return m.report.summarize(m.report.read(meeple, { path }), m.ratings) end
m.report.write(out, m.report.comparison(stats(base_log), stats(variant_log), labels))
