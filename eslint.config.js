import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * The server's layers (docs/architecture.md): http → services → stores | chain, nothing upward, and
 * `composition/` the only folder that constructs stores, gateways and services to wire them. Each entry
 * lists what a folder may not import; a pattern with `allowTypeImports` still lets it name the types.
 */
const server = 'packages/server/src';
const FASTIFY = ['fastify', 'fastify/*', '@fastify/*'];
const layer = (name) => [`**/${name}/*`, `**/${name}/**`, `./${name}/*`];
const restrict = (message, group, allowTypeImports = false, names = {}) => ({
  group,
  message,
  allowTypeImports,
  ...names,
});
const layerRules = [
  {
    files: [`${server}/services/**/*.ts`],
    patterns: [
      restrict('services never import Fastify (http/ does)', [...FASTIFY, ...layer('http')]),
      restrict('services never import Kysely: they take stores through their constructors', [
        'kysely',
        ...layer('db'),
      ]),
      restrict('services never import viem: chain/ does (checksums: chain/address.ts)', ['viem', 'viem/*']),
      restrict('services are wired by composition/, never the other way', layer('composition')),
      restrict(
        'services take stores through their constructors: type imports only (composition/ builds them)',
        layer('stores'),
        true,
      ),
      restrict(
        'services take gateways through their constructors: chain types only, plus the pure helpers chain/address.ts and chain/operations/operationOwner.ts',
        [
          ...layer('chain'),
          '!**/chain/address.js',
          // gitignore rules: the folder is let in again so that one file in it can be.
          '!**/chain/operations',
          '**/chain/operations/*',
          '!**/chain/operations/operationOwner.js',
        ],
        true,
      ),
    ],
  },
  {
    files: [`${server}/stores/**/*.ts`],
    patterns: [
      restrict('stores sit below services: they never import services, http, chain or composition', [
        ...layer('services'),
        ...layer('http'),
        ...layer('chain'),
        // The chain journal's store backs a port of chain/: it names that port's record types (types only).
        '!**/chain/journal',
        '**/chain/journal/*',
        '!**/chain/journal/transactionJournal.js',
        ...layer('composition'),
        ...FASTIFY,
        'viem',
        'viem/*',
      ]),
    ],
  },
  {
    files: [`${server}/chain/**/*.ts`],
    patterns: [
      restrict(
        'chain/ sits below services: it returns its own types (the composition root fits them to service ports)',
        [
          ...layer('services'),
          ...layer('http'),
          ...layer('stores'),
          ...layer('composition'),
          ...FASTIFY,
          'kysely',
        ],
      ),
    ],
  },
  {
    // The CLI's commands are another front end over the same services.
    files: [`${server}/http/**/*.ts`, `${server}/cli/**/*.ts`],
    patterns: [
      restrict('http/ and cli/ reach data through services, never through stores or Kysely', [
        ...layer('stores'),
        ...layer('db'),
        'kysely',
      ]),
      restrict(
        'http/ and cli/ reach the chain through services; they may name chain types and use chain/address.ts',
        // routes/chain/ is the HTTP route folder for /v1/chain/*, not the chain layer.
        [...layer('chain'), '!**/chain/types.js', '!**/chain/address.js', '!**/routes/chain/*'],
      ),
      restrict(
        'http/ and cli/ are handed their services by the composition root: they name `Services`, `OfflineServices`, `ContentServices` and `BackendIntegration` (types), never `Composition` (which adds the stores and gateways) or a builder',
        [...layer('composition'), '!**/composition/startupProgress.js'],
        false,
        { allowImportNames: ['Services', 'OfflineServices', 'ContentServices', 'BackendIntegration'] },
      ),
      restrict(
        'the start progress is created by server.ts: http/ names its type only',
        ['**/composition/startupProgress.js'],
        true,
      ),
    ],
  },
  {
    files: [`${server}/{crypto,db,workers}/**/*.ts`],
    patterns: [
      restrict('crypto/, db/ and workers/ are leaves: they import no layer', [
        ...layer('services'),
        ...layer('http'),
        ...layer('stores'),
        ...layer('chain'),
        ...layer('composition'),
      ]),
    ],
  },
].map(({ files, patterns }) => ({
  files,
  rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns }] },
}));

export default tseslint.config(
  {
    ignores: [
      '**/.scratch*/**',
      '**/dist/**',
      '**/node_modules/**',
      'data/**',
      'sdk/**',
      'packages/contracts/src/generated/**',
    ],
  },
  eslint.configs.recommended,
  {
    // Plain Node scripts (the SDK's quick start runs as is in a freshly installed project).
    files: ['**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'off',
    },
  },
  ...layerRules,
  {
    // No hook parses cookies (http/cookies.ts): request.cookies is @fastify/cookie's, null in most scopes.
    files: ['packages/server/src/**/*.ts'],
    ignores: ['packages/server/src/http/cookies.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            "MemberExpression[property.name='cookies'][object.name='request'], MemberExpression[property.name='cookies'][object.property.name='request']",
          message:
            'Read a cookie with cookieOf (http/cookies.ts): no hook parses them, request.cookies is not filled.',
        },
      ],
    },
  },
);
