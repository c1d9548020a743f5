// better-sqlite3 12 under the name @assistant/sqlite-node20 installs it by (see that package): one copy, compiled
// once, for the suites that read or change a server's SQLite file on Node 20. Its types are better-sqlite3's.
declare module 'better-sqlite3-node20' {
  import Database = require('better-sqlite3');
  export = Database;
}
