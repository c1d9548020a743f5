/**
 * The dependency rules of ARCHITECTURE.md are enforced by `@nx/enforce-module-boundaries` in the root
 * eslint.config.mjs. This suite lints small probe sources through the ESLint Node API, as if they were files
 * inside a project, and checks that a wrong import really fails lint.
 *
 * Probes are never written to disk: `lintText` takes a virtual `filePath`, and the Nx rule only needs that
 * path to find the source project (by project root) and the import to find the target project.
 */
import * as path from 'node:path';
import * as vm from 'node:vm';
import type { ESLint, Linter } from 'eslint';

// Before Nx or ESLint is loaded: nothing here may start or talk to an Nx daemon. That is also why Nx and
// ESLint are loaded with `await import()` below: static imports would be hoisted above these lines.
process.env.NX_DAEMON = 'false';
process.env.NX_NO_CLOUD = 'true';

const RULE = '@nx/enforce-module-boundaries';

let workspaceRoot: string;
let eslint: ESLint;

beforeAll(async () => {
  // ESLint loads eslint.config.mjs with import(); inside jest's module sandbox that needs the VM modules API.
  if (typeof (vm as { SyntheticModule?: unknown }).SyntheticModule !== 'function') {
    throw new Error(
      'Run this suite with node --experimental-vm-modules (ESLint imports eslint.config.mjs): ' +
        '`nx test @assistant/workspace-checks` does, or NODE_OPTIONS=--experimental-vm-modules npx jest ...',
    );
  }
  const devkit = await import('@nx/devkit');
  workspaceRoot = devkit.workspaceRoot;
  // The rule reads the cached project graph (.nx/workspace-data) and silently skips itself when there is
  // none. `nx test` computes it before running the task; compute it here too, so that running jest directly
  // (or after a project.json change) tests the current graph and never passes vacuously.
  await devkit.createProjectGraphAsync({ exitOnError: false });
  const { ESLint } = await import('eslint');
  eslint = new ESLint({ cwd: workspaceRoot });
});

/** Lints `code` as if it were the file `relativePath` (from the workspace root); the file is not created. */
async function lintProbe(relativePath: string, code: string): Promise<Linter.LintMessage[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(workspaceRoot, relativePath) });
  return result.messages;
}

function importOf(specifier: string): string {
  return `import { probe } from '${specifier}';\n\nexport const value = probe;\n`;
}

function boundaryErrors(messages: Linter.LintMessage[]): Linter.LintMessage[] {
  return messages.filter((m) => m.ruleId === RULE && m.severity === 2);
}

// A forbidden import between two libs that already depend the other way round is reported as a cycle (the
// rule checks cycles before tags); either message fails lint.
const FORBIDDEN_LIB_IMPORT = ['onlyTagsConstraintViolation', 'noCircularDependencies'];

describe('@nx/enforce-module-boundaries with workspace packages (@assistant/*)', () => {
  it('fails when contracts imports @assistant/storage (contracts depends on nothing)', async () => {
    const messages = await lintProbe(
      'libs/contracts/src/__boundary-probe__.ts',
      importOf('@assistant/storage'),
    );

    const errors = boundaryErrors(messages);
    expect(errors).toHaveLength(1);
    expect(FORBIDDEN_LIB_IMPORT).toContain(errors[0].messageId);
  });

  it('fails when storage imports @assistant/server', async () => {
    const messages = await lintProbe('libs/storage/src/__boundary-probe__.ts', importOf('@assistant/server'));

    const errors = boundaryErrors(messages);
    expect(errors).toHaveLength(1);
    expect(FORBIDDEN_LIB_IMPORT).toContain(errors[0].messageId);
  });

  it('allows storage to import @assistant/contracts', async () => {
    const messages = await lintProbe(
      'libs/storage/src/__boundary-probe__.ts',
      importOf('@assistant/contracts'),
    );

    expect(messages).toEqual([]);
  });

  // No cycle is possible here (no project depends on tools or on an e2e suite), so these pin the tag
  // constraints themselves rather than the cycle check.
  it('fails on a tag constraint when a workspace tool imports @assistant/storage', async () => {
    const messages = await lintProbe(
      'tools/workspace/src/__boundary-probe__.ts',
      importOf('@assistant/storage'),
    );

    expect(boundaryErrors(messages).map((m) => m.messageId)).toEqual(['onlyTagsConstraintViolation']);
  });

  it('fails on a tag constraint when an e2e suite imports @assistant/server', async () => {
    const messages = await lintProbe('apps/api-e2e/src/__boundary-probe__.ts', importOf('@assistant/server'));

    expect(boundaryErrors(messages).map((m) => m.messageId)).toEqual(['onlyTagsConstraintViolation']);
  });

  it('fails when the CLI (assistant serve) imports @assistant/hosted', async () => {
    const messages = await lintProbe('apps/cli/src/__boundary-probe__.ts', importOf('@assistant/hosted'));

    expect(boundaryErrors(messages).map((m) => m.messageId)).toContain('notTagsConstraintViolation');
  });

  it('fails when the server imports a Redis client (it belongs to @assistant/hosted)', async () => {
    const messages = await lintProbe('libs/server/src/__boundary-probe__.ts', importOf('ioredis'));

    expect(boundaryErrors(messages).map((m) => m.messageId)).toEqual(['bannedExternalImportsViolation']);
  });

  // The server depends on the kit, on MCP, on OAuth and on the web pages; any of them importing the server back is a
  // cycle, and a tag violation.
  it.each([
    ['the server kit', 'libs/server-kit/src/__boundary-probe__.ts'],
    ['MCP', 'libs/mcp-server/src/__boundary-probe__.ts'],
    ['OAuth', 'libs/oauth/src/__boundary-probe__.ts'],
    ['the web pages', 'libs/web/src/__boundary-probe__.ts'],
    ['the queries', 'libs/queries/src/__boundary-probe__.ts'],
  ])('fails when %s imports @assistant/server', async (_what, probe) => {
    const errors = boundaryErrors(await lintProbe(probe, importOf('@assistant/server')));

    expect(errors).toHaveLength(1);
    expect(FORBIDDEN_LIB_IMPORT).toContain(errors[0].messageId);
  });

  it('fails when the server kit imports @assistant/queries (the queries build on the kit, not the other way)', async () => {
    const errors = boundaryErrors(
      await lintProbe('libs/server-kit/src/__boundary-probe__.ts', importOf('@assistant/queries')),
    );

    expect(errors).toHaveLength(1);
    expect(FORBIDDEN_LIB_IMPORT).toContain(errors[0].messageId);
  });

  it('fails when the queries import MCP (a run sees tools through the kit’s port, never a protocol)', async () => {
    const errors = boundaryErrors(
      await lintProbe('libs/queries/src/__boundary-probe__.ts', importOf('@assistant/mcp-server')),
    );

    expect(errors.map((e) => e.messageId)).toEqual(['onlyTagsConstraintViolation']);
  });

  it('allows the server to import @assistant/queries', async () => {
    const messages = await lintProbe('libs/server/src/__boundary-probe__.ts', importOf('@assistant/queries'));

    expect(messages).toEqual([]);
  });

  it('fails when the server kit imports @assistant/mcp-server (MCP builds on the kit, not the other way)', async () => {
    const errors = boundaryErrors(
      await lintProbe('libs/server-kit/src/__boundary-probe__.ts', importOf('@assistant/mcp-server')),
    );

    expect(errors).toHaveLength(1);
    expect(FORBIDDEN_LIB_IMPORT).toContain(errors[0].messageId);
  });

  it('fails when the server kit imports @assistant/oauth (OAuth builds on the kit, not the other way)', async () => {
    const errors = boundaryErrors(
      await lintProbe('libs/server-kit/src/__boundary-probe__.ts', importOf('@assistant/oauth')),
    );

    expect(errors).toHaveLength(1);
    expect(FORBIDDEN_LIB_IMPORT).toContain(errors[0].messageId);
  });

  // The web pages and OAuth are siblings on the kit: /profile finds OAuth's section by its mark, never by an import.
  it('fails when the web pages import @assistant/oauth', async () => {
    const errors = boundaryErrors(
      await lintProbe('libs/web/src/__boundary-probe__.ts', importOf('@assistant/oauth')),
    );

    expect(errors).toHaveLength(1);
    expect(FORBIDDEN_LIB_IMPORT).toContain(errors[0].messageId);
  });

  it('fails when the server kit imports @assistant/web (the pages build on the kit, not the other way)', async () => {
    const errors = boundaryErrors(
      await lintProbe('libs/server-kit/src/__boundary-probe__.ts', importOf('@assistant/web')),
    );

    expect(errors).toHaveLength(1);
    expect(FORBIDDEN_LIB_IMPORT).toContain(errors[0].messageId);
  });

  it.each([
    ['the server', 'libs/server/src/__boundary-probe__.ts'],
    ['the self-hosted composition', 'libs/self-host/src/__boundary-probe__.ts'],
  ])('allows %s to import @assistant/web', async (_what, probe) => {
    const messages = await lintProbe(probe, importOf('@assistant/web'));

    expect(messages).toEqual([]);
  });

  it('allows the server to import @assistant/oauth', async () => {
    const messages = await lintProbe('libs/server/src/__boundary-probe__.ts', importOf('@assistant/oauth'));

    expect(messages).toEqual([]);
  });

  it('allows MCP to import @assistant/server-kit', async () => {
    const messages = await lintProbe(
      'libs/mcp-server/src/__boundary-probe__.ts',
      importOf('@assistant/server-kit'),
    );

    expect(messages).toEqual([]);
  });

  // The self-hosted composition builds on the server as the hosted one does: the server importing it back is a cycle,
  // and a tag violation; and it runs on one process, so the hosted composition is out of its reach.
  it('fails when the server imports @assistant/self-host (the composition builds on the server)', async () => {
    const errors = boundaryErrors(
      await lintProbe('libs/server/src/__boundary-probe__.ts', importOf('@assistant/self-host')),
    );

    expect(errors).toHaveLength(1);
    expect(FORBIDDEN_LIB_IMPORT).toContain(errors[0].messageId);
  });

  // Refused twice over (type:self-host's list has no type:hosted, and scope:self-host never reaches it); the rule
  // reports the first.
  it('fails when the self-hosted composition imports @assistant/hosted', async () => {
    const errors = boundaryErrors(
      await lintProbe('libs/self-host/src/__boundary-probe__.ts', importOf('@assistant/hosted')),
    );

    expect(errors).toHaveLength(1);
    expect(['onlyTagsConstraintViolation', 'notTagsConstraintViolation']).toContain(errors[0].messageId);
  });

  it('fails when the self-hosted composition imports a Redis client', async () => {
    const messages = await lintProbe('libs/self-host/src/__boundary-probe__.ts', importOf('ioredis'));

    expect(boundaryErrors(messages).map((m) => m.messageId)).toEqual(['bannedExternalImportsViolation']);
  });

  it('allows the self-hosted composition to import @assistant/server/hosting', async () => {
    const messages = await lintProbe(
      'libs/self-host/src/__boundary-probe__.ts',
      importOf('@assistant/server/hosting'),
    );

    expect(messages).toEqual([]);
  });

  it('allows the self-hosted server to import @assistant/self-host', async () => {
    const messages = await lintProbe(
      'apps/self-host-server/src/__boundary-probe__.ts',
      importOf('@assistant/self-host'),
    );

    expect(messages).toEqual([]);
  });

  it('allows the hosted API to import @assistant/hosted', async () => {
    const messages = await lintProbe(
      'apps/hosted-api/src/__boundary-probe__.ts',
      importOf('@assistant/hosted'),
    );

    expect(messages).toEqual([]);
  });

  it('allows a workspace tool to import @assistant/contracts', async () => {
    const messages = await lintProbe(
      'tools/workspace/src/__boundary-probe__.ts',
      importOf('@assistant/contracts'),
    );

    expect(messages).toEqual([]);
  });
});

describe('eslint.config.mjs', () => {
  // Lint runs with --max-warnings=0, so a rule left at "warn" is an error that does not say so.
  it.each([
    'libs/contracts/src/__probe__.ts',
    'tools/workspace/scripts/__probe__.mjs',
    'tools/workspace/__probe__.cjs',
    'libs/contracts/package.json',
  ])('sets no rule to "warn" for %s', async (relativePath) => {
    const config = await eslint.calculateConfigForFile(path.join(workspaceRoot, relativePath));
    const warned = Object.entries(config.rules ?? {})
      .filter(([, entry]) => ['warn', 1].includes(Array.isArray(entry) ? entry[0] : entry))
      .map(([name]) => name);

    expect(warned).toEqual([]);
  });
});
