#!/usr/bin/env bash
# README "Quick start", first command: a whole simulated call (fake Discord and fake Gemini in a child
# process, the real core in this one) with no accounts, until Ctrl-C. Sets up whatever is missing first.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/bootstrap.sh"
lvb_bootstrap
# The compiled core (built when main/ changed): from TypeScript source Node's type stripper would stay
# resident in the core, 24-30 MB more (scripts/lib/core-build.mjs).
node scripts/lib/core-build.mjs ensure
# The core's start-up options (main/core/core-node-flags.ts; docs/performance.md, "Memory").
exec node --max-semi-space-size=1 dist/main/cli.js demo "$@"
