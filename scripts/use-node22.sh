# Source this: puts a Node that meets package.json's "engines.node" (the one place the minimum is
# stated) first on PATH, installing the newest Node 22 from the npm registry into .tools/node22 when the
# machine's node is older (Debian's is 20). Nothing else is downloaded.
_lvb_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
LVB_MIN_NODE="$(sed -n 's/.*"node": *">=\([0-9.]*\)".*/\1/p' "$_lvb_root/package.json" | head -n 1)"
export LVB_MIN_NODE
_lvb_node_ok() {
  command -v node >/dev/null 2>&1 && node -e '
    const have = process.versions.node.split(".").map(Number), need = process.argv[1].split(".").map(Number);
    const newer = have[0] - need[0] || have[1] - need[1] || have[2] - need[2];
    process.exit(newer >= 0 ? 0 : 1);' "$LVB_MIN_NODE"
}
if [ -x "$_lvb_root/.tools/node22/bin/node" ]; then
  export PATH="$_lvb_root/.tools/node22/bin:$PATH"
fi
if ! _lvb_node_ok; then
  echo "Node $(node --version 2>/dev/null || echo '(none)') is older than $LVB_MIN_NODE: installing node@22 from the npm registry into .tools/node22"
  (cd "$_lvb_root" && npm install -g --prefix "$_lvb_root/.tools/node22" --no-audit --no-fund --loglevel=error node@22 >/dev/null)
  export PATH="$_lvb_root/.tools/node22/bin:$PATH"
  hash -r
  _lvb_node_ok || { echo "could not get Node >= $LVB_MIN_NODE" >&2; unset -f _lvb_node_ok; return 1 2>/dev/null || exit 1; }
fi
unset -f _lvb_node_ok
unset _lvb_root
