/** What hosted instances tell each other through Redis: revocations, tool changes and confirmations. */
import { RedisClusterBus } from './redis-cluster-bus';
import { RedisConfirmationExchange } from './redis-confirmation-exchange';
import type { RedisConnections } from './redis-connections';
import { cleanUp, freshPrefix, openTestRedis } from '../../testing/redis-test-connections';
import { PendingConfirmations } from '@assistant/queries';

let redisA: RedisConnections;
let redisB: RedisConnections;
let busA: RedisClusterBus;
let busB: RedisClusterBus;
const errors: unknown[] = [];
const onError = (error: unknown) => errors.push(error);

beforeEach(async () => {
  const prefix = freshPrefix();
  [redisA, redisB] = await Promise.all([openTestRedis(prefix), openTestRedis(prefix)]);
  busA = new RedisClusterBus(redisA, onError);
  busB = new RedisClusterBus(redisB, onError);
  await Promise.all([busA.start(), busB.start()]);
  errors.length = 0;
});
afterEach(async () => {
  await busA.close();
  await busB.close();
  await cleanUp(redisA, redisB);
  expect(errors).toEqual([]);
});

const soon = () => new Promise((resolve) => setTimeout(resolve, 100));

it('tells the other instances, not the one that published', async () => {
  const heardA: unknown[] = [];
  const heardB: unknown[] = [];
  busA.subscribe('principals.forgotten', (m) => heardA.push(m));
  busB.subscribe('principals.forgotten', (m) => heardB.push(m));
  busB.subscribe('tools.changed', (m) => heardB.push(m));

  busA.publish('principals.forgotten', { tokenId: 'tok_1' });
  busA.publish('tools.changed', { userId: 'usr_1' });
  await soon();

  expect(heardA).toEqual([]);
  expect(heardB).toEqual([{ tokenId: 'tok_1' }, { userId: 'usr_1' }]);
});

it('tells a deployment nothing of another deployment on the same Redis', async () => {
  const other = await openTestRedis(freshPrefix());
  const otherBus = new RedisClusterBus(other, onError);
  await otherBus.start();
  const heard: unknown[] = [];
  otherBus.subscribe('tools.changed', (m) => heard.push(m));

  busA.publish('tools.changed', { userId: 'usr_1' });
  await soon();

  expect(heard).toEqual([]);
  await otherBus.close();
  other.close();
});

it('brings an answer given on one instance to the call that waits on another, once', async () => {
  const waitingOnA = new PendingConfirmations(60_000, new RedisConfirmationExchange(redisA, busA, onError));
  const onB = new PendingConfirmations(60_000, new RedisConfirmationExchange(redisB, busB, onError));
  const run = new AbortController();
  const outcome = waitingOnA.wait('qry_1', 'call_1', run.signal);
  await soon();

  expect(await onB.answer('qry_1', 'call_1', true)).toBe('answered');
  expect(await outcome).toBe('approved');
  await soon();
  expect(await onB.answer('qry_1', 'call_1', false)).toBe('already');
  expect(await waitingOnA.answer('qry_1', 'call_1', false)).toBe('already');
  expect(await onB.answer('qry_1', 'call_unknown', true)).toBe('unknown');
  waitingOnA.close();
  onB.close();
});

it('says already for a call that timed out on the instance where it waited', async () => {
  const waitingOnA = new PendingConfirmations(50, new RedisConfirmationExchange(redisA, busA, onError));
  const onB = new PendingConfirmations(60_000, new RedisConfirmationExchange(redisB, busB, onError));
  expect(await waitingOnA.wait('qry_2', 'call_1', new AbortController().signal)).toBe('timeout');
  await soon();
  expect(await onB.answer('qry_2', 'call_1', true)).toBe('already');
  waitingOnA.close();
  onB.close();
});
