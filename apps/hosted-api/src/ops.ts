#!/usr/bin/env node
import { describeStartupError } from '@assistant/server';
import { runHostedOps } from '@assistant/hosted';

runHostedOps(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${describeStartupError(error)}\n`);
    process.exit(1);
  },
);
