-- lua_programs_spec.lua — the commands' own Lua programs are Lua files (repl/lua/), compiled into
-- meeple: each compiles, opens with a comment naming itself, and is embedded by the build; no C file of
-- the command line keeps a Lua program in a string literal any more.
local util = require "spec_util"
local read = util.read

local dir = util.root .. "/repl/lua"

-- Every program of the command line, by the file it lives in.
local programs = {
  "referee", "replay_terminal", "replay_page", "report_command", "compare_check", "compare_page",
  "bench_lua_api", "bench_variant", "lab",
}

local function files_in(folder, pattern)
  local names = {}
  local p = assert(io.popen("ls " .. util.quote(folder)))
  for name in p:lines() do
    if name:match(pattern) then names[#names + 1] = name end
  end
  p:close()
  table.sort(names)
  return names
end

describe("the command line's Lua programs", function()
  it("are the files of repl/lua, and nothing else is there", function()
    local want = {}
    for i, name in ipairs(programs) do want[i] = name .. ".lua" end
    table.sort(want)
    assert.are.same(want, files_in(dir, "."))
  end)

  it("each compile as Lua 5.4 text", function()
    for _, name in ipairs(programs) do
      local chunk, why = loadfile(dir .. "/" .. name .. ".lua", "t")
      assert.is_function(chunk, why)
    end
  end)

  it("each open with a comment that names the file and says what it is and who runs it", function()
    for _, name in ipairs(programs) do
      local first = read(dir .. "/" .. name .. ".lua"):match("^[^\n]*")
      assert.truthy(first:find("^%-%- " .. name .. "%.lua — %S"), first)
      assert.truthy(read(dir .. "/" .. name .. ".lua"):find("repl/%w+%.c"), name .. ".lua names no C file that runs it")
    end
  end)

  it("are each compiled into meeple by the build (CMakeLists.txt's MEEPLE_EMBEDDED_LUA)", function()
    local cmake = read(util.root .. "/CMakeLists.txt")
    for _, name in ipairs(programs) do
      assert.truthy(cmake:find("/repl/lua/" .. name .. ".lua", 1, true), name .. ".lua is not embedded")
    end
  end)

  it("are no longer kept as C string literals in repl/*.c", function()
    for _, file in ipairs(files_in(util.root .. "/repl", "%.c$")) do
      local text = read(util.root .. "/repl/" .. file)
      -- A program's first line as a literal: its arguments taken from `...`.
      assert.is_nil(text:find('"local [%w_, ]+ = %.%.%.'), file .. " holds a Lua program in a string")
    end
  end)
end)
