/** One query on the built-in model, as a test needs it: the families it understands, the rest defaulted. Tests only. */
import type { QueryEventBody } from '@assistant/contracts';
import type { FamilyLanguage } from '@assistant/tool-kit';
import { builtinModel } from '../lib/models/builtin/builtin-model';
import { runQuery, type RunInput } from '../lib/run/run-query';

export async function runBuiltin(
  text: string,
  families: readonly FamilyLanguage[],
  overrides: Partial<RunInput> = {},
): Promise<QueryEventBody[]> {
  const events: QueryEventBody[] = [];
  await runQuery(
    {
      queryId: 'qry_1',
      discussionId: 'dsc_1',
      messageId: 'msg_1',
      userId: 'usr_1',
      modelName: 'builtin',
      model: builtinModel({ pacingMs: 0, families }),
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
