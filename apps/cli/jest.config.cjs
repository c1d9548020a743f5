/** Unit tests of the CLI's own modules (the chat renderer); the built command is tested in apps/api-e2e. */
module.exports = {
  preset: '../../jest.preset.js',
  rootDir: __dirname,
  displayName: 'cli',
  testTimeout: 30_000,
};
