# Source this: puts Node >= 22.12 first on PATH, installing Node 22 from the npm registry into
# .tools/ when the machine's node is older (Debian's is 20). Nothing else is downloaded.
_lvb_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
_lvb_node_ok() {
  command -v node >/dev/null 2>&1 && node -e 'const [a,b]=process.versions.node.split(".").map(Number);process.exit(a>22||(a===22&&b>=12)?0:1)'
}
if [ -x "$_lvb_root/.tools/node22/bin/node" ]; then
  export PATH="$_lvb_root/.tools/node22/bin:$PATH"
fi
if ! _lvb_node_ok; then
  echo "Node $(node --version 2>/dev/null || echo none) is older than 22.12: installing node@22 from the npm registry into .tools/node22"
  npm install -g --prefix "$_lvb_root/.tools/node22" --no-audit --no-fund node@22 >/dev/null
  export PATH="$_lvb_root/.tools/node22/bin:$PATH"
  hash -r
  _lvb_node_ok || { echo "could not get Node >= 22.12" >&2; return 1 2>/dev/null || exit 1; }
fi
unset -f _lvb_node_ok
unset _lvb_root
