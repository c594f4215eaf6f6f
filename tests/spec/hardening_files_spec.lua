-- hardening_files_spec.lua — logs cannot blow up the host and meeple never clobbers what it did not make
-- (issue 29, items 6-9): merge and report write OUT beside it and rename on success, refusing an OUT
-- that is not a regular file; a log is read only if it is a regular file, each line bounded in bytes
-- and in JSON values before a tree is built; report --html writes at most --pages replay pages that
-- share one copy of the viewer; a log's variant name is never looked up in the current folder. The
-- crafted files are made here.
local util = require "spec_util"
local quote, sh, lines = util.quote, util.sh, util.lines

local sanitized = os.getenv("MEEPLE_SLOW") ~= nil

-- meeple in `dir` (or here), its output and status; `cap_kb` bounds its address space when the build
-- is not under the sanitizers (their shadow memory needs terabytes of it).
local function meeple(args, dir, cap_kb, env)
  local limit = (cap_kb and not sanitized) and ("ulimit -v " .. cap_kb .. "; ") or ""
  return sh("(" .. (dir and ("cd " .. quote(dir) .. " && ") or "") .. limit .. (env or "") .. " timeout 60 "
            .. quote(util.exe) .. " " .. args .. ") 2>&1")
end

local function temp_dir()
  return (sh("mktemp -d"):gsub("\n", ""))
end

local function files_in(dir)
  return lines((sh("ls -A " .. quote(dir))))
end

describe("an output file", function()
  local dir, logs
  before_each(function()
    dir = temp_dir()
    logs = { dir .. "/a.jsonl", dir .. "/b.jsonl" }
    for k = 1, 2 do
      local _, code = meeple(("match babel random random --games 4 --seed 3 --shard %d/2 --log %s"):format(k, quote(logs[k])))
      assert.equal(0, code)
    end
  end)
  after_each(function() sh("rm -rf " .. quote(dir)) end)

  it("of merge, a symbolic link, is refused: its target is not written, the link stays, no file is left", function()
    util.sh("printf precious > " .. quote(dir .. "/target") .. "; ln -s target " .. quote(dir .. "/out"))
    local bad = dir .. "/bad.jsonl" -- a refused shard: its first record's scores edited
    local f = assert(io.open(bad, "w"))
    f:write((util.read(logs[2]):gsub('"scores":%[%d+,', '"scores":[99,', 1)))
    f:close()
    local out, code = meeple("merge " .. quote(logs[1]) .. " " .. quote(bad) .. " --log " .. quote(dir .. "/out"))
    assert.equal(1, code, out)
    assert.equal("precious", util.read(dir .. "/target"))
    assert.equal("target", (sh("readlink " .. quote(dir .. "/out")):gsub("\n", "")))
    assert.same({ "a.jsonl", "b.jsonl", "bad.jsonl", "out", "target" }, files_in(dir))
  end)

  it("of merge is written whole on success, and a refused merge leaves a regular OUT as it was", function()
    local merged = dir .. "/merged.jsonl"
    util.sh("printf 'kept\\n' > " .. quote(merged))
    local edited = (util.read(logs[2]):gsub('"scores":%[%d+,', '"scores":[99,', 1)) -- refused while writing
    local f = assert(io.open(logs[2], "w"))
    f:write(edited)
    f:close()
    local out, code = meeple("merge " .. quote(logs[1]) .. " " .. quote(logs[2]) .. " --log " .. quote(merged))
    assert.equal(1, code, out)
    assert.equal("kept\n", util.read(merged))
    meeple("match babel random random --games 4 --seed 3 --shard 2/2 --log " .. quote(logs[2]))
    out, code = meeple("merge " .. quote(logs[1]) .. " " .. quote(logs[2]) .. " --log " .. quote(merged))
    assert.equal(0, code, out)
    assert.equal(4, #lines(util.read(merged)))
    assert.same({ "a.jsonl", "b.jsonl", "merged.jsonl" }, files_in(dir))
  end)

  it("of report --html, a symbolic link, is refused and its target kept", function()
    util.sh("printf precious > " .. quote(dir .. "/target") .. "; ln -s target " .. quote(dir .. "/r.html"))
    local out, code = meeple("report " .. quote(logs[1]) .. " --html " .. quote(dir .. "/r.html") .. " --no-replays")
    assert.equal(1, code, out)
    assert.truthy(out:find("not a regular file", 1, true), out)
    assert.equal("precious", util.read(dir .. "/target"))
  end)
end)

-- meeple started in `dir` with `args`, sent `signal` as soon as `file_glob` exists there; the files
-- left in `dir` and its exit status. env --default-signal: a background job of a shell script starts
-- with SIGINT ignored, as after nohup (and meeple leaves an ignored signal ignored).
local function interrupted(dir, args, file_glob, signal)
  local out = sh("cd " .. quote(dir) .. " && { env --default-signal=INT,TERM " .. quote(util.exe) .. " " .. args .. " >/dev/null 2>&1 & "
                 .. "pid=$!; i=0; while [ $i -lt 3000 ] && ! ls " .. file_glob .. " >/dev/null 2>&1; do "
                 .. "sleep 0.01; i=$((i+1)); done; kill -" .. signal .. " $pid; wait $pid; echo \"status $?\"; }")
  local status = tonumber(out:match("status (%d+)"))
  return files_in(dir), status
end

describe("an output file's temporary file", function()
  local dir
  setup(function()
    dir = temp_dir()
    local _, code = meeple("match babel random random --games 6000 --seed 3 --log big.jsonl", dir)
    assert.equal(0, code)
  end)
  teardown(function() sh("rm -rf " .. quote(dir)) end)
  after_each(function() sh("cd " .. quote(dir) .. " && rm -f o.jsonl*") end)

  for _, signal in ipairs({ "INT", "TERM" }) do
    it("is removed when SIG" .. signal .. " stops a merge of a long log, which dies of the signal", function()
      local left, status = interrupted(dir, "merge big.jsonl --log o.jsonl", "o.jsonl.tmp-*", signal)
      assert.same({ "big.jsonl" }, left)
      assert.equal(128 + (signal == "INT" and 2 or 15), status)
    end)
  end
end)

describe("match --log", function()
  local dir
  before_each(function() dir = temp_dir() end)
  after_each(function() sh("rm -rf " .. quote(dir)) end)

  it("refuses a symbolic link for a new log: the file it points to is kept, the link stays", function()
    sh("printf precious > " .. quote(dir .. "/target") .. "; ln -s target " .. quote(dir .. "/link.jsonl"))
    local out, code = meeple("match babel random random --games 2 --seed 1 --log link.jsonl", dir)
    assert.equal(2, code, out)
    assert.truthy(out:find("'link.jsonl' exists and is not a regular file", 1, true), out)
    assert.equal(1, #lines(out), out)
    assert.equal("precious", util.read(dir .. "/target"))
    assert.equal("target", (sh("readlink " .. quote(dir .. "/link.jsonl")):gsub("\n", "")))
  end)

  it("refuses a FIFO at once instead of waiting for a reader", function()
    sh("mkfifo " .. quote(dir .. "/fifo"))
    local out, code = meeple("match babel random random --games 2 --seed 1 --log fifo", dir)
    assert.equal(2, code, out) -- timeout's 124 when it hangs
    assert.truthy(out:find("'fifo' exists and is not a regular file", 1, true), out)
  end)

  it("with --resume, appends only to a regular file: a FIFO is refused, a link to a log is followed", function()
    sh("mkfifo " .. quote(dir .. "/fifo"))
    local out, code = meeple("match babel random random --games 2 --seed 1 --log fifo --resume", dir)
    assert.equal(2, code, out)
    assert.truthy(out:find("not a regular file", 1, true), out)
    out, code = meeple("match babel random random --games 2 --seed 1 --log m.jsonl", dir)
    sh("ln -s m.jsonl " .. quote(dir .. "/link.jsonl"))
    out, code = meeple("match babel random random --games 2 --seed 1 --log link.jsonl --resume", dir)
    assert.equal(0, code, out)
    assert.equal(2, #lines(util.read(dir .. "/m.jsonl")))
  end)

  it("with --resume, begins a log that does not exist yet (a cluster task's first start), never through a link", function()
    local out, code = meeple("match babel random random --games 2 --seed 1 --log new.jsonl --resume", dir)
    assert.equal(0, code, out)
    assert.equal(2, #lines(util.read(dir .. "/new.jsonl")))
    sh("ln -s nowhere.jsonl " .. quote(dir .. "/dangling.jsonl"))
    out, code = meeple("match babel random random --games 2 --seed 1 --log dangling.jsonl --resume", dir)
    assert.equal(2, code, out)
    assert.truthy(out:find("not a regular file", 1, true), out)
    assert.same({ "dangling.jsonl", "new.jsonl" }, files_in(dir))
  end)

  it("still writes a regular file, a line per game, and resumes it", function()
    local out, code = meeple("match babel random random --games 4 --seed 1 --log m.jsonl", dir)
    assert.equal(0, code, out)
    local first = util.read(dir .. "/m.jsonl")
    assert.equal(4, #lines(first))
    out, code = meeple("match babel random random --games 4 --seed 1 --log m.jsonl --resume", dir)
    assert.equal(0, code, out)
    assert.equal(first, util.read(dir .. "/m.jsonl"))
  end)
end)

describe("a log", function()
  local dir
  before_each(function() dir = temp_dir() end)
  after_each(function() sh("rm -rf " .. quote(dir)) end)

  it("that is a link to /dev/zero is refused unread by report, merge and replay", function()
    sh("ln -s /dev/zero " .. quote(dir .. "/zero.jsonl"))
    for _, command in ipairs({ "report", "merge", "replay" }) do
      local out, code = meeple(command .. " " .. quote(dir .. "/zero.jsonl"), nil, 1000000)
      assert.is_true(code == 1 or code == 2, command .. ": " .. out)
      assert.truthy(out:find("is not a regular file", 1, true), command .. ": " .. out)
    end
  end)

  it("whose line of 8 MiB of {} is refused, naming the line, in bounded memory, by report, merge and replay", function()
    local f = assert(io.open(dir .. "/flood.jsonl", "w"))
    f:write("[", string.rep("{},", (8 << 20) // 3), "{}]\n")
    f:close()
    for _, command in ipairs({ "report", "merge", "replay" }) do
      local out, code = meeple(command .. " " .. quote(dir .. "/flood.jsonl"), nil, 400000)
      assert.equal(1, code, command .. ": " .. out)
      assert.truthy(out:find("line 1: its JSON has more than", 1, true) or out:find("game 1: its JSON has more than", 1, true),
                    command .. ": " .. out)
    end
  end)

  it("whose line is longer than 16 MiB is refused by report, naming the line", function()
    local f = assert(io.open(dir .. "/long.jsonl", "w"))
    f:write(string.rep("x", (16 << 20) + 1), "\n")
    f:close()
    local out, code = meeple("report " .. quote(dir .. "/long.jsonl"), nil, 400000)
    assert.equal(1, code, out)
    assert.truthy(out:find("line 1: longer than 16777216 bytes", 1, true), out)
  end)

  it("never chooses code: a variant name it carries is not looked up in the current folder", function()
    local folder = dir .. "/scripts/variants/babel"
    sh("mkdir -p " .. quote(folder) .. " && cp " .. quote(util.root .. "/scripts/variants/babel/short.lua") .. " "
       .. quote(folder .. "/dropped.lua"))
    local log = dir .. "/v.jsonl"
    local out, code = meeple("match babel random random --games 2 --seed 1 --variant dropped --log " .. quote(log),
                             nil, nil, "MEEPLE_PATH=" .. quote(dir))
    assert.equal(0, code, out)
    out, code = meeple("merge " .. quote(log), dir)
    assert.equal(1, code, out)
    assert.truthy(out:find("no variant 'dropped' for babel", 1, true), out)
  end)

  it("that names its variant by a path is merged only with the file passed as --variant", function()
    local file = dir .. "/mine.lua"
    sh("cp " .. quote(util.root .. "/scripts/variants/babel/short.lua") .. " " .. quote(file))
    local log = dir .. "/p.jsonl"
    local out, code = meeple("match babel random random --games 2 --seed 1 --variant " .. quote(file) .. " --log "
                             .. quote(log))
    assert.equal(0, code, out)
    out, code = meeple("merge " .. quote(log))
    assert.equal(1, code, out)
    assert.truthy(out:find("pass the file with --variant FILE", 1, true), out)
    out, code = meeple("merge " .. quote(log) .. " --variant " .. quote(file))
    assert.equal(0, code, out)
  end)
end)

describe("report --html", function()
  it("writes at most --pages replay pages, sharing one copy of the viewer, and says how many it skipped", function()
    local dir = temp_dir()
    local log = dir .. "/m.jsonl"
    local out, code = meeple("match babel random random --games 12 --seed 2 --log " .. quote(log))
    assert.equal(0, code, out)
    out, code = meeple("report " .. quote(log) .. " --html " .. quote(dir .. "/r.html") .. " --pages 5")
    assert.equal(0, code, out)
    assert.truthy(out:find("5 replay pages", 1, true), out)
    assert.truthy(out:find("7 skipped past --pages 5", 1, true), out)
    local pages = files_in(dir .. "/r-games")
    assert.same({ "game-1.html", "game-2.html", "game-3.html", "game-4.html", "game-5.html", "viewer-app.js",
                  "viewer-draw.js", "viewer.css" }, pages)
    local page = util.read(dir .. "/r-games/game-1.html")
    assert.truthy(page:find('<script src="viewer-app.js"></script>', 1, true))
    assert.truthy(page:find('<link rel="stylesheet" href="viewer.css">', 1, true))
    assert.is_nil(page:find("<style>", 1, true))
    local report = util.read(dir .. "/r.html")
    assert.truthy(report:find("meeple replay ", 1, true)) -- the games past the cap say how to replay them
    out, code = meeple("report " .. quote(log) .. " --pages -1 --html " .. quote(dir .. "/s.html"))
    assert.equal(2, code, out)
    sh("rm -rf " .. quote(dir))
  end)
end)
