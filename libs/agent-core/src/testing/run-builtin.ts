/** One query as a test needs it: a model, the rest defaulted; or on the built-in model with its families. Tests only. */
import type { LanguageModelV3 } from '@ai-sdk/provider';
import type { QueryEventBody } from '@assistant/contracts';
import type { FamilyLanguage } from '@assistant/tool-kit';
import { builtinModel } from '../lib/models/builtin/builtin-model';
import { runQuery, type RunInput } from '../lib/run/run-query';

/** Runs one query on `model` and returns its events, in order. */
export async function runOn(
  model: LanguageModelV3,
  modelName: string,
  text: string,
  overrides: Partial<RunInput> = {},
): Promise<QueryEventBody[]> {
  const events: QueryEventBody[] = [];
  await runQuery(
    {
      queryId: 'qry_1',
      discussionId: 'dsc_1',
      messageId: 'msg_1',
      userId: 'usr_1',
      modelName,
      model,
      text,
      history: [],
      recalled: [],
      timeZone: 'UTC',
      tools: [],
      signal: new AbortController().signal,
      ...overrides,
    },
    (event) => void events.push(event),
  );
  return events;
}

export function runBuiltin(
  text: string,
  families: readonly FamilyLanguage[],
  overrides: Partial<RunInput> = {},
): Promise<QueryEventBody[]> {
  return runOn(builtinModel({ pacingMs: 0, families }), 'builtin', text, overrides);
}
