import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

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
