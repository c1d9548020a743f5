#!/usr/bin/env node
// The `assistant-mcp` command, which MCP clients start (`npx -y @assistant/mcp`). The code is compiled to ../dist;
// run `npm run build` at the repository root first.
require('../dist/index.js').main();
