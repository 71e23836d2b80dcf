#!/usr/bin/env bash
# The lesson pages' browser tests, from a clean clone:
#   bash tests/web/run.sh
# 1. installs what is missing: Debian's emscripten and chromium (apt-get, as
#    root), and playwright-core from tests/web/package-lock.json (npm ci);
# 2. builds the WebAssembly pages (cmake preset "wasm" -> build/wasm/web) and the
#    native napkin command (build/web-cli; or set NAPKIN_CLI to an existing one);
# 3. serves build/wasm/web on 127.0.0.1 and runs tests/web/run-tests.mjs in
#    headless Chromium; screenshots go to build/wasm/web-test-artifacts.
# Safe to run again; exits non-zero on any failure. The last line reads
# "N passed, M failed".
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-2}"
export DEBIAN_FRONTEND=noninteractive
# Debian's emscripten runs its JavaScript optimizer with the machine's node; it
# finds Debian's acorn only through NODE_PATH.
export NODE_PATH="/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}"
step="start"
trap 'status=$?; if [ $status -ne 0 ]; then echo "tests/web/run.sh: failed at: $step (exit $status)"; echo "0 passed, 1 failed"; fi' EXIT

say() { echo "== $*"; }

step="install emscripten, chromium and node"
missing=()
command -v emcc >/dev/null 2>&1 || missing+=(emscripten)
[ -x /usr/bin/chromium ] || missing+=(chromium)
command -v node >/dev/null 2>&1 || missing+=(nodejs)   # Debian 12's Node.js 18 runs playwright-core 1.61
command -v npm >/dev/null 2>&1 || missing+=(npm)
if [ ${#missing[@]} -gt 0 ]; then
  say "installing ${missing[*]} from Debian"
  if [ "$(id -u)" -ne 0 ]; then
    echo "tests/web/run.sh: ${missing[*]} missing; run as root or: sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
  apt-get install -y "${missing[@]}" || { apt-get update && apt-get install -y "${missing[@]}"; }
fi

step="install playwright-core (npm ci)"
wanted="$(node -e 'console.log(require("./tests/web/package-lock.json").packages["node_modules/playwright-core"].version)')"
have="$(node -e 'try { console.log(require("./tests/web/node_modules/playwright-core/package.json").version) } catch { console.log("none") }')"
if [ "$wanted" != "$have" ]; then
  say "npm ci in tests/web (playwright-core $wanted; no browser download)"
  (cd tests/web && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund)
fi

step="build the WebAssembly pages (cmake --preset wasm)"
say "building build/wasm/web"
cmake --preset wasm >/dev/null
cmake --build --preset wasm

step="build the native napkin command"
cli="${NAPKIN_CLI:-}"
if [ -z "$cli" ]; then
  say "building the napkin command in build/web-cli"
  cmake -S . -B build/web-cli -G Ninja -DCMAKE_BUILD_TYPE=Release \
        -DNAPKIN_BUILD_TESTS=OFF -DNAPKIN_BUILD_BENCHMARKS=OFF -DNAPKIN_BUILD_EXAMPLES=ON >/dev/null
  cmake --build build/web-cli --target napkin-cli
  cli="build/web-cli/examples/napkin"
fi

step="browser tests"
say "browser tests (Chromium $(/usr/bin/chromium --version 2>/dev/null | awk '{print $2}'))"
set +e
node tests/web/run-tests.mjs --site build/wasm/web --cli "$cli" --artifacts build/wasm/web-test-artifacts
status=$?
set -e
trap - EXIT
exit $status
