/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';
export type CreateUserInput = {
  /** Optional; unique among users when given. */
  email?: string | null | undefined;
  /**
   * Optional, 1 to 128 characters. Retrying with the same key returns the first result and never
   * creates a second user; the same key with different input is refused.
   */
  idempotencyKey?: string | null | undefined;
  /** The id of an existing user. */
  invitedById?: string | null | undefined;
  /** 1 to 100 characters after trimming; no control characters. */
  name: string;
};

/** How a user's `_id` is chosen. */
export type IdStrategy =
  /**
   * Hi/lo-style block: each service process reserves `ID_BLOCK_SIZE` ids (default 100) with one
   * `$inc` on the same `userid` counter and hands them out locally: about 1 command per user.
   * Ids are unique across processes but not issued in time order; a crash leaves gaps, never duplicates.
   */
  | 'BLOCK'
  /**
   * The tutorial's first method: a `counters` collection whose `{ _id: "userid", seq: NumberLong }`
   * document is advanced with one atomic `findAndModify` + `$inc` per user (upsert, retried on the
   * upsert race's duplicate key). Costs 2 database commands per user; every insert serialises on
   * the one counter document. Ids are issued in time order.
   */
  | 'COUNTER'
  /**
   * The tutorial's second method: read the largest `_id`, insert max + 1, retry when another writer
   * took that `_id` first. Needs no counter document; costs 2 commands per attempt, and attempts grow
   * with concurrency. Retries only on a duplicate `_id`, bounded, with jittered backoff.
   */
  | 'OPTIMISTIC_LOOP';

export type CreateUserMutationVariables = Exact<{
  input: CreateUserInput;
  strategy?: IdStrategy | null | undefined;
}>;


export type CreateUserMutation = { createUser: { strategy: IdStrategy, attempts: number, user: { id: string, name: string, email: string | null, createdWith: IdStrategy } } };

export type UsersQueryVariables = Exact<{
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type UsersQuery = { users: { edges: Array<{ node: { id: string, name: string, email: string | null, createdWith: IdStrategy } }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } };


export const CreateUserDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"CreateUser"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"input"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"CreateUserInput"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"strategy"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"IdStrategy"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"createUser"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"input"},"value":{"kind":"Variable","name":{"kind":"Name","value":"input"}}},{"kind":"Argument","name":{"kind":"Name","value":"strategy"},"value":{"kind":"Variable","name":{"kind":"Name","value":"strategy"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"user"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"email"}},{"kind":"Field","name":{"kind":"Name","value":"createdWith"}}]}},{"kind":"Field","name":{"kind":"Name","value":"strategy"}},{"kind":"Field","name":{"kind":"Name","value":"attempts"}}]}}]}}]} as unknown as DocumentNode<CreateUserMutation, CreateUserMutationVariables>;
export const UsersDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"Users"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"first"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"after"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"users"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"first"},"value":{"kind":"Variable","name":{"kind":"Name","value":"first"}}},{"kind":"Argument","name":{"kind":"Name","value":"after"},"value":{"kind":"Variable","name":{"kind":"Name","value":"after"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"edges"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"node"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"email"}},{"kind":"Field","name":{"kind":"Name","value":"createdWith"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"pageInfo"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"hasNextPage"}},{"kind":"Field","name":{"kind":"Name","value":"endCursor"}}]}}]}}]}}]} as unknown as DocumentNode<UsersQuery, UsersQueryVariables>;