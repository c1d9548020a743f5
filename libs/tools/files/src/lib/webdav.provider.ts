import { z } from 'zod';
import {
  assertHostAllowed,
  connectionAgents,
  ConnectionTestError,
  type ProviderDefinition,
} from '@assistant/tool-kit';
import type { FilesDriver } from './files.driver';
import { WebDavFolder } from './webdav-folder';

const settings = z.object({
  url: z
    .url({ protocol: /^https?$/ })
    .describe('the folder on the WebDAV server, e.g. https://cloud.example.com/remote.php/dav/files/me/'),
  username: z.string().min(1).describe('the user name on the WebDAV server'),
});
const secrets = z.object({ password: z.string().min(1).describe('the password, or an app password') });

/** A folder listing is read whole: a server cannot make one fill the memory. (File contents are streamed.) */
const MAX_RESPONSE_BYTES = 32_000_000;

/** A folder on a WebDAV server: Nextcloud, ownCloud, a NAS, rclone, Apache… */
export const webdavProvider: ProviderDefinition<FilesDriver, typeof settings, typeof secrets> = {
  name: 'webdav',
  description: 'A folder on a WebDAV server (Nextcloud, ownCloud, a NAS…)',
  settings,
  secrets,
  open: async ({ settings: s, secrets: k }, env) => {
    const url = new URL(s.url);
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new ConnectionTestError(`${s.url} is not an http:// or https:// URL`);
    await assertHostAllowed(url.hostname, env);
    const { createClient } = await import('webdav');
    const client = createClient(s.url, {
      username: s.username,
      password: k.password,
      maxContentLength: MAX_RESPONSE_BYTES,
      // On the hosted API every request, redirects included, goes to a checked address only.
      ...connectionAgents(env),
    });
    return new WebDavFolder(client, `${url.origin}${url.pathname}`);
  },
  test: async (driver, signal) => (driver as WebDavFolder).check(signal),
};
