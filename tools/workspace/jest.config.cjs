/**
 * A relative `preset` is resolved against `rootDir` (jest-config's setupPreset), so rootDir must be this
 * folder for '../../jest.preset.js' to point at the workspace root's preset.
 */
/** @type {import('jest').Config} */
module.exports = {
  displayName: 'workspace-checks',
  rootDir: __dirname,
  preset: '../../jest.preset.js',
  // Building the Nx project graph and loading ESLint take a few seconds on a cold start.
  testTimeout: 60_000,
};
