#!/usr/bin/env node
import { closeOnSignals, describeStartupError, startHosted } from '@assistant/server';

startHosted().then(
  (server) => {
    closeOnSignals(server);
    process.stdout.write(`Assistant hosted API is listening on ${server.url}\n`);
  },
  (error: unknown) => {
    process.stderr.write(`${describeStartupError(error)}\n`);
    process.exit(1);
  },
);
