import { safeReturnTo } from './return-to';

describe('safeReturnTo', () => {
  it.each([
    ['/profile', '/profile'],
    ['/oauth/interaction/Ab3-x_9', '/oauth/interaction/Ab3-x_9'],
    ['/profile?tab=tokens#new-token', '/profile?tab=tokens#new-token'],
    ['/a/../profile', '/profile'],
    ['/a/./b/../profile', '/a/profile'],
  ])('keeps the path %j as %j', (raw, kept) => {
    expect(safeReturnTo(raw)).toBe(kept);
  });

  it.each([
    'https://evil.example/profile',
    'http:/evil.example',
    '//evil.example',
    '///evil.example',
    '/\\evil.example',
    '\\\\evil.example',
    // Paths that become scheme-relative once their dot segments are resolved: //evil.example.
    '/.//evil.example',
    '/a/..//evil.example',
    '/%2e//evil.example',
    '/%2E%2E//evil.example',
    '/a/%2e%2e//evil.example',
    '/./\\evil.example',
    'javascript:alert(1)',
    'profile',
    '',
    ' /profile',
    '/pro\nfile',
    '/pro\tfile',
    `/${'a'.repeat(2_000)}`,
    undefined,
    ['/profile'],
  ])('refuses %j', (raw) => {
    expect(safeReturnTo(raw)).toBeNull();
  });
});
