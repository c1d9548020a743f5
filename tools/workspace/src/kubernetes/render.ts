import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { parseAllDocuments } from 'yaml';

export const WORKSPACE_ROOT = path.join(__dirname, '..', '..', '..', '..');
export const KUBERNETES_DIR = path.join(WORKSPACE_ROOT, 'deploy', 'kubernetes');

/**
 * The kubectl that tools/workspace/services/kubectl.sh installs (`npm test` runs it first); its built-in
 * kustomize renders the manifests without a cluster. ASSISTANT_TEST_KUBECTL points at another one.
 */
export const KUBECTL = process.env['ASSISTANT_TEST_KUBECTL'] ?? '/var/tmp/assistant-kubectl/bin/kubectl';

/** One rendered object, as kustomize writes it (the schemas say what else it holds). */
export interface KubernetesObject {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  [field: string]: unknown;
}

/** The folders under deploy/kubernetes/overlays: what an operator applies. */
export function overlayNames(): string[] {
  return readdirSync(path.join(KUBERNETES_DIR, 'overlays'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

/** `kubectl kustomize <folder>`: the objects that `kubectl apply -k <folder>` would send. */
export function render(folder: string): KubernetesObject[] {
  if (!existsSync(KUBECTL)) {
    throw new Error(
      `kubectl is missing at ${KUBECTL}: run bash tools/workspace/services/kubectl.sh (npm test does)`,
    );
  }
  const text = execFileSync(KUBECTL, ['kustomize', folder], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return parseAllDocuments(text).flatMap((document) => {
    if (document.errors.length > 0)
      throw new Error(`kubectl kustomize ${folder}: ${document.errors[0]?.message}`);
    const object = document.toJSON() as KubernetesObject | null;
    return object ? [object] : [];
  });
}

/** `Kind/name`, as kubectl names an object. */
export function nameOf(object: KubernetesObject): string {
  return `${object.kind}/${object.metadata.name}`;
}
