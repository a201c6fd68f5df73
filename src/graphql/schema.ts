/**
 * The API contract, read from `schema.graphql` at the repository root: the one source the server,
 * codegen and clients share. The path is the same two levels up from `src/graphql` and from
 * `dist/graphql`, so the built service reads the same file.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

const SCHEMA_PATH = path.resolve(__dirname, '..', '..', 'schema.graphql');

export function loadTypeDefs(): string {
  return readFileSync(SCHEMA_PATH, 'utf8');
}
