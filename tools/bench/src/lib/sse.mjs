// Reading Server-Sent Events with receive times, shared by every bench that streams (stream-bench.mjs,
// perf-report.mjs): the model stub directly, the bare relay and our query stream are all read by this one
// parser, so that their per-token times are taken the same way (the hrtime of the socket read that completed
// each event).
import http from 'node:http';

/** How long one streamed request may take before the bench gives up on it. */
export const QUERY_TIMEOUT_MS = 120_000;

/**
 * Incremental SSE parser (text/event-stream): events end at a blank line; `data:` lines are joined with "\n";
 * comments (": ping") are skipped. `onEvent(event, receivedAt)` gets { event, data, id } with the hrtime of the
 * socket read that completed it.
 */
export function sseParser(onEvent) {
  let buffer = '';
  let event = { event: 'message', data: [], id: undefined };
  return (text, receivedAt) => {
    buffer += text;
    let newline;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      let line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      if (line.endsWith('\r')) line = line.slice(0, -1);
      if (line === '') {
        if (event.data.length > 0) onEvent({ ...event, data: event.data.join('\n') }, receivedAt);
        event = { event: 'message', data: [], id: undefined };
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      if (field === 'data') event.data.push(value);
      else if (field === 'event') event.event = value;
      else if (field === 'id') event.id = value;
    }
  };
}

/**
 * Sends one streamed POST and feeds the response to `onEvent`. `onEvent` returns true once the stream is
 * logically complete. Resolves { status, startedAt, endedAt, body? (on a non-200 answer) }.
 */
export function streamRequest({ url, agent, headers, body, onEvent, signalStarted }) {
  return new Promise((resolveRequest, reject) => {
    const target = new URL(url);
    const payload = Buffer.from(JSON.stringify(body));
    const request = http.request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname + target.search,
        method: body === undefined ? 'GET' : 'POST',
        agent,
        headers: {
          accept: 'text/event-stream',
          ...(body === undefined
            ? {}
            : { 'content-type': 'application/json', 'content-length': payload.length }),
          ...headers,
        },
      },
      (response) => {
        response.setEncoding('utf8');
        if (response.statusCode !== 200) {
          let text = '';
          response.on('data', (chunk) => (text += chunk));
          response.on('end', () => resolveRequest({ status: response.statusCode, startedAt, body: text }));
          return;
        }
        let done = false;
        const feed = sseParser((event, receivedAt) => {
          if (!done && onEvent(event, receivedAt)) done = true;
        });
        response.on('data', (chunk) => feed(chunk, process.hrtime.bigint()));
        response.on('end', () =>
          resolveRequest({ status: 200, startedAt, endedAt: process.hrtime.bigint(), complete: done }),
        );
        response.on('error', reject);
      },
    );
    request.setTimeout(QUERY_TIMEOUT_MS, () => request.destroy(new Error('timed out')));
    request.on('error', reject);
    const startedAt = process.hrtime.bigint();
    signalStarted?.(startedAt);
    request.end(body === undefined ? undefined : payload);
  });
}
