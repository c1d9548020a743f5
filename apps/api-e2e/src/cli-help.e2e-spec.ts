import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { BUILT, run, startServer } from './support/processes';

/** Runs the built CLI; its output without colours, which a runner's FORCE_COLOR (Nx sets it) would add. */
async function assistant(...args: string[]) {
  const result = await run(BUILT.cli, args, {});
  return { ...result, stdout: stripVTControlCharacters(result.stdout) };
}

/** The names listed under a heading of oclif's help (`COMMANDS`, `TOPICS`): the first word of each indented line. */
function listed(help: string, heading: string): string[] {
  const section = help.split(`\n${heading}\n`)[1]?.split('\n\n')[0] ?? '';
  return section
    .split('\n')
    .map((line) => /^ {2}(\S+)/.exec(line)?.[1])
    .filter((name): name is string => name !== undefined);
}

describe('the help of the built `assistant`', () => {
  it('lists only commands that exist, and announces none that does not exist yet', async () => {
    const help = await assistant('--help');
    expect(help.code).toBe(0);
    const names = [...listed(help.stdout, 'TOPICS'), ...listed(help.stdout, 'COMMANDS')];
    expect(names).toEqual(
      expect.arrayContaining(['accounts', 'backup', 'chat', 'help', 'pair', 'restore', 'serve']),
    );
    for (const name of names) {
      const own = await assistant(name, '--help');
      expect({ name, code: own.code, stderr: own.stderr }).toEqual({ name, code: 0, stderr: '' });
    }
  });

  it('answers `assistant help` and `assistant help chat` like --help', async () => {
    const [bare, flag] = await Promise.all([assistant('help'), assistant('--help')]);
    expect(bare.code).toBe(0);
    expect(bare.stdout).toBe(flag.stdout);
    const chat = await assistant('help', 'chat');
    expect(chat.code).toBe(0);
    expect(chat.stdout).toBe((await assistant('chat', '--help')).stdout);
    expect(chat.stdout).toContain('EXAMPLES');
  });

  it('gives `chat` examples that the built-in model understands, without a tool the product lacks', async () => {
    const help = await assistant('chat', '--help');
    const examples = help.stdout.split('\nEXAMPLES\n')[1] ?? '';
    // The text each example asks: the last double-quoted argument of its command line.
    const questions = examples
      .split('\n')
      .filter((line) => line.trim().startsWith('$ assistant chat'))
      .flatMap((line) => [...line.matchAll(/"([^"]+)"/g)].map((m) => m[1]).slice(-1));
    expect(questions.length).toBeGreaterThanOrEqual(3);

    // Each one asked of a real `assistant serve` with the built-in model: it must do something with it.
    const dataDir = mkdtempSync(join(tmpdir(), 'assistant-examples-'));
    const server = await startServer(BUILT.cli, ['serve', '--data-dir', dataDir, '--port', '0'], {});
    try {
      for (const question of questions) {
        const asked = await assistant('chat', '--data-dir', dataDir, '--url', server.url, '--json', question);
        const events = asked.stdout
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line) as { type: string; text?: string });
        const answer = events.at(-1)?.text ?? '';
        const understood =
          events.at(-1)?.type === 'query.completed' &&
          !answer.startsWith("Sorry, I didn't understand") &&
          !answer.startsWith('I have no tool for');
        expect({ question, answer, understood }).toEqual({ question, answer, understood: true });
      }
    } finally {
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
