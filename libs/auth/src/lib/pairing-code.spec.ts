import { digestPairingCode, generatePairingCode, PAIRING_CODE_ALPHABET } from './pairing-code';

describe('pairing codes', () => {
  it('are 8 characters of the unambiguous alphabet, shown as ABCD-EFGH, and differ each time', () => {
    const codes = Array.from({ length: 200 }, () => generatePairingCode().code);
    for (const code of codes) expect(code).toMatch(/^[A-Z2-9]{4}-[A-Z2-9]{4}$/);
    expect(codes.join('')).not.toMatch(/[01OILU]/);
    expect(new Set(codes).size).toBe(codes.length);
    // Every symbol turns up: the draw covers the whole alphabet.
    expect(new Set(codes.join('').replace(/-/g, '')).size).toBe(PAIRING_CODE_ALPHABET.length);
  });

  it('are recognised with or without the dash, in any case, with spaces around', () => {
    const { code, digest } = generatePairingCode();
    expect(digest).toMatch(/^[0-9a-f]{64}$/);
    for (const typed of [
      code,
      code.replace('-', ''),
      code.toLowerCase(),
      ` ${code.slice(0, 4)} ${code.slice(5)} `,
    ])
      expect(digestPairingCode(typed)).toBe(digest);
  });

  it('refuse what cannot be a code: wrong length, characters outside the alphabet', () => {
    for (const typed of ['', 'ABCD-EFG', 'ABCD-EFGHJ', 'ABCD-EFG0', 'ABCD-EFGI', 'ABCD_EFGH'])
      expect(digestPairingCode(typed)).toBeNull();
  });
});
