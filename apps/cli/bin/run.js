#!/usr/bin/env node
// The `assistant` command. Commands are compiled to ../dist; run `npm run build` at the repository root first.
// `chat` in its plain forms runs without oclif (dist/chat/fast-chat.js): a question should not wait for the
// framework; anything else, `chat --help` included, goes through oclif.
// Node 22.1 and later keep the compiled code of every module in a cache on disk (under the OS's temp folder), so
// that each later command starts without parsing them again; Node 20 has no such cache and skips this.
require('node:module').enableCompileCache?.();
const oclif = () => require('@oclif/core').execute({ dir: __dirname }).catch(require('@oclif/core/handle'));
const [command, ...rest] = process.argv.slice(2);
if (command === 'chat') {
  require('../dist/chat/fast-chat')
    .chatWithoutOclif(rest)
    .then(
      (done) => done || oclif(),
      (error) => require('@oclif/core/handle')(error),
    );
} else {
  oclif();
}
