-- golden_spec.lua — replays every recorded playthrough in tests/golden and compares the rendered
-- state after each action, so any change to the rules shows up as a failing test and a reviewable
-- diff (rewrite the files with `meeple run tests/golden/record.lua`).
local meeple = require "meeple"

local root = os.getenv("MEEPLE_ROOT") or "."
local dir = root .. "/tests/golden/"

local function golden_files()
  local files = {}
  local listing = assert(io.popen('ls "' .. dir .. '"'))
  for name in listing:lines() do
    if name:match("%.txt$") then files[#files + 1] = name end
  end
  listing:close()
  return files
end

-- A golden file: header lines, then blocks "--- start" / "--- P1: action", each followed by the board.
local function parse(text)
  local g = { params = {}, steps = {} }
  local step
  for line in (text .. "\n"):gmatch("(.-)\n") do
    local player, action = line:match("^%-%-%- P(%d+): (.+)$")
    if line == "--- start" or action then
      step = { player = tonumber(player), action = action, lines = {} }
      g.steps[#g.steps + 1] = step
    elseif step then
      step.lines[#step.lines + 1] = line
    elseif line:match("^game ") then
      g.game = line:sub(6)
    elseif line:match("^seed ") then
      g.seed = tonumber(line:sub(6))
    elseif line:match("^players ") then
      g.players = tonumber(line:sub(9))
    elseif line:match("^param ") then
      local k, v = line:match("^param (%S+) (.+)$")
      g.params[k] = tonumber(v) or v
    end
  end
  return g
end

describe("golden playthroughs", function()
  local files = golden_files()

  it("are recorded", function()
    assert.is_true(#files >= 3)
  end)

  for _, name in ipairs(files) do
    it("replay " .. name .. " exactly", function()
      local f = assert(io.open(dir .. name))
      local g = parse(f:read("a"))
      f:close()
      local s = meeple.new(g.game, { seed = g.seed, players = g.players, params = g.params })
      for i, step in ipairs(g.steps) do
        if step.action then
          assert.are.equal(step.player, s:to_move(), "decision " .. i)
          s:play(step.action)
        end
        local want = table.concat(step.lines, "\n"):gsub("\n+$", "")
        local got = tostring(s):gsub("\n+$", "")
        assert.are.equal(want, got, ("%s, after decision %d (%s)"):format(name, i - 1, step.action or "start"))
      end
      assert.is_true(s:is_over(), name .. " should end where the recording ended")
    end)
  end
end)
