#!/usr/bin/env bash
# install_test.sh BUILD SOURCE — `cmake --install` into a temporary prefix, then use what it installed as
# a user would, from another directory and without the source tree: the binary finds bots and variants
# by name, stock lua5.4 requires the module, python3 imports meeple, the man page covers every command,
# bash completes, and C programs build against the core with pkg-config (docs/c-api.md's example among
# them).
# MEEPLE_TEST_PYTHON: the python3 the Python module was built for (none: no module to check).
# MEEPLE_TEST_PRELOAD / MEEPLE_TEST_CFLAGS: the sanitizer runtime for lua5.4 and the flags to link a
# sanitized core (set by tests/CMakeLists.txt in a -DMEEPLE_SANITIZE=ON build).
set -euo pipefail
build=$(cd "$1" && pwd)
source=$(cd "$2" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
fail() { echo "install_test: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$prefix" >"$work/install.log" || { cat "$work/install.log"; fail "cmake --install failed"; }
mkdir "$work/elsewhere"
cd "$work/elsewhere"
unset MEEPLE_ROOT MEEPLE_PATH
export PATH="$prefix/bin:$PATH"
version=$(sed -n 's/^project(meeple VERSION \([0-9.]*\).*/\1/p' "$source/CMakeLists.txt")

echo "# the installed binary, from another directory"
[[ $(meeple --version | head -1) == "meeple $version" ]] || fail "meeple --version: $(meeple --version)"
games=$(meeple games)
grep -q '^babel' <<<"$games" || fail "meeple games lists no babel"
meeple match babel greedy_babel random --games 4 --seed 1 >"$work/match.txt" 2>&1 || { cat "$work/match.txt"; fail "match by bot names"; }
grep -q greedy_babel "$work/match.txt" || fail "the match table names no greedy_babel"
meeple bench babel --games 3 --bot random >/dev/null || fail "bench --bot random"
meeple compare babel --variant short random random --games 4 --seed 1 >"$work/compare.txt" 2>&1 || { cat "$work/compare.txt"; fail "compare with a variant by name"; }
rules=$(meeple rules rabohnzel)
grep -qi provisional <<<"$rules" || fail "rules of rabohnzel do not say the beanometers are provisional"

echo "# bots and variants of the user's own, from MEEPLE_PATH"
mkdir -p "$work/mine/bots" "$work/mine/scripts/variants/babel"
printf 'return { name = "mine", choose = function(view, legal) return legal[#legal] end }\n' >"$work/mine/bots/mine.lua"
printf 'return { game = "babel", name = "tiny", params = { end_total = 10 } }\n' >"$work/mine/scripts/variants/babel/tiny.lua"
MEEPLE_PATH="$work/nonexistent:$work/mine" meeple match babel mine random --games 2 --seed 3 >/dev/null 2>&1 || fail "a bot found by name in MEEPLE_PATH"
MEEPLE_PATH="$work/mine" meeple bench babel --games 2 --variant tiny >/dev/null || fail "a variant found by name in MEEPLE_PATH"
if meeple match babel no_such_bot random --games 1 --seed 1 >/dev/null 2>&1; then fail "a missing bot was accepted"; fi

echo "# the module from stock lua5.4"
cmod=$(find "$prefix" -name meeple.so | head -1)
[[ -n $cmod ]] || fail "no meeple.so installed"
[[ $cmod == "$prefix/lib/lua/5.4/meeple.so" ]] || fail "meeple.so is at $cmod, not under lib/lua/5.4"
LD_PRELOAD="${MEEPLE_TEST_PRELOAD:-}" LUA_CPATH="$prefix/lib/lua/5.4/?.so" lua5.4 -e "
  local meeple = require 'meeple'
  assert(meeple.version == '$version', meeple.version)
  local s = meeple.new('babel', { seed = 1, variant = 'short' })   -- a variant by name, from the module's prefix
  assert(s:variant() == 'short')
  assert(#meeple.games() >= 4)
" || fail "require \"meeple\" from lua5.4"

echo "# the Python module, where Debian's python3 finds it under the prefix"
pymod=$(find "$prefix" -name '_meeple*.so' | head -1)
if [[ -n $pymod ]]; then
  pydir=$(dirname "$(dirname "$pymod")")
  [[ $pydir == "$prefix"/lib/python3.*/*-packages ]] || fail "the Python package is at $pydir, not under lib/python3.X"
  LD_PRELOAD="${MEEPLE_TEST_PRELOAD:-}" PYTHONPATH="$pydir" PYTHONDONTWRITEBYTECODE=1 "${MEEPLE_TEST_PYTHON:-python3}" -c "
import meeple
assert meeple.version == '$version', meeple.version
s = meeple.new('babel', seed=1)
while not s.is_over():
    s.play(s.legal()[0])
assert s.winners(), s.scores()
env = meeple.env.Env('citadels', players=4, seed=2)
env.reset()
env.step(env.legal_actions()[0])
" || fail "import meeple from python3"
elif [[ -n ${MEEPLE_TEST_PYTHON:-} ]]; then
  fail "no Python module installed, though the build made one"
fi

echo "# the man page"
page="$prefix/share/man/man1/meeple.1"
[[ -f $page ]] || fail "no man page at share/man/man1/meeple.1"
for cmd in $(meeple --help | awk '/^commands:/ {on = 1; next} /^$/ {on = 0} on {print $1}'); do
  grep -Eq "^\.(B|BR|BI) \"?$cmd( |\"|$)" "$page" || fail "the man page has no section for '$cmd'"
done
if command -v man >/dev/null; then
  warnings=$(LC_ALL=C.UTF-8 man --warnings -l "$page" 2>&1 >/dev/null) || true
  [[ -z $warnings ]] || fail "the man page has roff warnings: $warnings"
  rendered=$(MANPATH="$prefix/share/man" MANWIDTH=80 man -P cat meeple 2>/dev/null)
  grep -Eq "meeple +- +card +and +board" <<<"$rendered" || fail "man meeple does not render"
fi

echo "# bash completion"
completion="$prefix/share/bash-completion/completions/meeple"
[[ -f $completion ]] || fail "no completion at share/bash-completion/completions/meeple"
# Whether completing the words given (the last one being completed) offers $1. (Read whole, then
# searched: `grep -q` in a pipe would stop early and fail the pipe under pipefail.)
offers() {
  local want=$1 words
  shift
  words=$(bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _meeple; printf "%s\n" "${COMPREPLY[@]}"' _ "$completion" "$@")
  grep -qx -- "$want" <<<"$words"
}
offers match meeple ma || fail "completion: no 'match' for 'meeple ma'"
offers babel meeple match bab || fail "completion: no game 'babel'"
offers greedy_babel meeple match babel gre || fail "completion: no bot 'greedy_babel'"
offers short meeple compare babel --variant sh || fail "completion: no variant 'short'"
offers --games meeple bench babel --ga || fail "completion: no option '--games'"
if offers _turn_key meeple match babel _; then fail "completion offers an internal name"; fi

echo "# a C program against the core, with pkg-config"
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
flags=$(pkg-config --cflags --libs meeple) || fail "pkg-config meeple"
cc -std=c11 ${MEEPLE_TEST_CFLAGS:-} "$source/tests/install_consumer.c" $flags -o consumer || fail "building against the installed core"
played=$(./consumer)
grep -q "babel over after" <<<"$played" || fail "the C program did not play a game"

echo "# docs/c-api.md's example, as the page shows it"
# The C block after the page's marker line, so that the page and what is tested cannot drift apart.
awk '/<!-- install_test.sh compiles and runs the next C block -->/ {marked = 1; next}
     marked && /^```c$/ {inside = 1; next}
     inside && /^```$/ {exit}
     inside {print}' "$source/docs/c-api.md" >first_game.c
[[ -s first_game.c ]] || fail "docs/c-api.md has no example after its marker"
cc -std=c11 -Wall -Wextra -Werror -pedantic ${MEEPLE_TEST_CFLAGS:-} first_game.c $flags -o first_game || fail "building docs/c-api.md's example"
example=$(./first_game) || fail "docs/c-api.md's example failed: $example"
# What the page says it prints, line for line.
shown=$(awk '/^What it prints/ {marked = 1; next} marked && /^```$/ {if (inside) exit; inside = 1; next} inside {print}' "$source/docs/c-api.md")
[[ -n $shown && $example == "$shown" ]] || fail "docs/c-api.md's example printed
$example
where the page shows
$shown"
echo "install_test: ok"
