/** End-to-end: each suite starts the built servers as child processes and talks HTTP to them. */
module.exports = {
  preset: '../../jest.preset.js',
  rootDir: __dirname,
  displayName: 'api-e2e',
  testMatch: ['<rootDir>/src/**/*.e2e-spec.ts'],
  testTimeout: 60_000,
  maxWorkers: 2,
};
