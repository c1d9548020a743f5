import { chmodSync, renameSync, writeFileSync } from 'node:fs';
import type { Credentials } from '@assistant/client/local';

/**
 * `<data-dir>/credentials.json`: how the CLI on this machine finds and calls its own server (SPEC §8). Its
 * location and shape belong to the client (which reads it); the server only writes it.
 * Written whole or not at all (temporary file, then rename), readable by its owner only.
 */
export function writeCredentials(file: string, credentials: Credentials): void {
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, file);
}
