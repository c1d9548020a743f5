import type { Storage } from '@assistant/storage';
import type { ToolFamily } from '@assistant/tool-kit';
import type { ModuleImporter } from '../tools/custom/custom-tools-folder';
import type { RateLimitStore } from '../rate-limit/rate-limit.store';
import type { QueryEventLog, ReadinessCheck } from '@assistant/server-kit';
import type { Cluster } from '../cluster/cluster';

/**
 * The stateful pieces a composition root chooses for its deployment: the database, where rate-limit counts
 * live and where query events live (memory on a self-hosted server; shared stores for the hosted one).
 */
export interface ServerParts {
  storage: Storage;
  rateLimits: RateLimitStore;
  queryEvents: QueryEventLog;
  /** The tool families offered: FAMILIES (tools/families.ts) when absent; tests add their own. */
  families?: readonly ToolFamily[];
  /**
   * How a self-hosted server imports its custom tool modules: Node's own `import()` when absent. Tests under jest
   * give Node's main-context loader (testing/custom-tools): jest's own ties an import to one test file.
   */
  customToolImporter?: ModuleImporter;
  /**
   * What `/readyz` checks besides the database and its schema: the parts' own services (Redis on the hosted API).
   */
  readinessChecks?: readonly ReadinessCheck[];
  /**
   * What the deployment's processes share beyond those (run slots, revocations, tool changes, confirmations):
   * Redis on the hosted API; absent for a self-hosted server, which is one process.
   */
  cluster?: Cluster;
  /** Where the JSON log lines go: stdout when absent; tests capture them. */
  logDestination?: { write(line: string): void };
}

export async function closeParts(parts: ServerParts): Promise<void> {
  parts.queryEvents.close();
  await parts.rateLimits.close();
  await parts.cluster?.close();
  await parts.storage.close();
}
