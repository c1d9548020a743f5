import { chmodSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** `<data-dir>/credentials.json`: how the CLI on this machine finds and calls its own server (SPEC §8). */
export interface Credentials {
  base_url: string;
  token: string;
  user_id: string;
  created_at: string;
}

export function credentialsFileIn(dataDir: string): string {
  return join(dataDir, 'credentials.json');
}

export function readCredentials(file: string): Credentials | null {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<Credentials>;
    if (
      typeof parsed.token === 'string' &&
      typeof parsed.user_id === 'string' &&
      typeof parsed.base_url === 'string'
    ) {
      return parsed as Credentials;
    }
    return null;
  } catch {
    return null;
  }
}

/** Written whole or not at all (temporary file, then rename), readable by its owner only. */
export function writeCredentials(file: string, credentials: Credentials): void {
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, file);
}
