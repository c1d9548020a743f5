import { Inject, type Provider } from '@nestjs/common';
import type { Storage } from '@assistant/storage';

/** The repositories of the opened storage, by the name `Storage` gives each. */
export type RepositoryName = {
  [K in keyof Storage]: Storage[K] extends (...args: never[]) => unknown
    ? never
    : K extends 'dialect'
      ? never
      : K;
}[keyof Storage];

const TOKENS = new Map<RepositoryName, symbol>();

/** The injection token of one repository (one token per name, made on first use). */
export function repositoryToken(name: RepositoryName): symbol {
  let token = TOKENS.get(name);
  if (!token) TOKENS.set(name, (token = Symbol(`repository:${name}`)));
  return token;
}

/**
 * Injects one repository of the opened storage, so that a class takes what it uses and not the whole database:
 * `@InjectRepository('memories') private readonly memories: MemoriesRepository`.
 */
export function InjectRepository(name: RepositoryName): PropertyDecorator & ParameterDecorator {
  return Inject(repositoryToken(name));
}

/** Every repository of `storage` under its token (CoreModule provides them beside STORAGE). */
export function repositoryProviders(storage: Storage): Provider[] {
  return (Object.keys(storage) as (keyof Storage)[])
    .filter((name): name is RepositoryName => name !== 'dialect' && typeof storage[name] !== 'function')
    .map((name) => ({ provide: repositoryToken(name), useValue: storage[name] }));
}
