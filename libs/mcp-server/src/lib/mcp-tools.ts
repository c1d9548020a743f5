import type { Tool } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { callTool, parseToolInput, ToolInputError, type ConnectedTool } from '@assistant/tool-kit';
import { traceToolCall } from '@assistant/server-kit';

/** An MCP tool as `tools/list` answers it (the SDK's `Tool`, the same in every revision it serves). */
export type McpTool = Tool;

/** What `tools/call` answers: the output as JSON text (and structured when it is an object), or an error. */
export interface McpToolResult {
  [key: string]: unknown;
  content: Array<{ type: 'text'; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/**
 * The catalogue's tool as MCP lists it: its JSON Schema and hints. A tool that changes something runs at once
 * when an MCP client calls it — the client is the one to ask its user first — and says so.
 */
export function mcpToolOf(tool: ConnectedTool): McpTool {
  const { $schema: _dialect, ...inputSchema } = z.toJSONSchema(tool.input, { io: 'input' }) as Record<
    string,
    unknown
  >;
  return {
    name: tool.name,
    ...(tool.annotations.title === undefined ? {} : { title: tool.annotations.title }),
    description: tool.side_effects
      ? `${tool.description} It changes something outside the assistant: ask the user before calling it.`
      : tool.description,
    inputSchema: inputSchema as Tool['inputSchema'],
    // The tool's own hints (the kit derives readOnlyHint from side_effects unless the tool says otherwise).
    annotations: { destructiveHint: tool.side_effects, ...tool.annotations },
  };
}

const text = (value: string, isError = false): McpToolResult => ({
  content: [{ type: 'text', text: value }],
  ...(isError ? { isError } : {}),
});

/**
 * Calls a tool for an MCP client with the same input checks and time limit as a query's call. Every failure —
 * bad input, a refusal of the tool's own, a timeout — is an `isError` result in plain words, never a protocol
 * error, so the client's model can read it and try again.
 */
export async function callMcpTool(
  tool: ConnectedTool,
  args: unknown,
  context: { userId: string; timeZone: string; signal: AbortSignal; timeoutMs: number },
): Promise<McpToolResult> {
  let input: unknown;
  try {
    input = parseToolInput(tool, args ?? {});
  } catch (error) {
    if (error instanceof ToolInputError) return text(`${tool.name}: ${error.message}`, true);
    throw error;
  }
  try {
    const output = await traceToolCall(tool.name, () =>
      callTool(
        tool,
        input,
        {
          userId: context.userId,
          discussionId: null,
          timeZone: context.timeZone,
          signal: context.signal,
          notify: () => undefined,
        },
        context.timeoutMs,
      ),
    );
    const structured =
      output !== null && typeof output === 'object' && !Array.isArray(output)
        ? (output as Record<string, unknown>)
        : undefined;
    return {
      ...text(JSON.stringify(output ?? null, null, 2)),
      ...(structured ? { structuredContent: structured } : {}),
    };
  } catch (error) {
    return text(`${tool.name} failed: ${(error as Error).message}`, true);
  }
}
