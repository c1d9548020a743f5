import { startInProcessApp } from '../../testing/in-process-app';
import type { FastifyBaseLogger } from 'fastify';
import { lazyChildLogger, prettyLogLine, safeUrl, terminalLogDestination } from '@assistant/server-kit';

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

describe('log lines on a terminal', () => {
  it('are the JSON lines made readable, with the same fields and so never a token or search text', async () => {
    const api = await startInProcessApp({ config: { logLevel: 'info' } });
    try {
      await api.inject({
        method: 'GET',
        url: '/api/v1/memories?access%5Ftoken=tok_leaked&q=sister+birthday',
      });
      const request = api.logs().find((line) => line.msg === 'request')!;
      const pretty = prettyLogLine(JSON.stringify(request));
      expect(pretty).toMatch(
        /^\d\d:\d\d:\d\d INFO {2}request {2}request_id=\S+ method=GET url=\/api\/v1\/memories\?access%5Ftoken=\[redacted\]&q=\[redacted\] status_code=401 response_time_ms=[\d.]+\n$/,
      );
      expect(pretty).not.toMatch(/tok_leaked|sister/);
    } finally {
      await api.close();
    }
  });

  it('show a warning with its context, fields and error stack, and pass a line that is no JSON as it is', () => {
    const line = JSON.stringify({
      level: 40,
      time: Date.UTC(2026, 10, 26, 9, 5, 7),
      pid: 1,
      hostname: 'vm',
      context: 'CustomTools',
      file: '/data/tools/a b.mjs',
      msg: 'custom tool module skipped',
      err: { message: 'boom', stack: 'Error: boom\n    at x (y.js:1:1)' },
    });
    expect(prettyLogLine(line).replace(/^\d\d:\d\d:\d\d/, 'hh:mm:ss')).toBe(
      'hh:mm:ss WARN  [CustomTools] custom tool module skipped  file="/data/tools/a b.mjs"\n' +
        '    Error: boom\n        at x (y.js:1:1)\n',
    );
    expect(prettyLogLine('plain text')).toBe('plain text\n');
  });

  it('are chosen for a terminal only: anything else keeps the JSON lines', () => {
    const written: string[] = [];
    const out = (isTTY: boolean) =>
      ({ isTTY, write: (text: string) => written.push(text) }) as unknown as NodeJS.WriteStream;
    expect(terminalLogDestination(out(false), {})).toBeUndefined();
    terminalLogDestination(out(true), { NO_COLOR: '1' })!.write('{"level":30,"msg":"hello"}\n');
    expect(written).toEqual([expect.stringMatching(/^\d\d:\d\d:\d\d INFO {2}hello\n$/)]);
  });
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
