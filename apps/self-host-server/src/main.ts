#!/usr/bin/env node
// Node 22.1+ keeps the compiled code of every module in a cache on disk, so that later starts skip parsing them
// (about a quarter of start-up); Node 20 has no such cache. Before the imports, which load the server.
(require('node:module') as { enableCompileCache?: () => unknown }).enableCompileCache?.();
import { closeOnSignals, describeStartupError } from '@assistant/server';
import { startSelfHost } from '@assistant/self-host';

/** The self-hosted server without the CLI: configured by ASSISTANT_* variables only. */
startSelfHost().then(
  (server) => {
    closeOnSignals(server);
    process.stdout.write(
      `Assistant is listening on ${server.url} (data in ${server.dataDir})\n` +
        `Sign in (once, within 15 minutes): ${server.signInLink}\n`,
    );
  },
  (error: unknown) => {
    process.stderr.write(`${describeStartupError(error)}\n`);
    process.exit(1);
  },
);
