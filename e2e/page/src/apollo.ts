/**
 * The example page's Apollo Client: lists of users kept in Apollo's normalised cache, configured
 * with the API's shipped type policies (client/apollo.ts) and no cache code of its own: a create's
 * payload (`userEdge`) and each `userCreated` event put the new user into the cached lists at its
 * place, so the lists are right without refetching them. Subscriptions go over Server-Sent Events
 * (client/transports.ts), so they work where WebSockets are blocked.
 *
 * Contract with the page: `watchNewest`, `watchLatest` and `watchTablePage` render their list each
 * time the cache changes (one network fetch per list or page, none after a create or an event);
 * `listenForSignUps` only feeds the cache; `createOne` and `createPair` answer the payloads as they came
 * (a failed create carries `error`, the other one in the same document still carries its user).
 */
import { ApolloClient, HttpLink, InMemoryCache, split } from '@apollo/client';
import { getMainDefinition } from '@apollo/client/utilities';
import { possibleTypes, typePolicies } from '../../../client/apollo';
import { sseClient, subscriptionLink } from '../../../client/transports';
import {
  CreateUserDocument,
  CreateUserPairDocument,
  LatestSignUpsDocument,
  SignedUpDocument,
  UsersDocument,
  UsersTableDocument,
  type LatestSignUpsQuery,
  type UsersTableQuery,
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
  const subscriptions = subscriptionLink(sseClient({ url }));
  return new ApolloClient({
    link: split(
      ({ query }) => {
        const definition = getMainDefinition(query);
        return definition.kind === 'OperationDefinition' && definition.operation === 'subscription';
      },
      subscriptions,
      new HttpLink({ uri: url }),
    ),
    cache: new InMemoryCache({ typePolicies, possibleTypes }),
  });
}

type Latest = NonNullable<LatestSignUpsQuery['users']>;

/** Renders the latest sign-ups (newest five and the total) now and after every cache change. */
export function watchLatest(client: ApolloClient, render: (latest: Latest) => void): void {
  client.watchQuery({ query: LatestSignUpsDocument }).subscribe(({ data }) => {
    const users = (data as LatestSignUpsQuery | undefined)?.users;
    if (users) render(users);
  });
}

/** Receives every sign-up; the shipped cache policy writes it into the cached lists. */
export function listenForSignUps(client: ApolloClient, failed: (message: string) => void): void {
  client.subscribe({ query: SignedUpDocument }).subscribe({
    next: ({ error }) => {
      if (error) failed(error.message);
    },
    error: (error: Error) => failed(error.message),
  });
}

export type TablePage = NonNullable<UsersTableQuery['users']>;

/** Renders one page of the users table (after `after`), now and after every cache change. */
export function watchTablePage(
  client: ApolloClient,
  after: string | null,
  render: (page: TablePage) => void,
): () => void {
  const subscription = client
    .watchQuery({ query: UsersTableDocument, variables: { after } })
    .subscribe(({ data }) => {
      const users = (data as UsersTableQuery | undefined)?.users;
      if (users) render(users);
    });
  return () => subscription.unsubscribe();
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
