/**
 * `npm run bench:reservations [-- --values 1000 --batch 100 --clients 16 --rounds 3 --warm-up 200
 * --quick --entry E]`: what holding and settling N values of a gapless sequence costs the service.
 * The target it measures: 1,000 reservations held and confirmed in under 1 s of the service's CPU
 * time, the way a client holding many does it: `allocateSequence(count: batch)` and
 * `confirmReservations(ids)` of `batch` ids a request. Beside it, for comparison, the same values
 * held and confirmed one per request (`allocateSequence`, `confirmReservation`).
 *
 * Contract: builds the service (`npm run build`, nothing to do when current; not with `--entry`),
 * starts (or uses) the bench database (./database.ts) and one production service process
 * (./service-processes.ts), and warms it up with one round of `warm-up` values that is not
 * reported (the first requests pay for compilation). Each round, once batched and once one value a
 * request, defines a fresh gapless sequence (a one-hour hold, so no value expires during the
 * round), then `clients` closed-loop clients allocate until `values` are held at once, then
 * confirm every one of them. Per round it reads the service process's CPU
 * time (user + system, from `/proc`, ./process-usage.ts) and the database process's when the bench
 * started it, around each phase, and checks the outcome through the API: the sequence's value is
 * `values` and `gaps` lists no hole. CPU time, not wall time, is the figure: it hardly moves when
 * other work shares the machine, which the load averages printed before and after show. Writes
 * Markdown to stdout; without `--quick`, also `bench/results-reservations.json`. `--quick` is a
 * functional check (100 values, 1 round), not a measurement. Every request is bounded in time.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startBenchDatabase } from './database';
import { cpuMs } from './process-usage';
import { startServiceFleet, type ServiceFleet } from './service-processes';

const ROOT = join(__dirname, '..');
const BUILD_TIMEOUT_MS = 300_000;
const REQUEST_TIMEOUT_MS = 10_000;
/** The target: this many values held and confirmed ... */
const TARGET_VALUES = 1_000;
/** ... in at most this much service CPU time. */
const TARGET_SERVICE_MS = 1_000;

interface Options {
  values: number;
  /** Values held, and ids confirmed, per request in the batched form. */
  batch: number;
  clients: number;
  rounds: number;
  warmUp: number;
  quick: boolean;
  entry?: string;
}

function parseOptions(argv: string[]): Options {
  const options: Options = {
    values: TARGET_VALUES,
    batch: 100,
    clients: 16,
    rounds: 3,
    warmUp: 200,
    quick: false,
  };
  for (let i = 0; i < argv.length; i += 1) {
    const flag = argv[i];
    if (flag === '--quick') {
      Object.assign(options, { quick: true, values: 100, rounds: 1, warmUp: 50 });
      continue;
    }
    if (flag === '--entry') {
      options.entry = argv[(i += 1)];
      continue;
    }
    const value = Number(argv[(i += 1)]);
    if (!Number.isInteger(value) || value <= 0) throw new Error(`${flag} needs a positive integer`);
    if (flag === '--values') options.values = value;
    else if (flag === '--batch') options.batch = value;
    else if (flag === '--clients') options.clients = value;
    else if (flag === '--rounds') options.rounds = value;
    else if (flag === '--warm-up') options.warmUp = value;
    else throw new Error(`unknown option ${flag}`);
  }
  return options;
}

/** A payload's expected failure, as every mutation answers it. */
interface Refusal {
  error: { code: string; message: string } | null;
}

async function graphql<T>(fleet: ServiceFleet, query: string, variables: object): Promise<T> {
  const response = await fetch(`${fleet.processes[0].url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...fleet.headers },
    body: JSON.stringify({ query, variables }),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const body = (await response.json()) as { data?: T; errors?: unknown[] };
  if (body.errors !== undefined || body.data === undefined) {
    throw new Error(`${query.slice(0, 40)}…: ${JSON.stringify(body.errors ?? body)}`);
  }
  return body.data;
}

const DEFINE = `mutation ($name: String!) {
  createSequence(input: { name: $name, gapless: true, holdSeconds: 3600 }) { error { code message } }
}`;
const ALLOCATE = `mutation ($name: String!, $count: Int!) {
  allocateSequence(name: $name, count: $count) { reservations { id } error { code message } }
}`;
const CONFIRM = `mutation ($id: ID!) { confirmReservation(id: $id) { value error { code message } } }`;
const CONFIRM_MANY = `mutation ($ids: [ID!]!) {
  confirmReservations(ids: $ids) { failed results { error { code message } } error { code message } }
}`;
const AUDIT = `query ($name: String!) {
  sequence(name: $name) { value gaps(first: 1) { runs { first last count kind } complete } }
}`;

/** Runs `work` for items 0..count-1 on `clients` closed-loop clients. */
async function closedLoop(
  count: number,
  clients: number,
  work: (item: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(clients, count) }, async () => {
      while (next < count) await work((next += 1) - 1);
    }),
  );
}

interface Phase {
  serviceCpuMs: number;
  databaseCpuMs: number | null;
  wallMs: number;
}

async function measured(
  servicePid: number,
  databasePid: number | undefined,
  run: () => Promise<void>,
): Promise<Phase> {
  const database = async () => (databasePid === undefined ? null : cpuMs(databasePid));
  const serviceBefore = await cpuMs(servicePid);
  const databaseBefore = await database();
  const started = performance.now();
  await run();
  const wallMs = performance.now() - started;
  const databaseAfter = await database();
  return {
    serviceCpuMs: (await cpuMs(servicePid)) - serviceBefore,
    databaseCpuMs:
      databaseAfter === null || databaseBefore === null ? null : databaseAfter - databaseBefore,
    wallMs,
  };
}

interface Round {
  hold: Phase;
  confirm: Phase;
  serviceCpuMs: number;
}

/** Confirms `ids` in one request, or in one request each (`batch` 1). */
async function confirmAll(fleet: ServiceFleet, ids: string[]): Promise<void> {
  if (ids.length === 1) {
    const { confirmReservation } = await graphql<{ confirmReservation: Refusal }>(fleet, CONFIRM, {
      id: ids[0],
    });
    if (confirmReservation.error) throw new Error(confirmReservation.error.message);
    return;
  }
  const { confirmReservations } = await graphql<{
    confirmReservations: Refusal & { failed: number; results: Refusal[] };
  }>(fleet, CONFIRM_MANY, { ids });
  const refusal =
    confirmReservations.error ?? confirmReservations.results.find((r) => r.error)?.error;
  if (refusal) throw new Error(refusal.message);
}

/** One round: `values` held `batch` a request, then confirmed `batch` ids a request. */
async function oneRound(
  fleet: ServiceFleet,
  databasePid: number | undefined,
  options: Pick<Options, 'values' | 'clients' | 'batch'>,
): Promise<Round> {
  const name = `bench-gapless-${randomBytes(4).toString('hex')}`;
  const defined = await graphql<{ createSequence: Refusal }>(fleet, DEFINE, { name });
  if (defined.createSequence.error) throw new Error(defined.createSequence.error.message);
  const pid = fleet.processes[0].pid;
  const held: string[] = [];
  const requests = Math.ceil(options.values / options.batch);
  const countOf = (request: number) =>
    Math.min(options.batch, options.values - request * options.batch);
  const hold = await measured(pid, databasePid, () =>
    closedLoop(requests, options.clients, async (request) => {
      const { allocateSequence } = await graphql<{
        allocateSequence: Refusal & { reservations: Array<{ id: string }> };
      }>(fleet, ALLOCATE, { name, count: countOf(request) });
      if (allocateSequence.error) throw new Error(allocateSequence.error.message);
      held.push(...allocateSequence.reservations.map((reservation) => reservation.id));
    }),
  );
  const confirm = await measured(pid, databasePid, () =>
    closedLoop(requests, options.clients, (request) =>
      confirmAll(fleet, held.slice(request * options.batch, (request + 1) * options.batch)),
    ),
  );
  const { sequence } = await graphql<{
    sequence: { value: number; gaps: { runs: unknown[]; complete: boolean } };
  }>(fleet, AUDIT, { name });
  if (
    sequence.value !== options.values ||
    sequence.gaps.runs.length > 0 ||
    !sequence.gaps.complete
  ) {
    throw new Error(
      `after the round: ${JSON.stringify(sequence)}, expected ${options.values} values and no hole`,
    );
  }
  return { hold, confirm, serviceCpuMs: hold.serviceCpuMs + confirm.serviceCpuMs };
}

const ms = (value: number | null) => (value === null ? '–' : value.toFixed(0));

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  if (options.entry === undefined) {
    await promisify(execFile)('npm', ['run', 'build'], { cwd: ROOT, timeout: BUILD_TIMEOUT_MS });
  }
  const loadBefore = loadavg()[0];
  const database = await startBenchDatabase();
  let fleet: ServiceFleet | undefined;
  try {
    fleet = await startServiceFleet({
      instances: 1,
      mongodbUri: database.uri,
      dbName: `bench_reservations_${randomBytes(4).toString('hex')}`,
      blockSize: 100,
      blockSizeMax: 10_000,
      entry: options.entry,
    });
    await oneRound(fleet, database.pid, { ...options, values: options.warmUp });
    await oneRound(fleet, database.pid, { ...options, values: options.warmUp, batch: 1 });
    const rounds: Round[] = [];
    const single: Round[] = [];
    for (let round = 0; round < options.rounds; round += 1) {
      rounds.push(await oneRound(fleet, database.pid, options));
      single.push(await oneRound(fleet, database.pid, { ...options, batch: 1 }));
    }
    const loadAfter = loadavg()[0];
    const best = Math.min(...rounds.map((round) => round.serviceCpuMs));
    const bestSingle = Math.min(...single.map((round) => round.serviceCpuMs));
    const scaledTarget = (TARGET_SERVICE_MS * options.values) / TARGET_VALUES;
    const lines = [
      `# Gapless reservations: ${options.values} values held at once, then confirmed`,
      '',
      `Database: ${database.description}; ${options.clients} clients, ${options.batch} values held and confirmed per request (one per request in the last column), after a warm-up round of ${options.warmUp} values each way; load average ${loadBefore.toFixed(2)} before, ${loadAfter.toFixed(2)} after.${options.quick ? ' A --quick run: a functional check, not a measurement.' : ''}`,
      '',
      '| round | hold: service CPU ms | confirm: service CPU ms | service CPU ms in all | database CPU ms | wall ms | one per request: service CPU ms in all |',
      '| ----- | -------------------- | ----------------------- | --------------------- | --------------- | ------- | -------------------------------------- |',
      ...rounds.map(
        (round, i) =>
          `| ${i + 1} | ${ms(round.hold.serviceCpuMs)} | ${ms(round.confirm.serviceCpuMs)} | ${ms(round.serviceCpuMs)} | ${ms(
            round.hold.databaseCpuMs === null
              ? null
              : round.hold.databaseCpuMs + (round.confirm.databaseCpuMs ?? 0),
          )} | ${ms(round.hold.wallMs + round.confirm.wallMs)} | ${ms(single[i].serviceCpuMs)} |`,
      ),
      '',
      `Best round: ${ms(best)} ms of service CPU for ${options.values} values held and confirmed ${options.batch} a request (${(best / options.values).toFixed(2)} ms a value; one per request: ${ms(bestSingle)} ms); the target is under ${ms(scaledTarget)} ms (${TARGET_SERVICE_MS} ms per ${TARGET_VALUES}): ${best < scaledTarget ? 'met' : 'NOT met'}.`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    if (!options.quick) {
      writeFileSync(
        join(__dirname, 'results-reservations.json'),
        `${JSON.stringify({ options, database: database.description, loadBefore, loadAfter, rounds, onePerRequest: single }, null, 2)}\n`,
      );
    }
  } finally {
    await fleet?.stop();
    await database.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
