import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AssistantClient } from '@assistant/client';
import { readCredentials, credentialsFileIn } from '@assistant/client/local';
import { BUILT, run, startServer, type ServerProcess } from './support/processes';

describe('`assistant chat` against a real `assistant serve`', () => {
  let dataDir: string;
  let server: ServerProcess;
  const chat = (args: string[], input?: string) =>
    run(BUILT.cli, ['chat', ...args], { ASSISTANT_DATA_DIR: dataDir }, input);

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'assistant-chat-'));
    server = await startServer(BUILT.cli, ['serve', '--data-dir', dataDir, '--port', '0'], {});
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('remembers a fact and answers a question about it, with zero configuration', async () => {
    const remember = await chat(["remember that my sister's birthday is on March 3"]);
    expect(remember.stderr).toBe('');
    expect(remember.code).toBe(0);
    expect(remember.stdout).toBe("OK, I'll remember that your sister's birthday is on March 3.\n");

    const ask = await chat(["when is my sister's birthday?"]);
    expect(ask.code).toBe(0);
    expect(ask.stdout).toBe("Your sister's birthday is on March 3.\n");

    const credentials = readCredentials(credentialsFileIn(dataDir))!;
    const client = new AssistantClient({ baseUrl: credentials.base_url, token: credentials.token });
    const memories = await client.listMemories();
    expect(memories.data.map((m) => m.content)).toContain("My sister's birthday is on March 3");
    const discussions = await client.listDiscussions();
    expect(discussions.data.map((d) => d.title)).toEqual(
      expect.arrayContaining([
        "remember that my sister's birthday is on March 3",
        "when is my sister's birthday?",
      ]),
    );
  });

  it('prints one JSON event a line with --json, and continues a discussion', async () => {
    const first = await chat(['--json', 'hello']);
    expect(first.code).toBe(0);
    const events = first.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(events[0].type).toBe('query.created');
    expect(events.at(-1).type).toBe('query.completed');
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i + 1));

    const next = await chat(['--discussion', events[0].discussion_id, '--json', 'thanks']);
    const nextEvents = next.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(nextEvents[0].discussion_id).toBe(events[0].discussion_id);
  });

  it('reads the text from stdin with -', async () => {
    const result = await chat(['-'], 'thank you\n');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("You're welcome.\n");
  });

  it('asks without loading oclif or the server, and leaves help and mistakes to oclif', async () => {
    // Every file the command loads (support/loaded-files-probe.mjs), and the sources each bundle file was made from
    // (its source map): the command is a bundle in apps/cli/dist.
    const probe = join(dataDir, 'loaded-files.txt');
    const asked = await run(BUILT.cli, ['chat', 'thank you'], {
      ASSISTANT_DATA_DIR: dataDir,
      NODE_OPTIONS: `--import ${join(__dirname, 'support', 'loaded-files-probe.mjs')}`,
      LOADED_FILES_PROBE: probe,
    });
    expect(asked.code).toBe(0);
    expect(asked.stdout).toBe("You're welcome.\n");
    const loaded = [...new Set(readFileSync(probe, 'utf8').split('\n').filter(Boolean))];
    const bundleFiles = loaded.filter((file) => file.startsWith(BUILT.cliBundle));
    expect(bundleFiles).toContain(join(BUILT.cliBundle, 'chat.mjs'));
    const sources = loaded.flatMap((file) =>
      existsSync(`${file}.map`)
        ? (JSON.parse(readFileSync(`${file}.map`, 'utf8')) as { sources: string[] }).sources
        : [file],
    );
    expect(
      sources.filter((source) =>
        /@oclif[\\/]core|libs[\\/]server[\\/]|node_modules[\\/]zod[\\/]/.test(source),
      ),
    ).toEqual([]);
    // The same probe sees them where they are loaded: `assistant serve --help` is oclif's.
    const help = await run(BUILT.cli, ['serve', '--help'], {
      NODE_OPTIONS: `--import ${join(__dirname, 'support', 'loaded-files-probe.mjs')}`,
      LOADED_FILES_PROBE: `${probe}.help`,
    });
    expect(help.code).toBe(0);
    const helpSources = readFileSync(`${probe}.help`, 'utf8')
      .split('\n')
      .filter((file) => existsSync(`${file}.map`))
      .flatMap((file) => (JSON.parse(readFileSync(`${file}.map`, 'utf8')) as { sources: string[] }).sources);
    expect(helpSources.some((source) => /@oclif[\\/]core/.test(source))).toBe(true);

    const mistaken = await chat(['--no-such-flag', 'hello']);
    expect(mistaken.code).not.toBe(0);
    expect(mistaken.stderr).toMatch(/Nonexistent flag: --no-such-flag/);
  });

  it('exits 3 when an action was refused and 4 when one failed, says which on stderr, and lists the statuses in its help', async () => {
    const refused = await chat(['write "milk and eggs" to shopping.txt']);
    expect(refused.stdout).toBe("I couldn't do that: you did not approve it, so it was not done.\n");
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(/^assistant: not done: files_write was refused$/m);

    const failed = await chat(['read no-such-file.txt']);
    expect(failed.stdout).toMatch(/^I couldn't do that: /);
    expect(failed.code).toBe(4);
    expect(failed.stderr).toMatch(/^assistant: not done: files_read \(.*no-such-file\.txt.*\) failed$/m);

    const help = await run(BUILT.cli, ['chat', '--help'], {});
    expect(help.stdout).toMatch(/^\s+3 {2}answered, but an action was refused/m);
    expect(help.stdout).toMatch(/^\s+4 {2}answered, but an action failed/m);
  });

  it('says in one line when the server cannot be reached, or refuses the token, and exits non-zero', async () => {
    const unreachable = await chat(['--url', 'http://127.0.0.1:9', '--token', 'asp_x', 'hello']);
    expect(unreachable.code).not.toBe(0);
    expect(unreachable.stderr.trim().split('\n')).toHaveLength(1);
    expect(unreachable.stderr).toMatch(
      /^assistant: cannot reach the Assistant server at http:\/\/127\.0\.0\.1:9/,
    );

    const refused = await chat(['--url', server.url, '--token', 'asp_not_a_real_token', 'hello']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toMatch(/^assistant: .*token/i);
  });
});
