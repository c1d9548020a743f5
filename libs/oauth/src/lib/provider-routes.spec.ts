import { isAuthorizationRequest, isClientRegistration, isProviderRequest } from './provider-routes';

describe('what the authorization server answers itself', () => {
  it.each([
    ['GET', '/oauth/authorize?client_id=x'],
    ['GET', '/oauth/authorize/uid123'],
    ['POST', '/oauth/token'],
    ['OPTIONS', '/oauth/token'],
    ['POST', '/oauth/revoke'],
    ['POST', '/oauth/introspect'],
    ['POST', '/oauth/register'],
    ['GET', '/oauth/register/app_1'],
    ['GET', '/.well-known/oauth-authorization-server'],
    ['GET', '/.well-known/openid-configuration'],
  ])('%s %s', (method, url) => {
    expect(isProviderRequest(method, url)).toBe(true);
  });

  it.each([
    ['GET', '/oauth/userinfo'],
    ['GET', '/oauth/logout'],
    ['POST', '/oauth/logout/confirm'],
    ['GET', '/oauth/jwks'],
    ['GET', '/oauth/device'],
    ['POST', '/oauth/par'],
    ['GET', '/oauth/token'],
    ['GET', '/oauth/interaction/uid123'],
    ['GET', '/oauth/authorize/a/b'],
    ['GET', '/oauth/authorize/'],
    ['GET', '/oauth/%74oken'],
  ])('not %s %s', (method, url) => {
    expect(isProviderRequest(method, url)).toBe(false);
  });

  it('tells registrations and authorization requests', () => {
    expect(isClientRegistration('POST', '/oauth/register?x=1')).toBe(true);
    expect(isClientRegistration('GET', '/oauth/register/app_1')).toBe(false);
    expect(isAuthorizationRequest('GET', '/oauth/authorize?client_id=x')).toBe(true);
    expect(isAuthorizationRequest('GET', '/oauth/authorize/uid')).toBe(true);
    expect(isAuthorizationRequest('POST', '/oauth/token')).toBe(false);
  });
});
