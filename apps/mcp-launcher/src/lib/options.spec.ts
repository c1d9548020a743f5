import { EXIT_FAILURE, EXIT_USAGE, LauncherError, parseInvocation } from './options';

const TOKEN = 'asp_abcdefghijklmnopqrstuvwxyz0123456789';

function failure(run: () => unknown): LauncherError {
  try {
    run();
  } catch (error) {
    if (error instanceof LauncherError) return error;
    throw error;
  }
  throw new Error('expected a LauncherError');
}

describe('parseInvocation', () => {
  it('--local is the server on this machine', () => {
    expect(parseInvocation(['--local'], { ASSISTANT_API_TOKEN: TOKEN })).toEqual({
      kind: 'relay',
      baseUrl: 'http://127.0.0.1:7747',
      token: TOKEN,
      verbose: false,
    });
  });

  it('--url wins over ASSISTANT_BASE_URL, which is used without a flag; /api/v1 and slashes are dropped', () => {
    const env = { ASSISTANT_API_TOKEN: TOKEN, ASSISTANT_BASE_URL: 'https://cloud.example.com/api/v1/' };
    expect(parseInvocation([], env)).toMatchObject({ baseUrl: 'https://cloud.example.com' });
    expect(parseInvocation(['--url', 'http://10.0.0.2:7747/', '--verbose'], env)).toMatchObject({
      baseUrl: 'http://10.0.0.2:7747',
      verbose: true,
    });
  });

  it('asks for a server when none is given, and for one only', () => {
    expect(failure(() => parseInvocation([], { ASSISTANT_API_TOKEN: TOKEN }))).toMatchObject({
      exitCode: EXIT_USAGE,
      message: expect.stringContaining('--local'),
    });
    expect(failure(() => parseInvocation(['--local', '--url', 'http://x'], {})).exitCode).toBe(EXIT_USAGE);
    expect(failure(() => parseInvocation(['--url', 'ftp://x'], {})).message).toMatch(/^--url: not an http/);
  });

  it('takes the token from ASSISTANT_API_TOKEN only, and never repeats it', () => {
    expect(failure(() => parseInvocation(['--local'], {}))).toMatchObject({
      exitCode: EXIT_FAILURE,
      message: 'ASSISTANT_API_TOKEN is not set; create a token on /profile',
    });
    const flag = failure(() => parseInvocation(['--local', `--token=${TOKEN}`], {}));
    expect(flag.exitCode).toBe(EXIT_USAGE);
    expect(flag.message).not.toContain(TOKEN);
    const pasted = failure(() => parseInvocation(['--local'], { ASSISTANT_API_TOKEN: `${TOKEN} x` }));
    expect(pasted.message).not.toContain(TOKEN);
  });

  it('reads --help and --version before anything else', () => {
    expect(parseInvocation(['--help'], {})).toEqual({ kind: 'help' });
    expect(parseInvocation(['-v'], {})).toEqual({ kind: 'version' });
    expect(failure(() => parseInvocation(['serve'], {})).exitCode).toBe(EXIT_USAGE);
  });
});
