'use strict';
// better-sqlite3 12, the last line that runs on Node 20, as the SQLite driver of @assistant/storage there. This
// package exists for its `engines`: @assistant/storage lists it as an optional dependency, and npm leaves out an
// optional dependency whose engines do not match, so that Node 22 and later (which use Node's own SQLite) never
// download or compile better-sqlite3. It depends on better-sqlite3 under another name, `better-sqlite3-node20`:
// under its own name, TypeORM's optional peer dependency on `better-sqlite3` would hold it in the tree, and npm
// would install and build it even where it leaves this package out.
module.exports = require('better-sqlite3-node20');
