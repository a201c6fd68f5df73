/**
 * GraphQL Code Generator's client preset for this API, ready to use: without it the preset types
 * `Long` and `DateTime` as `unknown` and masks fragments, so typed use needs settings first. In a
 * frontend project's `codegen.ts`:
 *
 *   import { clientPreset } from './client/codegen';
 *   export default {
 *     schema: 'http://localhost:4000/schema.graphql', // or a copy of schema.graphql
 *     generates: { 'src/gql/': clientPreset(['src/**\/*.graphql']) },
 *   };
 *
 * This repository's own example page is generated with it (codegen.ts), so `npm run typecheck`
 * checks that typed use compiles.
 */
import type { CodegenConfig } from '@graphql-codegen/cli';
import { addTypenameSelectionDocumentTransform } from '@graphql-codegen/client-preset';

/** How this API's scalars arrive in JSON: `Long` a number (never beyond 2^53 - 1), `DateTime` an ISO string. */
export const SCALARS = { Long: 'number', DateTime: 'string', ID: 'string' } as const;

type Output = CodegenConfig['generates'][string];

/** The client preset's output for `documents`, with this API's scalars and unmasked fragments. */
export function clientPreset(documents: string[]): Output {
  return {
    preset: 'client',
    documents,
    // persisted-documents.json: the sha256 of each operation and its text, the manifest a
    // production service given TRUSTED_DOCUMENTS runs callers without a token from.
    presetConfig: { fragmentMasking: false, persistedDocuments: true },
    // `__typename` in every selection, as Apollo Client's cache adds it: a document run from the
    // manifest by its hash is the manifest's text, and without it the cache cannot match fragments.
    documentTransforms: [addTypenameSelectionDocumentTransform],
    config: { useTypeImports: true, enumsAsTypes: true, scalars: SCALARS },
  };
}
