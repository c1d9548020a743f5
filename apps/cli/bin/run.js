#!/usr/bin/env node
// The `assistant` command. Commands are compiled to ../dist; run `npm run build` at the repository root first.
require('@oclif/core').execute({ dir: __dirname }).catch(require('@oclif/core/handle'));
