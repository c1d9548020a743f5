import type { ServerEventBus } from '@modelcontextprotocol/server';
import type { ToolCatalogue } from '@assistant/server-kit';
import { sendJsonRpcError, type McpExchange, type McpServerOf } from './mcp-exchange';
import type { McpSdk } from './mcp-sdk';
import { sendWebResponse } from './web-exchange';

/** JSON-RPC's "Internal error", which the SDK answers too when its own listening streams are too many. */
const INTERNAL_ERROR = -32603;

export interface CurrentRevisionDeps {
  sdk: McpSdk;
  catalog: ToolCatalogue;
  serverOf: McpServerOf;
  listenStreamsPerAccount: number;
}

/**
 * The current MCP revision (2026-07-28) and its successors as the SDK serves them: no sessions, no handshake;
 * every request carries its protocol version and the client's capabilities and is answered on its own, on any
 * instance (the SDK's `createMcpHandler`, strict: 2025 traffic goes to LegacySessions). Change notifications go
 * out on `subscriptions/listen` streams, fed by the tool catalogue's changes of the caller's account only.
 */
export class CurrentRevision {
  /** Open listening streams per account on this instance. */
  private readonly listening = new Map<string, number>();

  constructor(private readonly deps: CurrentRevisionDeps) {}

  async serve(exchange: McpExchange): Promise<unknown> {
    const { principal } = exchange;
    const listen = isListen(exchange.body);
    if (listen && !this.takeListenSlot(principal.userId)) {
      // In the shape the SDK gives its own limit: an answer to the listen request, before any acknowledgement.
      return sendJsonRpcError(
        exchange.reply,
        200,
        listen.id,
        INTERNAL_ERROR,
        `Subscription limit reached: ${this.deps.listenStreamsPerAccount} listening streams per account; close one first`,
      );
    }
    try {
      const handler = this.deps.sdk.createMcpHandler(() => this.deps.serverOf(principal), {
        legacy: 'reject',
        bus: this.busOf(principal.userId),
      });
      const response = await handler.fetch(
        exchange.web,
        exchange.body === undefined ? {} : { parsedBody: exchange.body },
      );
      await sendWebResponse(exchange.reply, response);
    } finally {
      if (listen) this.releaseListenSlot(principal.userId);
    }
  }

  /**
   * The SDK's change-event bus as one account's listening streams see it: the catalogue's changes of that account
   * (made on any instance), never another's. Nothing is published through it: the catalogue is the source.
   */
  private busOf(userId: string): ServerEventBus {
    return {
      publish: () => undefined,
      subscribe: (listener) =>
        this.deps.catalog.onChange(userId, () => listener({ kind: 'tools_list_changed' })),
    };
  }

  private takeListenSlot(userId: string): boolean {
    const open = this.listening.get(userId) ?? 0;
    if (open >= this.deps.listenStreamsPerAccount) return false;
    this.listening.set(userId, open + 1);
    return true;
  }

  private releaseListenSlot(userId: string): void {
    const open = (this.listening.get(userId) ?? 1) - 1;
    if (open > 0) this.listening.set(userId, open);
    else this.listening.delete(userId);
  }
}

/** The `subscriptions/listen` request of a body, if it is one. */
function isListen(body: unknown): { id: string | number } | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const { method, id } = body as { method?: unknown; id?: unknown };
  return method === 'subscriptions/listen' && (typeof id === 'string' || typeof id === 'number')
    ? { id }
    : undefined;
}
