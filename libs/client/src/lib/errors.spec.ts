import { systemErrorCode } from './errors';

describe('systemErrorCode', () => {
  it("finds the system error under undici's 'fetch failed', in an AggregateError, or an undici code", () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    expect(systemErrorCode(new TypeError('fetch failed', { cause: refused }))).toBe('ECONNREFUSED');
    const both = new AggregateError([refused, new Error('other')], 'all failed');
    expect(systemErrorCode(new TypeError('fetch failed', { cause: both }))).toBe('ECONNREFUSED');
    const closed = Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' });
    expect(systemErrorCode(new TypeError('fetch failed', { cause: closed }))).toBe('UND_ERR_SOCKET');
  });

  it('finds none in an error of another kind, or in what is no error', () => {
    expect(systemErrorCode(Object.assign(new Error('x'), { code: 'invalid_request' }))).toBeUndefined();
    expect(systemErrorCode(new Error('fetch failed', { cause: 'text' }))).toBeUndefined();
    expect(systemErrorCode(undefined)).toBeUndefined();
  });
});
