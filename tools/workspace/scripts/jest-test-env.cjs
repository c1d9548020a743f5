/**
 * Defaults every test process shares, set once here (the jest preset's setupFiles) rather than in each suite.
 * ASSISTANT_TEST_REDIS_URL: the Redis the suites write to. Database 15, so that test data never lands in database 0,
 * where a developer's own Redis keeps its data.
 */
process.env.ASSISTANT_TEST_REDIS_URL ??= 'redis://127.0.0.1:6379/15';
