/**
 * The injection tokens of what every feature is handed at start-up: the opened storage (`Storage` of
 * `@assistant/storage`) and the validated configuration (`ServerConfig`). They live in `ports/`, which imports
 * nothing else of this lib, so that a feature depends on the token and not on the module that provides it
 * (`CoreModule`).
 */
export const STORAGE = Symbol('STORAGE');
export const SERVER_CONFIG = Symbol('SERVER_CONFIG');
