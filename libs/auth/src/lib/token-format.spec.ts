import { checkTokenFormat, digestToken, generateToken } from './token-format';

describe('token format', () => {
  it('makes personal and device tokens with their prefix and a valid checksum', () => {
    const personal = generateToken('personal');
    const device = generateToken('device');
    expect(personal.secret).toMatch(/^asp_[0-9A-Za-z]{36}$/);
    expect(device.secret).toMatch(/^asd_[0-9A-Za-z]{36}$/);
    expect(checkTokenFormat(personal.secret)).toBe('personal');
    expect(checkTokenFormat(device.secret)).toBe('device');
    expect(personal.displayPrefix).toBe(personal.secret.slice(0, 8));
  });

  it('stores a SHA-256 digest, never the secret', () => {
    const { secret, digest } = generateToken('personal');
    expect(digest).toMatch(/^[0-9a-f]{64}$/);
    expect(digest).toBe(digestToken(secret));
    expect(digest).not.toContain(secret.slice(4));
  });

  it('rejects a token with one character changed, a wrong prefix or the wrong length', () => {
    const { secret } = generateToken('personal');
    for (let i = 4; i < secret.length; i += 7) {
      const changed = secret.slice(0, i) + (secret[i] === 'a' ? 'b' : 'a') + secret.slice(i + 1);
      expect(checkTokenFormat(changed)).toBeNull();
    }
    expect(checkTokenFormat(secret.replace('asp_', 'ghp_'))).toBeNull();
    expect(checkTokenFormat(secret + 'a')).toBeNull();
    expect(checkTokenFormat('')).toBeNull();
  });

  it('does not repeat itself', () => {
    const secrets = new Set(Array.from({ length: 1000 }, () => generateToken('personal').secret));
    expect(secrets.size).toBe(1000);
  });
});
