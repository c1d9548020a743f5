// better-sqlite3's own types (@types/better-sqlite3, an optional peer dependency: install it to use them).
import Database = require('better-sqlite3');
export = Database;
