/**
 * The kill run's workloads (./kill-run.ts runs them): what each client sends, and what the
 * database must hold afterwards.
 *
 * TRANSACTION and BLOCK: each client creates users one by one with `createUser` of the strategy,
 * each with its own idempotency key, a fifth of them with one of two shared emails (refused
 * inserts). Concurrent creations of one process share a transaction (TRANSACTION) or an insert
 * (BLOCK), so the faults and the kill land inside groups. Afterwards (`Ledger`, then a scan of
 * `users`): no id twice, every acknowledged user stored with its name and key, and the `userid`
 * counter never behind a stored id. TRANSACTION (`leavesNoHoles`): stored ids exactly 1..N and the
 * counter at N. BLOCK: holes are counted, not refused (a killed process's block, a fault's ids).
 *
 * Gapless: the clients allocate from one gapless sequence (hold `holdSeconds`) and, in turn,
 * confirm (7 in 10), release (2 in 10) or abandon (1 in 10: its hold expires) each value. A
 * confirmation whose answer was lost (no answer, SERVICE_UNAVAILABLE) may have been applied: it
 * is tallied as unanswered. Afterwards every hold has expired and a closing client allocates and
 * confirms until no value is pending, so the confirmed values must be exactly 1..seq: no value
 * acknowledged twice, every acknowledged confirmation confirmed (not pending, not above `seq`),
 * and no confirmed value that no confirmation asked for.
 *
 * Gapless yearly: the same with a sequence that restarts every year in Berlin, while the
 * database's clock (./kill-run.ts sets it) passes New Year's Eve during the load: each year's
 * confirmed values must be exactly 1..its top, the checks above made per year.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Db } from 'mongodb';
import { FLEET_CLIENT } from '../../bench/service-processes';
import { STRATEGIES } from '../../src/strategies';
import { storedIds } from '../support/stored-users';
import { CREATE_USER, postGraphQL, type GraphQLResultLike } from './client';
import { Ledger } from './ledger';

export type WorkloadName = 'transaction' | 'block' | 'gapless' | 'gaplessYearly';

export interface WorkloadReport {
  /** Users created, or values confirmed, as acknowledged to the clients. */
  acknowledged: number;
  /** The largest stored id, or the gapless sequence's top after the closing client (summed over its periods). */
  highest: number;
  /** Stored ids (or confirmed values) missing from 1..highest. */
  holes: number;
  /** Ids stored (or values acknowledged) twice. */
  duplicates: number;
  /** Operations that ran out of attempts. */
  unresolved: number;
  /** Workload-specific counts (refused emails; releases, expiries, closing confirmations ...). */
  counts: Record<string, number>;
  problems: string[];
}

export interface PreparedWorkload {
  client(index: number): Promise<void>;
  finish(db: Db): Promise<WorkloadReport>;
}

export interface Workload {
  /** The commands the fail points fail in turn. */
  faultedCommands: string[];
  /** The New Year the database's clock passes during the load (a zone, its first instant). */
  newYear?: { zone: string; at: number };
  /** `holdSeconds`: a gapless sequence's hold. */
  prepare(context: RunContext, holdSeconds: number): Promise<PreparedWorkload>;
}

/** Sends of one operation before a client gives up on it (counted as unresolved). */
const MAX_ATTEMPTS = 40;
const REQUEST_TIMEOUT_MS = 30_000;

/** Where a client's requests go: a service process's URL and the token it takes. */
export interface ServiceSlot {
  url: string;
  headers: Record<string, string>;
}

/**
 * What the clients of a run share: the service processes (a slot is null while its process is
 * down), when to stop, and the tally of answers.
 */
export class RunContext<S extends ServiceSlot = ServiceSlot> {
  readonly tag = randomUUID().slice(0, 8);
  readonly answers = new Map<string, number>();
  readonly unexpected: string[] = [];
  /** Acknowledgements per whole second since `stopIn` started the load. */
  readonly timeline: number[] = [];
  private readonly inFlight: number[];
  private startedAt = 0;
  private stopAt = Number.POSITIVE_INFINITY;

  constructor(
    readonly slots: Array<S | null>,
    private readonly clientsPerInstance: number,
  ) {
    this.inFlight = slots.map(() => 0);
  }

  get stopped(): boolean {
    return performance.now() >= this.stopAt;
  }

  /** Starts the load's clock: `stopped` turns true `ms` from now. */
  stopIn(ms: number): void {
    this.startedAt = performance.now();
    this.stopAt = this.startedAt + ms;
  }

  /** A user created or a value confirmed, as the client was told, on the timeline. */
  acknowledged(): void {
    const second = Math.floor((performance.now() - this.startedAt) / 1000);
    while (this.timeline.length <= second) this.timeline.push(0);
    this.timeline[second] += 1;
  }

  inFlightAt(slot: number): number {
    return this.inFlight[slot];
  }

  count(outcome: string): void {
    this.answers.set(outcome, (this.answers.get(outcome) ?? 0) + 1);
  }

  /**
   * Posts one operation to the client's own process, or to the next one up while its own is
   * down: the JSON body, or what came instead (TRANSPORT: refused, reset or timed out; HTTP_<s>).
   */
  async send(
    client: number,
    query: string,
    variables: object,
  ): Promise<GraphQLResultLike | string> {
    const home = Math.floor(client / this.clientsPerInstance) % this.slots.length;
    const slot = this.slots
      .map((_, i) => (home + i) % this.slots.length)
      .find((i) => this.slots[i] !== null);
    if (slot === undefined) return 'TRANSPORT';
    const instance = this.slots[slot] as S;
    this.inFlight[slot] += 1;
    try {
      const http = await postGraphQL(instance.url, query, variables, {
        headers: instance.headers,
        timeoutMs: REQUEST_TIMEOUT_MS,
      });
      return typeof http.body === 'object' && http.body !== null
        ? (http.body as GraphQLResultLike)
        : `HTTP_${http.status}`;
    } catch {
      return 'TRANSPORT';
    } finally {
      this.inFlight[slot] -= 1;
    }
  }
}

/** Codes after which the same operation is sent again (the outcome is none, or unknown). */
const RETRYABLE = new Set([
  'ID_CONTENTION',
  'SERVICE_UNAVAILABLE',
  'TOO_MANY_RESERVATIONS',
  'INTERNAL_SERVER_ERROR',
]);
/** Codes that leave a write's outcome unknown (it may have been applied); so do HTTP_<status>. */
const UNKNOWN_OUTCOME = new Set(['SERVICE_UNAVAILABLE', 'INTERNAL_SERVER_ERROR', 'TRANSPORT']);
const unknownOutcome = (code: string) => UNKNOWN_OUTCOME.has(code) || code.startsWith('HTTP_');
const READ_TIMEOUT_MS = 20_000;

const backoff = (attempt: number) => sleep(Math.min(500, 25 * attempt) * (0.5 + Math.random()));

/** The payload of root field `field`, and its error code or the first top-level one. */
function payloadOf(
  body: GraphQLResultLike | string,
  field: string,
): { payload: Record<string, unknown> | null; code: string | null } {
  if (typeof body === 'string') return { payload: null, code: body };
  const payload = (body.data?.[field] ?? null) as Record<string, unknown> | null;
  const error = payload?.error as { code?: string } | null | undefined;
  const code = error?.code ?? body.errors?.[0]?.extensions?.code ?? null;
  return { payload, code: code ?? (payload === null ? '(no payload)' : null) };
}

/**
 * Sends one operation until it has an answer that is not retryable, at most MAX_ATTEMPTS times.
 * Returns the payload (null: out of attempts, or a final error whose code is `code`) and whether
 * any send's outcome was unknown.
 */
async function sendUntilAnswered(
  context: RunContext,
  client: number,
  field: string,
  query: string,
  variables: object,
): Promise<{ payload: Record<string, unknown> | null; code: string | null; unsure: boolean }> {
  let unsure = false;
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt += 1) {
    const { payload, code } = payloadOf(await context.send(client, query, variables), field);
    context.count(code ?? 'answered');
    if (code === null) return { payload, code, unsure };
    if (unknownOutcome(code)) unsure = true;
    if (!RETRYABLE.has(code) && !unknownOutcome(code)) return { payload: null, code, unsure };
    await backoff(attempt);
  }
  return { payload: null, code: 'UNRESOLVED', unsure };
}

/** One input in 5 asks for one of these few emails, so refused inserts come early and often. */
const SHARED_EMAILS = 2;

function userWorkload(strategy: 'TRANSACTION' | 'BLOCK'): Workload {
  const { leavesNoHoles } = STRATEGIES[strategy].properties;
  return {
    faultedCommands: ['findAndModify', 'insert', ...(leavesNoHoles ? ['commitTransaction'] : [])],
    async prepare(context) {
      const ledger = new Ledger();
      const counts = { emailsRefused: 0, unresolved: 0 };
      let next = 0;
      return {
        async client(c) {
          while (!context.stopped) {
            const n = (next += 1);
            const input = {
              name: `kill-run ${n}`,
              idempotencyKey: `kill-run-${context.tag}-${n}`,
              ...(n % 5 === 4 ? { email: `shared${n % SHARED_EMAILS}@example.com` } : {}),
            };
            const answer = await sendUntilAnswered(context, c, 'createUser', CREATE_USER, {
              input,
              strategy,
            });
            const user = answer.payload?.user as { id: string; name: string } | undefined;
            if (user) {
              ledger.recordOutcomes([input], [{ user, replayed: false, code: null }]);
              context.acknowledged();
            } else if (answer.code === 'EMAIL_TAKEN') counts.emailsRefused += 1;
            else if (answer.code === 'UNRESOLVED') counts.unresolved += 1;
            else context.unexpected.push(`createUser ${n} answered ${answer.code}`);
          }
        },
        async finish(db) {
          const problems = await ledger.problems(db);
          const ids = await storedIds(db);
          const distinct = new Set(ids);
          const highest = Math.max(0, ...ids);
          const holes = highest - distinct.size;
          const counter = await db
            .collection<{ _id: string; seq: unknown }>('counters')
            .findOne({ _id: 'userid' }, { maxTimeMS: READ_TIMEOUT_MS });
          const seq = counter === null ? 0 : Number(counter.seq);
          if (leavesNoHoles && holes > 0) problems.push(`${holes} holes below id ${highest}`);
          if (leavesNoHoles ? seq !== highest : seq < highest)
            problems.push(`userid counter at ${seq}, largest stored id ${highest}`);
          return {
            acknowledged: ledger.size,
            highest,
            holes,
            duplicates: ids.length - distinct.size,
            unresolved: counts.unresolved,
            counts: { emailsRefused: counts.emailsRefused },
            problems,
          };
        },
      };
    },
  };
}

const SEQUENCE = 'kill-run-invoice';
/** Its counter's `_id`: in the namespace of the fleet's client (src/sequences/keys.ts). */
const SEQUENCE_ID = `${FLEET_CLIENT}~${SEQUENCE}`;
const CREATE_SEQUENCE = `mutation ($input: CreateSequenceInput!) {
  createSequence(input: $input) { sequence { id } error { code message } } }`;
const ALLOCATE = `mutation ($name: String!) {
  allocateSequence(name: $name) { reservation { id value period } error { code } } }`;
const CONFIRM = `mutation ($id: ID!) { confirmReservation(id: $id) { value error { code } } }`;
const RELEASE = `mutation ($id: ID!) { releaseReservation(id: $id) { value error { code } } }`;

/** An issued value of the gapless sequence: `expiresAt` while it waits for its confirmation. */
interface GaplessValue {
  _id: string;
  sequence: string;
  period?: string;
  value: unknown;
  expiresAt?: Date;
}

/** A value with its period (`2026:17`; `:17` without periods): what is issued once. */
const valueKey = (period: unknown, value: number) =>
  `${typeof period === 'string' ? period : ''}:${value}`;

/** `newYear`: a sequence that restarts every year in its zone; none: one that never does. */
function gaplessWorkload(newYear?: Workload['newYear']): Workload {
  return {
    faultedCommands: ['findAndModify', 'insert', 'update'],
    newYear,
    async prepare(context, holdSeconds) {
      const created = await sendUntilAnswered(context, 0, 'createSequence', CREATE_SEQUENCE, {
        input: {
          name: SEQUENCE,
          gapless: true,
          holdSeconds,
          ...(newYear === undefined ? {} : { period: 'YEARLY', timeZone: newYear.zone }),
        },
      });
      if (created.payload === null) throw new Error(`createSequence answered ${created.code}`);
      /** Every acknowledged confirmation's value key, in order; a key twice is a duplicate. */
      const confirmed: string[] = [];
      /** Values whose confirmation may have been applied without an answer saying so. */
      const unanswered = new Set<string>();
      const counts = {
        confirmed: 0,
        released: 0,
        abandoned: 0,
        notFound: 0,
        closing: 0,
        unresolved: 0,
      };
      let next = 0;

      /** One value: allocated, then confirmed, released or abandoned. */
      async function oneValue(c: number, action: 'confirm' | 'release' | 'abandon'): Promise<void> {
        const allocated = await sendUntilAnswered(context, c, 'allocateSequence', ALLOCATE, {
          name: SEQUENCE,
        });
        const reservation = allocated.payload?.reservation as
          { id: string; value: unknown; period: unknown } | undefined;
        if (!reservation) {
          if (allocated.code === 'UNRESOLVED') counts.unresolved += 1;
          else context.unexpected.push(`allocateSequence answered ${allocated.code}`);
          return;
        }
        const value = valueKey(reservation.period, Number(reservation.value));
        if (action === 'abandon') {
          counts.abandoned += 1;
          return;
        }
        const [field, query] =
          action === 'confirm' ? ['confirmReservation', CONFIRM] : ['releaseReservation', RELEASE];
        const answer = await sendUntilAnswered(context, c, field, query, { id: reservation.id });
        if (answer.payload !== null) {
          if (action === 'confirm') {
            confirmed.push(value);
            context.acknowledged();
          }
          counts[action === 'confirm' ? 'confirmed' : 'released'] += 1;
        } else if (action === 'confirm' && answer.unsure) {
          // A send whose answer was lost may have confirmed it; RESERVATION_NOT_FOUND then says so.
          unanswered.add(value);
        } else if (answer.code === 'RESERVATION_NOT_FOUND') {
          counts.notFound += 1; // its hold expired and another client took the value first
        } else if (answer.code === 'UNRESOLVED') {
          counts.unresolved += 1;
        } else {
          context.unexpected.push(`${field} answered ${answer.code}`);
        }
      }

      return {
        async client(c) {
          while (!context.stopped) {
            const n = (next += 1) % 10;
            await oneValue(c, n < 7 ? 'confirm' : n < 9 ? 'release' : 'abandon');
          }
        },
        async finish(db) {
          const values = db.collection<GaplessValue>('gapless_values');
          const options = { maxTimeMS: READ_TIMEOUT_MS };
          const waiting = () =>
            values.find({ sequence: SEQUENCE_ID, expiresAt: { $exists: true } }, options).toArray();
          // Every hold expires; then the closing client confirms what is pending, lowest first.
          await sleep(holdSeconds * 1000 + 500);
          for (let round = 0; round < 2_000; round += 1) {
            if ((await waiting()).length === 0) break;
            const before = confirmed.length;
            await oneValue(0, 'confirm');
            counts.closing += confirmed.length - before;
          }
          // Every issued value has a document (the counter's `seq` may lag one a kill
          // interrupted): each period's top is its largest document.
          const issued = await values.find({ sequence: SEQUENCE_ID }, options).toArray();
          const tops = new Map<string, number>();
          for (const entry of issued) {
            const period = typeof entry.period === 'string' ? entry.period : '';
            tops.set(period, Math.max(tops.get(period) ?? 0, Number(entry.value)));
          }
          const pending = new Set(
            (await waiting()).map((entry) => valueKey(entry.period, Number(entry.value))),
          );
          const problems: string[] = [];
          if (pending.size > 0) problems.push(`${pending.size} values still pending after closing`);
          const seen = new Set<string>();
          let duplicates = 0;
          for (const value of confirmed) {
            if (seen.has(value)) {
              duplicates += 1;
              problems.push(`value ${value} acknowledged as confirmed twice`);
            }
            seen.add(value);
            const [period, number] = value.split(':');
            if (Number(number) > (tops.get(period) ?? 0) || pending.has(value)) {
              problems.push(`confirmed value ${value} lost`);
            }
          }
          let phantom = 0;
          for (const [period, top] of tops) {
            for (let value = 1; value <= top; value += 1) {
              const key = valueKey(period || undefined, value);
              if (!pending.has(key) && !seen.has(key) && !unanswered.has(key)) phantom += 1;
            }
          }
          if (phantom > 0)
            problems.push(`${phantom} values confirmed that no confirmation asked for`);
          const seq = [...tops.values()].reduce((sum, top) => sum + top, 0);
          return {
            acknowledged: confirmed.length,
            highest: seq,
            holes: pending.size,
            duplicates,
            unresolved: counts.unresolved,
            counts: {
              ...counts,
              unanswered: unanswered.size,
              ...Object.fromEntries([...tops].map(([period, top]) => [`top ${period}`, top])),
            },
            problems,
          };
        },
      };
    },
  };
}

export const WORKLOADS: Record<WorkloadName, Workload> = {
  transaction: userWorkload('TRANSACTION'),
  block: userWorkload('BLOCK'),
  gapless: gaplessWorkload(),
  // Midnight of New Year's Eve in Berlin (UTC+1 in winter).
  gaplessYearly: gaplessWorkload({ zone: 'Europe/Berlin', at: Date.parse('2026-12-31T23:00:00Z') }),
};
