/**
 * The per-request users DataLoaders, counted through the driver's command monitoring on the
 * service's own client: a page of 100 users with their inviters costs at most 2 `find` commands, the
 * invitee pages of 10 inviters cost a bounded number of commands whatever the number of inviters,
 * and no request sees users cached by an earlier one.
 */
import type { CommandStartedEvent } from 'mongodb';
import { startTestService, type TestService } from '../support/service';

const CREATE_USERS = `
  mutation Many($inputs: [CreateUserInput!]!) {
    createUsers(inputs: $inputs) { created failed results { user { id } } }
  }`;
const PAGE = `{ users(first: 100) { edges { node { id invitedBy { id name } } } } }`;

let service: TestService;
let inviterIds: string[];

async function createUsers(inputs: object[]): Promise<string[]> {
  const response = await service.graphql(CREATE_USERS, { inputs });
  expect(response.body.data.createUsers).toMatchObject({ created: inputs.length, failed: 0 });
  return response.body.data.createUsers.results.map((r: { user: { id: string } }) => r.user.id);
}

async function findCommandsDuring<T>(
  work: () => Promise<T>,
): Promise<{ result: T; finds: number; reads: number }> {
  let finds = 0;
  let reads = 0;
  const count = (event: CommandStartedEvent) => {
    if (event.commandName === 'find' && event.command.find === 'users') finds += 1;
    if (event.command[event.commandName] === 'users') reads += 1;
  };
  service.client.on('commandStarted', count);
  try {
    return { result: await work(), finds, reads };
  } finally {
    service.client.off('commandStarted', count);
  }
}

beforeAll(async () => {
  service = await startTestService();
  inviterIds = await createUsers(Array.from({ length: 10 }, (_, i) => ({ name: `Inviter ${i}` })));
  await createUsers(
    Array.from({ length: 95 }, (_, i) => ({
      name: `Invitee ${i}`,
      invitedById: inviterIds[i % 10],
    })),
  );
});

afterAll(async () => {
  await service.stop();
});

test('a page of 100 users with invitedBy costs at most 2 find commands', async () => {
  const { result, finds } = await findCommandsDuring(() => service.graphql(PAGE));
  expect(result.body.errors).toBeUndefined();
  const edges = result.body.data.users.edges;
  expect(edges).toHaveLength(100);
  expect(
    edges.filter((e: { node: { invitedBy: unknown } }) => e.node.invitedBy !== null),
  ).toHaveLength(90);
  expect(finds).toBeGreaterThanOrEqual(1);
  expect(finds).toBeLessThanOrEqual(2);
});

test('invitee pages of every inviter on a page are batched: the commands do not grow with the inviters', async () => {
  const invitees = (first: number) =>
    `{ users(first: ${first}) { edges { node { id invitees(first: 3) { totalCount edges { node { id } } } } } } }`;
  const few = await findCommandsDuring(() => service.graphql(invitees(2)));
  const many = await findCommandsDuring(() => service.graphql(invitees(10)));
  expect(many.result.body.errors).toBeUndefined();
  const pages = many.result.body.data.users.edges.map(
    (e: { node: { invitees: { totalCount: number; edges: unknown[] } } }) => e.node.invitees,
  );
  expect(pages.map((page: { totalCount: number }) => page.totalCount)).toEqual(
    Array.from({ length: 10 }, (_, i) => 9 + (i < 5 ? 1 : 0)),
  );
  expect(pages.every((page: { edges: unknown[] }) => page.edges.length === 3)).toBe(true);
  expect(many.reads).toBe(few.reads);
});

test('each request loads its own users: a change between requests is seen by the next one', async () => {
  const first = await service.graphql(PAGE);
  const invitee = first.body.data.users.edges.find(
    (e: { node: { invitedBy: { id: string } | null } }) => e.node.invitedBy?.id === inviterIds[3],
  );
  expect(invitee.node.invitedBy.name).toBe('Inviter 3');

  await service.client
    .db(service.dbName)
    .collection('users')
    .updateOne({ _id: Number(inviterIds[3]) as never }, { $set: { name: 'Renamed inviter' } });

  const { result, finds } = await findCommandsDuring(() => service.graphql(PAGE));
  const again = result.body.data.users.edges.find(
    (e: { node: { id: string } }) => e.node.id === invitee.node.id,
  );
  expect(again.node.invitedBy.name).toBe('Renamed inviter');
  expect(finds).toBeGreaterThanOrEqual(1);
  expect(finds).toBeLessThanOrEqual(2);
});

test('the operations of one batched request share its loaders: one user asked for twice costs one find', async () => {
  const operation = {
    query: 'query One($id: ID!) { user(id: $id) { id name } }',
    variables: { id: inviterIds[0] },
  };
  const { result, finds } = await findCommandsDuring(async () => {
    const response = await fetch(`${service.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([operation, operation]),
      signal: AbortSignal.timeout(60_000),
    });
    return (await response.json()) as Array<{ data?: { user: { name: string } | null } }>;
  });
  expect(result.map((answer) => answer.data?.user?.name)).toEqual(['Inviter 0', 'Inviter 0']);
  expect(finds).toBe(1);
});
