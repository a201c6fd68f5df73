/**
 * Several service instances on one database, as several processes behind a load balancer would
 * be: each has its own BLOCK allocator and its own stats, and they share the counters and users
 * collections. Every request goes through the real HTTP server of one instance.
 */
import { startTestService, twoInstancesOnOneDatabase, type TestService } from '../support/service';
import { uniqueDbName } from '../support/db';

const CREATE_USER = `mutation ($input: CreateUserInput!, $strategy: IdStrategy) {
  createUser(input: $input, strategy: $strategy) { user { id } strategy }
}`;
const CREATE_SEQUENCE = `mutation ($input: CreateSequenceInput!) {
  createSequence(input: $input) { sequence { name scope start step next } error { code } }
}`;
const ALLOCATE = `mutation ($name: String!, $scope: String) {
  allocateSequence(name: $name, scope: $scope) { range { first last } error { code } }
}`;
const STATS = `{ strategyStats { strategy usersCreated insertAttempts commandsPerUser p50Ms } }`;

// Small blocks so 300 creates need several refills on each instance.
const instances = twoInstancesOnOneDatabase({
  env: { ID_BLOCK_SIZE: '25', ID_BLOCK_SIZE_MAX: '25' },
});

function ids(responses: Array<{ body: { data?: { createUser: { user: { id: string } } } } }>) {
  return responses.map((response) => Number(response.body.data?.createUser.user.id));
}

test('300 concurrent BLOCK creates across two instances get 300 distinct ids, all stored', async () => {
  const responses = await Promise.all(
    Array.from({ length: 300 }, (_, i) =>
      (i % 2 === 0 ? instances.first : instances.second).graphql(CREATE_USER, {
        input: { name: `block ${i}` },
        strategy: 'BLOCK',
      }),
    ),
  );
  for (const response of responses) expect(response.body.errors).toBeUndefined();
  const created = ids(responses);
  expect(new Set(created).size).toBe(300);
  const stored = await instances.first.client
    .db(instances.first.dbName)
    .collection('users')
    .countDocuments();
  expect(stored).toBe(300);
  // Each instance reserved its own blocks: the counter stands at or past every id handed out.
  const counter = await instances.first.client
    .db(instances.first.dbName)
    .collection<{ _id: string; seq: number }>('counters')
    .findOne({ _id: 'userid' });
  expect(counter!.seq).toBeGreaterThanOrEqual(Math.max(...created));
});

test('two instances with interleaved offsets (start 1 and 2, step 2) never collide', async () => {
  // The blog's two servers: one issues odd numbers, the other even ones, from its own sequence.
  await instances.first.graphql(CREATE_SEQUENCE, {
    input: { name: 'orders', scope: 'odd', start: 1, step: 2 },
  });
  await instances.second.graphql(CREATE_SEQUENCE, {
    input: { name: 'orders', scope: 'even', start: 2, step: 2 },
  });
  const allocations = await Promise.all(
    Array.from({ length: 200 }, (_, i) =>
      i % 2 === 0
        ? instances.first.graphql(ALLOCATE, { name: 'orders', scope: 'odd' })
        : instances.second.graphql(ALLOCATE, { name: 'orders', scope: 'even' }),
    ),
  );
  const values = allocations.map((response) => {
    expect(response.body.errors).toBeUndefined();
    expect(response.body.data.allocateSequence.error).toBeNull();
    return response.body.data.allocateSequence.range.first as number;
  });
  expect(new Set(values).size).toBe(200);
  const odd = values.filter((_, i) => i % 2 === 0).sort((a, b) => a - b);
  const even = values.filter((_, i) => i % 2 === 1).sort((a, b) => a - b);
  expect(odd).toEqual(Array.from({ length: 100 }, (_, i) => 1 + 2 * i));
  expect(even).toEqual(Array.from({ length: 100 }, (_, i) => 2 + 2 * i));
});

test('strategyStats counts what each instance created, and only that', async () => {
  const before = (await instances.second.graphql(STATS)).body.data.strategyStats;
  const counterBefore = before.find((row: { strategy: string }) => row.strategy === 'COUNTER');
  for (let i = 0; i < 5; i += 1) {
    const response = await instances.first.graphql(CREATE_USER, {
      input: { name: `counted ${i}` },
      strategy: 'COUNTER',
    });
    expect(response.body.errors).toBeUndefined();
  }
  const firstStats = (await instances.first.graphql(STATS)).body.data.strategyStats;
  expect(firstStats).toContainEqual(
    expect.objectContaining({
      strategy: 'COUNTER',
      usersCreated: 5,
      insertAttempts: 5,
      commandsPerUser: 2,
      p50Ms: expect.any(Number),
    }),
  );
  const after = (await instances.second.graphql(STATS)).body.data.strategyStats;
  expect(after.find((row: { strategy: string }) => row.strategy === 'COUNTER')).toEqual(
    counterBefore,
  );
});

test('an instance that stops gives its unused BLOCK ids back: the one started after it continues without a gap', async () => {
  const dbName = uniqueDbName('restart');
  const createIds = async (service: TestService, count: number) => {
    const created: number[] = [];
    for (let i = 0; i < count; i += 1) {
      const response = await service.graphql(CREATE_USER, {
        input: { name: `restart ${i}` },
        strategy: 'BLOCK',
      });
      expect(response.body.errors).toBeUndefined();
      created.push(Number(response.body.data.createUser.user.id));
    }
    return created;
  };
  const before = await startTestService({ dbName });
  expect(await createIds(before, 3)).toEqual([1, 2, 3]);
  await before.stop();
  const after = await startTestService({ dbName });
  try {
    expect(await createIds(after, 2)).toEqual([4, 5]);
  } finally {
    await after.stop();
  }
});
