import { hostAllowed, isLoopbackHost, originAllowed, type OriginPolicy } from './request-origin';

const onLoopback: OriginPolicy = { publicUrl: 'http://127.0.0.1:7747', loopbackBound: true };
const behindProxy: OriginPolicy = { publicUrl: 'https://assistant.example.com', loopbackBound: false };

describe('the MCP endpoint against DNS rebinding', () => {
  it.each(['127.0.0.1', '127.8.9.10', 'localhost', '::1', '[::1]', 'LOCALHOST'])(
    'takes %s as loopback',
    (host) => {
      expect(isLoopbackHost(host)).toBe(true);
    },
  );

  it.each(['0.0.0.0', '10.0.0.1', 'assistant.example.com', '127.0.0.1.evil.test'])(
    'does not take %s as loopback',
    (host) => {
      expect(isLoopbackHost(host)).toBe(false);
    },
  );

  it('answers under its public name, or a loopback name with its own port', () => {
    expect(hostAllowed('127.0.0.1:7747', onLoopback)).toBe(true);
    expect(hostAllowed('localhost:7747', onLoopback)).toBe(true);
    expect(hostAllowed('assistant.example.com', behindProxy)).toBe(true);
    expect(hostAllowed('ASSISTANT.example.com', behindProxy)).toBe(true);
  });

  it('refuses a rebound name, another port, a missing Host, and loopback names for a public server', () => {
    expect(hostAllowed('evil.test:7747', onLoopback)).toBe(false);
    expect(hostAllowed('localhost:8080', onLoopback)).toBe(false);
    expect(hostAllowed(undefined, onLoopback)).toBe(false);
    expect(hostAllowed('localhost:443', behindProxy)).toBe(false);
  });

  it('lets pages of this machine on any port in when it listens on loopback; a request without Origin is no page', () => {
    expect(originAllowed('http://127.0.0.1:6274', onLoopback)).toBe(true);
    expect(originAllowed('http://localhost:3000', onLoopback)).toBe(true);
    expect(originAllowed(undefined, onLoopback)).toBe(true);
  });

  it('refuses other origins: another site, a loopback page for a public server, a scheme other than its own, nonsense', () => {
    expect(originAllowed('http://evil.test', onLoopback)).toBe(false);
    expect(originAllowed('http://localhost:3000', behindProxy)).toBe(false);
    expect(originAllowed('http://assistant.example.com', behindProxy)).toBe(false);
    expect(originAllowed('null', onLoopback)).toBe(false);
    expect(originAllowed('https://assistant.example.com', behindProxy)).toBe(true);
  });
});
