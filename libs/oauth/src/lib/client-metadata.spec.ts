import { CLIENT_METADATA_LIMITS, clientMetadataRefusal, redirectUriRefusal } from './client-metadata';

describe('redirect URIs', () => {
  it.each([
    'https://bot.example.com/cb',
    'https://127.0.0.1/cb',
    'http://127.0.0.1:8123/cb',
    'http://[::1]/cb',
    'http://localhost/cb',
    'com.example.app:/oauth',
    'cursor://anysphere.cursor/oauth',
  ])('takes %s', (uri) => {
    expect(redirectUriRefusal(uri)).toBeNull();
  });

  it.each([
    ['http://bot.example.com/cb', /must be https/],
    ['http://192.168.1.2/cb', /must be https/],
    ['http://localhost.evil.example/cb', /must be https/],
    ['https://bot.example.com/cb#x', /fragment/],
    ['javascript:alert(1)', /never a redirect URI/],
    ['data:text/html,hi', /never a redirect URI/],
    ['not a url', /not a URL/],
    [`https://bot.example.com/${'a'.repeat(CLIENT_METADATA_LIMITS.maxTextChars)}`, /longer than/],
  ])('refuses %s', (uri, why) => {
    expect(redirectUriRefusal(uri)).toMatch(why);
  });
});

describe('client metadata', () => {
  const ok = { client_name: 'Bakery bot', redirect_uris: ['https://bot.example.com/cb'] };

  it('takes an ordinary client', () => {
    expect(
      clientMetadataRefusal({ ...ok, contacts: ['a@example.com'], grant_types: ['authorization_code'] }),
    ).toBeNull();
  });

  it('refuses too many redirect URIs, a long name, a control character, and half a character anywhere', () => {
    const many = Array.from(
      { length: CLIENT_METADATA_LIMITS.maxRedirectUris + 1 },
      (_, i) => `https://x.example/${i}`,
    );
    expect(clientMetadataRefusal({ ...ok, redirect_uris: many })).toMatch(/at most/);
    expect(
      clientMetadataRefusal({ ...ok, client_name: 'n'.repeat(CLIENT_METADATA_LIMITS.maxNameChars + 1) }),
    ).toMatch(/client_name is longer/);
    expect(clientMetadataRefusal({ ...ok, client_name: 'Nul\u0000' })).toMatch(/control character/);
    expect(clientMetadataRefusal({ ...ok, client_name: 'half \ud800' })).toMatch(/lone surrogate/);
    expect(clientMetadataRefusal({ ...ok, logo_uri: 'https://x.example/\udc00' })).toMatch(/logo_uri/);
    expect(clientMetadataRefusal({ ...ok, jwks: { keys: [{ kid: '\ud83d' }] } })).toMatch(/jwks\.keys\.kid/);
    expect(clientMetadataRefusal({ ...ok, client_uri: `https://x.example/${'a'.repeat(3000)}` })).toMatch(
      /longer/,
    );
    expect(clientMetadataRefusal({ ...ok, contacts: Array(11).fill('a@example.com') })).toMatch(
      /more than 10/,
    );
  });

  it('takes a name with a whole character outside the BMP', () => {
    expect(clientMetadataRefusal({ ...ok, client_name: 'Bakery 🍞' })).toBeNull();
  });
});
