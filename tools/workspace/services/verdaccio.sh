#!/usr/bin/env bash
# Verdaccio, the npm registry that the registry release check (tools/workspace/scripts/registry-release-check.mjs)
# publishes every package to and installs them from, installed from the npm registry outside the workspace into
# /var/tmp/assistant-verdaccio. Nothing is started here: each check starts its own on a free loopback port.
# 6.8.0: later 6.x want Node 22, and the workspace's Node may be 20. verdaccio-audit asks for node-fetch by its
# `cjs` dist-tag, which the registry reached here does not resolve; 2.7.0 is the release that tag names.
# Idempotent.
set -euo pipefail
DIR=/var/tmp/assistant-verdaccio
BIN="$DIR/node_modules/verdaccio/bin/verdaccio"
if [[ -f "$BIN" ]]; then exit 0; fi
mkdir -p "$DIR"
cat >"$DIR/package.json" <<'JSON'
{
  "name": "assistant-verdaccio",
  "private": true,
  "dependencies": { "verdaccio": "6.8.0" },
  "overrides": { "node-fetch": "2.7.0" }
}
JSON
npm install --prefix "$DIR" --no-audit --no-fund --loglevel=error >/dev/null
[[ -f "$BIN" ]]
