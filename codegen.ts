/**
 * GraphQL Code Generator: `schema.graphql` is the single source; this file says what is generated
 * from it. Each key of `generates` is one output, so other targets (the example page's typed client
 * documents) are added as further keys. Output is committed and CI checks it is fresh.
 */
import type { CodegenConfig } from '@graphql-codegen/cli';
import { clientPreset } from './client/codegen';

/** How the schema's enums and scalars are typed, alike in both server files. */
const SCHEMA_TYPES = {
  enumsAsTypes: true,
  scalars: { Long: 'number', DateTime: 'Date', ID: 'string' },
};

const config: CodegenConfig = {
  schema: 'schema.graphql',
  generates: {
    // The schema's own types (enums, inputs, objects), importing nothing, so the modules that
    // name them (errors, connections) and the resolver types below form no circle.
    'src/graphql/generated/schema-types.ts': {
      plugins: ['typescript'],
      config: { ...SCHEMA_TYPES, useTypeImports: true },
    },
    // Server resolver types: parent values are the plain domain objects the components return
    // (never a MongoDB document), so the compiler checks every field resolvers hand over.
    'src/graphql/generated/resolvers-types.ts': {
      plugins: [
        { add: { content: "import type * as Types from './schema-types';" } },
        'typescript-resolvers',
      ],
      config: {
        ...SCHEMA_TYPES,
        namespacedImportName: 'Types',
        useTypeImports: true,
        useIndexSignature: true,
        contextType: '../context#GraphQLContext',
        mappers: {
          User: '../../users/index#User as UserModel',
          UserConnection: '../connections#UserConnectionSource',
          SequenceConnection: '../connections#SequenceConnectionSource',
          Viewer: '../../auth/index#Caller',
          RequestLimits: '../request-limits#RequestLimitsSource',
          Sequence: '../../sequences/index#SequenceState',
        },
      },
    },
    // The example page's typed client documents, with the client preset as the API ships it
    // (client/codegen.ts): a schema change that breaks the page's operations breaks
    // `npm run typecheck`.
    'e2e/page/gql/': clientPreset(['e2e/page/operations/**/*.graphql']),
    // The schema's interfaces and their types (`Node`: `User`, `Sequence`), which the shipped
    // cache configurations hand to Apollo Client and graphcache (`possibleTypes`), so fragments on
    // `Node` match by the schema, never heuristically.
    'client/generated/possible-types.ts': {
      plugins: ['fragment-matcher'],
      config: { apolloClientVersion: 3, useExplicitTyping: true },
    },
  },
};

export default config;
