// CPU and memory figures from /proc, and the statistics, shared by http-bench.mjs and stream-bench.mjs.
//
// Why one module: both benches judge their ratios by the same rules. A run is only trustworthy when the server,
// the bench itself and the rest of the machine are accounted for, so both read CPU use the same way, flag a
// run as noisy at the same threshold, and interleave their paths the same way. Where /proc is missing (not
// Linux), every reading is null and the benches print "n/a" or "-" instead of a figure.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** Above this share of a core used by other processes during a run, the run is flagged as noisy. */
export const NOISY_OTHER_CPU = 0.2;

const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** User + system CPU seconds of a `/proc/.../stat` file (a process's, or one of its threads'). */
function statCpuSeconds(path) {
  const stat = readFileSync(path, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/** CPU seconds (user + system, all threads) a process has used so far, or null where /proc is missing. */
export function processCpuSeconds(pid) {
  try {
    return statCpuSeconds(`/proc/${pid}/stat`);
  } catch {
    return null;
  }
}

/**
 * CPU seconds a process has used so far on its main thread (the event loop: its tid is its pid) and on all its
 * other threads together (V8's GC helpers and compilers, libuv's pool), or null where /proc is missing.
 */
export function threadCpuSeconds(pid) {
  try {
    const seconds = { main: 0, others: 0 };
    for (const tid of readdirSync(`/proc/${pid}/task`))
      seconds[tid === String(pid) ? 'main' : 'others'] += statCpuSeconds(`/proc/${pid}/task/${tid}/stat`);
    return seconds;
  } catch {
    return null;
  }
}

/** Busy CPU seconds of the whole machine so far (all cores), or null where /proc is missing. */
export function machineBusySeconds() {
  try {
    const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).map(Number);
    const [user, nice, system, _idle, _iowait, irq, softirq, steal] = ticks;
    return (user + nice + system + irq + softirq + steal) / CLOCK_TICKS;
  } catch {
    return null;
  }
}

/** Resident set size of a process in bytes (VmRSS of /proc/<pid>/status), or null where /proc is missing. */
export function rssBytes(pid) {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** The start of a CPU measurement of the server `serverPid`, this process and the machine; see cpuSince. */
export function cpuSnapshot(serverPid) {
  return {
    wall: process.hrtime.bigint(),
    server: processCpuSeconds(serverPid),
    own: process.cpuUsage(),
    machine: machineBusySeconds(),
  };
}

/**
 * CPU use in cores since `snapshot`: { server, own (this process: the load generator), others (everything else
 * on the machine, which competes for the same cores) }; server and others are null where /proc is missing.
 */
export function cpuSince(snapshot, serverPid) {
  const wall = Number(process.hrtime.bigint() - snapshot.wall) / 1e9;
  const server = processCpuSeconds(serverPid);
  const ownUsage = process.cpuUsage(snapshot.own);
  const machine = machineBusySeconds();
  const serverCores = server === null || snapshot.server === null ? null : (server - snapshot.server) / wall;
  const ownCores = (ownUsage.user + ownUsage.system) / 1e6 / wall;
  const others =
    machine === null || snapshot.machine === null || serverCores === null
      ? null
      : Math.max(0, (machine - snapshot.machine) / wall - serverCores - ownCores);
  return { server: serverCores, own: ownCores, others };
}

/** Whether other processes used more than NOISY_OTHER_CPU of a core (null: unknown, not noisy). */
export const isNoisy = (others) => others !== null && others > NOISY_OTHER_CPU;

/**
 * The two things compared, in the order of round `round`: even rounds run `first` first, odd rounds `second`,
 * so that neither always gets the warmer (or the noisier) slot.
 */
export const interleaved = (round, first, second) => (round % 2 === 0 ? [first, second] : [second, first]);

/** `list` rotated by `round` (round 0: as given), so that with more than two paths each takes every slot in turn. */
export const rotated = (round, list) => [
  ...list.slice(round % list.length),
  ...list.slice(0, round % list.length),
];

// ------------------------------------------------------------------------------------------------ statistics

/** Median (mean of the two middle values of an even count); NaN for an empty list. */
export function median(values) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Nearest-rank percentile of a list of numbers (always one of the values); null for an empty list. */
export function percentile(values, p) {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}
