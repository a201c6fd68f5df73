/**
 * The example page's Apollo Client: a newest-first list of users kept in Apollo's normalised cache,
 * configured with the API's shipped type policies (client/apollo.ts) and no cache code of its own:
 * a create's payload (`userEdge`) puts the new user into the cached list at its place, so the list
 * is right without refetching it.
 *
 * Contract with the page: `watchNewest` renders the list each time the cache changes (one network
 * fetch at start, none after a create); `createOne` and `createPair` answer the payloads as they came
 * (a failed create carries `error`, the other one in the same document still carries its user).
 */
import { ApolloClient, HttpLink, InMemoryCache } from '@apollo/client';
import { typePolicies } from '../../../client/apollo';
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
  return new ApolloClient({
    link: new HttpLink({ uri: url }),
    cache: new InMemoryCache({ typePolicies }),
  });
}

/** Renders the cached newest-first list now and after every change of the cache. */
export function watchNewest(client: ApolloClient, render: (edges: UserEdge[]) => void): void {
  client.watchQuery({ query: UsersDocument, variables: NEWEST }).subscribe(({ data }) => {
    const users = (data as UsersQuery | undefined)?.users;
    if (users) render(users.edges);
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
  });
  return data ?? null;
}
