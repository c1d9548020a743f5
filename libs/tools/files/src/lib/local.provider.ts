import { realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { z } from 'zod';
import { ConnectionTestError, type DriverEnvironment, type ProviderDefinition } from '@assistant/tool-kit';
import { FileAccessError, type FilesDriver } from './files.driver';
import { LocalFolder } from './local-folder';

const localSettings = z.object({
  root: z
    .string()
    .trim()
    .min(1)
    .describe('an absolute folder on the server, among those the operator allows'),
  create: z.boolean().default(false).describe('create the folder if it does not exist'),
});

/** Whether `path` is `folder` or inside it (paths of one kind: both lexical, or both real). */
function within(path: string, folder: string): boolean {
  const rel = relative(folder, path);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/**
 * The real path of `path` as far as it exists, the rest appended as written: where a folder that is not made yet
 * would be, links along the existing part resolved.
 */
async function realPathSoFar(path: string): Promise<string> {
  const full = resolve(path);
  try {
    return await realpath(full);
  } catch {
    const parent = dirname(full);
    return parent === full ? full : join(await realPathSoFar(parent), basename(full));
  }
}

/** The places a local connection of one account is checked against, all as real paths. */
interface Places {
  /** The account's own folder in the data directory: `<data-dir>/files/<account>`. */
  own?: string;
  dataDir?: string;
  /** The operator's folders (`ASSISTANT_LOCAL_FOLDERS`). */
  operator: string[];
}

async function placesOf(env: DriverEnvironment): Promise<Places> {
  const dataDir = env.dataDir ? await realPathSoFar(env.dataDir) : undefined;
  return {
    dataDir,
    own: dataDir && env.userId ? join(dataDir, 'files', env.userId) : undefined,
    operator: await Promise.all(env.localFolders.map(realPathSoFar)),
  };
}

/**
 * Why an account may not connect the folder at the real path `root`, or null when it may: its own folder (or a
 * folder in it), or one of the operator's folders (or a folder in one). Never the data directory, anything in it
 * but the account's own folder (another account's files, the database, the secrets key), nor a folder that holds
 * it — even where an operator's folder does: one account's folder must not reach another's.
 */
function refusal(root: string, shown: string, places: Places): string | null {
  if (places.own && within(root, places.own)) return null;
  if (places.dataDir && (within(root, places.dataDir) || within(places.dataDir, root))) {
    return `${shown} is or holds this server's data directory, where an account connects only its own folder (its default one)`;
  }
  if (places.operator.some((folder) => within(root, folder))) return null;
  return `${shown} is not among the folders this server's operator allows (ASSISTANT_LOCAL_FOLDERS)`;
}

/**
 * A folder of the machine the self-hosted server runs on. Checked twice on real paths: where the folder is (or
 * would be made) before anything is created, and the folder as opened, so that no link leads an account into a
 * folder that is not its to connect.
 */
export const localProvider: ProviderDefinition<FilesDriver, typeof localSettings> = {
  name: 'local',
  description: 'A folder on this server',
  settings: localSettings,
  secrets: z.object({}),
  deployments: ['self-hosted'],
  open: async ({ settings }, env) => {
    if (!isAbsolute(settings.root))
      throw new ConnectionTestError(`the folder must be an absolute path, not ${settings.root}`);
    const places = await placesOf(env);
    const before = refusal(await realPathSoFar(settings.root), settings.root, places);
    if (before) throw new ConnectionTestError(before);
    let folder: LocalFolder;
    try {
      folder = await LocalFolder.open(resolve(settings.root), settings.create);
    } catch (error) {
      if (error instanceof FileAccessError) throw new ConnectionTestError(error.message);
      throw error;
    }
    const after = refusal(folder.root, settings.root, places);
    if (after) throw new ConnectionTestError(after);
    return folder;
  },
  // Opening it checked that the folder exists; listing it checks that it can be read.
  test: async (driver) => {
    await driver.list('.').catch((error: Error) => {
      throw new ConnectionTestError(`the folder cannot be read: ${error.message}`);
    });
  },
};
