import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OperatorError } from '@assistant/contracts';
import { SECRETS_KEY_FILE, secretsKeyOf } from './secrets-key';

let dataDir: string;
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'assistant-secrets-key-'));
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

it('generates a 32-byte key into the data directory once, readable by its owner only, and reads it back after', () => {
  const key = secretsKeyOf({ dataDir });
  const file = join(dataDir, SECRETS_KEY_FILE);

  expect(key).toHaveLength(32);
  expect(statSync(file).mode & 0o777).toBe(0o600);
  expect(secretsKeyOf({ dataDir }).equals(key)).toBe(true);
  expect(readFileSync(file, 'utf8').trim()).toBe(key.toString('base64'));
});

it('takes the configured key over the data directory’s, and writes no file for it', () => {
  const configured = Buffer.alloc(32, 7);

  expect(secretsKeyOf({ secretsKey: configured, dataDir })).toBe(configured);
  expect(() => statSync(join(dataDir, SECRETS_KEY_FILE))).toThrow();
});

it('refuses to start without a key or a data directory, and on a file that is not a 32-byte key', () => {
  expect(() => secretsKeyOf({})).toThrow(OperatorError);
  writeFileSync(join(dataDir, SECRETS_KEY_FILE), `${Buffer.alloc(16).toString('base64')}\n`);
  expect(() => secretsKeyOf({ dataDir })).toThrow(/does not hold a base64-encoded 32-byte key/);
});
