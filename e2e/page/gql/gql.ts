/* eslint-disable */
import * as types from './graphql';
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';

/**
 * Map of all GraphQL operations in the project.
 *
 * This map has several performance disadvantages:
 * 1. It is not tree-shakeable, so it will include all operations in the project.
 * 2. It is not minifiable, so the string of a GraphQL query will be multiple times inside the bundle.
 * 3. It does not support dead code elimination, so it will add unused operations.
 *
 * Therefore it is highly recommended to use the babel or swc plugin for production.
 * Learn more about it here: https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#reducing-bundle-size
 */
type Documents = {
    "mutation CreateUser($input: CreateUserInput!, $strategy: IdStrategy) {\n  createUser(input: $input, strategy: $strategy) {\n    user {\n      ...ListedUser\n    }\n    userEdge {\n      cursor\n      node {\n        ...ListedUser\n      }\n    }\n    strategy\n    attempts\n    error {\n      ...ShownError\n    }\n  }\n}": typeof types.CreateUserDocument,
    "mutation CreateUserPair($first: CreateUserInput!, $second: CreateUserInput!) {\n  first: createUser(input: $first) {\n    ...PairOutcome\n  }\n  second: createUser(input: $second) {\n    ...PairOutcome\n  }\n}\n\nfragment PairOutcome on CreateUserPayload {\n  userEdge {\n    cursor\n    node {\n      ...ListedUser\n    }\n  }\n  error {\n    ...ShownError\n  }\n}": typeof types.CreateUserPairDocument,
    "mutation DefineInvoiceNumbers {\n  createSequence(\n    input: {name: \"page-invoice\", format: \"INV-{YYYY}-{seq:6}\", period: YEARLY, timeZone: \"Europe/Berlin\"}\n  ) {\n    sequence {\n      id\n      formattedValue\n    }\n    error {\n      code\n      message\n      field\n    }\n  }\n}": typeof types.DefineInvoiceNumbersDocument,
    "subscription InvoiceNumber {\n  sequenceChanged(name: \"page-invoice\") {\n    cursor\n    sequence {\n      id\n      value\n      formattedValue\n    }\n  }\n}": typeof types.InvoiceNumberDocument,
    "query LatestSignUps {\n  users(first: 5, order: ID_DESC) {\n    edges {\n      cursor\n      node {\n        ...ListedUser\n      }\n    }\n    totalCount\n  }\n}": typeof types.LatestSignUpsDocument,
    "fragment ListedUser on User {\n  id\n  name\n  email\n  createdWith\n}": typeof types.ListedUserFragmentDoc,
    "mutation NextInvoiceNumber {\n  allocateSequence(name: \"page-invoice\") {\n    range {\n      period\n      formatted\n    }\n    sequence {\n      id\n      value\n      currentPeriod\n      formattedValue\n    }\n    error {\n      code\n      message\n      field\n    }\n  }\n}": typeof types.NextInvoiceNumberDocument,
    "fragment ShownError on MutationError {\n  code\n  message\n  field\n  retryable\n}": typeof types.ShownErrorFragmentDoc,
    "subscription SignedUp {\n  userCreated {\n    cursor\n    user {\n      ...ListedUser\n      invitedById\n    }\n  }\n}": typeof types.SignedUpDocument,
    "subscription UserIdCounter {\n  sequenceChanged(name: \"userid\") {\n    cursor\n    sequence {\n      id\n      value\n    }\n  }\n}": typeof types.UserIdCounterDocument,
    "query Users($first: Int, $after: String, $order: UserOrder) {\n  users(first: $first, after: $after, order: $order) {\n    edges {\n      cursor\n      node {\n        ...ListedUser\n      }\n    }\n    pageInfo {\n      hasNextPage\n      endCursor\n    }\n  }\n}": typeof types.UsersDocument,
    "query UsersTable($after: String) {\n  users(first: 5, after: $after) {\n    edges {\n      cursor\n      node {\n        ...ListedUser\n      }\n    }\n    totalCount\n    pageInfo {\n      hasNextPage\n      endCursor\n    }\n  }\n}": typeof types.UsersTableDocument,
};
const documents: Documents = {
    "mutation CreateUser($input: CreateUserInput!, $strategy: IdStrategy) {\n  createUser(input: $input, strategy: $strategy) {\n    user {\n      ...ListedUser\n    }\n    userEdge {\n      cursor\n      node {\n        ...ListedUser\n      }\n    }\n    strategy\n    attempts\n    error {\n      ...ShownError\n    }\n  }\n}": types.CreateUserDocument,
    "mutation CreateUserPair($first: CreateUserInput!, $second: CreateUserInput!) {\n  first: createUser(input: $first) {\n    ...PairOutcome\n  }\n  second: createUser(input: $second) {\n    ...PairOutcome\n  }\n}\n\nfragment PairOutcome on CreateUserPayload {\n  userEdge {\n    cursor\n    node {\n      ...ListedUser\n    }\n  }\n  error {\n    ...ShownError\n  }\n}": types.CreateUserPairDocument,
    "mutation DefineInvoiceNumbers {\n  createSequence(\n    input: {name: \"page-invoice\", format: \"INV-{YYYY}-{seq:6}\", period: YEARLY, timeZone: \"Europe/Berlin\"}\n  ) {\n    sequence {\n      id\n      formattedValue\n    }\n    error {\n      code\n      message\n      field\n    }\n  }\n}": types.DefineInvoiceNumbersDocument,
    "subscription InvoiceNumber {\n  sequenceChanged(name: \"page-invoice\") {\n    cursor\n    sequence {\n      id\n      value\n      formattedValue\n    }\n  }\n}": types.InvoiceNumberDocument,
    "query LatestSignUps {\n  users(first: 5, order: ID_DESC) {\n    edges {\n      cursor\n      node {\n        ...ListedUser\n      }\n    }\n    totalCount\n  }\n}": types.LatestSignUpsDocument,
    "fragment ListedUser on User {\n  id\n  name\n  email\n  createdWith\n}": types.ListedUserFragmentDoc,
    "mutation NextInvoiceNumber {\n  allocateSequence(name: \"page-invoice\") {\n    range {\n      period\n      formatted\n    }\n    sequence {\n      id\n      value\n      currentPeriod\n      formattedValue\n    }\n    error {\n      code\n      message\n      field\n    }\n  }\n}": types.NextInvoiceNumberDocument,
    "fragment ShownError on MutationError {\n  code\n  message\n  field\n  retryable\n}": types.ShownErrorFragmentDoc,
    "subscription SignedUp {\n  userCreated {\n    cursor\n    user {\n      ...ListedUser\n      invitedById\n    }\n  }\n}": types.SignedUpDocument,
    "subscription UserIdCounter {\n  sequenceChanged(name: \"userid\") {\n    cursor\n    sequence {\n      id\n      value\n    }\n  }\n}": types.UserIdCounterDocument,
    "query Users($first: Int, $after: String, $order: UserOrder) {\n  users(first: $first, after: $after, order: $order) {\n    edges {\n      cursor\n      node {\n        ...ListedUser\n      }\n    }\n    pageInfo {\n      hasNextPage\n      endCursor\n    }\n  }\n}": types.UsersDocument,
    "query UsersTable($after: String) {\n  users(first: 5, after: $after) {\n    edges {\n      cursor\n      node {\n        ...ListedUser\n      }\n    }\n    totalCount\n    pageInfo {\n      hasNextPage\n      endCursor\n    }\n  }\n}": types.UsersTableDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 *
 *
 * @example
 * ```ts
 * const query = graphql(`query GetUser($id: ID!) { user(id: $id) { name } }`);
 * ```
 *
 * The query argument is unknown!
 * Please regenerate the types.
 */
export function graphql(source: string): unknown;

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "mutation CreateUser($input: CreateUserInput!, $strategy: IdStrategy) {\n  createUser(input: $input, strategy: $strategy) {\n    user {\n      ...ListedUser\n    }\n    userEdge {\n      cursor\n      node {\n        ...ListedUser\n      }\n    }\n    strategy\n    attempts\n    error {\n      ...ShownError\n    }\n  }\n}"): (typeof documents)["mutation CreateUser($input: CreateUserInput!, $strategy: IdStrategy) {\n  createUser(input: $input, strategy: $strategy) {\n    user {\n      ...ListedUser\n    }\n    userEdge {\n      cursor\n      node {\n        ...ListedUser\n      }\n    }\n    strategy\n    attempts\n    error {\n      ...ShownError\n    }\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "mutation CreateUserPair($first: CreateUserInput!, $second: CreateUserInput!) {\n  first: createUser(input: $first) {\n    ...PairOutcome\n  }\n  second: createUser(input: $second) {\n    ...PairOutcome\n  }\n}\n\nfragment PairOutcome on CreateUserPayload {\n  userEdge {\n    cursor\n    node {\n      ...ListedUser\n    }\n  }\n  error {\n    ...ShownError\n  }\n}"): (typeof documents)["mutation CreateUserPair($first: CreateUserInput!, $second: CreateUserInput!) {\n  first: createUser(input: $first) {\n    ...PairOutcome\n  }\n  second: createUser(input: $second) {\n    ...PairOutcome\n  }\n}\n\nfragment PairOutcome on CreateUserPayload {\n  userEdge {\n    cursor\n    node {\n      ...ListedUser\n    }\n  }\n  error {\n    ...ShownError\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "mutation DefineInvoiceNumbers {\n  createSequence(\n    input: {name: \"page-invoice\", format: \"INV-{YYYY}-{seq:6}\", period: YEARLY, timeZone: \"Europe/Berlin\"}\n  ) {\n    sequence {\n      id\n      formattedValue\n    }\n    error {\n      code\n      message\n      field\n    }\n  }\n}"): (typeof documents)["mutation DefineInvoiceNumbers {\n  createSequence(\n    input: {name: \"page-invoice\", format: \"INV-{YYYY}-{seq:6}\", period: YEARLY, timeZone: \"Europe/Berlin\"}\n  ) {\n    sequence {\n      id\n      formattedValue\n    }\n    error {\n      code\n      message\n      field\n    }\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "subscription InvoiceNumber {\n  sequenceChanged(name: \"page-invoice\") {\n    cursor\n    sequence {\n      id\n      value\n      formattedValue\n    }\n  }\n}"): (typeof documents)["subscription InvoiceNumber {\n  sequenceChanged(name: \"page-invoice\") {\n    cursor\n    sequence {\n      id\n      value\n      formattedValue\n    }\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query LatestSignUps {\n  users(first: 5, order: ID_DESC) {\n    edges {\n      cursor\n      node {\n        ...ListedUser\n      }\n    }\n    totalCount\n  }\n}"): (typeof documents)["query LatestSignUps {\n  users(first: 5, order: ID_DESC) {\n    edges {\n      cursor\n      node {\n        ...ListedUser\n      }\n    }\n    totalCount\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "fragment ListedUser on User {\n  id\n  name\n  email\n  createdWith\n}"): (typeof documents)["fragment ListedUser on User {\n  id\n  name\n  email\n  createdWith\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "mutation NextInvoiceNumber {\n  allocateSequence(name: \"page-invoice\") {\n    range {\n      period\n      formatted\n    }\n    sequence {\n      id\n      value\n      currentPeriod\n      formattedValue\n    }\n    error {\n      code\n      message\n      field\n    }\n  }\n}"): (typeof documents)["mutation NextInvoiceNumber {\n  allocateSequence(name: \"page-invoice\") {\n    range {\n      period\n      formatted\n    }\n    sequence {\n      id\n      value\n      currentPeriod\n      formattedValue\n    }\n    error {\n      code\n      message\n      field\n    }\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "fragment ShownError on MutationError {\n  code\n  message\n  field\n  retryable\n}"): (typeof documents)["fragment ShownError on MutationError {\n  code\n  message\n  field\n  retryable\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "subscription SignedUp {\n  userCreated {\n    cursor\n    user {\n      ...ListedUser\n      invitedById\n    }\n  }\n}"): (typeof documents)["subscription SignedUp {\n  userCreated {\n    cursor\n    user {\n      ...ListedUser\n      invitedById\n    }\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "subscription UserIdCounter {\n  sequenceChanged(name: \"userid\") {\n    cursor\n    sequence {\n      id\n      value\n    }\n  }\n}"): (typeof documents)["subscription UserIdCounter {\n  sequenceChanged(name: \"userid\") {\n    cursor\n    sequence {\n      id\n      value\n    }\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query Users($first: Int, $after: String, $order: UserOrder) {\n  users(first: $first, after: $after, order: $order) {\n    edges {\n      cursor\n      node {\n        ...ListedUser\n      }\n    }\n    pageInfo {\n      hasNextPage\n      endCursor\n    }\n  }\n}"): (typeof documents)["query Users($first: Int, $after: String, $order: UserOrder) {\n  users(first: $first, after: $after, order: $order) {\n    edges {\n      cursor\n      node {\n        ...ListedUser\n      }\n    }\n    pageInfo {\n      hasNextPage\n      endCursor\n    }\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query UsersTable($after: String) {\n  users(first: 5, after: $after) {\n    edges {\n      cursor\n      node {\n        ...ListedUser\n      }\n    }\n    totalCount\n    pageInfo {\n      hasNextPage\n      endCursor\n    }\n  }\n}"): (typeof documents)["query UsersTable($after: String) {\n  users(first: 5, after: $after) {\n    edges {\n      cursor\n      node {\n        ...ListedUser\n      }\n    }\n    totalCount\n    pageInfo {\n      hasNextPage\n      endCursor\n    }\n  }\n}"];

export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}

export type DocumentType<TDocumentNode extends DocumentNode<any, any>> = TDocumentNode extends DocumentNode<  infer TType,  any>  ? TType  : never;