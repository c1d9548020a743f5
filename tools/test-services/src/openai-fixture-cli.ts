#!/usr/bin/env node
/**
 * Runs the scripted OpenAI-compatible fixture (a stand-in for a model server that cannot run here) until
 * SIGINT/SIGTERM, answering every chat-completions request with the same step. Prints its base URL (with /v1)
 * alone on the first line of stdout, so a script can read it.
 *
 *   node tools/test-services/dist/openai-fixture-cli.js --port 0 --tokens 100 --interval 10
 *   node tools/test-services/dist/openai-fixture-cli.js --text "Hello there." --interval 50
 */
import { parseArgs } from 'node:util';
import { startOpenAiFixture, type FixtureStep } from './index';

const USAGE = `Usage: openai-fixture-cli [--host 127.0.0.1] [--port 0] [--tokens N --interval MS | --text TEXT [--interval MS]]

Serves GET /v1/models and POST /v1/chat/completions (stream or not) and answers every request with:
  --tokens N --interval MS   N content deltas, each the send time from process.hrtime.bigint() plus a space,
                             due at start + i*MS (benchmarks)
  --text TEXT                TEXT in word-sized deltas, --interval MS apart (default: "fixture: no scripted response")
Prints the base URL (http://HOST:PORT/v1) on the first line of stdout; stops on SIGINT/SIGTERM.`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      host: { type: 'string', default: '127.0.0.1' },
      port: { type: 'string', default: '0' },
      tokens: { type: 'string' },
      interval: { type: 'string', default: '0' },
      text: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const port = Number(values.port);
  const intervalMs = Number(values.interval);
  if (!Number.isInteger(port) || port < 0 || !(intervalMs >= 0)) {
    throw new Error(`invalid --port or --interval\n\n${USAGE}`);
  }
  let step: FixtureStep | undefined;
  if (values.tokens !== undefined) {
    const tokens = Number(values.tokens);
    if (!Number.isInteger(tokens) || tokens < 0) throw new Error(`invalid --tokens\n\n${USAGE}`);
    step = { tokens, intervalMs };
  } else if (values.text !== undefined) {
    step = { text: values.text, intervalMs };
  }
  const fixture = await startOpenAiFixture({ host: values.host, port, defaultStep: step });
  process.stdout.write(`${fixture.url}\n`);
  const stop = (): void => {
    void fixture.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`openai-fixture: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
