#!/usr/bin/env node
import { describeStartupError, runHostedOps } from '@assistant/server';

runHostedOps(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${describeStartupError(error)}\n`);
    process.exit(1);
  },
);
