// `perf record` around a loaded run of a server, and its samples by category (categories.mjs). Node writes the
// names of its compiled JavaScript to /tmp/perf-<pid>.map when started with --perf-basic-prof, which the server is.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { categoryOf } from './categories.mjs';

/** Whether `perf` can sample here (installed, and allowed to). */
export function perfAvailable() {
  const probe = spawnSync('perf', ['record', '-q', '-o', '/dev/null', '--', 'true'], { encoding: 'utf8' });
  return probe.status === 0;
}

/** Starts sampling every thread of `pid` (with call stacks); `stop()` ends it and resolves once the file is written. */
export function startPerf(pid, file, frequency = 4000) {
  const child = spawn(
    'perf',
    ['record', '-q', '-F', String(frequency), '-g', '-p', String(pid), '-o', file],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let errors = '';
  child.stderr.on('data', (chunk) => (errors += chunk));
  const exited = new Promise((resolveExit) => child.once('exit', resolveExit));
  return {
    async stop() {
      child.kill('SIGINT');
      const code = await exited;
      if (code !== 0 && code !== null) throw new Error(`perf record failed (${code}): ${errors}`);
    },
  };
}

/** One line of `perf script`'s call stacks: "\t<address> <symbol>+<offset> (<dso>)". */
const FRAME_LINE = /^\s*([0-9a-f]+) (.*?)(?:\+0x[0-9a-f]+)? \((.*)\)$/;

/**
 * The name of the code at an address, from Node's perf map: V8 reuses the memory of code it dropped, and perf
 * may name an address after the first function that was there (a start-up module's, for a request's code); the
 * newest line of the map that covers the address is the code that ran.
 */
export function jitSymbols(mapFile) {
  const lines = readFileSync(mapFile, 'utf8').split('\n');
  const starts = [];
  const ends = [];
  const names = [];
  for (const line of lines) {
    const match = /^([0-9a-f]+) ([0-9a-f]+) (.*)$/.exec(line);
    if (!match) continue;
    const start = parseInt(match[1], 16);
    starts.push(start);
    ends.push(start + parseInt(match[2], 16));
    names.push(match[3]);
  }
  const cache = new Map();
  return (address) => {
    if (cache.has(address)) return cache.get(address);
    let name = null;
    for (let i = names.length - 1; i >= 0; i--)
      if (starts[i] <= address && address < ends[i]) {
        name = names[i];
        break;
      }
    cache.set(address, name);
    return name;
  };
}

function frameOf(symbol, dso) {
  if (dso.startsWith('/tmp/perf-') && symbol.startsWith('JS:')) {
    // "JS:*name /path/file.js:12:3", "JS:^ node:_http_common:71:33" (no name): the tier mark, the name, the place.
    const text = symbol.slice(3).replace(/^[*^~+-]/, '');
    const at = text.lastIndexOf(' ');
    const place = at < 0 ? text : text.slice(at + 1);
    return {
      native: false,
      name: at < 0 ? '' : text.slice(0, at),
      file: place.replace(/:\d+:\d+$/, '').replace(/^file:\/\//, ''),
    };
  }
  return { native: true, name: `${symbol} ${dso}`, file: '' };
}

/** The call stacks of a `perf record` file, one array of frames per sample, innermost first. */
export function perfStacks(file) {
  const script = spawnSync('perf', ['script', '-i', file, '-F', 'tid,ip,sym,dso'], {
    encoding: 'utf8',
    maxBuffer: 1 << 30,
  });
  if (script.status !== 0) throw new Error(`perf script failed: ${script.stderr}`);
  const symbolsByMap = new Map();
  const jitSymbol = (dso, address) => {
    if (!symbolsByMap.has(dso)) symbolsByMap.set(dso, existsSync(dso) ? jitSymbols(dso) : () => null);
    return symbolsByMap.get(dso)(address);
  };
  const stacks = [];
  let frames = [];
  for (const line of script.stdout.split('\n')) {
    const match = FRAME_LINE.exec(line);
    if (match) {
      const [, address, symbol, dso] = match;
      const named = dso.startsWith('/tmp/perf-') ? (jitSymbol(dso, parseInt(address, 16)) ?? symbol) : symbol;
      frames.push(frameOf(named, dso));
    } else if (frames.length > 0) {
      stacks.push(frames);
      frames = [];
    }
  }
  if (frames.length > 0) stacks.push(frames);
  return stacks;
}

/** Samples of a `perf record` file: { total, byCategory: Map, byFunction: Map (innermost JS or native symbol) }. */
export function perfCategories(file) {
  const byCategory = new Map();
  const byFunction = new Map();
  const stacks = perfStacks(file);
  for (const frames of stacks) {
    const category = categoryOf(frames);
    byCategory.set(category, (byCategory.get(category) ?? 0) + 1);
    const leaf = frames.find((f) => !f.native) ?? frames[0];
    const place = leaf.file.replace(/^.*node_modules\//, '').replace(/^.*\/(libs|apps|tools)\//, '$1/');
    const key = `${category} | ${leaf.name || '(anonymous)'} ${place}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + 1);
  }
  return { total: stacks.length, byCategory, byFunction };
}
