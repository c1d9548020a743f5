import { APICallError } from '@ai-sdk/provider';
import type { ErrorCode } from '@assistant/contracts';
import { ModelUnavailableError } from '../errors';
import { midAnswerFailureOf } from '../models/openai-compatible/mid-answer';

/**
 * Says what went wrong with the model in words a user can act on, without the provider's raw body (it can
 * carry request details). Everything the model side does wrong is `model_unavailable`.
 */
export function describeModelError(error: unknown): { code: ErrorCode; detail: string } {
  if (error instanceof ModelUnavailableError) return { code: 'model_unavailable', detail: error.message };
  if (APICallError.isInstance(error)) {
    const host = safeHost(error.url);
    const midAnswer = midAnswerFailureOf(error.data);
    if (midAnswer === 'connection-closed') {
      return {
        code: 'model_unavailable',
        detail: `the connection to the model at ${host} closed before the answer was complete`,
      };
    }
    if (error.statusCode === undefined) {
      // No HTTP answer at all: refused, unknown host, bad port, reset.
      return { code: 'model_unavailable', detail: `cannot reach the model at ${host}` };
    }
    if (midAnswer === 'error-object') {
      return {
        code: 'model_unavailable',
        detail: `the model server at ${host} stopped its answer with an error`,
      };
    }
    return {
      code: 'model_unavailable',
      detail: `the model server at ${host} answered ${error.statusCode}`,
    };
  }
  const name = (error as { name?: string } | undefined)?.name ?? '';
  const message = error instanceof Error ? error.message : String(error);
  if (/JSON|TypeValidation|InvalidResponse|NoOutput|Parse/i.test(name) || /JSON/i.test(message)) {
    return { code: 'model_unavailable', detail: 'the model sent a response that could not be read' };
  }
  if (/fetch failed|ECONNREFUSED|ECONNRESET|socket/i.test(message)) {
    return { code: 'model_unavailable', detail: 'the connection to the model failed' };
  }
  return { code: 'internal', detail: 'the run failed on our side' };
}

function safeHost(url: string | undefined): string {
  try {
    return url ? new URL(url).host : 'its address';
  } catch {
    return 'its address';
  }
}
