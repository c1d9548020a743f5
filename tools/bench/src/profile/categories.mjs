// What part of the request path a stack frame belongs to, for request-profile.mjs: one table of rules, used for the
// samples of `perf record` (native, kernel and JavaScript frames) and of V8's own profiler (JavaScript frames).
//
// A sample goes to the innermost frame of its stack that a rule names: `JSON.stringify` called by Fastify's reply
// is serialization, the kernel's writev under Node's stream code is Node's HTTP write, node:crypto's hash called by
// our token code is SHA-256. Frames no rule names (V8's builtins, libuv, the kernel) count for their caller.

/** A frame: `name` (function or symbol), `file` (script URL or path; '' for native code), `native`. */
const js = (pattern) => (frame) => !frame.native && pattern.test(frame.file);
const symbol = (pattern) => (frame) => frame.native && pattern.test(frame.name);
const any =
  (...tests) =>
  (frame) =>
    tests.some((test) => test(frame));

/** Categories a whole stack belongs to whatever its innermost frame (V8's own work). */
export const STACK_RULES = [
  [
    'GC',
    symbol(
      /v8::internal::(Heap::|Scavenger|ScavengeJob|MarkCompact|MinorMarkSweep|MinorMC|ConcurrentMarking|MarkingVisitor|IncrementalMarking|GCTracer|ArrayBufferSweeper|Sweeper|heap::)/,
    ),
  ],
  [
    'V8 JIT compile',
    symbol(
      /v8::internal::(compiler::|maglev::|Maglev|Turbofan|OptimizingCompileDispatcher|Compiler::|BaselineBatchCompiler|baseline::|Parser::|PreParser|Zone::)/,
    ),
  ],
];

/** Frame rules, most specific first. */
export const FRAME_RULES = [
  [
    'serialization (JSON.stringify)',
    any(symbol(/JsonStringif/), (f) => !f.native && f.name === 'stringify' && f.file === ''),
  ],
  [
    'SHA-256 (node:crypto)',
    any(js(/^node:internal\/crypto\//), symbol(/sha256|SHA256|EVP_|node::crypto::Hash/)),
  ],
  ['SQLite (better-sqlite3)', any(symbol(/sqlite3|better_sqlite3|Statement::JS_/), js(/better-sqlite3/))],
  ['storage: Sql, rows', js(/libs\/storage\/dist/)],
  ['token lookup: TokenService (format, cache)', js(/libs\/auth\/dist\/lib\/(token\.service|token-format)/)],
  [
    'bearer authentication, once (passport before)',
    any(
      js(/node_modules\/(passport|passport-http-bearer|passport-strategy|@nestjs\/passport)\//),
      js(/libs\/auth\/dist\/lib\/(bearer-authentication|bearer\.strategy)/),
    ),
  ],
  [
    'Nest guard (AccessGuard)',
    any(js(/libs\/auth\/dist\/lib\/access\.guard/), js(/@nestjs\/core\/guards\//)),
  ],
  [
    'Nest param decorators',
    any(
      js(/libs\/auth\/dist\/lib\/(current-principal|scopes\.decorator)/),
      js(/@nestjs\/core\/router\/route-params-factory|create-route-param-metadata/),
    ),
  ],
  [
    'Nest pipes',
    any(
      js(/@nestjs\/core\/pipes\//),
      js(/libs\/server-kit\/dist\/lib\/(routing\/path-params|http\/zod-validation)/),
    ),
  ],
  ['Nest interceptors', js(/@nestjs\/core\/interceptors\//)],
  ['Nest exception filters', js(/@nestjs\/core\/exceptions\/|problem\.filter/)],
  ['rxjs', js(/node_modules\/rxjs\//)],
  ['handler: AccountService, /me', js(/libs\/server\/dist\/lib\/accounts\//)],
  ['rate limit (hook, store)', js(/libs\/server\/dist\/lib\/rate-limit\//)],
  ['onRequest hook (create-http-app)', js(/libs\/server\/dist\/lib\/bootstrap\//)],
  ['metrics hook', js(/libs\/server\/dist\/lib\/metrics\//)],
  [
    'request id, headers, request log hook',
    js(
      /libs\/server-kit\/dist\/lib\/http\/(logging|request-id|response-headers|http-timeouts|event-stream-routes)/,
    ),
  ],
  ['tracing hook', js(/libs\/server-kit\/dist\/lib\/tracing\//)],
  ['web app credentials hook (CSRF)', js(/libs\/web\/dist\//)],
  ['web sessions onSend hook', js(/libs\/server-kit\/dist\/lib\/sessions\//)],
  ['OAuth hooks', js(/libs\/oauth\/dist\//)],
  ['other of ours', js(/(libs|apps)\/[^/]+\/dist\//)],
  ['Nest router (proxy, execution context)', js(/@nestjs\/core\/(router|helpers)\//)],
  ['Nest FastifyAdapter', js(/@nestjs\/platform-fastify\//)],
  ['other Nest', js(/@nestjs\//)],
  ['Fastify routing (find-my-way)', js(/find-my-way/)],
  ['Fastify reply', js(/node_modules\/fastify\/lib\/(reply|error-serializer|schemas|wrap-thenable)/)],
  ['Fastify hooks', js(/node_modules\/fastify\/lib\/hooks/)],
  [
    'Fastify request, routing, logger',
    js(/node_modules\/(fastify|pino|abstract-logging|@fastify|avvio|toad-cache)/),
  ],
  ['the floor itself', js(/floors\//)],
  [
    'Node HTTP parse (llhttp, IncomingMessage)',
    any(
      symbol(/llhttp|node::.*Parser::/),
      js(/^node:(_http_incoming|_http_common)/),
      (f) => /^node:_http_server/.test(f.file) && /parserOn|IncomingMessage|onParser/.test(f.name),
    ),
  ],
  [
    'Node HTTP write (ServerResponse, writev)',
    js(/^node:(_http_outgoing|_http_server|internal\/stream_base_commons|internal\/streams|net|stream)/),
  ],
  ['Node other', js(/^node:/)],
  ['other node_modules', js(/node_modules/)],
];

/** What no frame rule names: the event loop waiting on and reading sockets (libuv, the kernel), or else other. */
export const EVENT_LOOP = 'event loop, socket read (libuv, kernel)';
const EVENT_LOOP_FRAME = symbol(/^uv_|^uv__|epoll/);

/** The category of a stack, its frames innermost first. */
export function categoryOf(frames) {
  for (const [name, test] of STACK_RULES) if (frames.some(test)) return name;
  for (const frame of frames) for (const [name, test] of FRAME_RULES) if (test(frame)) return name;
  return frames.some(EVENT_LOOP_FRAME) ? EVENT_LOOP : 'other (native, kernel)';
}
