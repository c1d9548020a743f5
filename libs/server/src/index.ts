export { AppModule } from './lib/bootstrap/app.module';
export { createHttpApp } from './lib/bootstrap/create-http-app';
export { MemoryRateLimitStore, type RateLimitStore } from './lib/rate-limit/rate-limit.store';
export { listen, type RunningServer } from './lib/bootstrap/running-server';
export { describeStartupError, closeOnSignals } from './lib/bootstrap/process-lifecycle';
export { createAccount, type CreatedAccount } from './lib/accounts/create-account';
export { type ServerParts } from './lib/bootstrap/server-parts';
