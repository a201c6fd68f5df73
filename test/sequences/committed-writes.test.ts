/**
 * A counter write is announced (`onCounterWrite`: the statistics' sequential_ids_counter_document_writes_total)
 * only once it is committed: an allocation inside a transaction that is rolled back (the work
 * refuses, a transient error retries it) announces nothing, and the committed attempt announces
 * exactly one write. Issue 22: rolled-back `$inc`s were counted. Through the real driver, in real
 * transactions.
 */
import { MongoServerError, MongoErrorLabel, type MongoClient } from 'mongodb';
import { runInTransaction } from '../../src/database';
import type { SequenceKey } from '../../src/sequences';
import { connectTestClient, uniqueDbName } from '../support/db';
import { sequencesOptions } from '../support/domain-options';
import { Sequences } from '../../src/sequences';

let client: MongoClient;
beforeAll(async () => {
  client = await connectTestClient();
});
afterAll(() => client.close());

const userid = { name: 'userid' };

function fresh(): { sequences: Sequences; writes: SequenceKey[]; value(): Promise<number | null> } {
  const writes: SequenceKey[] = [];
  const sequences = new Sequences(client.db(uniqueDbName()), {
    ...sequencesOptions,
    onCounterWrite: (key) => writes.push(key),
  });
  return {
    sequences,
    writes,
    value: async () => (await sequences.get(userid))?.value ?? null,
  };
}

const options = { maxAttempts: 3, maxTimeMS: sequencesOptions.maxTimeMS };

test('an allocation rolled back with its transaction is no counter write', async () => {
  const { sequences, writes, value } = fresh();
  await sequences.allocate(userid); // outside any transaction: announced at once
  expect(writes).toHaveLength(1);

  const refused = await runInTransaction(
    client,
    async (session) => ({
      commit: false,
      value: await sequences.allocate(userid, 5, undefined, session),
    }),
    options,
  );
  expect(refused.first).toBe(2); // the `$inc` ran inside the transaction...
  expect(await value()).toBe(1); // ...and was undone
  expect(writes).toHaveLength(1);

  await expect(
    runInTransaction(
      client,
      async (session) => {
        await sequences.allocate(userid, 1, undefined, session);
        throw new Error('the insert failed');
      },
      options,
    ),
  ).rejects.toThrow('the insert failed');
  expect(await value()).toBe(1);
  expect(writes).toHaveLength(1);
});

test('a transaction retried after a transient error announces its committed write once', async () => {
  const { sequences, writes, value } = fresh();
  let attempts = 0;
  const range = await runInTransaction(
    client,
    async (session) => {
      attempts += 1;
      const allocated = await sequences.allocate(userid, 1, undefined, session);
      if (attempts === 1) {
        const transient = new MongoServerError({ message: 'WriteConflict', code: 112 });
        transient.addErrorLabel(MongoErrorLabel.TransientTransactionError);
        throw transient;
      }
      expect(writes).toHaveLength(0); // not before the commit
      return { commit: true, value: allocated };
    },
    options,
  );
  expect(attempts).toBe(2);
  expect(range.first).toBe(1);
  expect(await value()).toBe(1);
  expect(writes).toEqual([{ name: 'userid', scope: null }]);
});
