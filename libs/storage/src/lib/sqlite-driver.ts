import type BetterSqlite3 from 'better-sqlite3';

/** Node 22 and later: the first major that better-sqlite3 13 supports. */
const V13_FROM_NODE_MAJOR = 22;

let driver: typeof BetterSqlite3 | undefined;

/**
 * The better-sqlite3 module for this Node. Up to 12.x its objects derive from Node's raw ObjectWrap, whose
 * destructor aborts Node 24.19 and later when a garbage collection outside any JavaScript context finalizes a
 * statement ("Assertion failed: (env) != nullptr" in RemoveEnvironmentCleanupHook): a server would die at a random
 * moment. 13.x (Node-API) does not, but needs Node 22. So the package depends on 12.x, which every supported Node
 * runs, and optionally on 13.x under the alias `better-sqlite3-v13` (npm leaves it out on Node 20); Node 22 and
 * later use 13.x when it is installed.
 */
export function sqliteDriver(): typeof BetterSqlite3 {
  if (!driver) {
    if (Number(process.versions.node.split('.')[0]) >= V13_FROM_NODE_MAJOR) {
      try {
        driver = require('better-sqlite3-v13') as typeof BetterSqlite3;
      } catch {
        // Not installed (an install that skipped optional dependencies): 12.x, as on Node 20.
      }
    }
    driver ??= require('better-sqlite3') as typeof BetterSqlite3;
  }
  return driver;
}
