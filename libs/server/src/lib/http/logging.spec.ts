import { startInProcessApp } from '../../testing/in-process-app';
import type { FastifyBaseLogger } from 'fastify';
import { lazyChildLogger, safeUrl } from './logging';

describe('safeUrl', () => {
  it.each([
    ['/api/v1/me?access_token=tok_secret', '/api/v1/me?access_token=[redacted]'],
    ['/api/v1/me?ACCESS_TOKEN=tok_secret', '/api/v1/me?ACCESS_TOKEN=[redacted]'],
    ['/api/v1/me?access%5Ftoken=tok_secret', '/api/v1/me?access%5Ftoken=[redacted]'],
    ['/api/v1/me?%61ccess_token=tok_secret&limit=5', '/api/v1/me?%61ccess_token=[redacted]&limit=5'],
    ['/api/v1/memories?q=sister+birthday&limit=5', '/api/v1/memories?q=[redacted]&limit=5'],
    ['/api/v1/memories?limit=5&%71=sister', '/api/v1/memories?limit=5&%71=[redacted]'],
    ['/api/v1/memories?%E0%A4%A=x', '/api/v1/memories?%E0%A4%A=[redacted]'],
    ['/api/v1/memories?limit=5&cursor=abc', '/api/v1/memories?limit=5&cursor=abc'],
    ['/signin/link?token=one-time-secret', '/signin/link?token=[redacted]'],
    ['/api/v1/memories', '/api/v1/memories'],
  ])('%s is logged as %s', (url, logged) => {
    expect(safeUrl(url)).toBe(logged);
  });
});

it('never writes a token or search text from the URL to the log, even at info level', async () => {
  const api = await startInProcessApp({ config: { logLevel: 'info' } });
  try {
    await api.inject({ method: 'GET', url: '/api/v1/memories?access%5Ftoken=tok_leaked&q=sister+birthday' });
    await api.inject({ method: 'GET', url: '/api/v1/discussions?q=my+secret+trip' });

    const lines = api.logs().filter((line) => line.msg === 'request');
    expect(lines).toHaveLength(2);
    const text = JSON.stringify(api.logs());
    expect(text).not.toMatch(/tok_leaked|sister|secret trip|secret\+trip/);
  } finally {
    await api.close();
  }
});

describe('lazyChildLogger', () => {
  /** A parent logger that records the children it makes and the lines they write. */
  function parentLogger() {
    const lines: Array<{ bindings: object; level: string; line: unknown[] }> = [];
    const made: object[] = [];
    const logger = (bindings: object): FastifyBaseLogger => {
      const write =
        (level: string) =>
        (...line: unknown[]) =>
          lines.push({ bindings, level, line });
      return {
        level: 'info',
        fatal: write('fatal'),
        error: write('error'),
        warn: write('warn'),
        info: write('info'),
        debug: write('debug'),
        trace: write('trace'),
        silent: () => undefined,
        child: (childBindings: object) => {
          made.push(childBindings);
          return logger({ ...bindings, ...childBindings });
        },
      };
    };
    return { parent: logger({}), lines, made };
  }

  it("makes the request's child logger only when the request writes a line, then writes through it", () => {
    const { parent, lines, made } = parentLogger();
    const log = lazyChildLogger.call(null as never, parent, { request_id: 'req_1' }, {}, undefined as never);

    expect(made).toEqual([]);
    log.warn({ status_code: 503 }, 'request failed');
    log.info('again');

    expect(made).toEqual([{ request_id: 'req_1' }]);
    expect(lines).toEqual([
      { bindings: { request_id: 'req_1' }, level: 'warn', line: [{ status_code: 503 }, 'request failed'] },
      { bindings: { request_id: 'req_1' }, level: 'info', line: ['again'] },
    ]);
  });
});
