#!/bin/bash
# Acceptance (issue 16): navrt installs as a package a game can use with only zstd present.
#   package_test.sh SOURCE_DIR NAVBAKE WORK_DIR
# 1. Configures the source with NAVBAKE_RUNTIME_ONLY=ON (which finds zstd and nothing else),
#    builds it and installs it into a fresh prefix: static and shared library, headers, the CMake
#    package and navrt.pc.
# 2. Builds tools/examples (a C and a C++ program) against that prefix with find_package(navrt),
#    and the C one again with pkg-config against the shared library; bakes sample_levels/
#    links_course with NAVBAKE and walks an agent with each program: the three give the same
#    walk (found, through a link, arrived), and a damaged asset gives an error, not a crash;
#    stream_world_c streams a baked terrain world's tiles for one trip.
set -euo pipefail
src=$1
navbake=$2
work=$3
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }

# ---- 1. Runtime-only build and install. ----
cmake -S "$src" -B "$work/build" -DNAVBAKE_RUNTIME_ONLY=ON -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_INSTALL_PREFIX="$work/prefix" > "$work/configure.log" 2>&1 ||
  { cat "$work/configure.log"; fail "runtime-only configure"; }
for package in assimp CLI11 spdlog fmt nlohmann_json PNG doctest; do
  if grep -q "^${package}_DIR:PATH=" "$work/build/CMakeCache.txt"; then
    fail "the runtime-only configure looked for $package"
  fi
done
cmake --build "$work/build" -j 2 > "$work/build.log" 2>&1 || { tail -30 "$work/build.log"; fail "build"; }
cmake --install "$work/build" > "$work/install.log" 2>&1 || { cat "$work/install.log"; fail "install"; }
prefix=$work/prefix
for f in lib/libnavrt.a lib/libnavrt.so include/navrt.h include/navrt.hpp \
         lib/cmake/navrt/navrtConfig.cmake lib/cmake/navrt/navrtConfigVersion.cmake \
         lib/pkgconfig/navrt.pc; do
  [ -e "$prefix/$f" ] || fail "$f was not installed"
done
# The C header is C: it compiles as C99 on its own.
echo '#include <navrt.h>
int main(void) { return navrt_version() == NAVRT_VERSION ? 0 : 1; }' > "$work/header.c"
cc -std=c99 -Wall -Wextra -pedantic -Werror -I"$prefix/include" -c "$work/header.c" \
  -o "$work/header.o" || fail "navrt.h does not compile as C99"

# ---- 2. The examples, against the installed package. ----
cmake -S "$src/tools/examples" -B "$work/examples" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_BUILD_TYPE=Release > "$work/examples.log" 2>&1 ||
  { cat "$work/examples.log"; fail "examples configure (find_package(navrt))"; }
cmake --build "$work/examples" -j 2 >> "$work/examples.log" 2>&1 ||
  { tail -30 "$work/examples.log"; fail "examples build"; }
PKG_CONFIG_PATH="$prefix/lib/pkgconfig" cc -std=c99 -O2 "$src/tools/examples/walk_agent.c" \
  $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs navrt) -lm \
  -o "$work/walk_agent_shared" || fail "the C example does not build with pkg-config"
# (ldd's output taken whole first: under pipefail, `ldd | grep -q` fails whenever grep's early
# exit hits ldd with SIGPIPE, which made this test fail now and then.)
libs=$(ldd "$work/walk_agent_shared")
grep -q "libnavrt.so" <<<"$libs" || fail "the pkg-config build did not link the shared library"
libs=$(ldd "$work/examples/walk_agent_c")
if grep -q "libnavrt.so" <<<"$libs"; then
  fail "navrt::navrt should be the static library by default"
fi

# A level with links: sample_levels/links_course, baked by navbake build.
sed -e "s#\"input\": \"links_course.obj\"#\"input\": \"$src/sample_levels/links_course.obj\"#" \
    -e "s#\"output\": \"[^\"]*\"#\"output\": \"$work/level\"#" \
    -e 's#"debug_views": true#"debug_views": false#' \
  "$src/sample_levels/links_course.json" > "$work/links_course.json"
"$navbake" build "$work/links_course.json" > "$work/bake.log" 2>&1 || { cat "$work/bake.log"; fail "bake"; }
asset=$work/level/human.navmesh.nav
for method in astar exact; do
  "$work/examples/walk_agent_c" "$asset" --method $method > "$work/c.txt" || fail "walk_agent_c $method"
  "$work/examples/walk_agent_cpp" "$asset" --method $method > "$work/cpp.txt" || fail "walk_agent_cpp $method"
  LD_LIBRARY_PATH="$prefix/lib" "$work/walk_agent_shared" "$asset" --method $method > "$work/shared.txt" ||
    fail "walk_agent (shared) $method"
  grep -q "^method $method: found" "$work/c.txt" || { cat "$work/c.txt"; fail "$method: no path"; }
  grep -q "takes .* link" "$work/c.txt" || { cat "$work/c.txt"; fail "$method: the walk takes no link"; }
  grep -q "^arrived at" "$work/c.txt" || { cat "$work/c.txt"; fail "$method: the agent did not arrive"; }
  cmp -s "$work/c.txt" "$work/cpp.txt" || { diff "$work/c.txt" "$work/cpp.txt"; fail "$method: C and C++ walks differ"; }
  cmp -s "$work/c.txt" "$work/shared.txt" || fail "$method: static and shared walks differ"
done
"$work/examples/walk_agent_c" "$work/level/human.tile.nav" --method cluster > "$work/tile.txt" ||
  fail "walk_agent_c on the tile graph"
grep -q "^method cluster: found" "$work/tile.txt" || fail "cluster: no path on the tile graph"
# A tiled world streamed from C: only the tiles the trip crosses are loaded, the path is found.
cp "$src/sample_levels/terrain.obj" "$src/sample_levels/terrain.mtl" "$work/"
echo '{"input": "terrain.obj", "output": "world", "world": {"tile_size": 20}, "agents": [{"name": "walker", "graphs": ["tile"]}]}' > "$work/world.json"
"$navbake" build "$work/world.json" > "$work/world.log" 2>&1 || { cat "$work/world.log"; fail "world bake"; }
"$work/examples/stream_world_c" "$work/world/walker.tile.world" -25 0 -25 -20 0 25 > "$work/world.txt" ||
  { cat "$work/world.txt"; fail "stream_world_c"; }
grep -q "^path: found" "$work/world.txt" || { cat "$work/world.txt"; fail "stream_world_c: no path"; }
grep -Eq "^loaded [1-8] tiles" "$work/world.txt" || { cat "$work/world.txt"; fail "stream_world_c loaded every tile"; }
grep -q "^unloaded: 0 tiles left" "$work/world.txt" || { cat "$work/world.txt"; fail "stream_world_c: tiles left"; }
# A damaged asset: a clear error and exit 1.
cp "$asset" "$work/damaged.nav"
printf '\x7f' | dd of="$work/damaged.nav" bs=1 seek=200 conv=notrunc status=none
set +e
"$work/examples/walk_agent_c" "$work/damaged.nav" > /dev/null 2> "$work/damaged.txt"
code=$?
set -e
[ "$code" = 1 ] || fail "a damaged asset gave exit $code, expected 1"
grep -q "checksum" "$work/damaged.txt" || { cat "$work/damaged.txt"; fail "no checksum error"; }
echo "navrt package: installed, examples built (CMake static, pkg-config shared), walks equal"
rm -rf "$work"
