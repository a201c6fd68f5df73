// @ts-check
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';
import graphql from '@graphql-eslint/eslint-plugin';
import { importX } from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import { readLayers } from './scripts/architecture-layers.mjs';

/** Every kind of schema element that must carry a description: all of them. */
const DESCRIBED = {
  types: true,
  rootField: true,
  FieldDefinition: true,
  InputValueDefinition: true,
  EnumValueDefinition: true,
  DirectiveDefinition: true,
};

/**
 * The service's layers, lowest first, as docs/ARCHITECTURE.md's "Layout" table states them: a
 * module may import from its own layer's siblings and from lower layers, never from a higher one.
 * The stand-in package is fenced on its own below; bench sits on top of everything.
 */
const LAYERS = readLayers();
const UPWARD_IMPORTS = LAYERS.flatMap((layer, i) =>
  layer.map((target) => ({
    target: `./${target}`,
    from: [...LAYERS.slice(i + 1).flat(), 'bench'].map((above) => `./${above}`),
    message: `${target} is below it: imports run down the layers (docs/ARCHITECTURE.md, Layout).`,
  })),
);

/** The stand-in package, a product of its own (packages/mongodb-standin/README.md). */
const STANDIN = './packages/mongodb-standin';
/**
 * The service reaches the stand-in through its entry only (`import ... from 'mongodb-standin'`,
 * which resolves to src/index.ts); its tests also use three of the package's test modules: the
 * clients of the database under test, and the process functions that SIGKILL a stand-in on a full
 * disk.
 */
const STANDIN_ENTRY_ONLY = {
  target: ['./src', './test', './bench', './e2e', './client', './explorer', './scripts'],
  from: STANDIN,
  except: ['./src/index.ts', './test/support/db.ts', './test/cli-process.ts', './test/tmpfs.ts'],
  message: "The service imports the stand-in only through its entry, 'mongodb-standin'.",
};
/** ...and the package imports nothing of the service, nor anything else outside itself. */
const STANDIN_SELF_CONTAINED = {
  target: STANDIN,
  from: '.',
  except: [STANDIN, './node_modules'],
  message: 'packages/mongodb-standin imports nothing from outside the package.',
};
const IMPORT_RESOLVER = {
  ...importX.flatConfigs.typescript.settings,
  'import-x/resolver-next': [createTypeScriptImportResolver({ project: 'tsconfig.json' })],
};

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'dist/',
      'packages/*/dist/',
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
  // The import graph of src and bench: no cycles, no import running back up the layers, and the
  // stand-in only through its entry. test/graphql/lint-fences.test.ts shows each rule refusing a
  // bad import.
  {
    files: ['src/**/*.ts', 'bench/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: IMPORT_RESOLVER,
    rules: {
      'import-x/no-cycle': 'error',
      'import-x/no-restricted-paths': ['error', { zones: [...UPWARD_IMPORTS, STANDIN_ENTRY_ONLY] }],
    },
  },
  {
    files: ['test/**/*.ts', 'e2e/**/*.ts', 'client/**/*.ts', 'explorer/**/*.ts', 'scripts/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: IMPORT_RESOLVER,
    rules: { 'import-x/no-restricted-paths': ['error', { zones: [STANDIN_ENTRY_ONLY] }] },
  },
  // The stand-in package: no cycles, and nothing imported from outside it.
  {
    files: ['packages/mongodb-standin/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: IMPORT_RESOLVER,
    rules: {
      'import-x/no-cycle': 'error',
      'import-x/no-restricted-paths': ['error', { zones: [STANDIN_SELF_CONTAINED] }],
    },
  },
  // One import style everywhere: static relative imports name the module without an extension.
  // The package is CommonJS under `nodenext`, so tsc, tsx, ts-jest and jest's global setup (which
  // Node resolves, without jest's module mapping) all find `./x`. A dynamic import() is ESM and
  // names `./x.js`, as tsc requires. test/graphql/lint-fences.test.ts shows the rule biting.
  {
    files: ['**/*.ts'],
    plugins: { 'import-x': importX },
    settings: IMPORT_RESOLVER,
    rules: { 'import-x/extensions': ['error', 'never', { ignorePackages: true }] },
  },
  // src/graphql wires the schema to plain domain objects; driver types stay in src/database and
  // the components: resolvers never see a bson Long or a MongoDB document.
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
      // entities (Relay's own spec gives them no id); PageInfo, MutationError, SequenceRange, the
      // gaps and past periods of a sequence and StrategyStats are values that belong to their parent; Viewer is the caller and RequestLimits
      // and CallerBudget its bounds, not stored objects.
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
              'SequencePastPeriod',
              'SequencePastPeriods',
              'SequenceChange',
              'UserCreated',
              'StrategyStats',
              'Viewer',
              'RequestLimits',
              'CallerBudget',
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
