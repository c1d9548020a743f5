import { join } from 'node:path';
import { defineFamily } from '@assistant/tool-kit';
import type { FilesDriver } from './files.driver';
import { localProvider } from './local.provider';
import { webdavProvider } from './webdav.provider';
import { filesList } from './tools/files-list.tool';
import { filesSearch } from './tools/files-search.tool';
import { filesRead } from './tools/files-read.tool';
import { filesWrite } from './tools/files-write.tool';
import { filesMove } from './tools/files-move.tool';
import { filesDelete } from './tools/files-delete.tool';
import { filesIntents } from './intents';
import { filesAnswer } from './answers';

/** The user's files: a folder on a self-hosted server or on a WebDAV server, every path confined to it. */
export const filesFamily = defineFamily<FilesDriver>({
  name: 'files',
  description: 'Files in a folder: list, search, read, and (once confirmed) write, move and delete.',
  topic: { about: 'your files', keywords: ['file', 'folder', 'document', 'pdf', 'spreadsheet'] },
  providers: [localProvider, webdavProvider],
  // Each account of a self-hosted server has its own folder in the data directory, without setting anything up.
  defaults: [
    {
      provider: 'local',
      name: 'Files',
      deployments: ['self-hosted'],
      settings: (env, userId) => ({ root: join(env.dataDir ?? '.', 'files', userId), create: true }),
    },
  ],
  tools: [filesList, filesSearch, filesRead, filesWrite, filesMove, filesDelete],
  intents: filesIntents,
  answer: filesAnswer,
});
