/**
 * The example page's Apollo Client: a newest-first list of users kept in Apollo's normalised cache,
 * and creates that put the new user into that cached list themselves, from the payload's `userEdge`
 * (its cursor and node), so the list is right without refetching it.
 *
 * Contract with the page: `watchNewest` renders the list each time the cache changes (one network
 * fetch at start, none after a create); `createOne` and `createPair` answer the payloads as they came
 * (a failed create carries `error`, the other one in the same document still carries its user).
 */
import { ApolloClient, HttpLink, InMemoryCache, type ApolloCache } from '@apollo/client';
import {
  CreateUserDocument,
  CreateUserPairDocument,
  UsersDocument,
  type CreateUserInput,
  type CreateUserMutation,
  type CreateUserPairMutation,
  type IdStrategy,
  type UsersQuery,
} from '../gql/graphql';

export type UserEdge = NonNullable<UsersQuery['users']>['edges'][number];

/** The cached list: the first 100 users, newest first. */
const NEWEST = { first: 100, order: 'ID_DESC' } as const;

export function createApollo(url: string): ApolloClient {
  return new ApolloClient({ link: new HttpLink({ uri: url }), cache: new InMemoryCache() });
}

/** Renders the cached newest-first list now and after every change of the cache. */
export function watchNewest(client: ApolloClient, render: (edges: UserEdge[]) => void): void {
  client.watchQuery({ query: UsersDocument, variables: NEWEST }).subscribe(({ data }) => {
    const users = (data as UsersQuery | undefined)?.users;
    if (users) render(users.edges);
  });
}

/** Puts a created user's edge into the cached list at its place (ids newest first). */
function insertNewest(cache: ApolloCache, edge: UserEdge | null | undefined): void {
  if (!edge) return;
  cache.updateQuery({ query: UsersDocument, variables: NEWEST }, (data) => {
    if (!data?.users || data.users.edges.some(({ node }) => node.id === edge.node.id)) return data;
    const edges = [...data.users.edges, edge].sort((a, b) => Number(b.node.id) - Number(a.node.id));
    return { ...data, users: { ...data.users, edges } };
  });
}

export async function createOne(
  client: ApolloClient,
  input: CreateUserInput,
  strategy: IdStrategy,
): Promise<CreateUserMutation['createUser']> {
  const { data } = await client.mutate({
    mutation: CreateUserDocument,
    variables: { input, strategy },
    update: (cache, { data: created }) => insertNewest(cache, created?.createUser?.userEdge),
  });
  return data?.createUser ?? null;
}

export async function createPair(
  client: ApolloClient,
  first: CreateUserInput,
  second: CreateUserInput,
): Promise<CreateUserPairMutation | null> {
  const { data } = await client.mutate({
    mutation: CreateUserPairDocument,
    variables: { first, second },
    update: (cache, { data: created }) => {
      insertNewest(cache, created?.first?.userEdge);
      insertNewest(cache, created?.second?.userEdge);
    },
  });
  return data ?? null;
}
