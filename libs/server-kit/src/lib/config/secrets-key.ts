import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { OperatorError } from '@assistant/contracts';

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
