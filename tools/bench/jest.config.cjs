/**
 * The bench's specs: plain ESM like the bench itself (*.spec.mjs, *.integration-spec.mjs), run untransformed
 * through Node's VM modules (the test target's --experimental-vm-modules), so that they import the very modules the
 * report runs. The integration specs start the built servers (the test target builds them first: the devDependencies
 * of package.json).
 */
/** @type {import('jest').Config} */
module.exports = {
  displayName: 'bench',
  preset: '../../jest.preset.js',
  rootDir: __dirname,
  moduleFileExtensions: ['mjs', 'js', 'json'],
  testMatch: ['**/?(*.)+(spec|integration-spec).mjs'],
  // A server's start and its first queries take a few seconds on a busy machine.
  testTimeout: 60_000,
};
