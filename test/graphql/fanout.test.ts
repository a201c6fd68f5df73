/**
 * Subscription fan-out (issue 22), at a small scale and untimed, through two real service
 * instances on one database and the real graphql-ws client: 20 subscribers to `userCreated` on one
 * instance while both instances create users concurrently.
 * - Every subscriber gets every acknowledged user exactly once, including one that drops its
 *   connection midway and subscribes again with `after:` the last cursor it had.
 * - The subscribers of one instance share one change stream (one server cursor, not 20), and it
 *   closes when the last leaves.
 * `npm run bench:fanout` measures the same at 100 subscribers and 100 users a second.
 */
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { CLIENT_HEADERS, twoInstancesOnOneDatabase } from '../support/service';

const SUBSCRIBERS = 20;
const USERS_PER_WAVE = 20;
const USER_CREATED = `subscription Created($after: String) {
  userCreated(after: $after) { cursor user { id } }
}`;

const clients: Client[] = [];
// Declared before the instances: jest runs afterAll hooks in the order declared, so the clients
// close before the instances stop.
afterAll(async () => {
  await Promise.all(clients.map((client) => client.dispose()));
});

// A private database, so the server cursors counted are these subscribers'.
const instances = twoInstancesOnOneDatabase({ privateStandin: {} });

class Subscriber {
  readonly received = new Map<string, number>();
  lastCursor: string | null = null;
  failure: unknown = null;
  private client: Client | null = null;

  subscribe(after: string | null = null): void {
    this.client = createClient({
      url: `${instances.first.url.replace(/^http/, 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: CLIENT_HEADERS,
      retryAttempts: 0,
    });
    clients.push(this.client);
    this.client.subscribe<{ userCreated: { cursor: string; user: { id: string } } }>(
      { query: USER_CREATED, variables: { after } },
      {
        next: ({ data, errors }) => {
          if (errors !== undefined) this.failure = errors;
          if (data == null) return;
          this.lastCursor = data.userCreated.cursor;
          const { id } = data.userCreated.user;
          this.received.set(id, (this.received.get(id) ?? 0) + 1);
        },
        error: (error) => (this.failure = error),
        complete: () => {},
      },
    );
  }

  async drop(): Promise<void> {
    await this.client?.dispose();
  }
}

/** Waits until `done` holds, polling at most 300 times 100 ms apart. */
async function until(done: () => boolean | Promise<boolean>): Promise<boolean> {
  for (let i = 0; i < 300 && !(await done()); i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return done();
}

const openCursors = async (): Promise<number> =>
  (await instances.first.client.db('admin').command({ serverStatus: 1 })).metrics.cursor.open.total;

/** `count` users created at once, half through each instance; the acknowledged ids. */
async function wave(count: number, label: string): Promise<string[]> {
  const answers = await Promise.all(
    Array.from({ length: count }, (_, i) =>
      (i % 2 === 0 ? instances.first : instances.second).graphql(
        'mutation C($input: CreateUserInput!) { createUser(input: $input) { user { id } } }',
        { input: { name: `${label} ${i}` } },
        CLIENT_HEADERS,
      ),
    ),
  );
  return answers.map((answer) => answer.body.data.createUser.user.id as string);
}

test('every subscriber gets every user once; one that drops and resumes with its cursor misses none', async () => {
  const before = await openCursors();
  const subscribers = Array.from({ length: SUBSCRIBERS }, () => new Subscriber());
  subscribers.forEach((subscriber) => subscriber.subscribe());
  // Live once each has seen a user: create warm-up users until then.
  const warmUp: string[] = [];
  expect(
    await until(async () => {
      warmUp.push(...(await wave(1, 'warm-up')));
      return subscribers.every((s) => s.received.size > 0);
    }),
  ).toBe(true);
  // One change stream for the 20 of them.
  expect(await openCursors()).toBe(before + 1);

  const acknowledged = await wave(USERS_PER_WAVE, 'first');
  const dropper = subscribers[0];
  expect(await until(() => acknowledged.every((id) => dropper.received.has(id)))).toBe(true);
  await dropper.drop();
  const resumeAfter = dropper.lastCursor;
  // Created while subscriber 0 is away.
  acknowledged.push(...(await wave(USERS_PER_WAVE, 'missed')));
  dropper.subscribe(resumeAfter);
  acknowledged.push(...(await wave(USERS_PER_WAVE, 'after')));

  const hasAll = (s: Subscriber) => acknowledged.every((id) => s.received.has(id));
  expect(await until(() => subscribers.every(hasAll))).toBe(true);
  for (const subscriber of subscribers) {
    expect(subscriber.failure).toBeNull();
    // Each acknowledged user exactly once, and nothing that was not acknowledged or warm-up.
    for (const id of acknowledged) expect(subscriber.received.get(id)).toBe(1);
    const extra = [...subscriber.received.keys()].filter(
      (id) => !acknowledged.includes(id) && !warmUp.includes(id),
    );
    expect(extra).toEqual([]);
  }
  expect(new Set(acknowledged).size).toBe(3 * USERS_PER_WAVE);

  // The resumed subscriber reads its own stream from its cursor; all closed when all leave.
  await Promise.all(subscribers.map((subscriber) => subscriber.drop()));
  expect(await until(async () => (await openCursors()) === before)).toBe(true);
});
