/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';
/** A new user. */
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
  /**
   * 1 to 100 characters after trimming, with a visible character; no control, format or bidi
   * override characters.
   */
  name: string;
};

/** One value per condition a client handles differently. Found in `MutationError.code`. */
export type ErrorCode =
  /**
   * The input breaks a rule (length, syntax, range, a conflicting sequence definition, a page size);
   * `field` names it and `message` says what to change.
   */
  | 'BAD_USER_INPUT'
  /** Another user already has this email. `field` is `email`. */
  | 'EMAIL_TAKEN'
  /** The caller's role may not do this to this object (e.g. a client touching `userid`). */
  | 'FORBIDDEN'
  /** This idempotency key was used before with other input. `field` is `idempotencyKey`. */
  | 'IDEMPOTENCY_KEY_REUSED'
  /**
   * Concurrent writers kept taking what this request needed until its bounded retries ran out;
   * nothing was stored. `retryable` is true.
   */
  | 'ID_CONTENTION'
  /** Another user already has this id (`importUsers`), with another name or email. `field` is `id`. */
  | 'ID_TAKEN'
  /** No user has the id given as `invitedById`. `field` is `invitedById`. */
  | 'INVITER_NOT_FOUND'
  /**
   * The reservation holds no value now: it was confirmed or released already, or its hold expired
   * and its value was handed out again. Nothing changed; allocate a new value.
   */
  | 'RESERVATION_NOT_FOUND'
  /**
   * The stored counter document was written by something else and cannot be trusted; `message` names
   * it and says how to repair it.
   */
  | 'SEQUENCE_CORRUPT'
  /** The allocation would pass the sequence's `max` or 2^53 - 1; nothing was consumed. */
  | 'SEQUENCE_EXHAUSTED'
  /** No sequence of this name and scope exists for the caller (only `createSequence` creates one). */
  | 'SEQUENCE_NOT_FOUND'
  /**
   * Not answered since 0.5.0: a gapless sequence keeps each waiting value in a document of its own,
   * so the number of values waiting for confirmation is no longer bounded.
   */
  | 'TOO_MANY_RESERVATIONS'
  /** No user has this id (`updateUser`, `deleteUser`). */
  | 'USER_NOT_FOUND';

/** How a user's `_id` is chosen. */
export type IdStrategy =
  /**
   * Hi/lo-style block: each service process reserves a block of ids with one `$inc` on the same
   * `userid` counter and hands them out locally, fetching the next block in the background before
   * this one runs out. Blocks last about 10 s of the process's creations (`ID_BLOCK_SIZE` to
   * `ID_BLOCK_SIZE_MAX` ids): about 1 command per user. Ids are unique across processes but not
   * issued in time order; a crash leaves gaps, never duplicates; a clean stop gives unused ids back
   * where it safely can.
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
   * with concurrency. Retries only on a duplicate `_id`, bounded, with jittered backoff. Reissues the
   * id of a deleted newest user.
   */
  | 'OPTIMISTIC_LOOP'
  /**
   * For numbers that must have no holes (invoices): the `$inc` on the `userid` counter and the insert
   * run in one multi-document transaction (`w: majority`), so a refused insert (duplicate email, a
   * fault, a crash before the commit) rolls the increment back. Ids stay 1..N, in time order, never
   * reissued after a delete. Costs 3 commands per user (the `$inc`, the insert, the commit); one
   * transaction at a time per process, transient conflicts with other instances retried (bounded,
   * jittered), then `ID_CONTENTION`. Needs a replica set: on a standalone it is `BAD_USER_INPUT` on
   * `strategy`, never a fallback.
   */
  | 'TRANSACTION';

/** The order of a users list. */
export type UserOrder =
  /** Oldest id first (1, 2, 3, ...). */
  | 'ID_ASC'
  /** Newest id first: what a table of recent sign-ups shows. */
  | 'ID_DESC';

export type CreateUserMutationVariables = Exact<{
  input: CreateUserInput;
  strategy?: IdStrategy | null | undefined;
}>;


export type CreateUserMutation = { __typename: 'Mutation', createUser: { __typename: 'CreateUserPayload', strategy: IdStrategy, attempts: number | null, user: { __typename: 'User', id: string, name: string, email: string | null, createdWith: IdStrategy } | null, userEdge: { __typename: 'UserEdge', cursor: string, node: { __typename: 'User', id: string, name: string, email: string | null, createdWith: IdStrategy } } | null, error: { __typename: 'MutationError', code: ErrorCode, message: string, field: string | null, retryable: boolean } | null } | null };

export type CreateUserPairMutationVariables = Exact<{
  first: CreateUserInput;
  second: CreateUserInput;
}>;


export type CreateUserPairMutation = { __typename: 'Mutation', first: { __typename: 'CreateUserPayload', userEdge: { __typename: 'UserEdge', cursor: string, node: { __typename: 'User', id: string, name: string, email: string | null, createdWith: IdStrategy } } | null, error: { __typename: 'MutationError', code: ErrorCode, message: string, field: string | null, retryable: boolean } | null } | null, second: { __typename: 'CreateUserPayload', userEdge: { __typename: 'UserEdge', cursor: string, node: { __typename: 'User', id: string, name: string, email: string | null, createdWith: IdStrategy } } | null, error: { __typename: 'MutationError', code: ErrorCode, message: string, field: string | null, retryable: boolean } | null } | null };

export type PairOutcomeFragment = { __typename: 'CreateUserPayload', userEdge: { __typename: 'UserEdge', cursor: string, node: { __typename: 'User', id: string, name: string, email: string | null, createdWith: IdStrategy } } | null, error: { __typename: 'MutationError', code: ErrorCode, message: string, field: string | null, retryable: boolean } | null };

export type DefineInvoiceNumbersMutationVariables = Exact<{ [key: string]: never; }>;


export type DefineInvoiceNumbersMutation = { __typename: 'Mutation', createSequence: { __typename: 'CreateSequencePayload', sequence: { __typename: 'Sequence', id: string, formattedValue: string | null } | null, error: { __typename: 'MutationError', code: ErrorCode, message: string, field: string | null } | null } | null };

export type InvoiceNumberSubscriptionVariables = Exact<{ [key: string]: never; }>;


export type InvoiceNumberSubscription = { sequenceChanged: { __typename: 'SequenceChange', cursor: string, sequence: { __typename: 'Sequence', id: string, value: number, formattedValue: string | null } } | null };

export type LatestSignUpsQueryVariables = Exact<{ [key: string]: never; }>;


export type LatestSignUpsQuery = { __typename: 'Query', users: { __typename: 'UserConnection', totalCount: number, edges: Array<{ __typename: 'UserEdge', cursor: string, node: { __typename: 'User', id: string, name: string, email: string | null, createdWith: IdStrategy } }> } | null };

export type ListedUserFragment = { __typename: 'User', id: string, name: string, email: string | null, createdWith: IdStrategy };

export type NextInvoiceNumberMutationVariables = Exact<{ [key: string]: never; }>;


export type NextInvoiceNumberMutation = { __typename: 'Mutation', allocateSequence: { __typename: 'AllocateSequencePayload', range: { __typename: 'SequenceRange', period: string | null, formatted: Array<string> | null } | null, sequence: { __typename: 'Sequence', id: string, value: number, currentPeriod: string | null, formattedValue: string | null } | null, error: { __typename: 'MutationError', code: ErrorCode, message: string, field: string | null } | null } | null };

export type ShownErrorFragment = { __typename: 'MutationError', code: ErrorCode, message: string, field: string | null, retryable: boolean };

export type SignedUpSubscriptionVariables = Exact<{ [key: string]: never; }>;


export type SignedUpSubscription = { userCreated: { __typename: 'UserCreated', cursor: string, user: { __typename: 'User', invitedById: string | null, id: string, name: string, email: string | null, createdWith: IdStrategy } } | null };

export type UserIdCounterSubscriptionVariables = Exact<{ [key: string]: never; }>;


export type UserIdCounterSubscription = { sequenceChanged: { __typename: 'SequenceChange', cursor: string, sequence: { __typename: 'Sequence', id: string, value: number } } | null };

export type UsersQueryVariables = Exact<{
  first?: number | null | undefined;
  after?: string | null | undefined;
  order?: UserOrder | null | undefined;
}>;


export type UsersQuery = { __typename: 'Query', users: { __typename: 'UserConnection', edges: Array<{ __typename: 'UserEdge', cursor: string, node: { __typename: 'User', id: string, name: string, email: string | null, createdWith: IdStrategy } }>, pageInfo: { __typename: 'PageInfo', hasNextPage: boolean, endCursor: string | null } } | null };

export type UsersTableQueryVariables = Exact<{
  after?: string | null | undefined;
}>;


export type UsersTableQuery = { __typename: 'Query', users: { __typename: 'UserConnection', totalCount: number, edges: Array<{ __typename: 'UserEdge', cursor: string, node: { __typename: 'User', id: string, name: string, email: string | null, createdWith: IdStrategy } }>, pageInfo: { __typename: 'PageInfo', hasNextPage: boolean, endCursor: string | null } } | null };

export const ListedUserFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"ListedUser"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"User"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"email"}},{"kind":"Field","name":{"kind":"Name","value":"createdWith"}}]}}]} as unknown as DocumentNode<ListedUserFragment, unknown>;
export const ShownErrorFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"ShownError"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"MutationError"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"code"}},{"kind":"Field","name":{"kind":"Name","value":"message"}},{"kind":"Field","name":{"kind":"Name","value":"field"}},{"kind":"Field","name":{"kind":"Name","value":"retryable"}}]}}]} as unknown as DocumentNode<ShownErrorFragment, unknown>;
export const PairOutcomeFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"PairOutcome"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"CreateUserPayload"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"userEdge"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"cursor"}},{"kind":"Field","name":{"kind":"Name","value":"node"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"FragmentSpread","name":{"kind":"Name","value":"ListedUser"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"error"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"FragmentSpread","name":{"kind":"Name","value":"ShownError"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"ListedUser"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"User"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"email"}},{"kind":"Field","name":{"kind":"Name","value":"createdWith"}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"ShownError"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"MutationError"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"code"}},{"kind":"Field","name":{"kind":"Name","value":"message"}},{"kind":"Field","name":{"kind":"Name","value":"field"}},{"kind":"Field","name":{"kind":"Name","value":"retryable"}}]}}]} as unknown as DocumentNode<PairOutcomeFragment, unknown>;
export const CreateUserDocument = {"__meta__":{"hash":"sha256:35c8a45a4decd4b44db7aabffbcc78e5a93705cd49c7562d4462e8fd0cb4155e"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"CreateUser"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"input"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"CreateUserInput"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"strategy"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"IdStrategy"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"createUser"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"input"},"value":{"kind":"Variable","name":{"kind":"Name","value":"input"}}},{"kind":"Argument","name":{"kind":"Name","value":"strategy"},"value":{"kind":"Variable","name":{"kind":"Name","value":"strategy"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"user"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"FragmentSpread","name":{"kind":"Name","value":"ListedUser"}}]}},{"kind":"Field","name":{"kind":"Name","value":"userEdge"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"cursor"}},{"kind":"Field","name":{"kind":"Name","value":"node"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"FragmentSpread","name":{"kind":"Name","value":"ListedUser"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"strategy"}},{"kind":"Field","name":{"kind":"Name","value":"attempts"}},{"kind":"Field","name":{"kind":"Name","value":"error"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"FragmentSpread","name":{"kind":"Name","value":"ShownError"}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"ListedUser"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"User"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"email"}},{"kind":"Field","name":{"kind":"Name","value":"createdWith"}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"ShownError"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"MutationError"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"code"}},{"kind":"Field","name":{"kind":"Name","value":"message"}},{"kind":"Field","name":{"kind":"Name","value":"field"}},{"kind":"Field","name":{"kind":"Name","value":"retryable"}}]}}]} as unknown as DocumentNode<CreateUserMutation, CreateUserMutationVariables>;
export const CreateUserPairDocument = {"__meta__":{"hash":"sha256:e8777c016222f24c0d08a5f79e92e479c5e3af3cf6fef6cdae5942dc6ce5ec84"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"CreateUserPair"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"first"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"CreateUserInput"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"second"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"CreateUserInput"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","alias":{"kind":"Name","value":"first"},"name":{"kind":"Name","value":"createUser"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"input"},"value":{"kind":"Variable","name":{"kind":"Name","value":"first"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"FragmentSpread","name":{"kind":"Name","value":"PairOutcome"}}]}},{"kind":"Field","alias":{"kind":"Name","value":"second"},"name":{"kind":"Name","value":"createUser"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"input"},"value":{"kind":"Variable","name":{"kind":"Name","value":"second"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"FragmentSpread","name":{"kind":"Name","value":"PairOutcome"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"ListedUser"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"User"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"email"}},{"kind":"Field","name":{"kind":"Name","value":"createdWith"}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"ShownError"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"MutationError"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"code"}},{"kind":"Field","name":{"kind":"Name","value":"message"}},{"kind":"Field","name":{"kind":"Name","value":"field"}},{"kind":"Field","name":{"kind":"Name","value":"retryable"}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"PairOutcome"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"CreateUserPayload"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"userEdge"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"cursor"}},{"kind":"Field","name":{"kind":"Name","value":"node"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"FragmentSpread","name":{"kind":"Name","value":"ListedUser"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"error"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"FragmentSpread","name":{"kind":"Name","value":"ShownError"}}]}}]}}]} as unknown as DocumentNode<CreateUserPairMutation, CreateUserPairMutationVariables>;
export const DefineInvoiceNumbersDocument = {"__meta__":{"hash":"sha256:4e5fdd0a50704e194411452d825f9261ec9f3409b7603764aae8cbd1154038dd"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"DefineInvoiceNumbers"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"createSequence"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"input"},"value":{"kind":"ObjectValue","fields":[{"kind":"ObjectField","name":{"kind":"Name","value":"name"},"value":{"kind":"StringValue","value":"page-invoice","block":false}},{"kind":"ObjectField","name":{"kind":"Name","value":"format"},"value":{"kind":"StringValue","value":"INV-{YYYY}-{seq:6}","block":false}},{"kind":"ObjectField","name":{"kind":"Name","value":"period"},"value":{"kind":"EnumValue","value":"YEARLY"}},{"kind":"ObjectField","name":{"kind":"Name","value":"timeZone"},"value":{"kind":"StringValue","value":"Europe/Berlin","block":false}}]}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"sequence"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"formattedValue"}}]}},{"kind":"Field","name":{"kind":"Name","value":"error"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"code"}},{"kind":"Field","name":{"kind":"Name","value":"message"}},{"kind":"Field","name":{"kind":"Name","value":"field"}}]}}]}}]}}]} as unknown as DocumentNode<DefineInvoiceNumbersMutation, DefineInvoiceNumbersMutationVariables>;
export const InvoiceNumberDocument = {"__meta__":{"hash":"sha256:d4da40ba3e45895e51feb2463cf0603e8e063e129d03c3eae225a7089a68e2c6"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"subscription","name":{"kind":"Name","value":"InvoiceNumber"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"sequenceChanged"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"name"},"value":{"kind":"StringValue","value":"page-invoice","block":false}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"cursor"}},{"kind":"Field","name":{"kind":"Name","value":"sequence"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"value"}},{"kind":"Field","name":{"kind":"Name","value":"formattedValue"}}]}}]}}]}}]} as unknown as DocumentNode<InvoiceNumberSubscription, InvoiceNumberSubscriptionVariables>;
export const LatestSignUpsDocument = {"__meta__":{"hash":"sha256:02f509f7b369a25ed19590565568b2b1a6daf935f21f50fd0528a3751b06c6ad"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"LatestSignUps"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"users"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"first"},"value":{"kind":"IntValue","value":"5"}},{"kind":"Argument","name":{"kind":"Name","value":"order"},"value":{"kind":"EnumValue","value":"ID_DESC"}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"edges"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"cursor"}},{"kind":"Field","name":{"kind":"Name","value":"node"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"FragmentSpread","name":{"kind":"Name","value":"ListedUser"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"totalCount"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"ListedUser"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"User"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"email"}},{"kind":"Field","name":{"kind":"Name","value":"createdWith"}}]}}]} as unknown as DocumentNode<LatestSignUpsQuery, LatestSignUpsQueryVariables>;
export const NextInvoiceNumberDocument = {"__meta__":{"hash":"sha256:57161fdd43c41d1cee601cef5990835502928e7e07b15c7e6d60d414c415ddff"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"NextInvoiceNumber"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"allocateSequence"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"name"},"value":{"kind":"StringValue","value":"page-invoice","block":false}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"range"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"period"}},{"kind":"Field","name":{"kind":"Name","value":"formatted"}}]}},{"kind":"Field","name":{"kind":"Name","value":"sequence"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"value"}},{"kind":"Field","name":{"kind":"Name","value":"currentPeriod"}},{"kind":"Field","name":{"kind":"Name","value":"formattedValue"}}]}},{"kind":"Field","name":{"kind":"Name","value":"error"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"code"}},{"kind":"Field","name":{"kind":"Name","value":"message"}},{"kind":"Field","name":{"kind":"Name","value":"field"}}]}}]}}]}}]} as unknown as DocumentNode<NextInvoiceNumberMutation, NextInvoiceNumberMutationVariables>;
export const SignedUpDocument = {"__meta__":{"hash":"sha256:8410228da6f49ac2f1fa6b5d24a793afe7b33b553ec245bd93f0140471732e6d"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"subscription","name":{"kind":"Name","value":"SignedUp"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"userCreated"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"cursor"}},{"kind":"Field","name":{"kind":"Name","value":"user"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"FragmentSpread","name":{"kind":"Name","value":"ListedUser"}},{"kind":"Field","name":{"kind":"Name","value":"invitedById"}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"ListedUser"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"User"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"email"}},{"kind":"Field","name":{"kind":"Name","value":"createdWith"}}]}}]} as unknown as DocumentNode<SignedUpSubscription, SignedUpSubscriptionVariables>;
export const UserIdCounterDocument = {"__meta__":{"hash":"sha256:d277b1951a2c916d95a594c32d36d0933ffcf8d09e2f2bb4469110987bfa385a"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"subscription","name":{"kind":"Name","value":"UserIdCounter"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"sequenceChanged"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"name"},"value":{"kind":"StringValue","value":"userid","block":false}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"cursor"}},{"kind":"Field","name":{"kind":"Name","value":"sequence"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"value"}}]}}]}}]}}]} as unknown as DocumentNode<UserIdCounterSubscription, UserIdCounterSubscriptionVariables>;
export const UsersDocument = {"__meta__":{"hash":"sha256:7fa4460d0c00f94d5254219f1dcb3b24c860aebda614d81daf55bcd4ec7fe1f4"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"Users"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"first"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"after"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"order"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"UserOrder"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"users"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"first"},"value":{"kind":"Variable","name":{"kind":"Name","value":"first"}}},{"kind":"Argument","name":{"kind":"Name","value":"after"},"value":{"kind":"Variable","name":{"kind":"Name","value":"after"}}},{"kind":"Argument","name":{"kind":"Name","value":"order"},"value":{"kind":"Variable","name":{"kind":"Name","value":"order"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"edges"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"cursor"}},{"kind":"Field","name":{"kind":"Name","value":"node"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"FragmentSpread","name":{"kind":"Name","value":"ListedUser"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"pageInfo"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"hasNextPage"}},{"kind":"Field","name":{"kind":"Name","value":"endCursor"}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"ListedUser"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"User"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"email"}},{"kind":"Field","name":{"kind":"Name","value":"createdWith"}}]}}]} as unknown as DocumentNode<UsersQuery, UsersQueryVariables>;
export const UsersTableDocument = {"__meta__":{"hash":"sha256:6150c06e1d2e51ca21ca32e300ff5e15ff48d34847ea438e40b2487013821e77"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"UsersTable"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"after"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"users"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"first"},"value":{"kind":"IntValue","value":"5"}},{"kind":"Argument","name":{"kind":"Name","value":"after"},"value":{"kind":"Variable","name":{"kind":"Name","value":"after"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"edges"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"cursor"}},{"kind":"Field","name":{"kind":"Name","value":"node"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"FragmentSpread","name":{"kind":"Name","value":"ListedUser"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"totalCount"}},{"kind":"Field","name":{"kind":"Name","value":"pageInfo"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"hasNextPage"}},{"kind":"Field","name":{"kind":"Name","value":"endCursor"}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"ListedUser"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"User"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"email"}},{"kind":"Field","name":{"kind":"Name","value":"createdWith"}}]}}]} as unknown as DocumentNode<UsersTableQuery, UsersTableQueryVariables>;