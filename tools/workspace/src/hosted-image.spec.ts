/**
 * The hosted API's image (apps/hosted-api/Dockerfile) runs on Node 24 unless the build says otherwise
 * (`--build-arg NODE_VERSION=22`): the newest Node the packages support, and the one `npm test` runs the
 * pack-and-install check and the self-hosted e2e suites on besides the workspace's.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';

const WORKSPACE_ROOT = path.join(__dirname, '..', '..', '..');
const dockerfile = readFileSync(path.join(WORKSPACE_ROOT, 'apps/hosted-api/Dockerfile'), 'utf8');

/** Whether a Node major (as the `node:<major>` images are) meets `^x.y.z`/`>=x.y.z` ranges joined by `||`. */
function supportsMajor(engines: string, major: number): boolean {
  return engines.split('||').some((range) => {
    const match = /^\s*(\^|>=)(\d+)\.\d+\.\d+\s*$/.exec(range);
    if (!match) throw new Error(`unexpected engines range: ${range}`);
    return match[1] === '^' ? Number(match[2]) === major : major >= Number(match[2]);
  });
}

it('builds and runs on Node 24 by default, in every stage, a Node the packages support', () => {
  const defaultVersion = /^ARG NODE_VERSION=(\S+)$/m.exec(dockerfile)?.[1];
  expect(defaultVersion).toBe('24');
  const stages = [...dockerfile.matchAll(/^FROM (\S+)/gm)].map((match) => match[1]);
  expect(stages.length).toBeGreaterThanOrEqual(2);
  expect(stages.filter((image) => image !== 'node:${NODE_VERSION}-bookworm-slim')).toEqual([]);
  const engines = (
    JSON.parse(readFileSync(path.join(WORKSPACE_ROOT, 'package.json'), 'utf8')) as {
      engines: { node: string };
    }
  ).engines.node;
  expect(supportsMajor(engines, Number(defaultVersion))).toBe(true);
});
