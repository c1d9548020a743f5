// HTTP load with autocannon, shared by http-bench.mjs and perf-report.mjs (sections/requests.mjs).
//
// Why in the bench's process: while a run lasts the bench does nothing else, so its event loop belongs to
// autocannon; a separate process would add nothing on a 2-core machine but its start-up. Whether the load
// generator was the limit is visible in every run's figures: the bench's CPU share against the server's.
import autocannon from 'autocannon';
import { percent } from './format.mjs';
import { cpuSince, cpuSnapshot, isNoisy } from './measure.mjs';

export const formatInt = (n) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : 'n/a');

/** One autocannon run against one server, with the CPU use of the server and of this process over the run. */
export async function runLoad(server, path, token, seconds, connections) {
  const snapshot = cpuSnapshot(server.handle.child.pid);
  const result = await autocannon({
    url: `${server.baseUrl}${path}`,
    connections,
    duration: seconds,
    headers: { authorization: `Bearer ${token}` },
  });
  const cpu = cpuSince(snapshot, server.handle.child.pid);
  const failures = result.non2xx + result.errors + result.timeouts;
  return {
    rps: result.requests.average,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes: Object.entries(result.statusCodeStats)
      .map(([code, { count }]) => `${code}×${count}`)
      .join(' '),
    failed: failures > 0,
    serverCpu: cpu.server,
    benchCpu: cpu.own,
    /** Cores used by everything else on the machine meanwhile (other processes compete for the 2 cores). */
    otherCpu: cpu.others,
  };
}

export function describeRun(name, run) {
  const noisy = isNoisy(run.otherCpu) ? `, OTHER PROCESSES ${percent(run.otherCpu)}` : '';
  const cpu = `server cpu ${percent(run.serverCpu)}, bench cpu ${percent(run.benchCpu)}${noisy}`;
  const text = `${name} ${formatInt(run.rps).padStart(7)} req/s (p99 ${run.p99} ms, ${cpu})`;
  if (!run.failed) return text;
  return `${text}  FAILED: ${run.non2xx} non-2xx [${run.statusCodes}], ${run.errors} errors, ${run.timeouts} timeouts`;
}
