/**
 * What the service acknowledged, checked against what the database holds.
 *
 * The reliability suites record every user a response said it created. `problems()` then reads the
 * database directly and lists every broken promise, so a failing test names each one:
 * - an id issued twice: one id acknowledged for two different idempotency keys or names, or two
 *   stored documents with the same `_id`;
 * - a key issued twice: one idempotency key acknowledged with two ids, or stored on two users;
 * - a lost user: acknowledged but not stored, or stored with another name or key;
 * - a counter behind: the `userid` counter below an id that COUNTER or BLOCK issued from it.
 * Only facts are recorded; nothing here retries or repairs.
 */
import { keyAsSent } from '../support/keys';
import type { Db } from 'mongodb';
import { COUNTER_FED_STRATEGIES, isIdStrategy } from '../../src/strategies';
import type { ItemOutcome, UserInput } from './client';

export interface AcknowledgedUser {
  id: string;
  name: string;
  idempotencyKey: string | null;
}

interface StoredUser {
  _id: unknown;
  name: string;
  createdWith: string;
  idempotencyKey?: string;
}

const READ_TIMEOUT_MS = 20_000;

export class Ledger {
  private readonly byId = new Map<string, AcknowledgedUser>();
  private readonly idByKey = new Map<string, string>();
  private readonly conflicts: string[] = [];

  get size(): number {
    return this.byId.size;
  }

  private record(user: AcknowledgedUser): void {
    const earlier = this.byId.get(user.id);
    if (earlier && (earlier.idempotencyKey !== user.idempotencyKey || earlier.name !== user.name)) {
      this.conflicts.push(
        `id ${user.id} acknowledged twice: ${describe(earlier)} and ${describe(user)}`,
      );
    }
    this.byId.set(user.id, user);
    if (user.idempotencyKey === null) return;
    const keyedId = this.idByKey.get(user.idempotencyKey);
    if (keyedId !== undefined && keyedId !== user.id) {
      this.conflicts.push(
        `key ${user.idempotencyKey} acknowledged with two ids: ${keyedId} and ${user.id}`,
      );
    }
    this.idByKey.set(user.idempotencyKey, user.id);
  }

  /** Records the users among `items` (the outcomes of `inputs`, in the same order). */
  recordOutcomes(inputs: UserInput[], items: ItemOutcome[]): void {
    items.forEach((item, index) => {
      if (item.user) {
        this.record({
          id: item.user.id,
          name: item.user.name,
          idempotencyKey: inputs[index].idempotencyKey ?? null,
        });
      }
    });
  }

  /** Every broken promise, read against the database; empty when all hold. */
  async problems(db: Db): Promise<string[]> {
    const found = [...this.conflicts];
    const stored = await db
      .collection<StoredUser>('users')
      .find({}, { projection: { _id: 1, name: 1, createdWith: 1, idempotencyKey: 1 } })
      .maxTimeMS(READ_TIMEOUT_MS)
      .toArray();
    const storedById = new Map<string, StoredUser>();
    const storedKeys = new Map<string, string>();
    let maxCounterFedId = 0;
    for (const doc of stored) {
      const id = String(doc._id);
      if (storedById.has(id)) found.push(`two stored users share _id ${id}`);
      storedById.set(id, doc);
      if (doc.idempotencyKey !== undefined) {
        const other = storedKeys.get(doc.idempotencyKey);
        if (other !== undefined) {
          found.push(`key ${doc.idempotencyKey} stored on two users: ${other} and ${id}`);
        }
        storedKeys.set(doc.idempotencyKey, id);
      }
      if (isIdStrategy(doc.createdWith) && COUNTER_FED_STRATEGIES.includes(doc.createdWith)) {
        maxCounterFedId = Math.max(maxCounterFedId, Number(id));
      }
    }
    for (const acknowledged of this.byId.values()) {
      const doc = storedById.get(acknowledged.id);
      if (!doc) {
        found.push(`acknowledged user lost: ${describe(acknowledged)}`);
      } else if (
        doc.name !== acknowledged.name ||
        (doc.idempotencyKey === undefined ? null : keyAsSent(doc.idempotencyKey)) !==
          acknowledged.idempotencyKey
      ) {
        found.push(`acknowledged ${describe(acknowledged)} stored as ${describe(asAcked(doc))}`);
      }
    }
    const counterValue = await readUserIdCounter(db);
    if (maxCounterFedId > counterValue) {
      found.push(`userid counter at ${counterValue}, behind issued id ${maxCounterFedId}`);
    }
    return found;
  }
}

/** The last value the `userid` counter issued (0 when it does not exist yet). */
export async function readUserIdCounter(db: Db): Promise<number> {
  const counter = await db
    .collection<{ _id: string; seq: unknown }>('counters')
    .findOne({ _id: 'userid' }, { maxTimeMS: READ_TIMEOUT_MS });
  return counter ? Number(counter.seq) : 0;
}

function asAcked(doc: StoredUser): AcknowledgedUser {
  const key = doc.idempotencyKey;
  return {
    id: String(doc._id),
    name: doc.name,
    idempotencyKey: key === undefined ? null : keyAsSent(key),
  };
}

function describe(user: AcknowledgedUser): string {
  return `{id ${user.id}, name ${JSON.stringify(user.name)}, key ${user.idempotencyKey}}`;
}
