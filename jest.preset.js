/**
 * Shared jest settings: TypeScript through SWC (with decorator metadata, as Nest needs), node environment.
 * Test tiers by file name: *.spec.ts (units), *.integration-spec.ts (real databases and servers).
 */
const { join } = require('node:path');

module.exports = {
  reporters: ['default', join(__dirname, 'tools/workspace/scripts/jest-summary-reporter.cjs')],
  testEnvironment: 'node',
  setupFiles: [join(__dirname, 'tools/workspace/scripts/jest-test-env.cjs')],
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      {
        jsc: {
          parser: { syntax: 'typescript', decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: true },
          target: 'es2022',
        },
        module: { type: 'commonjs' },
      },
    ],
  },
  moduleFileExtensions: ['ts', 'js', 'json'],
  testMatch: ['**/?(*.)+(spec|integration-spec).ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  passWithNoTests: false,
};
