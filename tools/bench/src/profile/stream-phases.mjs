// Where a streaming server's main thread spends its time, from a V8 CPU profile (`node --cpu-prof`): the phases
// of a streamed query that every server under stream-profile.mjs has — ours, the bare relay and the essential-work
// floor — told apart by the functions of Node and undici they all run, not by our own code's names, so that the
// three are read the same way.
//
// A sample goes to the first phase of PHASES whose test matches its stack (frames outermost first):
//   - GC and socket writes, wherever they happen (a write leaves on the tick after the frames were written, from
//     Node's cork: its stack starts at `connectionCorkNT`);
//   - SQLite commits (the question, the answer, a query's events), wherever they are called from;
//   - the model's stream: everything undici's socket reader runs — the chunk parsed, the event made, logged and
//     framed for each reader (the relay: re-framed);
//   - the client's HTTP request: everything Node's HTTP parser runs for it (Fastify, Nest, authentication, and
//     what the handler does before its first wait);
//   - promise continuations: what a query does between its waits (context reads, the run, the model call, the
//     end) — the rest of its start and its end;
//   - timers and immediates (the write-behind's timer, pings);
//   - the rest (V8's `(program)`, Node's own).
// `(idle)` samples are the event loop waiting: not counted.

/** A frame of a V8 CPU profile: `functionName` and `url` of its callFrame. */
const named =
  (...names) =>
  (frame) =>
    names.includes(frame.callFrame.functionName);
const inScript = (pattern) => (frame) => pattern.test(frame.callFrame.url);
const any =
  (...tests) =>
  (frame) =>
    tests.some((test) => test(frame));

export const PHASES = [
  ['GC (main thread)', named('(garbage collector)')],
  ['socket writes (writev)', named('writev', 'writevGeneric', 'writeGeneric', 'connectionCorkNT')],
  [
    'SQLite commits (question, answer, events)',
    any(
      named('writeTogether', 'sqliteTransaction'),
      inScript(/better-sqlite3[^/]*\/lib\/methods\/transaction/),
    ),
  ],
  ["the model's stream: chunk → event → frames", named('onHttpSocketReadable')],
  ["the client's request (HTTP parser → handler)", named('parserOnHeadersComplete', 'parserOnBody')],
  ['promise continuations (rest of start and end)', named('runMicrotasks', 'processTicksAndRejections')],
  ['timers and immediates', named('processTimers', 'processImmediate')],
];
export const OTHER_PHASE = 'other (V8, Node)';

/**
 * Samples of `profile` by phase, counting only those taken within [fromUs, toUs] (V8's timestamps: the
 * monotonic clock in µs, the same as `process.hrtime.bigint() / 1000n` in any process of the machine), and the
 * self samples of each phase by function (`name url:line`), for a drill-down. Returns { total, byPhase: Map,
 * byFunction: Map of phase → Map }.
 */
export function phaseShares(profile, fromUs = -Infinity, toUs = Infinity) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node);
  const phaseOfNode = new Map();
  /** The phase of the stack ending at `node`: the first of PHASES that a frame of it matches. */
  const phaseOf = (node) => {
    if (phaseOfNode.has(node.id)) return phaseOfNode.get(node.id);
    const stack = [];
    for (let frame = node; frame; frame = parentOf.get(frame.id)) stack.push(frame);
    const phase = PHASES.find(([, test]) => stack.some(test))?.[0] ?? OTHER_PHASE;
    phaseOfNode.set(node.id, phase);
    return phase;
  };
  const byPhase = new Map();
  const byFunction = new Map();
  let total = 0;
  let at = profile.startTime;
  for (const [i, id] of profile.samples.entries()) {
    at += profile.timeDeltas[i] ?? 0;
    if (at < fromUs || at > toUs) continue;
    const node = byId.get(id);
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)') continue;
    total += 1;
    const phase = phaseOf(node);
    byPhase.set(phase, (byPhase.get(phase) ?? 0) + 1);
    const key = `${functionName || '(anonymous)'} ${url.replace(/^.*\/(node_modules|libs|apps|tools)\//, '$1/')}:${lineNumber + 1}`;
    if (!byFunction.has(phase)) byFunction.set(phase, new Map());
    const functions = byFunction.get(phase);
    functions.set(key, (functions.get(key) ?? 0) + 1);
  }
  return { total, byPhase, byFunction };
}
