/** The command table called directly (no sockets): refusals, fail point slots, cursors. */
import { Int32, Long } from 'bson';
import { CommandContext } from '../src/commands/context';
import { Activity } from '../src/state/activity';
import { CursorRegistry } from '../src/state/cursors';
import { Store } from '../src/engine/store';
import { ChangeHistory } from '../src/state/change-history';
import { FailPoints } from '../src/state/fail-points';
import { TransactionTable } from '../src/state/transactions';
import { ReplicaSetIdentity } from '../src/state/replica-set';
import { HelloMonitors } from '../src/state/hello-monitors';
import { RetryableWrites } from '../src/state/retryable-writes';
import { SnapshotReads } from '../src/state/snapshot-reads';
import { TtlMonitor } from '../src/state/ttl-monitor';
import { runCommand } from '../src/commands/registry';
import { failPointNameOf } from '../src/commands/command-names';
import { noteAppName } from '../src/commands/hello';

function freshContext(database = 'db', appName?: string): CommandContext {
  const store = new Store();
  return {
    server: {
      store,
      transactions: new TransactionTable(store),
      monitors: new HelloMonitors(),
      replica: null,
      retryableWrites: new RetryableWrites(store, false),
      snapshotReads: new SnapshotReads(store, store.clock),
      changes: new ChangeHistory(1024 * 1024, store.clock.now()),
      cursors: new CursorRegistry(),
      failPoints: new FailPoints(),
      ttl: new TtlMonitor(() => undefined),
      activity: new Activity(10),
      startedAt: new Date(),
      port: 0,
      now: () => new Date(),
    },
    database,
    connection: { id: 1, appName },
  };
}

test('an unknown command is CommandNotFound (59) naming it', () => {
  expect(runCommand({ mapReduce: 'c' }, freshContext())).toMatchObject({
    ok: 0,
    code: 59,
    codeName: 'CommandNotFound',
    errmsg: expect.stringContaining("'mapReduce'"),
  });
});

test('a field a command does not implement is BadValue (2) naming the field', () => {
  const reply = runCommand({ find: 'c', filter: {}, collation: { locale: 'fr' } }, freshContext());
  expect(reply).toMatchObject({
    ok: 0,
    code: 2,
    codeName: 'BadValue',
    errmsg: expect.stringContaining('collation'),
  });
  expect(runCommand({ find: 'c', tailable: true }, freshContext())).toMatchObject({
    code: 2,
    errmsg: expect.stringContaining("'tailable'"),
  });
});

test('find refuses returnKey and showRecordId when set, which it would otherwise ignore', () => {
  // mongod answers index keys (returnKey) and adds $recordId (showRecordId): the stand-in has
  // neither, so it must not answer whole documents as if the option were not there.
  const context = freshContext();
  runCommand({ insert: 'c', documents: [{ _id: 1, x: 11 }] }, context);
  for (const option of ['returnKey', 'showRecordId']) {
    expect(runCommand({ find: 'c', filter: {}, [option]: true }, context)).toMatchObject({
      ok: 0,
      code: 2,
      errmsg: `the MongoDB stand-in does not support ${option} in find`,
    });
    expect(runCommand({ find: 'c', filter: {}, [option]: false }, context)).toMatchObject({
      ok: 1,
      cursor: { firstBatch: [{ _id: 1, x: 11 }] },
    });
  }
});

test('the Stable API: version "1" runs as without it; strict mode and other versions are refused', () => {
  // mongod's strict mode refuses whatever is outside API version 1; the stand-in keeps no such
  // list, so it refuses the mode rather than run everything as if it were not asked for.
  const context = freshContext();
  for (const fields of [
    { apiStrict: false },
    { apiDeprecationErrors: true },
    { apiStrict: true },
  ]) {
    expect(runCommand({ ping: 1, apiVersion: '1', ...fields }, context)).toEqual({ ok: 1 });
  }
  for (const [field, value, named] of [
    ['apiStrict', true, 'apiStrict (the Stable API strict mode) for distinct'],
    ['apiVersion', '2', 'apiVersion "2"'],
  ] as const) {
    const distinct = { distinct: 'c', key: 'a', apiVersion: '1', [field]: value };
    expect(runCommand(distinct, context)).toMatchObject({
      ok: 0,
      code: 2,
      errmsg: expect.stringContaining(`the MongoDB stand-in does not support ${named}`),
    });
  }
});

test('a transaction is IllegalOperation on a standalone, InvalidOptions without a session', () => {
  const standalone = freshContext();
  const command = { insert: 'c', documents: [{}], startTransaction: true, autocommit: false };
  expect(runCommand(command, standalone)).toMatchObject({ ok: 0, code: 20 });
  const member = freshContext();
  member.server.replica = new ReplicaSetIdentity('rs0', new Store().clock, new HelloMonitors());
  expect(runCommand(command, member)).toMatchObject({
    ok: 0,
    code: 72,
    errmsg: expect.stringContaining('lsid'),
  });
  expect(standalone.server.store.get('db', 'c')).toBeUndefined();
  expect(member.server.store.get('db', 'c')).toBeUndefined();
});

test('hello announces a writable standalone with sessions and the wire versions drivers 6 and 7 accept', () => {
  const context = freshContext('admin');
  const reply = runCommand({ hello: 1, client: { application: { name: 'app' } } }, context);
  expect(reply).toMatchObject({
    ok: 1,
    isWritablePrimary: true,
    minWireVersion: 0,
    maxWireVersion: 21,
    logicalSessionTimeoutMinutes: 30,
  });
  expect(reply).not.toHaveProperty('setName');
});

test("a connection's appName is its first hello's, whatever the hello's spelling", () => {
  for (const name of ['hello', 'isMaster', 'ismaster']) {
    const { connection } = freshContext('admin');
    noteAppName('ping', { ping: 1, client: { application: { name: 'not a hello' } } }, connection);
    expect(connection.appName).toBeUndefined();
    noteAppName(name, { [name]: 1, client: { application: { name: 'first' } } }, connection);
    noteAppName(name, { [name]: 1, client: { application: { name: 'second' } } }, connection);
    expect(connection.appName).toBe('first');
  }
});

describe('fail point slots', () => {
  const configure = (context: CommandContext, mode: unknown, data?: object) =>
    runCommand(
      { configureFailPoint: 'failCommand', mode, ...(data ? { data } : {}) },
      { ...context, database: 'admin' },
    );

  test('a scoped fail point only hits its appName, and times runs out', () => {
    const context = freshContext();
    configure(
      context,
      { times: new Int32(2) },
      { failCommands: ['ping'], errorCode: 91, appName: 'a' },
    );
    expect(context.server.failPoints.take('ping', 'b')).toBeNull();
    expect(context.server.failPoints.take('ping', 'a')).toMatchObject({ errorCode: 91 });
    expect(context.server.failPoints.take('ping', 'a')).toMatchObject({ errorCode: 91 });
    expect(context.server.failPoints.take('ping', 'a')).toBeNull();
  });

  test('two appNames keep separate settings; off with an appName clears only that one', () => {
    const context = freshContext();
    configure(context, 'alwaysOn', { failCommands: ['find'], errorCode: 1, appName: 'a' });
    configure(context, 'alwaysOn', { failCommands: ['find'], errorCode: 2, appName: 'b' });
    expect(context.server.failPoints.take('find', 'a')).toMatchObject({ errorCode: 1 });
    expect(configure(context, 'off', { appName: 'a' })).toMatchObject({ ok: 1, count: 1 });
    expect(context.server.failPoints.take('find', 'a')).toBeNull();
    expect(context.server.failPoints.take('find', 'b')).toMatchObject({ errorCode: 2 });
    configure(context, 'off');
    expect(context.server.failPoints.take('find', 'b')).toBeNull();
  });

  test('fail points match mongod command names, not the alias sent (ismaster is isMaster, not hello)', () => {
    expect(failPointNameOf({ ismaster: 1 })).toBe('isMaster');
    expect(failPointNameOf({ isMaster: 1 })).toBe('isMaster');
    expect(failPointNameOf({ hello: 1 })).toBe('hello');
    expect(failPointNameOf({ findandmodify: 'c' })).toBe('findAndModify');
  });

  test('unknown fail points, modes and data fields are refused', () => {
    const context = freshContext();
    expect(
      runCommand(
        { configureFailPoint: 'hangBeforeX', mode: 'alwaysOn' },
        { ...context, database: 'admin' },
      ),
    ).toMatchObject({ code: 2 });
    expect(
      configure(context, { activationProbability: 0.5 }, { failCommands: ['find'] }),
    ).toMatchObject({ code: 2 });
    expect(
      configure(context, 'alwaysOn', { failCommands: ['find'], threadName: 'x' }),
    ).toMatchObject({ code: 2 });
  });
});

test('getMore walks a snapshot cursor; killCursors and a finished cursor end it', () => {
  const context = freshContext();
  runCommand(
    { insert: 'c', documents: Array.from({ length: 5 }, (_, i) => ({ _id: i })) },
    context,
  );
  const first = runCommand({ find: 'c', batchSize: new Int32(2) }, context) as {
    cursor: { id: Long; firstBatch: unknown[] };
  };
  expect(first.cursor.firstBatch).toHaveLength(2);
  runCommand({ insert: 'c', documents: [{ _id: 99 }] }, context);
  const rest = runCommand({ getMore: first.cursor.id, collection: 'c' }, context) as {
    cursor: { id: Long; nextBatch: unknown[] };
  };
  expect(rest.cursor.nextBatch).toHaveLength(3);
  expect(rest.cursor.id.isZero()).toBe(true);
  expect(runCommand({ getMore: first.cursor.id, collection: 'c' }, context)).toMatchObject({
    code: 43,
    codeName: 'CursorNotFound',
  });
});

test('an unsupported aggregation stage is refused by name', () => {
  const context = freshContext();
  expect(
    runCommand({ aggregate: 'c', pipeline: [{ $lookup: {} }], cursor: {} }, context),
  ).toMatchObject({
    code: 2,
    errmsg: expect.stringContaining('$lookup'),
  });
});

describe('explain reports the plan the engine ran', () => {
  const context = freshContext();
  runCommand(
    { insert: 'c', documents: Array.from({ length: 10 }, (_, i) => ({ _id: i, n: i % 3 })) },
    context,
  );
  const winningPlan = (find: object, verbosity = 'executionStats') =>
    runCommand({ explain: { find: 'c', ...find }, verbosity }, context) as {
      queryPlanner: { winningPlan: Record<string, unknown> };
      executionStats: Record<string, unknown>;
    };

  test('an _id-only equality is IDHACK; with another predicate, FETCH over the _id index', () => {
    expect(winningPlan({ filter: { _id: 4 } }).queryPlanner.winningPlan).toEqual({
      stage: 'IDHACK',
    });
    expect(winningPlan({ filter: { _id: 4, n: 1 } }).queryPlanner.winningPlan).toMatchObject({
      stage: 'FETCH',
      filter: { _id: 4, n: 1 },
      inputStage: { stage: 'IXSCAN', indexName: '_id_' },
    });
  });

  test('a sort on _id walks the index and stops at the limit', () => {
    const explained = winningPlan({ filter: { n: 0 }, sort: { _id: -1 }, limit: 2 });
    expect(explained.queryPlanner.winningPlan).toMatchObject({
      stage: 'LIMIT',
      inputStage: { stage: 'FETCH', inputStage: { stage: 'IXSCAN', direction: 'backward' } },
    });
    // _ids 9, 8, 7, 6 are read to find the two with n 0 (9 and 6).
    expect(explained.executionStats).toMatchObject({ nReturned: 2, totalDocsExamined: 4 });
  });

  test('any other sort is in memory over a collection scan', () => {
    const explained = winningPlan({ filter: { n: 1 }, sort: { n: 1 }, skip: 1, limit: 1 });
    expect(explained.queryPlanner.winningPlan).toMatchObject({
      stage: 'LIMIT',
      inputStage: {
        stage: 'SKIP',
        inputStage: { stage: 'SORT', limitAmount: 2, inputStage: { stage: 'COLLSCAN' } },
      },
    });
    expect(explained.executionStats).toMatchObject({ nReturned: 1, totalDocsExamined: 10 });
  });

  test('count without a query reads no document; with one it counts over the scan', () => {
    const fast = runCommand({ explain: { count: 'c' }, verbosity: 'executionStats' }, context);
    expect(fast).toMatchObject({
      queryPlanner: { winningPlan: { stage: 'RECORD_STORE_FAST_COUNT' } },
      executionStats: { totalDocsExamined: 0 },
    });
    const counted = runCommand(
      { explain: { count: 'c', query: { n: 1 } }, verbosity: 'executionStats' },
      context,
    );
    expect(counted).toMatchObject({
      queryPlanner: { winningPlan: { stage: 'COUNT', inputStage: { stage: 'COLLSCAN' } } },
      executionStats: { totalDocsExamined: 10 },
    });
  });

  test('a missing collection is EOF; unknown verbosities and commands are refused', () => {
    const missing = runCommand({ explain: { find: 'nope' }, verbosity: 'queryPlanner' }, context);
    expect(missing).toMatchObject({ queryPlanner: { winningPlan: { stage: 'EOF' } } });
    expect(runCommand({ explain: { find: 'c' }, verbosity: 'everything' }, context)).toMatchObject({
      code: 2,
    });
    expect(runCommand({ explain: { insert: 'c', documents: [] } }, context)).toMatchObject({
      code: 2,
      errmsg: expect.stringContaining('explain of insert'),
    });
    expect(runCommand({ explain: { mapReduce: 'c' } }, context)).toMatchObject({
      code: 59,
      errmsg: expect.stringContaining('mapReduce'),
    });
  });
});
