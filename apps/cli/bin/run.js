#!/usr/bin/env node
// The `assistant` command. Commands are compiled to ../dist; run `npm run build` at the repository root first.
// `chat` and `serve` in their plain forms run without oclif (dist/chat/fast-chat.js, dist/serve/fast-serve.js): a
// question should not wait for the framework, nor should the server's start; anything else, `--help` included,
// goes through oclif.
const oclif = () => require('@oclif/core').execute({ dir: __dirname }).catch(require('@oclif/core/handle'));
const [command, ...rest] = process.argv.slice(2);
// Node 22.1 and later keep the compiled code of every module in a cache on disk (under the OS's temp folder), so
// that each later command starts without parsing them again. Node 20 (end of life) has no such cache and runs
// untuned.
require('node:module').enableCompileCache?.();
const withoutOclif = {
  chat: () => require('../dist/chat/fast-chat').chatWithoutOclif(rest),
  serve: () => require('../dist/serve/fast-serve').serveWithoutOclif(rest),
};
if (Object.hasOwn(withoutOclif, command)) {
  withoutOclif[command]().then(
    (done) => done || oclif(),
    (error) => require('@oclif/core/handle')(error),
  );
} else {
  oclif();
}
