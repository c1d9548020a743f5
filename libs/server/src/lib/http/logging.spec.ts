import { startInProcessApp } from '../../testing/in-process-app';
import { safeUrl } from './logging';

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
