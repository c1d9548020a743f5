import { join, resolve, sep } from 'node:path';
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

/** Where local connections may point: each account's own folder in the data directory, and the operator's list. */
function allowedRoots(env: DriverEnvironment): string[] {
  return [...(env.dataDir ? [join(env.dataDir, 'files')] : []), ...env.localFolders].map((root) =>
    resolve(root),
  );
}

/** A folder of the machine the self-hosted server runs on. */
export const localProvider: ProviderDefinition<FilesDriver, typeof localSettings> = {
  name: 'local',
  description: 'A folder on this server',
  settings: localSettings,
  secrets: z.object({}),
  deployments: ['self-hosted'],
  open: async ({ settings }, env) => {
    const root = resolve(settings.root);
    const allowed = allowedRoots(env);
    if (!allowed.some((a) => root === a || root.startsWith(a + sep))) {
      throw new ConnectionTestError(
        `${settings.root} is not among the folders this server's operator allows (ASSISTANT_LOCAL_FOLDERS)`,
      );
    }
    try {
      return await LocalFolder.open(root, settings.create);
    } catch (error) {
      if (error instanceof FileAccessError) throw new ConnectionTestError(error.message);
      throw error;
    }
  },
  // Opening it checked that the folder exists; listing it checks that it can be read.
  test: async (driver) => {
    await driver.list('.').catch((error: Error) => {
      throw new ConnectionTestError(`the folder cannot be read: ${error.message}`);
    });
  },
};
