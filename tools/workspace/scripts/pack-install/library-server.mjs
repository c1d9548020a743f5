/**
 * The self-hosted server started from the libraries as installed from their own tarballs, not from the CLI's bundle:
 * a script requires `@assistant/self-host` and `@assistant/server` and starts it as `assistant serve` does, so that
 * the packages a program of its own would import are checked to work on their own.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServe } from './installed-checks.mjs';

const SCRIPT = `const { parseArgs } = require('node:util');
const { startSelfHost } = require('@assistant/self-host');
const { closeOnSignals, describeStartupError } = require('@assistant/server');
const { values } = parseArgs({ options: { port: { type: 'string' }, 'data-dir': { type: 'string' } } });
startSelfHost({ port: values.port, dataDir: values['data-dir'] }).then(
  (server) => {
    closeOnSignals(server);
    process.stdout.write(\`@assistant/self-host is running at \${server.url}\\n\`);
  },
  (error) => {
    process.stderr.write(\`\${describeStartupError(error)}\\n\`);
    process.exit(1);
  },
);
`;

/** Starts it in `folder` (where every tarball is installed) on its own data directory: `{ url, token, stop }`. */
export function startLibraryServer(folder, runtime, dataDir) {
  const script = join(folder, 'serve-with-self-host.cjs');
  writeFileSync(script, SCRIPT);
  return startServe(folder, runtime, dataDir, [runtime.node, script]);
}
