import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { closeSync, existsSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { OperatorError } from '@assistant/contracts';

/** The version of the sealed format: `v1:` + base64(iv ‖ tag ‖ ciphertext), AES-256-GCM. */
const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Seals connection secrets before they reach the database, and opens them for a driver. AES-256-GCM with a
 * fresh IV per value: the database alone (a backup, a dump) reveals nothing, and a changed value fails to open.
 * The connection id is bound in as associated data, so a sealed value copied to another row does not open.
 */
export class SecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('a secrets key is 32 bytes');
  }

  seal(secrets: Record<string, unknown>, boundTo: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(boundTo));
    const body = Buffer.concat([cipher.update(JSON.stringify(secrets), 'utf8'), cipher.final()]);
    return `${VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
  }

  open(sealed: string, boundTo: string): Record<string, unknown> {
    const [version, payload] = sealed.split(':');
    if (version !== VERSION || !payload) throw new Error('unknown sealed-secrets format');
    const raw = Buffer.from(payload, 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(boundTo));
    decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    const text = Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
    return JSON.parse(text.toString('utf8')) as Record<string, unknown>;
  }
}

export const SECRETS_KEY_FILE = 'secrets.key';

/**
 * The key of this server: the configured one, or on a self-hosted server the one generated into its data
 * directory at first start (mode 0600, created exclusively so that two starts cannot write two keys).
 */
export function secretsKeyOf(config: { secretsKey?: Buffer; dataDir?: string }): Buffer {
  if (config.secretsKey) return config.secretsKey;
  if (!config.dataDir)
    throw new OperatorError('ASSISTANT_SECRETS_KEY is required (`openssl rand -base64 32`)');
  const file = join(config.dataDir, SECRETS_KEY_FILE);
  if (!existsSync(file)) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeSync(fd, `${randomBytes(32).toString('base64')}\n`);
      closeSync(fd);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new OperatorError(`cannot create ${file}: ${(error as Error).message}`);
      }
    }
  }
  const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  if (key.length !== 32) throw new OperatorError(`${file} does not hold a base64-encoded 32-byte key`);
  return key;
}
