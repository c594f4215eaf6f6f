-- leftovers.lua SUITE_TMP — run after every other test (ctest fixture "suite"): the suite left nothing
-- behind. Every test runs with TMPDIR=SUITE_TMP and MEEPLE_SUITE=SUITE_TMP in its environment, so a
-- temporary file it made is in SUITE_TMP, and a process it started (a bot, a daemon a bot left, a
-- helper, a server) carries the marker, whatever session or PID namespace it moved to. A zombie's
-- parent is such a process, or init, which reaps it. Other suites running on the machine at the same
-- time have another marker.
local tmp = assert(arg[1], "usage: leftovers.lua SUITE_TMP")
local problems = {}

local listing = io.popen("ls -A '" .. tmp:gsub("'", "'\\''") .. "' 2>/dev/null")
for name in listing:lines() do problems[#problems + 1] = "a temporary file left: " .. tmp .. "/" .. name end
listing:close()

-- The pids first (the ls is over before any environment is read), then each one's environment.
local proc = io.popen("ls /proc")
local pids = {}
for name in proc:lines() do
  if name:match("^%d+$") then pids[#pids + 1] = name end
end
proc:close()
local own = io.open("/proc/self/stat"):read("l"):match("^(%d+)")
local marker = "MEEPLE_SUITE=" .. tmp
for _, pid in ipairs(pids) do
  local f = io.open("/proc/" .. pid .. "/environ", "rb")
  local env = f and f:read("a")
  if f then f:close() end
  if pid ~= own and env and ("\0" .. env):find("\0" .. marker .. "\0", 1, true) then
    local cmd = io.open("/proc/" .. pid .. "/cmdline", "rb")
    local line = cmd and cmd:read("a"):gsub("%z", " ") or "?"
    if cmd then cmd:close() end
    local stat = io.open("/proc/" .. pid .. "/stat")
    local state = stat and stat:read("l"):match("%) (%a)") or "?"
    if stat then stat:close() end
    problems[#problems + 1] = ("a process left: %s (state %s): %s"):format(pid, state, line)
  end
end

for _, p in ipairs(problems) do print(p) end
if #problems > 0 then os.exit(1) end
print("nothing left behind")
