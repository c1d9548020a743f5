/**
 * Test-only preload (`NODE_OPTIONS="--require <this file>"`): on SIGUSR2 the server process writes which modules
 * of the packages named in LOADED_MODULES_PROBE (a comma-separated list) it has loaded, as one
 * `loaded-modules […]` line on stderr. Nothing of it is part of the product.
 */
'use strict';

const packages = (process.env.LOADED_MODULES_PROBE ?? '').split(',').filter(Boolean);

process.on('SIGUSR2', () => {
  const loaded = Object.keys(require.cache).filter((file) =>
    packages.some((name) => file.includes(`/node_modules/${name}/`)),
  );
  process.stderr.write(`loaded-modules ${JSON.stringify(loaded)}\n`);
});
