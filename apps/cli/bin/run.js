#!/usr/bin/env node
// The `assistant` command. Its code is one bundle in ../dist (apps/cli/bundle/bundle.mjs, the CLI's build; run
// `npm run build` at the repository root first), split by what each command loads: `chat` and `serve` in their plain
// forms run without oclif (dist/chat.mjs, dist/serve.mjs): a question should not wait for the framework, nor should
// the server's start; anything else, `--help` included, goes through oclif (dist/commands.mjs).
// Node 22.1 and later keep the compiled code of every module in a cache on disk (under the OS's temp folder), so
// that each later command starts without parsing them again. Node 20 (end of life) has no such cache and runs
// untuned. Before the first import.
require('node:module').enableCompileCache?.();
const [command, ...rest] = process.argv.slice(2);
const load = (entry) => import(`../dist/${entry}.mjs`);
const oclif = () => load('commands').then(({ execute, handle }) => execute({ dir: __dirname }).catch(handle));
const withoutOclif = {
  chat: () => load('chat').then(({ chatWithoutOclif }) => chatWithoutOclif(rest)),
  serve: () => load('serve').then(({ serveWithoutOclif }) => serveWithoutOclif(rest)),
};
if (Object.hasOwn(withoutOclif, command)) {
  withoutOclif[command]().then(
    (done) => done || oclif(),
    (error) => load('commands').then(({ handle }) => handle(error)),
  );
} else {
  oclif();
}
