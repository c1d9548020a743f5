// How request-profile.mjs reads perf's samples: which part of the request path a stack is given to, and which
// function a JIT address is named after. On fixed stacks and a written map file: no perf needed.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { categoryOf } from './categories.mjs';
import { jitSymbols } from './perf-samples.mjs';

const js = (name, file) => ({ native: false, name, file });
const native = (name) => ({ native: true, name, file: '' });

describe('the part of the request path a sample is given to', () => {
  it('is the innermost frame a rule names: native frames no rule names count for their JavaScript caller', () => {
    const stack = [
      native('tcp_sendmsg [kernel.kallsyms]'),
      native('uv_try_write /usr/bin/node'),
      js('writevGeneric', 'node:internal/stream_base_commons'),
      js('onSendEnd', '/repo/node_modules/fastify/lib/reply.js'),
      js('me', '/repo/libs/server/dist/lib/accounts/me.controller.js'),
    ];
    expect(categoryOf(stack)).toBe('Node HTTP write (ServerResponse, writev)');
  });

  it("gives V8's collector its own part, whatever the code it interrupted", () => {
    const stack = [
      native('v8::internal::ScavengerCollector::CollectGarbage /usr/bin/node'),
      js('verify', '/repo/libs/auth/dist/lib/token.service.js'),
    ];
    expect(categoryOf(stack)).toBe('GC');
  });

  it('gives SHA-256 its own part when our token code calls node:crypto, and the rest to the token service', () => {
    const hash = [
      js('digest', 'node:internal/crypto/hash'),
      js('verify', '/repo/libs/auth/dist/lib/token.service.js'),
    ];
    expect(categoryOf(hash)).toBe('SHA-256 (node:crypto)');
    expect(categoryOf(hash.slice(1))).toBe('token lookup: TokenService (format, cache)');
  });
});

describe('the name of a JIT address', () => {
  const dir = mkdtempSync(join(os.tmpdir(), 'perf-map-spec-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("is the newest line of Node's perf map that covers it (V8 reuses the memory of code it dropped)", () => {
    const map = join(dir, 'perf-1.map');
    writeFileSync(
      map,
      [
        '1000 100 JS:~read node:internal/modules/package_json_reader:1:1',
        '2000 10 Builtin:Other',
        '1000 40 JS:*writevGeneric node:internal/stream_base_commons:123:22',
      ].join('\n'),
    );
    const nameOf = jitSymbols(map);
    expect(nameOf(0x1010)).toBe('JS:*writevGeneric node:internal/stream_base_commons:123:22');
    expect(nameOf(0x1050)).toBe('JS:~read node:internal/modules/package_json_reader:1:1');
    expect(nameOf(0x2005)).toBe('Builtin:Other');
    expect(nameOf(0x3000)).toBeNull();
  });
});
