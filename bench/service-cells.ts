/**
 * The service cells of a run: which mutation, strategy and block size each fleet is loaded with,
 * and how one cell is measured.
 *
 * Contract: a cell's users are the ones the service itself counts (`sequential_ids_users_created_total` from
 * every instance's `/metrics`), including requests still in flight when the load stopped, over the
 * time until the last of them was created; per-user ratios (commands, duplicate-key retries,
 * counter-document writes, transaction retries and write conflicts, CPU) use the same count. Latency percentiles are autocannon's, per
 * request. A cell starts only after the previous load on the fleet has drained.
 */
import { COUNTER_FED_STRATEGIES, ID_STRATEGIES } from '../src/strategies';
import { runHttpLoad, type LoadShape } from './http-load';
import { startCpuMeter } from './process-usage';
import { batchStrategy, BURST_CONCURRENCY, cpuPerUser, type CellResult } from './report';
import { metricValue, type ServiceFleet } from './service-processes';

export interface ServicePlan {
  label: string;
  /** The `strategy` label the service's counters file these creations under. */
  strategy: string;
  shape: LoadShape;
  /** ID_BLOCK_SIZE and ID_BLOCK_SIZE_MAX of the fleet (equal: blocks of a fixed size). */
  blockSize: number;
  blockSizeMax: number;
  concurrencies: number[];
}

export const CONCURRENCIES = [1, 8, 64];
/**
 * A burst: a sign-up campaign or a batch job starting. The counter-fed strategies (COUNTER, BLOCK,
 * TRANSACTION) and the raw tutorial loop are also measured at these; OPTIMISTIC_LOOP is not, as
 * it falls apart under concurrency well below them.
 */
export const BURST_CONCURRENCIES = [256, BURST_CONCURRENCY];
const INSTANCES_CONCURRENCY = 64;
const INSTANCES_BLOCK_SIZES = [10, 100, 1000];
const BATCH_SIZE = 100;
/** The largest batch `createUsers` takes, at the highest concurrency only: the memory test. */
const LARGEST_BATCH_SIZE = 1_000;
const DEFAULT_BLOCK_SIZE = 100;
/** The service's default ID_BLOCK_SIZE_MAX: blocks adapt to the rate. */
const DEFAULT_BLOCK_SIZE_MAX = 10_000;
const WARM_UP_CONNECTIONS = 8;
const DRAIN_POLL_MS = 100;
const DRAIN_QUIET_POLLS = 3;
const DRAIN_TIMEOUT_MS = 20_000;

/**
 * Issue 5's cells, issue 14's batches of 1,000 at 64 and issue 37's bursts, or with `instances`
 * issue 8's (COUNTER, and BLOCK by fixed block size, at 64).
 */
export function servicePlans(instances: number | null): ServicePlan[] {
  if (instances !== null) {
    const block = (blockSize: number): ServicePlan => ({
      label: `BLOCK (block ${blockSize})`,
      strategy: 'BLOCK',
      shape: { strategy: 'BLOCK', usersPerRequest: 1 },
      blockSize,
      blockSizeMax: blockSize,
      concurrencies: [INSTANCES_CONCURRENCY],
    });
    return [
      {
        label: 'COUNTER',
        strategy: 'COUNTER',
        shape: { strategy: 'COUNTER', usersPerRequest: 1 },
        blockSize: DEFAULT_BLOCK_SIZE,
        blockSizeMax: DEFAULT_BLOCK_SIZE,
        concurrencies: [INSTANCES_CONCURRENCY],
      },
      ...INSTANCES_BLOCK_SIZES.map(block),
    ];
  }
  const single = (strategy: LoadShape['strategy']): ServicePlan => ({
    label:
      strategy === 'BLOCK'
        ? `GraphQL createUser BLOCK (blocks ${DEFAULT_BLOCK_SIZE}–${DEFAULT_BLOCK_SIZE_MAX})`
        : `GraphQL createUser ${strategy}`,
    strategy,
    shape: { strategy, usersPerRequest: 1 },
    blockSize: DEFAULT_BLOCK_SIZE,
    blockSizeMax: DEFAULT_BLOCK_SIZE_MAX,
    concurrencies: COUNTER_FED_STRATEGIES.includes(strategy)
      ? [...CONCURRENCIES, ...BURST_CONCURRENCIES]
      : CONCURRENCIES,
  });
  const batches = (size: number, concurrencies: number[]): ServicePlan => ({
    label: `GraphQL createUsers ×${size} COUNTER`,
    strategy: 'COUNTER',
    shape: { strategy: 'COUNTER', usersPerRequest: size },
    blockSize: DEFAULT_BLOCK_SIZE,
    blockSizeMax: DEFAULT_BLOCK_SIZE_MAX,
    concurrencies,
  });
  return [
    ...ID_STRATEGIES.map(single),
    batches(BATCH_SIZE, CONCURRENCIES),
    batches(LARGEST_BATCH_SIZE, [CONCURRENCIES[CONCURRENCIES.length - 1]]),
  ];
}

/**
 * After the load stops, requests already sent still complete on the service (autocannon only
 * drops its sockets). Waits until the strategy's created-users count stops rising, within a bound,
 * and returns the final metrics and when the last increase was seen.
 */
async function drain(fleet: ServiceFleet, strategy: string, loadEnded: number) {
  let snapshot = await fleet.metrics();
  let lastRise = loadEnded;
  let quietPolls = 0;
  const deadline = performance.now() + DRAIN_TIMEOUT_MS;
  while (quietPolls < DRAIN_QUIET_POLLS && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, DRAIN_POLL_MS));
    const next = await fleet.metrics();
    const rose =
      metricValue(next, 'sequential_ids_users_created_total', strategy) >
      metricValue(snapshot, 'sequential_ids_users_created_total', strategy);
    quietPolls = rose ? 0 : quietPolls + 1;
    if (rose) lastRise = performance.now();
    snapshot = next;
  }
  return { snapshot, lastRise };
}

export async function measureServiceCell(
  fleet: ServiceFleet,
  plan: ServicePlan,
  concurrency: number,
  durationS: number,
  databasePid: number | undefined,
): Promise<CellResult> {
  const before = await fleet.metrics();
  const stopRss = fleet.sampleRss();
  const cpuSpent = await startCpuMeter(
    fleet.processes.map((p) => p.pid),
    databasePid,
  );
  const loadStarted = performance.now();
  const load = await runHttpLoad({
    urls: fleet.processes.map((p) => p.url),
    shape: plan.shape,
    connections: concurrency,
    durationS,
    headers: fleet.headers,
  });
  const { snapshot: after, lastRise } = await drain(fleet, plan.strategy, performance.now());
  const cpu = await cpuSpent();
  const peakRssMb = stopRss();
  const delta = (name: string, label?: string): number =>
    metricValue(after, name, label) - metricValue(before, name, label);
  // Users as the service counts them (requests still in flight when the load stopped included),
  // over the time until the last of them was created.
  const users = delta('sequential_ids_users_created_total', plan.strategy);
  const elapsedS = (lastRise - loadStarted) / 1000;
  const perUser = (value: number): number | null => (users === 0 ? null : value / users);
  return {
    path: 'service',
    label: plan.label,
    strategy:
      plan.shape.usersPerRequest > 1 ? batchStrategy(plan.shape.usersPerRequest) : plan.strategy,
    concurrency,
    instances: fleet.processes.length,
    blockSize: plan.strategy === 'BLOCK' ? plan.blockSize : undefined,
    durationS: elapsedS,
    users,
    usersPerSecond: users / elapsedS,
    p50Ms: load.p50Ms,
    p99Ms: load.p99Ms,
    commandsPerUser: perUser(
      delta('sequential_ids_user_creation_db_commands_total', plan.strategy),
    ),
    duplicateKeyRetriesPerUser: perUser(
      delta('sequential_ids_user_duplicate_key_retries_total', plan.strategy),
    ),
    transactionRetriesPerUser: perUser(
      delta('sequential_ids_user_transaction_retries_total', plan.strategy),
    ),
    writeConflictsPerUser: perUser(
      delta('sequential_ids_user_transaction_write_conflicts_total', plan.strategy),
    ),
    failedRequests: load.failedRequests,
    retryableRefusals: load.retryableRefusals,
    cpuMsPerUser: cpuPerUser(cpu, users),
    peakRssMb,
    counterWrites: delta('sequential_ids_counter_document_writes_total'),
  };
}

/** Unmeasured load so the service's code is optimised before it is measured; then drains it. */
export async function warmUp(fleet: ServiceFleet, plan: ServicePlan, durationS: number) {
  await runHttpLoad({
    urls: fleet.processes.map((p) => p.url),
    shape: plan.shape,
    connections: WARM_UP_CONNECTIONS,
    durationS,
    headers: fleet.headers,
  });
  await drain(fleet, plan.strategy, performance.now());
}
