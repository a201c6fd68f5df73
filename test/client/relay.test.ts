/**
 * Relay against the schema as it is and the real HTTP server: relay-compiler (from npm) compiles a
 * `@refetchable` fragment on `User` that pages `invitees` with `@connection` (what
 * `usePaginationFragment` needs: Relay's refetch query goes through `node(id:)`), and mutations
 * that `@prependEdge` a created user's `userEdge` and `@deleteEdge` a deleted user's id. Then
 * relay-runtime runs the compiled artifacts: the pagination query pages the invitees forward into
 * one connection, and the two mutations add and remove the edge in Relay's store, with no updater.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  commitLocalUpdate,
  commitMutation,
  ConnectionHandler,
  Environment,
  fetchQuery,
  type GraphQLTaggedNode,
  Network,
  RecordSource,
  Store,
} from 'relay-runtime';
import { ADMIN_HEADERS, startTestService, type TestService } from '../support/service';

const ROOT = path.resolve(__dirname, '..', '..');
const COMPILER = path.join(ROOT, 'node_modules', '.bin', 'relay-compiler');

/** The module a frontend team would write: its names follow Relay's rule (module name first). */
const MODULE = `
graphql\`
  fragment InviteesList_user on User
  @refetchable(queryName: "InviteesListPaginationQuery")
  @argumentDefinitions(count: { type: "Int", defaultValue: 2 }, cursor: { type: "String" }) {
    name
    invitees(first: $count, after: $cursor) @connection(key: "InviteesList_invitees") {
      edges { node { id name } }
    }
  }
\`;
graphql\`
  query InviteesListQuery($id: ID!) { user(id: $id) { id ...InviteesList_user } }
\`;
graphql\`
  mutation InviteesListCreateMutation($input: CreateUserInput!, $connections: [ID!]!) {
    createUser(input: $input) {
      userEdge @prependEdge(connections: $connections) { cursor node { id name } }
      error { code }
    }
  }
\`;
graphql\`
  mutation InviteesListDeleteMutation($id: ID!, $connections: [ID!]!) {
    deleteUser(id: $id) { deletedUserId @deleteEdge(connections: $connections) error { code } }
  }
\`;
`;

let dir: string;
let service: TestService;
let compiled: { code: number; output: string };

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'relay-'));
  mkdirSync(path.join(dir, 'src', '__generated__'), { recursive: true });
  writeFileSync(path.join(dir, 'src', 'InviteesList.js'), MODULE);
  writeFileSync(
    path.join(dir, 'relay.config.json'),
    JSON.stringify({
      src: './src',
      schema: path.join(ROOT, 'schema.graphql'),
      language: 'javascript',
      artifactDirectory: './src/__generated__',
      // CommonJS artifacts, so the test requires them as they are.
      eagerEsModules: false,
    }),
  );
  [compiled, service] = await Promise.all([
    new Promise<{ code: number; output: string }>((resolve) => {
      execFile(COMPILER, [], { cwd: dir, timeout: 60_000 }, (error, stdout, stderr) =>
        resolve({ code: error === null ? 0 : Number(error.code ?? -1), output: stdout + stderr }),
      );
    }),
    startTestService(),
  ]);
}, 120_000);

afterAll(async () => {
  await service?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const artifact = (name: string): GraphQLTaggedNode =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- compiled at test time
  require(path.join(dir, 'src', '__generated__', `${name}.graphql.js`));

function environment(): Environment {
  return new Environment({
    network: Network.create(async (params, variables) => {
      const response = await fetch(`${service.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...ADMIN_HEADERS },
        body: JSON.stringify({ query: params.text, variables }),
        signal: AbortSignal.timeout(30_000),
      });
      return response.json();
    }),
    store: new Store(new RecordSource()),
  });
}

/** The ids of the invitees connection of `userId` as Relay's store holds it. */
function connectionIds(env: Environment, userId: string): string[] {
  let ids: string[] = [];
  commitLocalUpdate(env, (store) => {
    const user = store.get(userId);
    const connection = user && ConnectionHandler.getConnection(user, 'InviteesList_invitees');
    ids = (connection?.getLinkedRecords('edges') ?? []).map((edge) =>
      String(edge?.getLinkedRecord('node')?.getValue('id')),
    );
  });
  return ids;
}

const create = async (name: string, invitedById?: string) =>
  (
    await service.graphql(
      'mutation ($input: CreateUserInput!) { createUser(input: $input) { user { id } } }',
      { input: { name, invitedById } },
    )
  ).body.data.createUser.user.id as string;

test('relay-compiler compiles @refetchable on User, @connection, @prependEdge and @deleteEdge', () => {
  expect(compiled).toEqual({ code: 0, output: expect.any(String) });
  const refetch = artifact('InviteesListPaginationQuery') as unknown as {
    params: { text: string; metadata: unknown };
  };
  expect(refetch.params.text).toMatch(/node\(id: \$id\)/);
});

test('relay-runtime pages the invitees forward through node(id:), then adds and removes edges', async () => {
  const inviter = await create('Relay inviter');
  const invitees: string[] = [];
  for (const name of ['r1', 'r2', 'r3']) invitees.push(await create(name, inviter));
  const env = environment();

  await fetchQuery(env, artifact('InviteesListQuery'), { id: inviter }).toPromise();
  expect(connectionIds(env, inviter)).toEqual(invitees.slice(0, 2));
  // What usePaginationFragment's loadNext sends: the refetchable query, from the end cursor.
  await fetchQuery(env, artifact('InviteesListPaginationQuery'), {
    id: inviter,
    count: 2,
    cursor: invitees[1],
  }).toPromise();
  expect(connectionIds(env, inviter)).toEqual(invitees);

  const connections = [ConnectionHandler.getConnectionID(inviter, 'InviteesList_invitees')];
  const commit = (mutation: string, variables: object) =>
    new Promise<unknown>((resolve, reject) => {
      commitMutation(env, {
        mutation: artifact(mutation),
        variables: { ...variables, connections },
        onCompleted: resolve,
        onError: reject,
      });
    });
  const created = (await commit('InviteesListCreateMutation', {
    input: { name: 'r4', invitedById: inviter },
  })) as { createUser: { userEdge: { node: { id: string } } } };
  const added = created.createUser.userEdge.node.id;
  expect(connectionIds(env, inviter)).toEqual([added, ...invitees]);

  await commit('InviteesListDeleteMutation', { id: invitees[0] });
  expect(connectionIds(env, inviter)).toEqual([added, ...invitees.slice(1)]);
});
