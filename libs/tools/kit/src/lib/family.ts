import type { z } from 'zod';
import type { ToolDefinition } from './define-tool';
import type { PhraseRule } from './phrases';
import type { FamilyIntents } from './intents';
// The wire entry: the kit's runtime loads no zod schema of the contract (a custom tool module loads the kit).
import { FAMILY_NAME_PATTERN } from '@assistant/contracts/wire';

/** Where a server runs: a provider may exist on one only (a local folder is for a self-hosted server). */
export type Deployment = 'hosted' | 'self-hosted';

/** What a driver gets from the server besides its connection's settings and secrets. */
export interface DriverEnvironment {
  deployment: Deployment;
  /** The self-hosted server's data directory (for the default files folder), absent on the hosted API. */
  dataDir?: string;
  /**
   * The account whose connection is opened: a provider that reaches this machine (a local folder) confines the
   * account to what is its own. Absent where no account is known, which such a provider takes as no account's.
   */
  userId?: string;
  /**
   * The name of the account's connection being opened ("Work mail"), for a driver's messages; absent for a
   * connection built into the server.
   */
  connectionName?: string;
  /**
   * Host names and networks (CIDR) on the server's own network that the operator lets tools reach
   * (`ASSISTANT_ALLOW_PRIVATE_HOSTS`); everything private or local is refused otherwise.
   */
  allowPrivateHosts: readonly string[];
  /**
   * Absolute folders of this machine that the operator lets accounts connect (`ASSISTANT_LOCAL_FOLDERS`),
   * besides each account's own folder in the data directory.
   */
  localFolders: readonly string[];
  /** Aborted when the server stops; long-lived drivers (a pooled IMAP session, an MQTT client) close on it. */
  signal: AbortSignal;
}

/**
 * A connection that cannot be made or is refused: its message is the remote server's own reason in plain words
 * ("IMAP login failed: Authentication failed."). `POST /connections` answers it as 422.
 */
export class ConnectionTestError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ConnectionTestError';
  }
}

/**
 * What a driver opened for one connection may offer besides its family's own methods. The server keeps a driver
 * while the connection is in use (IMAP sessions are pooled this way) and calls `close()` after an idle period,
 * when the connection changes, and at shutdown.
 */
export interface Driver {
  close?(): Promise<void>;
}

/**
 * One way a family reaches the user's data (`imap`, `caldav`, `local`, `webdav`, `homeassistant`, `mqtt`, …): the
 * settings and secrets a connection of it holds (SPEC §3 "Connections"), how it opens a driver and how it is tried
 * before it is saved. Heavy client libraries are imported inside `open`, not at the top of the module.
 */
export interface ProviderDefinition<
  D = unknown,
  Settings extends z.ZodObject = z.ZodObject,
  Secrets extends z.ZodObject = z.ZodObject,
> {
  name: string;
  description: string;
  settings: Settings;
  /** Write-only over the API; stored encrypted; never in a reply or a log line. */
  secrets: Secrets;
  /** Only on these deployments (default: both). */
  deployments?: readonly Deployment[];
  open(
    connection: { settings: z.infer<Settings>; secrets: z.infer<Secrets> },
    env: DriverEnvironment,
  ): Promise<D>;
  /** Tries the driver (logs in, lists a collection); throws ConnectionTestError with the remote reason. */
  test(driver: D, signal: AbortSignal): Promise<void>;
}

/**
 * A connection the account has without adding one (self-hosted: web fetch, a files folder in the data
 * directory). Listed by `GET /connections` like the others; it cannot be changed, only used.
 */
export interface DefaultConnection {
  provider: string;
  name: string;
  deployments: readonly Deployment[];
  /** The connection's settings for one account (a default folder is the account's own). */
  settings(env: DriverEnvironment, userId: string): Record<string, unknown>;
}

/**
 * A tool family as a plug-in: its name, its providers, its tools (one file each, with the driver type of the
 * family; each names the scope it needs), what a language model is told of it and what the built-in model knows
 * of it. No Nest, no TypeORM, no Fastify in a family. Nothing else lists families: the server offers the ones
 * its composition root is given (the product's in libs/server `tools/families.ts`).
 */
export interface ToolFamily<D = unknown> {
  /** Lowercase letters and digits (`FAMILY_NAME_PATTERN`); its tools are named `<name>_<verb>`. */
  name: string;
  description: string;
  /**
   * What a language model is told about this family's tools, given the names of those the run has (never
   * none): when to use which. Absent, the tools' own descriptions say it all.
   */
  instructions?(tools: readonly string[]): string;
  /**
   * What the family is about, for the built-in model's answer when the account has none of its tools ("I have no
   * tool for your mail on this account…"): its words in a request, tried before any family's catch-all rules.
   */
  topic: { about: string; keywords: readonly string[] };
  /** Empty for a family the server provides the driver of itself (memory, over its own storage). */
  providers: readonly ProviderDefinition<D>[];
  defaults?: readonly DefaultConnection[];
  tools: readonly ToolDefinition<z.ZodObject, unknown, D>[];
  /**
   * For a family whose tools change while the server runs (the custom tools of a folder): calls `listener` after
   * `tools` changed, and returns the unsubscribe function. The catalogue tells every account.
   */
  onToolsChanged?(listener: () => void): () => void;
  /**
   * What the built-in offline model understands for this family: intents with sentence templates and slots
   * (`intents.ts`), each with examples that are tested.
   */
  intents?: FamilyIntents;
  /** Phrasings as whole-sentence regular expressions, for a family whose requests have no template form. */
  phrases?: readonly PhraseRule[];
  /**
   * What the built-in model says once one of this family's tools has answered (plain sentences); `focus` is what
   * the request asked about, for picking it out of the result ("yoga" among the week's events).
   */
  answer(tool: string, output: unknown, focus?: string): string;
  /**
   * Whether a result holds what the request asked about (`focus`), for a search that goes on elsewhere when it
   * found nothing ("what's my X?": memories, then mail, then files). Absent: whether any list in it has items.
   */
  found?(tool: string, output: unknown, focus?: string): boolean;
  /**
   * What the built-in model says when a phrasing of this family names a tool that the run neither has nor
   * withholds (a custom tool by a name no module defines); it says that no connection provides it otherwise.
   */
  unavailable?(tool: string, available: readonly string[]): string;
}

/** Declares a family; checks its name, and that each tool's name starts with `<family>_`. */
export function defineFamily<D>(family: ToolFamily<D>): ToolFamily<D> {
  if (!FAMILY_NAME_PATTERN.test(family.name)) {
    throw new Error(
      `family name ${family.name} must be lowercase letters and digits, starting with a letter`,
    );
  }
  const providers = new Set(family.providers.map((p) => p.name));
  for (const tool of family.tools) {
    if (!tool.name.startsWith(`${family.name}_`)) {
      throw new Error(`tool ${tool.name} of family ${family.name} must be named ${family.name}_<verb>`);
    }
    const unknown = tool.providers?.find((name) => !providers.has(name));
    if (unknown)
      throw new Error(`tool ${tool.name} names ${unknown}, which is no provider of family ${family.name}`);
  }
  return family;
}

/**
 * What the families tell a language model about the run's tools (`toolNames`): each family that has one of
 * them says it once, in the families' order.
 */
export function familyInstructions(
  families: readonly Pick<ToolFamily, 'tools' | 'instructions'>[],
  toolNames: readonly string[],
): string[] {
  const present = new Set(toolNames);
  return families.flatMap((family) => {
    const own = family.tools.map((tool) => tool.name).filter((name) => present.has(name));
    return own.length > 0 && family.instructions ? [family.instructions(own)] : [];
  });
}

/** Whether a connection of `provider` can serve `tool` (see `ToolDefinition.providers`). */
export function servesTool(provider: string, tool: Pick<ToolDefinition, 'providers'>): boolean {
  return !tool.providers || tool.providers.includes(provider);
}

/**
 * What the built-in offline model knows of a family: its topic, phrasings and answers. A family the server does
 * not offer yet can be known by its topic alone, so that the model says it has no tool for it.
 */
export interface FamilyLanguage {
  name: string;
  topic: ToolFamily['topic'];
  intents?: FamilyIntents;
  phrases?: readonly PhraseRule[];
  answer?(tool: string, output: unknown, focus?: string): string;
  found?: ToolFamily['found'];
  unavailable?: ToolFamily['unavailable'];
}
