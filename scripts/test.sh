#!/usr/bin/env bash
# README "Quick start", second command: the whole test suite (unit, integration on the loopback fakes,
# sidecar, dashboard UI in Chromium). Sets up whatever is missing first, Chromium included.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/bootstrap.sh"
lvb_bootstrap --chromium
exec npm test
