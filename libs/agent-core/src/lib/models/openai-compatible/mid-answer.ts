/**
 * An answer that began (200) and then failed travels as an `APICallError` whose `data` says how, so that the
 * user is told the model stopped mid-answer rather than that it could not be reached or refused the request.
 */
export type MidAnswerFailure =
  { midAnswer: 'connection-closed' } | { midAnswer: 'error-object'; error: unknown };

export function midAnswerFailureOf(data: unknown): MidAnswerFailure['midAnswer'] | undefined {
  const kind = (data as Partial<MidAnswerFailure> | null | undefined)?.midAnswer;
  return kind === 'connection-closed' || kind === 'error-object' ? kind : undefined;
}
