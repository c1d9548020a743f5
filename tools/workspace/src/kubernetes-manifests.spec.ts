/**
 * deploy/kubernetes as an operator applies it: every overlay rendered by `kubectl kustomize` (the real kustomize,
 * offline), each object checked against the Kubernetes schemas, and the whole against what the hosted API needs
 * (kubernetes/deployment-rules.ts). The last part breaks a rendered overlay on purpose, one way at a time, and
 * expects the checks to say so.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { parse } from 'yaml';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IJob } from 'kubernetes-models/batch/v1/Job';
import type { IIngress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { IContainer } from 'kubernetes-models/v1/Container';
import { DEPLOYMENT_RULES, manifestsOf, ruleProblems } from './kubernetes/deployment-rules';
import {
  KUBERNETES_DIR,
  overlayNames,
  render,
  WORKSPACE_ROOT,
  type KubernetesObject,
} from './kubernetes/render';
import { schemaProblems, unknownFieldProblems } from './kubernetes/schemas';

const OVERLAYS = overlayNames();
const rendered = new Map<string, KubernetesObject[]>();
function objectsOf(overlay: string): KubernetesObject[] {
  let objects = rendered.get(overlay);
  if (!objects) {
    objects = render(path.join(KUBERNETES_DIR, 'overlays', overlay));
    rendered.set(overlay, objects);
  }
  return objects;
}

it('has overlays to apply', () => {
  expect(OVERLAYS).toEqual(expect.arrayContaining(['production']));
});

describe.each(OVERLAYS)('overlay %s', (overlay) => {
  it('renders with kubectl kustomize', () => {
    const kinds = objectsOf(overlay).map((object) => object.kind);
    expect(kinds).toEqual(expect.arrayContaining(['Deployment', 'Job', 'Service', 'PodDisruptionBudget']));
  });

  it('is valid against the Kubernetes schemas', () => {
    expect(schemaProblems(objectsOf(overlay))).toEqual([]);
  });

  it('has no field the Kubernetes API does not know', () => {
    expect(unknownFieldProblems(objectsOf(overlay))).toEqual([]);
  });

  it.each(DEPLOYMENT_RULES.map((rule) => [rule.rule, rule] as const))('%s', (_, rule) => {
    expect(rule.problems(manifestsOf(objectsOf(overlay)))).toEqual([]);
  });
});

it('every optional component is used by an overlay, so that it is rendered and checked', () => {
  const used = new Set(
    OVERLAYS.flatMap((overlay) => {
      const folder = path.join(KUBERNETES_DIR, 'overlays', overlay);
      const kustomization = parse(readFileSync(path.join(folder, 'kustomization.yaml'), 'utf8')) as {
        components?: string[];
      };
      return (kustomization.components ?? []).map((component) => path.resolve(folder, component));
    }),
  );
  for (const component of ['ingress', 'service-monitor']) {
    expect(used).toContain(path.join(KUBERNETES_DIR, 'components', component));
  }
});

it('docs/operations.md creates the Secret with every key the pods require, and the README links it', () => {
  const operations = readFileSync(path.join(WORKSPACE_ROOT, 'docs/operations.md'), 'utf8');
  const section = operations.split(/^## Kubernetes$/m)[1]?.split(/^## /m)[0] ?? '';
  const required = new Set(
    OVERLAYS.flatMap((overlay) =>
      manifestsOf(objectsOf(overlay)).deployments.flatMap((deployment) =>
        [
          ...(deployment.spec?.template.spec?.containers ?? []),
          ...(deployment.spec?.template.spec?.initContainers ?? []),
        ]
          .flatMap((container) => container.env ?? [])
          .map((variable) => variable.valueFrom?.secretKeyRef)
          .filter((ref) => ref && ref.optional !== true)
          .map((ref) => `${ref?.name}: ${ref?.key}`),
      ),
    ),
  );
  expect(required.size).toBeGreaterThanOrEqual(3);
  for (const entry of required) {
    const [name, key] = entry.split(': ');
    expect(section).toContain(`kubectl -n assistant create secret generic ${name}`);
    expect(section).toContain(`--from-literal=${key}=`);
  }
  expect(readFileSync(path.join(WORKSPACE_ROOT, 'README.md'), 'utf8')).toContain(
    '(docs/operations.md#kubernetes)',
  );
});

describe('the checks find a broken overlay', () => {
  const deployment = (objects: KubernetesObject[]) =>
    objects.find((object) => object.kind === 'Deployment') as unknown as IDeployment;
  const api = (objects: KubernetesObject[]) =>
    deployment(objects).spec?.template.spec?.containers.find(
      (container) => container.name === 'api',
    ) as IContainer;
  const waitForSchema = (objects: KubernetesObject[]) =>
    deployment(objects).spec?.template.spec?.initContainers?.[0] as IContainer;
  const job = (objects: KubernetesObject[]) =>
    objects.find((object) => object.kind === 'Job') as unknown as IJob;
  const configMap = (objects: KubernetesObject[]) =>
    objects.find((object) => object.kind === 'ConfigMap') as unknown as IConfigMap;
  const ingress = (objects: KubernetesObject[]) =>
    objects.find((object) => object.kind === 'Ingress') as unknown as IIngress;
  const broken = (change: (objects: KubernetesObject[]) => void): KubernetesObject[] => {
    const objects = structuredClone(objectsOf('production'));
    change(objects);
    return objects;
  };

  it('finds nothing in the overlay as it is', () => {
    expect(ruleProblems(objectsOf('production'))).toEqual([]);
  });

  it.each<[string, (objects: KubernetesObject[]) => void, string]>([
    ['no readiness probe', (o) => delete api(o).readinessProbe, 'the api container has no readinessProbe'],
    [
      'readiness on /healthz',
      (o) => ((api(o).readinessProbe ?? {}).httpGet = { path: '/healthz', port: 'http' }),
      'readinessProbe is not an HTTP GET of /readyz',
    ],
    [
      'liveness on the metrics port',
      (o) => ((api(o).livenessProbe ?? {}).httpGet = { path: '/healthz', port: 'metrics' }),
      'livenessProbe probes port 9464, the API listens on 8080',
    ],
    [
      'the database URL inline',
      (o) =>
        (api(o).env ?? []).splice(0, 1, {
          name: 'ASSISTANT_DATABASE_URL',
          value: 'postgres://app:pw@db/app',
        }),
      'ASSISTANT_DATABASE_URL is set inline or from a ConfigMap, not from a Secret',
    ],
    [
      'the Redis URL in the ConfigMap',
      (o) => ((configMap(o).data ?? {})['ASSISTANT_REDIS_URL'] = 'redis://:pw@redis:6379'),
      'ASSISTANT_REDIS_URL is set inline or from a ConfigMap, not from a Secret',
    ],
    [
      'a Secret object',
      (o) =>
        o.push({
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: 'assistant-secrets', namespace: 'assistant' },
        }),
      'secrets come from existing Secret objects',
    ],
    [
      'a misspelt setting',
      (o) => ((configMap(o).data ?? {})['ASSISTANT_METRIC_PORT'] = '9464'),
      'ASSISTANT_METRIC_PORT is no setting of the server',
    ],
    [
      'every pod migrating',
      (o) => (waitForSchema(o).command = ['node', 'apps/hosted-api/dist/ops.js', 'migrate']),
      'runs migrate in every pod',
    ],
    [
      'migrations in parallel',
      (o) => ((job(o).spec ?? { template: {} }).parallelism = 2),
      'parallelism is not 1',
    ],
    [
      'the Job on another image',
      (o) => ((job(o).spec?.template.spec?.containers[0] as IContainer).image = 'assistant-hosted:old'),
      'run different images',
    ],
    [
      'no memory limit',
      (o) => delete api(o).resources?.limits,
      'resources lack requests.cpu, requests.memory or limits.memory',
    ],
    [
      'a writable root filesystem',
      (o) => ((api(o).securityContext ?? {}).readOnlyRootFilesystem = false),
      'the root filesystem is not read-only',
    ],
    [
      'service links',
      (o) => delete deployment(o).spec?.template.spec?.enableServiceLinks,
      'enableServiceLinks is not false',
    ],
    [
      'a grace period shorter than the drain',
      (o) => ((deployment(o).spec?.template.spec ?? { containers: [] }).terminationGracePeriodSeconds = 30),
      'terminationGracePeriodSeconds 30 is not more than preStop + ASSISTANT_SHUTDOWN_GRACE_SECONDS (30)',
    ],
    [
      'buffered streams',
      (o) => delete ingress(o).metadata?.annotations?.['nginx.ingress.kubernetes.io/proxy-buffering'],
      'proxy-buffering is not off',
    ],
    [
      'a one-minute read timeout',
      (o) =>
        ((ingress(o).metadata?.annotations ?? {})['nginx.ingress.kubernetes.io/proxy-read-timeout'] = '60'),
      'proxy-read-timeout is under 3600 s',
    ],
    [
      'the Ingress to the metrics port',
      (o) => {
        const backend = ingress(o).spec?.rules?.[0]?.http?.paths[0]?.backend;
        if (backend?.service) backend.service.port = { name: 'metrics' };
      },
      "a path goes elsewhere than the Service's http port",
    ],
    [
      'an Ingress host that is not the public URL',
      (o) =>
        ((ingress(o).spec?.rules ?? [])[0] = { ...ingress(o).spec?.rules?.[0], host: 'other.example.com' }),
      'host other.example.com is not the host of ASSISTANT_PUBLIC_URL',
    ],
  ])('%s', (_, change, problem) => {
    expect(ruleProblems(broken(change))).toContainEqual(expect.stringContaining(problem));
  });

  it('a field of the wrong type breaks the schema', () => {
    const objects = broken((o) => Object.assign(deployment(o).spec ?? {}, { replicas: 'three' }));
    expect(schemaProblems(objects)).toEqual(['Deployment/assistant: data/spec/replicas must be integer']);
  });

  it('a misspelt field is unknown to the Kubernetes types', () => {
    const objects = broken((o) => {
      const container = api(o) as IContainer & { readinessprobe?: unknown };
      container.readinessprobe = container.readinessProbe;
      delete container.readinessProbe;
    });
    expect(unknownFieldProblems(objects)).toEqual([
      expect.stringMatching(
        /^Deployment\/assistant: .*'"readinessprobe"' does not exist in type 'IContainer'/,
      ),
    ]);
  });
});
