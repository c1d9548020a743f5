/**
 * Preloaded (`node --require`) into the servers the e2e suites start on another Node than the workspace's
 * (ASSISTANT_E2E_NODE, e.g. Node 24 in CI): the workspace's native modules are built for the workspace's Node, so
 * they are resolved from E2E_NATIVE_MODULES_FROM instead, a folder where they were installed with that other Node
 * (the pack-and-install check's). Everything else still comes from the workspace's own build.
 */
const Module = require('node:module');

/** The native modules the servers load; each must be installed in the folder. */
const NATIVE_MODULES = new Set(['better-sqlite3', 'better-sqlite3-v13']);
const from = process.env.E2E_NATIVE_MODULES_FROM;

if (from) {
  const resolveFilename = Module._resolveFilename;
  Module._resolveFilename = function (request, parent, isMain, options) {
    if (NATIVE_MODULES.has(request))
      return resolveFilename.call(this, request, parent, isMain, { paths: [from] });
    return resolveFilename.call(this, request, parent, isMain, options);
  };
}
