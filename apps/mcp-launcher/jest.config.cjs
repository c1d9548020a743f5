/** Unit tests in src/, and test/ where the built launcher runs as an MCP client would start it. */
module.exports = {
  preset: '../../jest.preset.js',
  rootDir: __dirname,
  displayName: 'mcp-launcher',
  testTimeout: 30_000,
};
