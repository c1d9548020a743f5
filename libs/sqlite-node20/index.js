'use strict';
// better-sqlite3 12, the last line that runs on Node 20, as the SQLite driver of @assistant/storage there. This package
// exists for its `engines`: @assistant/storage lists it as an optional dependency, and npm leaves out an optional
// dependency whose engines do not match, so Node 22 and later (which use Node's own SQLite) never download or
// compile better-sqlite3.
module.exports = require('better-sqlite3');
