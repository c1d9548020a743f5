// ESLint 9 flat config for the whole workspace.
//
// Every project's `lint` target runs `eslint --max-warnings=0 {projectRoot}` (nx.json targetDefaults), so a
// warning fails the build just like an error. Rules are therefore either "error" or "off": a rule that is
// worth a warning is worth an error. tools/workspace/src/module-boundaries.spec.ts checks that no rule
// resolves to "warn" and that the module boundaries below are really enforced.
//
// No type-aware rules (they need a TypeScript program per file and are slow).
import nx from '@nx/eslint-plugin';
import prettier from 'eslint-config-prettier/flat';
import jsoncParser from 'jsonc-eslint-parser';

const JS_TS_FILES = [
  '**/*.ts',
  '**/*.tsx',
  '**/*.cts',
  '**/*.mts',
  '**/*.js',
  '**/*.jsx',
  '**/*.cjs',
  '**/*.mjs',
];

// The dependency rules of ARCHITECTURE.md ("Dependency rules"), by project tag.
// Projects are named and imported by their npm names (@assistant/contracts, ...), resolved through npm
// workspaces; Nx maps those names to projects through each project's package.json.
const ALL_LIBS = [
  'type:contracts',
  'type:client',
  'type:storage',
  'type:auth',
  'type:agent-core',
  'type:tool-kit',
  'type:tool-family',
];
// agent-core and the tools libs must stay usable by the CLI and the launcher without booting Nest.
// Loaded only by the hosted composition (`@assistant/hosted`).
const SHARED_STATE_BACKENDS = ['ioredis', 'rate-limiter-flexible'];
const NO_SERVER_FRAMEWORK = ['@nestjs/*', 'typeorm', 'fastify', '@fastify/*', 'better-sqlite3', 'pg'];

const depConstraints = [
  { sourceTag: 'type:contracts', onlyDependOnLibsWithTags: ['type:contracts'] },
  { sourceTag: 'type:client', onlyDependOnLibsWithTags: ['type:contracts'] },
  // Storage takes its SQLite driver on Node 20 from @assistant/sqlite-node20 (better-sqlite3 12, nothing of ours).
  { sourceTag: 'type:storage', onlyDependOnLibsWithTags: ['type:contracts', 'type:sqlite-driver'] },
  { sourceTag: 'type:sqlite-driver', onlyDependOnLibsWithTags: [] },
  { sourceTag: 'type:auth', onlyDependOnLibsWithTags: ['type:storage', 'type:contracts'] },
  {
    sourceTag: 'type:tool-kit',
    onlyDependOnLibsWithTags: ['type:contracts'],
    bannedExternalImports: NO_SERVER_FRAMEWORK,
  },
  // A family is a plug-in: the kit and the contracts, nothing else of ours (never agent-core or another family).
  {
    sourceTag: 'type:tool-family',
    onlyDependOnLibsWithTags: ['type:contracts', 'type:tool-kit'],
    bannedExternalImports: NO_SERVER_FRAMEWORK,
  },
  // agent-core names no family: the server hands it the families' tools and phrases.
  {
    sourceTag: 'type:agent-core',
    onlyDependOnLibsWithTags: ['type:contracts', 'type:tool-kit'],
    bannedExternalImports: NO_SERVER_FRAMEWORK,
  },
  // The server kit is what every feature builds on (HTTP helpers, @Route, pages, sessions, settings, ports): it
  // knows no feature, so it never imports the server, MCP or the hosted composition.
  {
    sourceTag: 'type:server-kit',
    onlyDependOnLibsWithTags: ALL_LIBS,
    bannedExternalImports: SHARED_STATE_BACKENDS,
  },
  // MCP serves the account's tools through the kit's tool-catalogue port, never the whole server.
  {
    sourceTag: 'type:mcp-server',
    onlyDependOnLibsWithTags: ['type:server-kit', ...ALL_LIBS],
    bannedExternalImports: SHARED_STATE_BACKENDS,
  },
  // The authorization server and its consent pages build on the kit (pages, sessions, the storage and config
  // ports), never on the server that mounts them.
  {
    sourceTag: 'type:oauth',
    onlyDependOnLibsWithTags: ['type:server-kit', ...ALL_LIBS],
    bannedExternalImports: SHARED_STATE_BACKENDS,
  },
  // The pages for people (sign-in, /profile, the web app) build on the kit too, never on the server that mounts them
  // nor on OAuth, whose Applications section /profile finds by its mark.
  {
    sourceTag: 'type:web',
    onlyDependOnLibsWithTags: ['type:server-kit', ...ALL_LIBS],
    bannedExternalImports: SHARED_STATE_BACKENDS,
  },
  // The server never loads a shared-state backend: a self-hosted install carries no Redis client.
  // The queries run the agent on the kit's ports (the tool catalogue, the event log, run slots), never the server.
  {
    sourceTag: 'type:queries',
    onlyDependOnLibsWithTags: ['type:server-kit', ...ALL_LIBS],
    bannedExternalImports: SHARED_STATE_BACKENDS,
  },
  {
    sourceTag: 'type:server',
    onlyDependOnLibsWithTags: [
      'type:server-kit',
      'type:mcp-server',
      'type:oauth',
      'type:web',
      'type:queries',
      ...ALL_LIBS,
    ],
    bannedExternalImports: SHARED_STATE_BACKENDS,
  },
  // The hosted composition plugs Redis into the server's ports (`@assistant/server/hosting`).
  {
    sourceTag: 'type:hosted',
    onlyDependOnLibsWithTags: [
      'type:server',
      'type:server-kit',
      'type:mcp-server',
      'type:oauth',
      'type:queries',
      ...ALL_LIBS,
    ],
  },
  // The self-hosted composition plugs the in-memory parts of one process into the same ports; the server knows
  // neither composition (its tag list has neither), and `scope:self-host` below keeps this one off the hosted one.
  {
    sourceTag: 'type:self-host',
    onlyDependOnLibsWithTags: [
      'type:server',
      'type:server-kit',
      'type:mcp-server',
      'type:web',
      'type:queries',
      ...ALL_LIBS,
    ],
    bannedExternalImports: SHARED_STATE_BACKENDS,
  },
  {
    sourceTag: 'type:app',
    onlyDependOnLibsWithTags: [
      'type:hosted',
      'type:self-host',
      'type:server',
      'type:server-kit',
      'type:queries',
      'type:mcp-server',
      'type:oauth',
      'type:web',
      ...ALL_LIBS,
    ],
  },
  // `assistant serve`, the self-hosted server and their composition (`@assistant/self-host`) run on one process:
  // they never reach the hosted composition.
  { sourceTag: 'scope:self-host', notDependOnLibsWithTags: ['type:hosted'] },
  // The stdio MCP launcher relays to a server over HTTP: never server or storage.
  {
    sourceTag: 'type:launcher',
    onlyDependOnLibsWithTags: ['type:client', 'type:contracts', 'type:agent-core', 'type:tool-kit'],
  },
  // End-to-end suites drive the built apps through the client, as a user would.
  { sourceTag: 'type:e2e', onlyDependOnLibsWithTags: ['type:client', 'type:contracts', 'type:tools'] },
  { sourceTag: 'type:tools', onlyDependOnLibsWithTags: ['type:client', 'type:contracts'] },
];

export default [
  {
    ignores: [
      '**/dist/',
      '**/node_modules/',
      '**/.nx/',
      '**/coverage/',
      '**/*.d.ts',
      'tmp/',
      'package-lock.json',
    ],
  },
  {
    linterOptions: { reportUnusedDisableDirectives: 'error' },
  },

  ...nx.configs['flat/base'],
  ...nx.configs['flat/typescript'],
  ...nx.configs['flat/javascript'],

  {
    files: JS_TS_FILES,
    languageOptions: { ecmaVersion: 'latest' },
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: true,
          allow: [],
          depConstraints,
        },
      ],

      // The Nx presets set these to "warn"; with --max-warnings=0 that is an error in disguise. Make it explicit.
      'no-unused-vars': 'off',
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          args: 'after-used',
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
      // `unknown` plus a zod parse or a type guard instead.
      '@typescript-eslint/no-explicit-any': ['error', { ignoreRestArgs: true }],
      // Off: in a strict codebase a non-null assertion is a deliberate, visible escape hatch (tests use it a lot).
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
  },

  // JSON: parsed (so a broken package.json/project.json/tsconfig fails lint), and every project always has
  // something to lint (eslint exits with an error when a project folder holds no lintable file).
  {
    files: ['**/*.json'],
    languageOptions: { parser: jsoncParser },
  },

  // Last: turn off every stylistic rule that Prettier owns.
  prettier,
];
