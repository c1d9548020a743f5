/**
 * Brings up every service the test suites need, as the first step of `npm test` (and so of CI): PostgreSQL,
 * Redis, the mail, calendar, WebDAV and MQTT servers the tool families are tested against, Chromium for the
 * pages, Node 24 and Verdaccio for the supported-versions checks, and kubectl to render deploy/kubernetes.
 *
 * Each service is `tools/workspace/services/<name>.sh` (idempotent: starts it on loopback, seeded, unless it
 * already runs) with, beside it, `<name>.packages`: the Debian packages it needs, one per line. Missing packages
 * are installed in one go when we are root; otherwise each service that lacks them fails. A service that cannot
 * start is one line naming it, and counts as one failed check: nothing is skipped.
 *
 * ASSISTANT_TEST_SERVICES_DIR points at another folder of services (the spec of test-all.mjs uses it).
 */
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function servicesIn(dir) {
  return readdirSync(dir)
    .filter((file) => file.endsWith('.sh'))
    .map((file) => file.slice(0, -'.sh'.length))
    .sort()
    .map((name) => {
      const list = join(dir, `${name}.packages`);
      const packages = existsSync(list)
        ? readFileSync(list, 'utf8')
            .split('\n')
            .map((line) => line.trim())
            .filter(Boolean)
        : [];
      return { name, script: join(dir, `${name}.sh`), packages };
    });
}

const installed = (pkg) => spawnSync('dpkg', ['-s', pkg], { stdio: 'ignore' }).status === 0;

/** Installs what is missing when we may; returns the packages still missing. */
function installMissing(packages) {
  const missing = [...new Set(packages)].filter((pkg) => !installed(pkg));
  if (missing.length === 0 || process.getuid?.() !== 0) return missing;
  console.log(`test services: installing ${missing.join(' ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const quiet = { stdio: ['ignore', 'ignore', 'inherit'], env };
  spawnSync('apt-get', ['update', '-qq'], quiet);
  spawnSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...missing], quiet);
  return missing.filter((pkg) => !installed(pkg));
}

/**
 * Runs one service script; returns its failure reason, or null when it started. Its stderr goes to a file, not a
 * pipe: a daemon the script starts may keep the script's stderr open for as long as it runs, and spawnSync waits
 * for a pipe to close — a fresh machine's CI hung for its whole 90 minutes on Dovecot doing exactly that.
 */
function runService(script, root, env) {
  const dir = mkdtempSync(join(tmpdir(), 'assistant-test-service-'));
  const stderrPath = join(dir, 'stderr');
  const stderr = openSync(stderrPath, 'w');
  try {
    const result = spawnSync('bash', [script], { cwd: root, env, stdio: ['ignore', 'ignore', stderr] });
    if (result.status === 0) return null;
    // The last line the script wrote to stderr: its own one-line reason.
    const lines = readFileSync(stderrPath, 'utf8').trim().split('\n').filter(Boolean);
    return lines.at(-1) ?? `exited with ${result.status ?? result.signal}`;
  } finally {
    closeSync(stderr);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Starts every service; returns the one-line failures (empty when all run). */
export function startTestServices(root, env = process.env) {
  const dir = env.ASSISTANT_TEST_SERVICES_DIR ?? join(root, 'tools/workspace/services');
  const services = servicesIn(dir);
  const stillMissing = new Set(installMissing(services.flatMap((service) => service.packages)));
  const failures = [];
  for (const service of services) {
    const missing = service.packages.filter((pkg) => stillMissing.has(pkg));
    if (missing.length > 0) {
      failures.push(
        `test services: ${service.name} cannot start: Debian packages ${missing.join(', ')} are missing (apt-get install them as root)`,
      );
      continue;
    }
    const reason = runService(service.script, root, env);
    if (reason !== null) failures.push(`test services: ${service.name} did not start: ${reason}`);
  }
  return failures;
}
