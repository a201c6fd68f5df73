// @ts-check
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';
import graphql from '@graphql-eslint/eslint-plugin';
import { importX } from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';

/** Every kind of schema element that must carry a description (the issue: all of them). */
const DESCRIBED = {
  types: true,
  rootField: true,
  FieldDefinition: true,
  InputValueDefinition: true,
  EnumValueDefinition: true,
  DirectiveDefinition: true,
};

/**
 * The service's layers, lowest first: a module may import from its own layer's siblings and from
 * lower layers, never from a higher one (docs/ARCHITECTURE.md, "Layout"). The stand-in is fenced
 * on its own below; bench sits on top of everything.
 */
const LAYERS = [
  ['src/errors.ts', 'src/limits.ts'],
  ['src/auth'],
  ['src/config.ts', 'src/logger.ts'],
  ['src/database'],
  ['src/sequences', 'src/stats'],
  ['src/strategies'],
  ['src/users'],
  ['src/components.ts'],
  ['src/graphql'],
  ['src/http'],
  ['src/main.ts'],
];
const UPWARD_IMPORTS = LAYERS.flatMap((layer, i) =>
  layer.map((target) => ({
    target: `./${target}`,
    from: [...LAYERS.slice(i + 1).flat(), 'bench'].map((above) => `./${above}`),
    message: `${target} is below it: imports run down the layers (eslint.config.mjs, LAYERS).`,
  })),
);

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'dist/',
      'coverage/',
      '.data/',
      'test-output/',
      'src/graphql/generated/',
      'e2e/page/gql/',
      'client/generated/',
      'e2e/page/dist/',
    ],
  },
  eslint.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
    },
  },
  // The import graph of src and bench: no cycles, and no import running back up the layers.
  // test/graphql/lint-fences.test.ts shows both rules refusing a bad import.
  {
    files: ['src/**/*.ts', 'bench/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      ...importX.flatConfigs.typescript.settings,
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: 'tsconfig.json' })],
    },
    rules: {
      'import-x/no-cycle': 'error',
      'import-x/no-restricted-paths': ['error', { zones: UPWARD_IMPORTS }],
    },
  },
  // One import style everywhere: static relative imports name the module without an extension.
  // The package is CommonJS under `nodenext`, so tsc, tsx, ts-jest and jest's global setup (which
  // Node resolves, without jest's module mapping) all find `./x`. A dynamic import() is ESM and
  // names `./x.js`, as tsc requires. test/graphql/lint-fences.test.ts shows the rule biting.
  {
    files: ['**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      ...importX.flatConfigs.typescript.settings,
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: 'tsconfig.json' })],
    },
    rules: { 'import-x/extensions': ['error', 'never', { ignorePackages: true }] },
  },
  // The stand-in is a separate product: it must never reach into the service. Inside it, any
  // relative import is fine as long as it stays below src/standin (one rule per folder depth).
  ...[
    ['src/standin/*.ts', '../*'],
    ['src/standin/*/*.ts', '../../*'],
    ['src/standin/*/*/*.ts', '../../../*'],
  ].map(([files, leaving]) => ({
    files: [files],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: [leaving], message: 'src/standin imports nothing from the service.' },
          ],
        },
      ],
    },
  })),
  // src/graphql wires the schema to plain domain objects; driver types stay in src/database and
  // the components (issue 12: resolvers never see a bson Long or a MongoDB document).
  {
    files: ['src/graphql/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: 'mongodb', message: 'src/graphql imports nothing from the driver.' },
            { name: 'bson', message: 'src/graphql imports nothing from bson.' },
          ],
          patterns: [
            {
              group: ['mongodb/*', 'bson/*'],
              message: 'src/graphql imports nothing from the driver.',
            },
          ],
        },
      ],
    },
  },
  // The schema: graphql-eslint's recommended and Relay rules. Only the options below differ.
  {
    files: ['schema.graphql'],
    languageOptions: {
      parser: graphql.parser,
      parserOptions: { graphQLConfig: { schema: 'schema.graphql' } },
    },
    plugins: { '@graphql-eslint': graphql },
    rules: {
      ...graphql.configs['flat/schema-recommended'].rules,
      ...graphql.configs['flat/schema-relay'].rules,
      '@graphql-eslint/require-description': ['error', DESCRIBED],
      // Exceptions, each with its reason: payloads, connections, edges and results are answers, not
      // entities (Relay's own spec gives them no id); PageInfo, MutationError, SequenceRange and
      // StrategyStats are values that belong to their parent; Viewer is the caller and RequestLimits
      // its bounds, not stored objects.
      '@graphql-eslint/strict-id-in-types': [
        'error',
        {
          exceptions: {
            types: [
              'PageInfo',
              'MutationError',
              'SequenceRange',
              'SequenceGap',
              'SequenceGaps',
              'SequenceChange',
              'UserCreated',
              'StrategyStats',
              'Viewer',
              'RequestLimits',
            ],
            suffixes: ['Payload', 'Connection', 'Edge', 'Result'],
          },
        },
      ],
      // Exception: lists that are not connections are allowed where Relay itself has one (`nodes`)
      // and where the list is bounded and never paged (three strategies, one result per batch input).
      '@graphql-eslint/relay-edge-types': ['error', { listTypeCanWrapOnlyEdgeType: false }],
    },
  },
);
