-- The Lua module alone, for `luarocks make rockspecs/meeple-0.2.0-1.rockspec` from a checkout: builds the
-- core and meeple.so with CMake (the same build as the project's) and installs the module into the
-- rocks tree. The `meeple` program, bots and variants come with `cmake --install` (README, "Installing").
rockspec_format = "3.0"
package = "meeple"
version = "0.2.0-1"
source = { url = "git+https://example.invalid/meeple.git", tag = "v0.2.0" }
description = {
  summary = "Card and board game rules in C with seeded states, views and search from Lua",
  detailed = [[
Babel, Citadels, Bohnanza and Rabohnzel: exact rules in a C core whose state is flat memory (a clone is
a copy), with every illegal action refused with a reason, players' views that hide what they must,
samples for search, saves and house-rule variants.]],
  license = "MIT",
}
dependencies = { "lua >= 5.4, < 5.5" }
external_dependencies = { JANSSON = { header = "jansson.h" } }
build = {
  type = "cmake",
  variables = {
    CMAKE_BUILD_TYPE = "Release",
    CMAKE_INSTALL_PREFIX = "$(PREFIX)",
    MEEPLE_LUA_CMOD_DIR = "$(LIBDIR)",
    MEEPLE_MODULE_ONLY = "ON",
  },
}
