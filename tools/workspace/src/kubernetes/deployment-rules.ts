/**
 * What the hosted API needs from its Kubernetes objects, beyond what the Kubernetes schemas can say: each rule
 * reads the objects one overlay renders and names what breaks it, one line per problem. The facts they hold the
 * manifests to live where they are declared: the entry of the operator commands in apps/hosted-api/package.json,
 * the settings in the README's configuration table (generated from libs/server-kit/src/lib/config/settings.ts), the
 * routes `/healthz` and `/readyz` in the contract (`getHealth`, `getReadiness`).
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { ENDPOINTS } from '@assistant/contracts';
import type { IServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IJob } from 'kubernetes-models/batch/v1/Job';
import type { IIngress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import type { IPodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IPodSpec } from 'kubernetes-models/v1/PodSpec';
import type { IService } from 'kubernetes-models/v1/Service';
import { nameOf, WORKSPACE_ROOT, type KubernetesObject } from './render';

/** The objects of one rendered overlay, by kind. */
export interface Manifests {
  objects: KubernetesObject[];
  deployments: IDeployment[];
  jobs: IJob[];
  services: IService[];
  configMaps: IConfigMap[];
  disruptionBudgets: IPodDisruptionBudget[];
  ingresses: IIngress[];
  serviceMonitors: IServiceMonitor[];
}

export function manifestsOf(objects: KubernetesObject[]): Manifests {
  const ofKind = <T>(kind: string) => objects.filter((object) => object.kind === kind) as unknown as T[];
  return {
    objects,
    deployments: ofKind<IDeployment>('Deployment'),
    jobs: ofKind<IJob>('Job'),
    services: ofKind<IService>('Service'),
    configMaps: ofKind<IConfigMap>('ConfigMap'),
    disruptionBudgets: ofKind<IPodDisruptionBudget>('PodDisruptionBudget'),
    ingresses: ofKind<IIngress>('Ingress'),
    serviceMonitors: ofKind<IServiceMonitor>('ServiceMonitor'),
  };
}

// ---- the facts, from where they are declared ----

/** The route of a contract endpoint (`/healthz`, `/readyz`). */
function routeOf(operation: 'getHealth' | 'getReadiness'): string {
  const endpoint = ENDPOINTS.find((candidate) => candidate.operationId === operation);
  if (!endpoint) throw new Error(`the contract has no ${operation}`);
  return endpoint.path;
}
export const LIVENESS_PATH = routeOf('getHealth');
export const READINESS_PATH = routeOf('getReadiness');

/** `apps/hosted-api/dist/ops.js`: the operator commands (`migrate`), as the image holds them (WORKDIR /app). */
export const OPS_ENTRY = (() => {
  const manifest = JSON.parse(
    readFileSync(path.join(WORKSPACE_ROOT, 'apps/hosted-api/package.json'), 'utf8'),
  ) as {
    bin: Record<string, string>;
  };
  const bin = manifest.bin['assistant-hosted-ops'];
  if (!bin) throw new Error('apps/hosted-api/package.json has no assistant-hosted-ops bin');
  return path.posix.join('apps/hosted-api', bin);
})();

/** Every variable the server reads: the README's configuration table, generated from the settings' schemas. */
export const KNOWN_SETTINGS: ReadonlySet<string> = (() => {
  const readme = readFileSync(path.join(WORKSPACE_ROOT, 'README.md'), 'utf8');
  const table =
    readme.split('<!-- configuration table')[1]?.split('<!-- end of the configuration table')[0] ?? '';
  return new Set([...table.matchAll(/^\| `([A-Z0-9_]+)`/gm)].map((match) => match[1] as string));
})();

/** The hosted API does not start without these (HOSTED_SETTINGS); each comes from a Secret. */
export const REQUIRED_SECRET_SETTINGS = [
  'ASSISTANT_DATABASE_URL',
  'ASSISTANT_SECRETS_KEY',
  'ASSISTANT_REDIS_URL',
];

/**
 * Variables that carry credentials, by name: database and Redis URLs hold passwords; keys, tokens and passwords
 * are what they say. Their values come from a Secret, never from the manifests or a ConfigMap.
 */
export const CREDENTIAL_NAME = /(_DATABASE_URL|_REDIS_URL|_KEY|_SECRET|_PASSWORD|_TOKEN)$/;

/** Event streams may stay open this long between two writes on a slow answer; pings come every 15 s anyway. */
export const STREAM_TIMEOUT_SECONDS = 3600;

// ---- reading the objects ----

interface PodOf {
  owner: string;
  spec: IPodSpec;
}

function podsOf(manifests: Manifests): PodOf[] {
  const pods: PodOf[] = [];
  for (const deployment of manifests.deployments) {
    const template = deployment.spec?.template;
    if (template?.spec)
      pods.push({
        owner: `Deployment/${deployment.metadata?.name}`,
        spec: template.spec,
      });
  }
  for (const job of manifests.jobs) {
    const template = job.spec?.template;
    if (template?.spec)
      pods.push({
        owner: `Job/${job.metadata?.name}`,
        spec: template.spec,
      });
  }
  return pods;
}

function containersOf(pod: IPodSpec): IContainer[] {
  return [...(pod.initContainers ?? []), ...pod.containers];
}

/** The one API container: named `api`. */
function apiContainerOf(deployment: IDeployment): IContainer | undefined {
  return deployment.spec?.template.spec?.containers.find((container) => container.name === 'api');
}

/** A container's command line, as one string (for what it runs). */
function commandLine(container: IContainer): string {
  return [...(container.command ?? []), ...(container.args ?? [])].join(' ');
}

/** The value a container sees for a variable set in the manifests (env wins over envFrom; a later envFrom wins). */
function settingOf(container: IContainer, name: string, manifests: Manifests): string | undefined {
  const direct = container.env?.find((variable) => variable.name === name);
  if (direct) return direct.value;
  for (const source of [...(container.envFrom ?? [])].reverse()) {
    const prefix = source.prefix ?? '';
    if (!name.startsWith(prefix)) continue;
    const configMap = manifests.configMaps.find(
      (candidate) => candidate.metadata?.name === source.configMapRef?.name,
    );
    const value = configMap?.data?.[name.slice(prefix.length)];
    if (value !== undefined) return value;
  }
  return undefined;
}

/** Every variable name a container sets, with where its value comes from. */
function variablesOf(
  container: IContainer,
  manifests: Manifests,
): { name: string; from: 'value' | 'secret' | 'other' }[] {
  const fromConfigMaps = (container.envFrom ?? []).flatMap((source) => {
    const configMap = manifests.configMaps.find(
      (candidate) => candidate.metadata?.name === source.configMapRef?.name,
    );
    return Object.keys(configMap?.data ?? {}).map((name) => ({
      name: `${source.prefix ?? ''}${name}`,
      from: 'value' as const,
    }));
  });
  const direct = (container.env ?? []).map((variable) => ({
    name: variable.name,
    from: variable.valueFrom?.secretKeyRef
      ? ('secret' as const)
      : variable.valueFrom
        ? ('other' as const)
        : ('value' as const),
  }));
  return [...fromConfigMaps, ...direct];
}

function isSecretKeyRef(container: IContainer, name: string): boolean {
  const variable = container.env?.find((candidate) => candidate.name === name);
  const ref = variable?.valueFrom?.secretKeyRef;
  return Boolean(ref?.name && ref.key && ref.optional !== true);
}

/** A container port's number, by name or number. */
function portNumber(container: IContainer, port: number | string | undefined): number | undefined {
  if (typeof port === 'number') return port;
  return container.ports?.find((candidate) => candidate.name === port)?.containerPort;
}

function containsLabels(
  labels: Record<string, string>,
  selector: Record<string, string> | undefined,
): boolean {
  const wanted = Object.entries(selector ?? {});
  return wanted.length > 0 && wanted.every(([key, value]) => labels[key] === value);
}

function preStopSeconds(container: IContainer): number {
  const preStop = container.lifecycle?.preStop;
  if (preStop?.sleep) return preStop.sleep.seconds;
  const command = preStop?.exec?.command ?? [];
  return command[0] === 'sleep' ? Number(command[1] ?? 0) : 0;
}

// ---- the rules ----

export interface DeploymentRule {
  rule: string;
  problems(manifests: Manifests): string[];
}

export const DEPLOYMENT_RULES: DeploymentRule[] = [
  {
    rule: 'one Deployment, migrate Job, Service and PodDisruptionBudget; no Secret objects',
    problems: (m) => [
      ...(m.deployments.length === 1 ? [] : [`${m.deployments.length} Deployments, not 1`]),
      ...(m.jobs.length === 1 ? [] : [`${m.jobs.length} Jobs, not 1 (the migration)`]),
      ...(m.services.length === 1 ? [] : [`${m.services.length} Services, not 1`]),
      ...(m.disruptionBudgets.length === 1
        ? []
        : [`${m.disruptionBudgets.length} PodDisruptionBudgets, not 1`]),
      ...m.objects
        .filter((object) => object.kind === 'Secret')
        .map(
          (object) =>
            `${nameOf(object)}: secrets come from existing Secret objects, never from the manifests`,
        ),
      ...m.deployments.flatMap((deployment) =>
        apiContainerOf(deployment) ? [] : [`Deployment/${deployment.metadata?.name}: no container named api`],
      ),
    ],
  },
  {
    rule: 'every object in the overlay namespace',
    problems: (m) => {
      const namespaces = new Set(m.objects.map((object) => object.metadata.namespace));
      return namespaces.size === 1 && !namespaces.has(undefined)
        ? []
        : [`objects in namespaces ${[...namespaces].join(', ')}: an overlay sets one namespace for all`];
    },
  },
  {
    rule: `readiness on ${READINESS_PATH} and liveness on ${LIVENESS_PATH}, on the port the API listens on`,
    problems: (m) =>
      m.deployments.flatMap((deployment) => {
        const api = apiContainerOf(deployment);
        if (!api) return [];
        const owner = `Deployment/${deployment.metadata?.name}`;
        const problems: string[] = [];
        const listening = Number(settingOf(api, 'ASSISTANT_PORT', m));
        const httpPort = portNumber(api, 'http');
        if (!Number.isInteger(listening))
          problems.push(`${owner}: ASSISTANT_PORT is not set to a number in the manifests`);
        if (httpPort !== listening)
          problems.push(`${owner}: container port http (${httpPort}) is not ASSISTANT_PORT (${listening})`);
        const probes = [
          ['readinessProbe', api.readinessProbe, READINESS_PATH],
          ['livenessProbe', api.livenessProbe, LIVENESS_PATH],
          // A start-up gate on readiness would restart pods while the database is down.
          ['startupProbe', api.startupProbe, LIVENESS_PATH],
        ] as const;
        for (const [name, probe, wanted] of probes) {
          if (!probe) {
            if (name !== 'startupProbe') problems.push(`${owner}: the api container has no ${name}`);
            continue;
          }
          if (probe.httpGet?.path !== wanted)
            problems.push(`${owner}: ${name} is not an HTTP GET of ${wanted}`);
          const port = portNumber(api, probe.httpGet?.port);
          if (port !== listening)
            problems.push(`${owner}: ${name} probes port ${port}, the API listens on ${listening}`);
        }
        return problems;
      }),
  },
  {
    rule: 'the metrics port is named metrics in the pod, the Service and the ServiceMonitor',
    problems: (m) =>
      m.deployments.flatMap((deployment) => {
        const api = apiContainerOf(deployment);
        if (!api) return [];
        const problems: string[] = [];
        const metricsPort = Number(settingOf(api, 'ASSISTANT_METRICS_PORT', m));
        if (!Number.isInteger(metricsPort))
          problems.push('ASSISTANT_METRICS_PORT is not set: the API serves no metrics');
        if (portNumber(api, 'metrics') !== metricsPort)
          problems.push(
            `container port metrics (${portNumber(api, 'metrics')}) is not ASSISTANT_METRICS_PORT (${metricsPort})`,
          );
        for (const service of m.services) {
          const port = service.spec?.ports?.find((candidate) => candidate.name === 'metrics');
          if (!port || portNumber(api, port.targetPort) !== metricsPort)
            problems.push(
              `Service/${service.metadata?.name}: no port named metrics that targets the metrics port`,
            );
        }
        for (const monitor of m.serviceMonitors) {
          const owner = `ServiceMonitor/${monitor.metadata?.name}`;
          for (const endpoint of monitor.spec.endpoints) {
            if (endpoint.port !== 'metrics' || endpoint.path !== '/metrics')
              problems.push(`${owner}: an endpoint that is not port metrics, path /metrics`);
          }
          if (
            !m.services.some((service) =>
              containsLabels(service.metadata?.labels ?? {}, monitor.spec.selector.matchLabels),
            )
          )
            problems.push(`${owner}: its selector matches no Service`);
        }
        return problems;
      }),
  },
  {
    rule: 'credentials come from secretKeyRef of an existing Secret, nothing secret inline',
    problems: (m) =>
      podsOf(m).flatMap(({ owner, spec }) =>
        containersOf(spec).flatMap((container) => {
          const where = `${owner} container ${container.name}`;
          const problems = variablesOf(container, m)
            .filter((variable) => CREDENTIAL_NAME.test(variable.name) && variable.from !== 'secret')
            .map(
              (variable) => `${where}: ${variable.name} is set inline or from a ConfigMap, not from a Secret`,
            );
          const needs =
            container.name === 'api'
              ? REQUIRED_SECRET_SETTINGS
              : commandLine(container).includes(OPS_ENTRY)
                ? ['ASSISTANT_DATABASE_URL']
                : [];
          for (const name of needs) {
            if (!isSecretKeyRef(container, name))
              problems.push(`${where}: ${name} is not a (required) secretKeyRef`);
          }
          return problems;
        }),
      ),
  },
  {
    rule: "every ASSISTANT_* variable is a setting of the README's configuration table",
    problems: (m) =>
      podsOf(m).flatMap(({ owner, spec }) =>
        containersOf(spec).flatMap((container) =>
          variablesOf(container, m)
            .filter(
              (variable) => variable.name.startsWith('ASSISTANT_') && !KNOWN_SETTINGS.has(variable.name),
            )
            .map(
              (variable) =>
                `${owner} container ${container.name}: ${variable.name} is no setting of the server`,
            ),
        ),
      ),
  },
  {
    rule: 'one migrate Job, and the API pods wait for the schema (migrate --check) before they start',
    problems: (m) => {
      const problems: string[] = [];
      const migrate = `node ${OPS_ENTRY} migrate`;
      for (const job of m.jobs) {
        const owner = `Job/${job.metadata?.name}`;
        const containers = job.spec?.template.spec?.containers ?? [];
        if (containers.length !== 1 || commandLine(containers[0] as IContainer) !== migrate)
          problems.push(`${owner}: not one container that runs \`${migrate}\``);
        // `migrate` takes no lock: one run at a time, and a failed pod replaced only once it has stopped.
        if (job.spec?.parallelism !== 1) problems.push(`${owner}: parallelism is not 1`);
        if ((job.spec?.completions ?? 1) !== 1) problems.push(`${owner}: completions is not 1`);
        if (job.spec?.podReplacementPolicy !== 'Failed')
          problems.push(`${owner}: podReplacementPolicy is not Failed`);
      }
      for (const deployment of m.deployments) {
        const owner = `Deployment/${deployment.metadata?.name}`;
        const pod = deployment.spec?.template.spec;
        if (!pod) continue;
        if (
          !(pod.initContainers ?? []).some((container) =>
            commandLine(container).includes(`${OPS_ENTRY} migrate --check`),
          )
        )
          problems.push(
            `${owner}: no init container waits for the schema (\`${OPS_ENTRY} migrate --check\`)`,
          );
        for (const container of containersOf(pod)) {
          const line = commandLine(container);
          if (line.includes(`${OPS_ENTRY} migrate`) && !line.includes('migrate --check'))
            problems.push(
              `${owner} container ${container.name}: runs migrate in every pod (concurrent runs are not safe)`,
            );
        }
        const images = new Set(
          [...containersOf(pod), ...m.jobs.flatMap((job) => job.spec?.template.spec?.containers ?? [])].map(
            (c) => c.image,
          ),
        );
        if (images.size !== 1)
          problems.push(
            `${owner}: the API, its init container and the migrate Job run different images (${[...images].join(', ')})`,
          );
      }
      return problems;
    },
  },
  {
    rule: 'every container has CPU and memory requests and a memory limit',
    problems: (m) =>
      podsOf(m).flatMap(({ owner, spec }) =>
        containersOf(spec).flatMap((container) => {
          const { requests, limits } = container.resources ?? {};
          return requests?.['cpu'] !== undefined &&
            requests['memory'] !== undefined &&
            limits?.['memory'] !== undefined
            ? []
            : [
                `${owner} container ${container.name}: resources lack requests.cpu, requests.memory or limits.memory`,
              ];
        }),
      ),
  },
  {
    rule: 'pods run as non-root on a read-only root filesystem, with /tmp writable, no service links or API token',
    problems: (m) =>
      podsOf(m).flatMap(({ owner, spec }) => {
        const problems: string[] = [];
        // Kubernetes would set ASSISTANT_PORT=tcp://… for a Service named `assistant`: the API would not start.
        if (spec.enableServiceLinks !== false) problems.push(`${owner}: enableServiceLinks is not false`);
        if (spec.automountServiceAccountToken !== false)
          problems.push(`${owner}: automountServiceAccountToken is not false`);
        const emptyDirs = new Set(
          (spec.volumes ?? []).filter((volume) => volume.emptyDir).map((volume) => volume.name),
        );
        for (const container of containersOf(spec)) {
          const where = `${owner} container ${container.name}`;
          const context = container.securityContext ?? {};
          if ((context.runAsNonRoot ?? spec.securityContext?.runAsNonRoot) !== true)
            problems.push(`${where}: runAsNonRoot is not true`);
          if (context.readOnlyRootFilesystem !== true)
            problems.push(`${where}: the root filesystem is not read-only`);
          if (context.allowPrivilegeEscalation !== false)
            problems.push(`${where}: allowPrivilegeEscalation is not false`);
          if (!context.capabilities?.drop?.includes('ALL'))
            problems.push(`${where}: capabilities are not all dropped`);
          if (
            !(container.volumeMounts ?? []).some(
              (mount) => mount.mountPath === '/tmp' && emptyDirs.has(mount.name),
            )
          )
            problems.push(`${where}: no emptyDir at /tmp (Node's temporary files)`);
        }
        return problems;
      }),
  },
  {
    rule: 'a stopping pod has time to drain: terminationGracePeriodSeconds > preStop + ASSISTANT_SHUTDOWN_GRACE_SECONDS',
    problems: (m) =>
      m.deployments.flatMap((deployment) => {
        const api = apiContainerOf(deployment);
        const pod = deployment.spec?.template.spec;
        if (!api || !pod) return [];
        const grace = Number(settingOf(api, 'ASSISTANT_SHUTDOWN_GRACE_SECONDS', m));
        const allowed = pod.terminationGracePeriodSeconds ?? 30;
        const needed = preStopSeconds(api) + grace;
        return Number.isInteger(grace) && allowed > needed
          ? []
          : [
              `Deployment/${deployment.metadata?.name}: terminationGracePeriodSeconds ${allowed} is not more than preStop + ASSISTANT_SHUTDOWN_GRACE_SECONDS (${needed})`,
            ];
      }),
  },
  {
    rule: 'the Service and the PodDisruptionBudget select the API pods, and only them',
    problems: (m) => {
      const problems: string[] = [];
      const apiPods = m.deployments.map((deployment) => deployment.spec?.template.metadata?.labels ?? {});
      const jobPods = m.jobs.map((job) => job.spec?.template.metadata?.labels ?? {});
      for (const deployment of m.deployments) {
        if (
          !containsLabels(
            deployment.spec?.template.metadata?.labels ?? {},
            deployment.spec?.selector.matchLabels,
          )
        )
          problems.push(`Deployment/${deployment.metadata?.name}: its selector does not match its pods`);
      }
      for (const service of m.services) {
        const selector = service.spec?.selector;
        if (!apiPods.some((labels) => containsLabels(labels, selector)))
          problems.push(`Service/${service.metadata?.name}: its selector matches no API pod`);
        if (jobPods.some((labels) => containsLabels(labels, selector)))
          problems.push(`Service/${service.metadata?.name}: its selector matches the migrate Job's pods`);
        if (!service.spec?.ports?.some((port) => port.name === 'http' && port.targetPort === 'http'))
          problems.push(
            `Service/${service.metadata?.name}: no port named http that targets the pods' http port`,
          );
      }
      for (const budget of m.disruptionBudgets) {
        const owner = `PodDisruptionBudget/${budget.metadata?.name}`;
        if (!apiPods.some((labels) => containsLabels(labels, budget.spec?.selector?.matchLabels)))
          problems.push(`${owner}: its selector matches no API pod`);
        // minAvailable as high as the replica count would block every node drain.
        const replicas = m.deployments[0]?.spec?.replicas ?? 1;
        const { maxUnavailable, minAvailable } = budget.spec ?? {};
        const allowsOne =
          maxUnavailable !== undefined
            ? maxUnavailable !== 0 && maxUnavailable !== '0%'
            : typeof minAvailable === 'number' && minAvailable < replicas;
        if (!allowsOne)
          problems.push(`${owner}: lets no pod be evicted (maxUnavailable ≥ 1, or minAvailable < replicas)`);
      }
      return problems;
    },
  },
  {
    rule: 'the Ingress streams events unbuffered with long timeouts, to the http port, on the public host',
    problems: (m) =>
      m.ingresses.flatMap((ingress) => {
        const owner = `Ingress/${ingress.metadata?.name}`;
        const annotations = ingress.metadata?.annotations ?? {};
        const nginx = (name: string) => annotations[`nginx.ingress.kubernetes.io/${name}`];
        const problems: string[] = [];
        if (nginx('proxy-buffering') !== 'off')
          problems.push(`${owner}: proxy-buffering is not off (event streams would wait in a buffer)`);
        for (const timeout of ['proxy-read-timeout', 'proxy-send-timeout']) {
          if (!(Number(nginx(timeout)) >= STREAM_TIMEOUT_SECONDS))
            problems.push(
              `${owner}: ${timeout} is under ${STREAM_TIMEOUT_SECONDS} s (long answers would be cut)`,
            );
        }
        // Any pod serves any request (MCP sessions live in Redis): affinity would only unbalance the pods.
        if (nginx('affinity') !== undefined)
          problems.push(`${owner}: session affinity is set; the API needs none`);
        const publicUrl = m.deployments.map((deployment) => apiContainerOf(deployment)).find(Boolean);
        const publicHost = publicUrl
          ? new URL(settingOf(publicUrl, 'ASSISTANT_PUBLIC_URL', m) ?? 'http://unset').hostname
          : undefined;
        for (const rule of ingress.spec?.rules ?? []) {
          if (rule.host !== publicHost)
            problems.push(
              `${owner}: host ${rule.host} is not the host of ASSISTANT_PUBLIC_URL (${publicHost})`,
            );
          for (const { backend } of rule.http?.paths ?? []) {
            const service = m.services.find(
              (candidate) => candidate.metadata?.name === backend.service?.name,
            );
            const port = service?.spec?.ports?.find(
              (candidate) =>
                candidate.name === backend.service?.port?.name ||
                candidate.port === backend.service?.port?.number,
            );
            if (!port || port.name !== 'http')
              problems.push(`${owner}: a path goes elsewhere than the Service's http port`);
          }
        }
        return problems;
      }),
  },
];

/** Every rule's problems, each line starting with the rule it breaks. */
export function ruleProblems(objects: KubernetesObject[]): string[] {
  const manifests = manifestsOf(objects);
  return DEPLOYMENT_RULES.flatMap(({ rule, problems }) =>
    problems(manifests).map((problem) => `${rule}: ${problem}`),
  );
}
