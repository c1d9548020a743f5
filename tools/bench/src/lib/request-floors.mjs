// The request floors (floors/request-floor.mjs) as the perf report and its specs start and check them.
//
// Why here: a floor only measures what ours does if it answers what ours answers. The report checks that before any
// load (a floor that answers differently is a bench failure), and the bench's spec checks it against a real server
// of ours, by this one comparison.
import { isDeepStrictEqual } from 'node:util';
import { floorScript } from './floors.mjs';
import { freePort, spawnNode, waitForOutput } from './processes.mjs';

/** The rate-limit headers every answer of ours carries, and so every floor's. */
export const RATE_LIMIT_HEADERS = [
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-used',
  'x-ratelimit-reset',
  'x-ratelimit-resource',
];

/**
 * Starts a request floor in its own process: `kind` 'sqlite-memory' (our server's users and tokens copied into an
 * in-memory database), 'sqlite' (our server's file) or 'postgres' (our server's schema, `location` its URL).
 * Resolves { handle, baseUrl, kind }.
 */
export async function startRequestFloor(kind, location, deployment = 'self-hosted') {
  const port = await freePort();
  const args = [String(port), kind, location, deployment];
  const handle = spawnNode(`request floor (${kind})`, floorScript('request-floor.mjs'), args, process.env);
  await waitForOutput(handle, /floor listening on/, 'its address').catch((error) => {
    throw new Error(`${error.message}\n${handle.output.slice(-20).join('\n')}`);
  });
  return { handle, baseUrl: `http://127.0.0.1:${port}`, kind };
}

async function getJson(baseUrl, path, token) {
  const response = await fetch(`${baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
  const text = await response.text();
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  const headers = RATE_LIMIT_HEADERS.filter((name) => response.headers.has(name));
  return { status: response.status, body, headers };
}

/**
 * How the floor's answer to GET `path` with `token` differs from ours: the status, the JSON (deeply equal) and the
 * rate-limit headers present; an empty list when they answer the same.
 */
export async function differencesFromOurs(ours, floor, path, token) {
  const [a, b] = await Promise.all([getJson(ours.baseUrl, path, token), getJson(floor.baseUrl, path, token)]);
  const problems = [];
  if (a.status !== 200 || b.status !== 200) problems.push(`${path}: ours ${a.status}, floor ${b.status}`);
  else if (!isDeepStrictEqual(a.body, b.body))
    problems.push(
      `${path}: the ${floor.kind} floor's JSON differs from ours:\n  ours  ${JSON.stringify(a.body)}\n  floor ${JSON.stringify(b.body)}`,
    );
  if (!isDeepStrictEqual(a.headers, b.headers))
    problems.push(`${path}: rate-limit headers: ours ${a.headers.join(', ')}; floor ${b.headers.join(', ')}`);
  return problems;
}
