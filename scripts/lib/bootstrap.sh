# Sourced by scripts/demo.sh and scripts/test.sh (README "Quick start"): every set-up step the two
# commands need on a stock machine, each skipped when already done, so a second run starts in seconds.
#   1. a Node that runs the code (package.json "engines.node"), from the npm registry into .tools/
#   2. `npm ci` with that Node when package-lock.json or the Node changed (stamp in node_modules/)
#   3. the native Opus addon built for that Node (rebuilt when it does not load)
#   4. with `lvb_bootstrap --chromium`: Debian's Chromium for the dashboard UI tests (apt when root)
# Nothing is installed globally except through apt, and only when running as root.

LVB_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

lvb_say() { printf '\033[1m==>\033[0m %s\n' "$*" >&2; }

lvb_apt_install() { # packages...
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq "$@" >/dev/null
}

# A C++ toolchain for @discordjs/opus, which compiles from source when its prebuilt binary cannot be
# downloaded (GitHub unreachable, or no prebuild for this Node).
lvb_ensure_toolchain() {
  local missing=()
  command -v g++ >/dev/null 2>&1 || missing+=(g++)
  command -v make >/dev/null 2>&1 || missing+=(make)
  command -v python3 >/dev/null 2>&1 || missing+=(python3)
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    lvb_say "installing a C++ toolchain for the native Opus addon (apt-get install build-essential python3)"
    lvb_apt_install build-essential python3
  else
    lvb_say "no ${missing[*]}: the native Opus addon may not build, and calls would use the slower WASM codec."
    lvb_say "to fix: sudo apt-get install -y build-essential python3   (then run this command again)"
  fi
}

lvb_ensure_chromium() {
  local chromium="${LVB_CHROMIUM:-/usr/bin/chromium}"
  [ -x "$chromium" ] && return 0
  if [ -z "${LVB_CHROMIUM:-}" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    lvb_say "installing Chromium for the dashboard UI tests (apt-get install chromium)"
    lvb_apt_install chromium
    return 0
  fi
  echo "The dashboard UI tests drive Debian's Chromium, which is not installed ($chromium)." >&2
  echo "Install it, then run this command again:" >&2
  echo "    sudo apt-get install -y chromium" >&2
  echo "(or point LVB_CHROMIUM at another Chromium binary)" >&2
  return 1
}

lvb_bootstrap() { # [--chromium]
  cd "$LVB_ROOT"
  # shellcheck source=../use-node22.sh
  source scripts/use-node22.sh
  # node-gyp needs this Node's headers; the npm registry's Node ships them, so nodejs.org is not needed.
  local node_home
  node_home="$(cd "$(dirname "$(readlink -f "$(command -v node)")")/.." && pwd)"
  if [ -f "$node_home/include/node/node_api.h" ]; then export npm_config_nodedir="$node_home"; fi

  if ! node scripts/lib/install-state.mjs check; then
    # npm ci empties node_modules before installing: through a link (a git worktree sharing another
    # checkout's tree) it would empty that checkout's tree, under everything running from it.
    if [ -L node_modules ]; then
      lvb_say "node_modules is a link to $(readlink -f node_modules), whose install is not current for this checkout;"
      lvb_say "not reinstalling through the link. To fix: run npm ci in $(dirname "$(readlink -f node_modules)"), or remove the link here and run this again"
      return 1
    fi
    lvb_ensure_toolchain
    lvb_say "installing dependencies with Node $(node --version) (npm ci; first run only, takes a few minutes)"
    # The demo and the tests need neither Playwright's own browsers nor the Electron binary.
    # onnxruntime-node (the optional Silero voice check, docs/audio.md "Phantom turns") ships its CPU
    # binaries in the tarball; its install script would fetch a CUDA provider from NuGet, which is
    # neither needed nor reachable (npm 11 runs no install script that allowScripts does not list;
    # the variable also stops it where one runs).
    PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 ELECTRON_SKIP_BINARY_DOWNLOAD="${ELECTRON_SKIP_BINARY_DOWNLOAD:-1}" ONNXRUNTIME_NODE_INSTALL=skip JOBS="${JOBS:-2}" \
      npm ci --no-audit --no-fund --loglevel=error
    node scripts/lib/install-state.mjs write
  fi
  if ! node scripts/lib/install-state.mjs native 2>/dev/null; then
    lvb_ensure_toolchain
    lvb_say "building the native Opus addon for Node $(node --version)"
    JOBS="${JOBS:-2}" npm rebuild @discordjs/opus --loglevel=error >/dev/null || true
    # Still failing: the core runs on the WASM codec and says so at start-up and in /health.
    node scripts/lib/install-state.mjs native || lvb_say "continuing without the native Opus addon (see above)"
  fi
  if [ "${1:-}" = "--chromium" ]; then lvb_ensure_chromium; fi
}
