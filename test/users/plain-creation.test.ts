/**
 * A `createUser` that names no email, idempotency key or inviter takes a path of its own
 * (src/users/creation.ts, `createUserWith`), skipping the batch's planning, settling and index
 * tracking. It must answer as the batch of one it replaced: the same outcome, the same stored
 * document, the same commands in the same order and the same stats, for every strategy, whether
 * the user is created, refused by validation, collides with a stored `_id` or meets a fired
 * deadline. (Both ways insert through `insertOneWithFreshId`, whose rounds the other users tests
 * hold: collisions, repairs, give-backs, contention.)
 */
import type { Document } from 'mongodb';
import { COUNTER_FED_STRATEGIES, ID_STRATEGIES, type IdStrategy } from '../../src/strategies';
import type { CreateUserInput } from '../../src/users';
import { UsersTestBed, type UsersUnderTest } from './fixture';

let bed: UsersTestBed;
beforeAll(async () => {
  bed = await UsersTestBed.open();
});
afterAll(() => bed.close());

type Way = 'createUser' | 'createUsers';

interface Case {
  input: CreateUserInput;
  /** Set up the database before the creation (e.g. a foreign user where the counter points). */
  before?: (under: UsersUnderTest) => Promise<void>;
  signal?: AbortSignal;
}

/** What one way of creating answered and left behind, without times. */
async function created(strategy: IdStrategy, way: Way, { input, before, signal }: Case) {
  const under = await bed.fresh();
  await before?.(under);
  let answer: unknown;
  let thrown: unknown;
  const commands = await under.commandsDuring(async () => {
    try {
      answer =
        way === 'createUser'
          ? await under.users.createUser(input, strategy, { signal })
          : await under.users.createUsers([input], strategy, { signal });
    } catch (err) {
      thrown = err;
    }
  });
  const outcome =
    thrown !== undefined
      ? { thrown: describeError(thrown) }
      : way === 'createUser'
        ? withoutTime(answer as { user: object })
        : singleOf(answer);
  const stored = await under.db
    .collection<Document>('users')
    .find({}, { projection: { createdAt: 0 } })
    .sort({ _id: 1 })
    .toArray();
  const counter = await under.db
    .collection<{ _id: string; seq: unknown }>('counters')
    .findOne({ _id: 'userid' });
  const stats = under.stats.snapshot().map(({ p50Ms, p95Ms: _p95, p99Ms: _p99, ...counts }) => ({
    ...counts,
    measured: p50Ms !== null,
  }));
  return { outcome, commands, stored, seq: counter?.seq, stats };
}

function describeError(error: unknown) {
  const { name, message, code } = error as { name?: string; message?: string; code?: unknown };
  return { name, message, code };
}

/** An answer without its user's `createdAt`, which differs between any two creations. */
function withoutTime(answer: { user: object }) {
  const { createdAt: _createdAt, ...user } = answer.user as { createdAt?: unknown };
  return { ...answer, user };
}

/** A batch of one's item in `createUser`'s shape: the user (without attempts), or the error. */
function singleOf(answer: unknown) {
  const [item] = answer as Array<{ user: object; replayed: boolean } | { error: Error }>;
  return 'error' in item ? { thrown: describeError(item.error) } : withoutTime(item);
}

describe.each(ID_STRATEGIES)('%s', (strategy) => {
  const cases: Array<[string, Case]> = [
    ['a plain name', { input: { name: 'Ada' } }],
    ['a name that needs zod (trimmed, not ASCII)', { input: { name: '  Zoë 𝒳 ', email: null } }],
    ['a name validation refuses', { input: { name: '   ' } }],
    [
      'an id the counter points at that a foreign writer took',
      {
        input: { name: 'Bea' },
        before: async ({ db }) => {
          await db
            .collection<{ _id: number; name: string }>('users')
            .insertOne({ _id: 1, name: 'foreign' });
        },
      },
    ],
    ['a deadline that already fired', { input: { name: 'Cy' }, signal: AbortSignal.abort() }],
  ];

  test.each(cases)('%s: as a batch of one', async (_label, testCase) => {
    const single = await created(strategy, 'createUser', testCase);
    const batch = await created(strategy, 'createUsers', testCase);
    // createUser answers attempts too; a batch item does not.
    const { attempts, ...singleOutcome } = single.outcome as { attempts?: number };
    expect({ ...single, outcome: singleOutcome }).toEqual(batch);
    if ('user' in singleOutcome) expect(attempts).toBeGreaterThanOrEqual(1);
  });

  test('the collision is one: retried once after a repair', async () => {
    const [, drift] = cases[3];
    const { outcome, stats } = await created(strategy, 'createUser', drift);
    const counted = stats.find((s) => s.strategy === strategy);
    const retried = COUNTER_FED_STRATEGIES.includes(strategy) ? 1 : 0;
    expect(outcome).toMatchObject({ attempts: 1 + retried, user: { name: 'Bea' } });
    expect(outcome).not.toMatchObject({ user: { id: '1' } });
    expect(counted).toMatchObject({ duplicateKeyRetries: retried, counterRepairs: retried });
  });
});
