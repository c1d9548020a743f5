/**
 * linkedom's CommonJS build requires css-select, htmlparser2 and their kin, which are ES modules only. Node loads
 * them (require of ESM, Node 20.19+); jest's module system does not, so its tests compile them to CommonJS.
 */
const ESM_ONLY = [
  'css-select',
  'css-what',
  'nth-check',
  'htmlparser2',
  'boolbase',
  'uhyphen',
  'entities',
  'domhandler',
  'domutils',
  'dom-serializer',
  'domelementtype',
  'cssomnom',
];

module.exports = {
  preset: '../../../jest.preset.js',
  rootDir: __dirname,
  testTimeout: 30_000,
  // Merged with the preset's TypeScript transform.
  transform: {
    '^.+\\.js$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }],
  },
  transformIgnorePatterns: [`/node_modules/(?!(${ESM_ONLY.join('|')})/)`],
};
