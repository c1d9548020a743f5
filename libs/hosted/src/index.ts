export { startHosted, hostedRedis } from './lib/hosted';
export { runHostedOps, HOSTED_OPS_USAGE } from './lib/hosted-ops';
export { openRedisParts, type RedisParts, type RedisSettings } from './lib/redis/redis-parts';
