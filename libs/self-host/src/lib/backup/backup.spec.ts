import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStorage, sqliteFileIn } from '@assistant/storage';
import { secretsKeyOf } from '@assistant/server-kit';
import { backupSelfHost } from './backup';
import { restoreSelfHost } from './restore';
import { describeBackup } from './backup-summary';

/** Every file under `root` with its content, by path relative to it. */
function tree(root: string, prefix = ''): Record<string, string> {
  const files: Record<string, string> = {};
  for (const entry of readdirSync(join(root, prefix), { withFileTypes: true })) {
    const path = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) Object.assign(files, tree(root, path));
    else files[path] = readFileSync(join(root, path), 'utf8');
  }
  return files;
}

describe('backupSelfHost and restoreSelfHost', () => {
  let scratch: string;
  let dataDir: string;
  let ownerId: string;
  const env = {};

  beforeEach(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'assistant-backup-'));
    dataDir = join(scratch, 'data');
    mkdirSync(dataDir, { mode: 0o700 });
    const storage = await openStorage(
      { dialect: 'sqlite', file: sqliteFileIn(dataDir) },
      { migrations: 'run' },
    );
    const owner = await storage.users.create({ email: 'owner@localhost', displayName: 'Owner' });
    ownerId = owner.id;
    await storage.memories.create(owner.id, {
      content: 'The spare key is under the blue pot',
      source: 'user',
    });
    await storage.close();
    secretsKeyOf({ dataDir });
    writeFileSync(join(dataDir, 'credentials.json'), '{"token":"ast_x"}\n', { mode: 0o600 });
    writeFileSync(join(dataDir, 'server.lock'), '');
    mkdirSync(join(dataDir, 'tools', 'lib'), { recursive: true });
    writeFileSync(join(dataDir, 'tools', 'order-status.mjs'), 'export default {};\n');
    writeFileSync(join(dataDir, 'tools', 'lib', 'helper.mjs'), 'export const x = 1;\n');
    const own = join(dataDir, 'files', ownerId);
    mkdirSync(join(own, 'Reçus 2025', 'empty'), { recursive: true });
    writeFileSync(join(own, 'Reçus 2025', 'bakery.txt'), 'croissants: 4\n');
    writeFileSync(join(scratch, 'outside.txt'), 'not part of the data directory');
    symlinkSync(join(scratch, 'outside.txt'), join(own, 'link-to-outside.txt'));
  });
  afterEach(() => rmSync(scratch, { recursive: true, force: true }));

  it('restores into an empty directory the database, secrets key, credentials, custom tools and files, privately', async () => {
    const archive = join(scratch, 'backup.tar.gz');
    const made = await backupSelfHost(archive, { dataDir }, env);
    expect(statSync(archive).mode & 0o777).toBe(0o600);
    expect(made.manifest).toMatchObject({
      format: 'assistant-backup',
      format_version: 1,
      contents: {
        database: { entry: 'assistant.sqlite' },
        secrets_key: true,
        credentials: true,
        tools: { files: 2 },
        files: { files: 1, bytes: 14 },
      },
    });
    // A link in an account's folder could lead anywhere on the machine: never followed, left out, and said so.
    expect(made.skipped).toEqual([`files/${ownerId}/link-to-outside.txt`]);
    expect(describeBackup(made)).toContain(
      `Left out (links, special files, or gone meanwhile): files/${ownerId}/link-to-outside.txt`,
    );
    // Nothing of the work is left beside the archive.
    expect(readdirSync(scratch).sort()).toEqual(['backup.tar.gz', 'data', 'outside.txt']);

    const restoredDir = join(scratch, 'restored');
    const restored = await restoreSelfHost(archive, { dataDir: restoredDir }, env);
    expect(restored.notes).toEqual([]);
    const original = tree(dataDir);
    const copy = tree(restoredDir);
    expect(Object.keys(copy).sort()).toEqual(
      [
        // The restore held the data directory's lock, which a server takes over.
        'server.lock',
        'assistant.sqlite',
        'secrets.key',
        'credentials.json',
        'tools/order-status.mjs',
        'tools/lib/helper.mjs',
        `files/${ownerId}/Reçus 2025/bakery.txt`,
      ].sort(),
    );
    for (const path of Object.keys(copy).filter((p) => p !== 'assistant.sqlite' && p !== 'server.lock')) {
      expect({ path, content: copy[path] }).toEqual({ path, content: original[path] });
      expect({ path, mode: statSync(join(restoredDir, path)).mode & 0o777 }).toEqual({ path, mode: 0o600 });
    }
    expect(existsSync(join(restoredDir, 'files', ownerId, 'Reçus 2025', 'empty'))).toBe(true);
    expect(statSync(restoredDir).mode & 0o777).toBe(0o700);

    const storage = await openStorage(
      { dialect: 'sqlite', file: sqliteFileIn(restoredDir) },
      { migrations: 'require-current' },
    );
    try {
      const memories = await storage.memories.list(ownerId, { limit: 10 });
      expect(memories.items.map((m) => m.content)).toEqual(['The spare key is under the blue pot']);
    } finally {
      await storage.close();
    }
  });

  it("leaves the accounts' folders out when asked, and the restore says so", async () => {
    const archive = join(scratch, 'small.tar.gz');
    const made = await backupSelfHost(archive, { dataDir, withoutFiles: true }, env);
    expect(made.manifest.contents.files).toBeNull();
    const restoredDir = join(scratch, 'restored');
    const restored = await restoreSelfHost(archive, { dataDir: restoredDir }, env);
    expect(existsSync(join(restoredDir, 'files'))).toBe(false);
    expect(restored.notes).toEqual([
      "The backup was made without the accounts' folders (--without-files): files/ is empty.",
    ]);
  });

  it('backs up the custom tools of a folder given by --tools, and says where the restore put them', async () => {
    const tools = join(scratch, 'my-tools');
    mkdirSync(tools);
    writeFileSync(join(tools, 'weather.mjs'), 'export default {};\n');
    const archive = join(scratch, 'backup.tar.gz');
    await backupSelfHost(archive, { dataDir, tools }, env);
    const restoredDir = join(scratch, 'restored');
    const restored = await restoreSelfHost(archive, { dataDir: restoredDir }, { ASSISTANT_TOOLS_DIR: tools });
    expect(readdirSync(join(restoredDir, 'tools'))).toEqual(['weather.mjs']);
    expect(restored.notes).toEqual([
      `The custom tools went to ${join(restoredDir, 'tools')}, but this server loads them from ${tools} (ASSISTANT_TOOLS_DIR).`,
    ]);
  });

  it('says that a key from ASSISTANT_SECRETS_KEY is not in the backup', async () => {
    const made = await backupSelfHost(
      join(scratch, 'b.tar.gz'),
      { dataDir },
      {
        ASSISTANT_SECRETS_KEY: Buffer.alloc(32, 7).toString('base64'),
      },
    );
    expect(made.secretsKeyFromEnvironment).toBe(true);
    expect(describeBackup(made)).toContain('ASSISTANT_SECRETS_KEY, which is not in the backup');
  });

  it('refuses a server on PostgreSQL (pg_dump), a directory without a database, and a backup written inside the data directory', async () => {
    const postgres = { ASSISTANT_DATABASE_URL: 'postgres://me:hunter2@127.0.0.1:5432/assistant' };
    const refusals = [
      backupSelfHost(join(scratch, 'pg.tar.gz'), { dataDir }, postgres),
      restoreSelfHost(join(scratch, 'pg.tar.gz'), { dataDir: join(scratch, 'new') }, postgres),
    ];
    for (const refusal of refusals) {
      await expect(refusal).rejects.toThrow(
        /PostgreSQL \(ASSISTANT_DATABASE_URL\): back up the database with pg_dump/,
      );
      await expect(refusal).rejects.not.toThrow(/hunter2/);
    }
    await expect(
      backupSelfHost(join(scratch, 'x.tar.gz'), { dataDir: join(scratch, 'empty') }, env),
    ).rejects.toThrow(/holds no database \(assistant\.sqlite\): nothing to back up/);
    await expect(backupSelfHost(join(dataDir, 'files', 'b.tar.gz'), { dataDir }, env)).rejects.toThrow(
      /write the backup outside the data directory/,
    );
    expect(existsSync(join(dataDir, 'files', 'b.tar.gz'))).toBe(false);
    expect(readdirSync(scratch).sort()).toEqual(['data', 'outside.txt']);
  });
});
