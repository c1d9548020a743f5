import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

export const WORKSPACE_ROOT = join(__dirname, '..', '..', '..', '..');

export const BUILT = {
  selfHost: join(WORKSPACE_ROOT, 'apps/self-host-server/dist/main.js'),
  hosted: join(WORKSPACE_ROOT, 'apps/hosted-api/dist/main.js'),
  hostedOps: join(WORKSPACE_ROOT, 'apps/hosted-api/dist/ops.js'),
  cli: join(WORKSPACE_ROOT, 'apps/cli/bin/run.js'),
  /** Where the CLI's bundle is, which bin/run.js loads (apps/cli/bundle/bundle.mjs builds it). */
  cliBundle: join(WORKSPACE_ROOT, 'apps/cli/dist'),
  mcp: join(WORKSPACE_ROOT, 'apps/mcp-launcher/bin/assistant-mcp.js'),
};

/** Environment for child processes: ours, minus anything the developer's shell set for Assistant. */
export function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('ASSISTANT_')) env[key] = value;
  return { ...env, ASSISTANT_LOG_LEVEL: 'warn', ...extra };
}

/**
 * The Node that runs the built servers and commands: this one, or ASSISTANT_E2E_NODE (CI runs the self-hosted suites
 * on Node 24 so, where they use Node's own SQLite: nothing of the workspace's native modules is loaded).
 */
const E2E_NODE = process.env.ASSISTANT_E2E_NODE ?? process.execPath;

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a built script to completion, with `input` on its stdin. After `timeoutMs` it is killed (code null), so
 * that a server expected to refuse to start fails its test instead of hanging the suite. `node`: another Node
 * binary to run it with (the e2e Node by default).
 */
export function run(
  script: string,
  args: string[],
  env: Record<string, string>,
  input?: string,
  timeoutMs?: number,
  node: string = E2E_NODE,
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(node, [script, ...args], {
      env: childEnv(env),
      stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    if (input !== undefined) child.stdin?.end(input);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk) => (stdout += chunk));
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    const timer = timeoutMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  output(): string;
  stop(): Promise<number | null>;
}

/**
 * Starts a built server and resolves once it prints its address ("listening on …" or "running at …").
 * Rejects with its output if it exits first.
 */
export function startServer(
  script: string,
  args: string[],
  env: Record<string, string>,
): Promise<ServerProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(E2E_NODE, [script, ...args], {
      env: childEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let settled = false;
    const exited = new Promise<number | null>((done) => child.on('close', (code) => done(code)));
    const onData = (chunk: Buffer) => {
      output += chunk;
      const match = /(?:listening on|running at) (http:\/\/[\w.:[\]]+)/.exec(output);
      if (match && !settled) {
        settled = true;
        resolve({
          url: match[1],
          child,
          output: () => output,
          stop: async () => {
            if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
            return exited;
          },
        });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    exited.then((code) => {
      if (!settled) {
        settled = true;
        reject(new Error(`server exited with ${code} before listening:\n${output}`));
      }
    });
  });
}
