// Issue 10, P9: the agent step, from a tool's result to the next model request written, measured from outside.
//
// The model stub (its own process) answers a query's first model request with a scripted call of memory_search
// (a cheap read tool, no confirmation) and its second with a short text. The stub stamps, with the machine's
// monotonic clock: `answeredAt`, when the tool-call answer was entirely handed to its socket (it is written in one
// go), and `receivedAt`, when the next request had arrived and been parsed. The client reads our SSE events and
// stamps, with the same clock, the arrival of tool_call.started and tool_call.completed.
//
//   step = (next request received − tool-call answer written) − (tool_call.completed − tool_call.started)
//
// The first term is everything between the model's answer and its next request: reading and parsing the end of
// the tool-call stream, starting the tool, the tool itself, building and writing the next request, plus two
// loopback transits and the stub's parsing. The second term, the tool's own time as our events show it, is taken
// out (both events travel the same way to the client, so their transit cancels). What is left is the agent
// loop's step plus the floor below; it slightly overstates the step, never understates it unless our server sends
// tool_call.completed late relative to the tool's end.
// Floor: the same exchange with a bare client in this process instead of our server: read the tool-call stream to
// [DONE], then at once POST the next request (with the tool result); floor = next request received − answer
// written. Target: step ≤ 1 ms; one step of each is a round (after one unmeasured), over adaptive rounds.
import http from 'node:http';
import { adaptiveRounds } from '../lib/adaptive-rounds.mjs';
import { median } from '../lib/measure.mjs';
import { stopProcess } from '../lib/processes.mjs';
import { figureRow, ms } from '../lib/report.mjs';
import { startOurServer, streamingEnv } from '../lib/server.mjs';
import { streamRequest } from '../lib/sse.mjs';
import { TERMINAL_EVENTS } from '../lib/stream-queries.mjs';

const STEP_TARGET_MS = 1;
const TOOL = 'memory_search';
const TOOL_CALL = { id: 'call_bench', name: TOOL, arguments: { query: 'benchmark notes' } };
const FINAL_ANSWER = { text: 'Nothing saved about that.' };

/** One query through our server; resolves { step, tool } in ns, or throws what went wrong. */
async function ourStep(stub, target, agent) {
  const from = await stub.requestCount();
  await stub.script({ toolCalls: [TOOL_CALL] }, FINAL_ANSWER);
  const seen = {};
  let terminal = null;
  const result = await streamRequest({
    url: `${target.baseUrl}/api/v1/queries`,
    agent,
    headers: { authorization: `Bearer ${target.token}` },
    body: { text: 'What did I note about the benchmark?', tools: [TOOL] },
    onEvent: (event, receivedAt) => {
      const data = JSON.parse(event.data);
      if (data.type === 'tool_call.started' || data.type === 'tool_call.completed')
        seen[data.type] ??= { receivedAt, data };
      if (TERMINAL_EVENTS.has(data.type)) terminal = data;
      return terminal !== null;
    },
  });
  if (result.status !== 200) throw new Error(`POST /api/v1/queries: HTTP ${result.status} ${result.body}`);
  if (terminal?.type !== 'query.completed')
    throw new Error(`the query ended with ${terminal?.type ?? 'no terminal event'}`);
  const started = seen['tool_call.started'];
  const completed = seen['tool_call.completed'];
  if (!started || !completed) throw new Error('no tool_call.started/completed events');
  if (completed.data.status !== 'ok')
    throw new Error(`${TOOL} ended ${completed.data.status}: ${JSON.stringify(completed.data.error)}`);
  return { ...(await exchangeTimes(stub, from)), tool: Number(completed.receivedAt - started.receivedAt) };
}

/** The stub's two requests from index `from`: the gap between answering the first and receiving the second. */
async function exchangeTimes(stub, from) {
  const times = await stub.times(from);
  if (times.length !== 2) throw new Error(`expected 2 model requests, the stub got ${times.length}`);
  if (times[1].lastRole !== 'tool')
    throw new Error(`the second model request ends with a ${times[1].lastRole} message`);
  return { gap: Number(times[1].receivedAt - times[0].answeredAt) };
}

/** The same exchange with a bare client: the floor of an agent step on this machine. */
async function bareStep(stub, agent) {
  const from = await stub.requestCount();
  await stub.script({ toolCalls: [TOOL_CALL] }, FINAL_ANSWER);
  const url = `${stub.url}/chat/completions`;
  const user = { role: 'user', content: 'What did I note about the benchmark?' };
  const untilDone = (event) => event.data === '[DONE]';
  await streamRequest({
    url,
    agent,
    headers: {},
    body: { model: 'fixture', messages: [user], stream: true },
    onEvent: untilDone,
  });
  const call = {
    id: TOOL_CALL.id,
    type: 'function',
    function: { name: TOOL, arguments: JSON.stringify(TOOL_CALL.arguments) },
  };
  const messages = [
    user,
    { role: 'assistant', content: null, tool_calls: [call] },
    { role: 'tool', tool_call_id: call.id, content: '{"memories":[]}' },
  ];
  await streamRequest({
    url,
    agent,
    headers: {},
    body: { model: 'fixture', messages, stream: true },
    onEvent: untilDone,
  });
  return exchangeTimes(stub, from);
}

export async function agentStep(ctx) {
  const { options, log } = ctx;
  const stub = await ctx.stub();
  const ours = await startOurServer(options.server, streamingEnv(stub.url));
  const agent = new http.Agent({ keepAlive: true });
  const failures = [];
  const tools = [];
  const figure = {
    key: 'step',
    id: 'P9',
    metric: 'agent step: tool result → next model request (floor: a bare client)',
    compare: 'value',
    target: { op: '<=', limit: STEP_TARGET_MS * 1e6 },
    targetText: `≤ ${STEP_TARGET_MS} ms`,
    show: ms,
  };
  try {
    // One unmeasured step first (warm-up).
    await ourStep(stub, ours, agent);
    await bareStep(stub, agent);
    const result = await adaptiveRounds({
      figures: [figure],
      rule: ctx.rule,
      round: async (index) => {
        try {
          const [mine, bare] = [await ourStep(stub, ours, agent), await bareStep(stub, agent)];
          tools.push(mine.tool);
          return { step: { ours: mine.gap - mine.tool, floor: bare.gap } };
        } catch (error) {
          failures.push(`step ${index + 1}: ${error.message}`);
          if (failures.length >= 3) throw new Error(`agent step: ${failures.join('; ')}`);
          return {};
        }
      },
    });
    log(
      `  agent step: ${result.rounds} steps, stopped by ${result.stoppedBy}; tool time p50 ${ms(median(tools))}`,
    );
    return {
      rows: [
        figureRow(
          { ...figure, metric: `${figure.metric}, tool ${ms(median(tools))} taken out` },
          result.figures.step,
        ),
      ],
      notes: [
        'agent step floor: a bare client reading the tool-call stream to [DONE] and posting the next request at once',
      ],
      failures,
    };
  } finally {
    agent.destroy();
    await stopProcess(ours.handle);
  }
}
