#!/usr/bin/env node
import { closeOnSignals, describeStartupError, startSelfHost } from '@assistant/server';

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
