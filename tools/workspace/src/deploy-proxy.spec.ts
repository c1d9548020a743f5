/**
 * The nginx of deploy/compose.yaml stands between every client and the hosted API, so what it passes on is part of
 * the API's trust boundaries: the client address that rate limits and logs use (with ASSISTANT_TRUST_PROXY the API
 * believes X-Forwarded-For), streams that must not wait in a buffer, and no affinity (any replica serves any
 * request, MCP's included).
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';

const NGINX_CONF = readFileSync(path.join(__dirname, '..', '..', '..', 'deploy', 'nginx.conf'), 'utf8');
const directives = NGINX_CONF.split('\n')
  .map((line) => line.replace(/#.*/, '').trim())
  .filter(Boolean);

describe('deploy/nginx.conf', () => {
  it('sends the client address it saw, never one the client wrote into X-Forwarded-For', () => {
    expect(directives).toContain('proxy_set_header X-Forwarded-For $remote_addr;');
    expect(directives.join('\n')).not.toContain('$proxy_add_x_forwarded_for');
  });

  it('streams answers as they come, for as long as an answer may take', () => {
    expect(directives).toEqual(expect.arrayContaining(['proxy_buffering off;', 'proxy_read_timeout 1h;']));
  });

  it('balances every request without affinity: no hash on a session header or the client', () => {
    expect(directives.filter((line) => /^(hash|ip_hash|sticky)\b/.test(line))).toEqual([]);
  });
});
