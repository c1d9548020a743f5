import { type ClusterBus, type AnswerResult, type ConfirmationExchange } from '@assistant/server-kit';
import type { RedisConnections } from './redis-connections';
import { redisUnavailable } from './redis-connections';

/** How long a settled call is remembered, so that a second answer is a 409 rather than a 404 (as in memory). */
const SETTLED_KEPT_MS = 15 * 60_000;
/** A waiting call's record outlives its deadline a little: the process that holds it settles it at the deadline. */
const WAITING_MARGIN_MS = 60_000;

/**
 * Answers a call if it still waits: marks it answered (atomically, so that two answers on two instances cannot
 * both pass) and says whether it was waiting, settled before, or unknown.
 *
 * KEYS[1] the call; ARGV[1] how long to remember it.
 */
const ANSWER = `
local state = redis.call('GET', KEYS[1])
if not state then return 'unknown' end
if state ~= 'waiting' then return 'already' end
redis.call('SET', KEYS[1], 'settled', 'PX', ARGV[1])
return 'answered'
`;

/**
 * Confirmations across the hosted service's instances: each waiting call is recorded in Redis (`waiting`, then
 * `settled`); an answer given on another instance flips the record and is published on the cluster bus, and the
 * instance where the call waits settles it.
 */
export class RedisConfirmationExchange implements ConfirmationExchange {
  constructor(
    private readonly redis: RedisConnections,
    private readonly bus: ClusterBus,
    private readonly onError: (error: unknown, what: string) => void,
  ) {}

  waiting(queryId: string, callId: string, deadlineMs: number): void {
    // Without Redis the call can still be answered on this instance; only the others cannot reach it.
    this.redis.command
      .set(this.key(queryId, callId), 'waiting', 'PX', deadlineMs + WAITING_MARGIN_MS)
      .catch((error: unknown) => this.onError(error, 'could not share a waiting confirmation'));
  }

  settled(queryId: string, callId: string): void {
    this.redis.command
      .set(this.key(queryId, callId), 'settled', 'PX', SETTLED_KEPT_MS)
      .catch((error: unknown) => this.onError(error, 'could not share a settled confirmation'));
  }

  async answer(queryId: string, callId: string, approve: boolean): Promise<AnswerResult> {
    let result: AnswerResult;
    try {
      result = (await this.redis.command.eval(
        ANSWER,
        1,
        this.key(queryId, callId),
        SETTLED_KEPT_MS,
      )) as AnswerResult;
    } catch (error) {
      this.onError(error, 'could not reach the confirmation of another instance');
      throw redisUnavailable('answering a confirmation');
    }
    if (result === 'answered') void this.bus.publish('confirmation.answered', { queryId, callId, approve });
    return result;
  }

  onAnswer(listener: (queryId: string, callId: string, approve: boolean) => void): () => void {
    return this.bus.subscribe('confirmation.answered', ({ queryId, callId, approve }) =>
      listener(queryId, callId, approve),
    );
  }

  private key(queryId: string, callId: string): string {
    return this.redis.key('confirm', queryId, callId);
  }
}
