/**
 * The paired rounds' turns (bench/run.ts, `pairedRoundsOf`): in which orders the sides of a round
 * take their turns, and how one side's slices make its cell.
 *
 * Why turns: a machine whose speed drifts over tens of seconds decided a round whose sides ran one
 * cell each, one after another (bench/results/0.4.md, "A paired round in turns"). Contract: both are
 * pure functions.
 */
import { median, type CellResult } from './report';

/** Every order of `items` (all permutations), in lexicographic order of their positions. */
export function ordersOf<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]];
  return items.flatMap((item, i) =>
    ordersOf([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]),
  );
}

/**
 * One cell of the slices of one side of a paired round, measured in turns with the other sides:
 * users, time, failures and commands are summed, per-user figures weighted by each slice's users
 * (null when any slice's is), p50 is the slices' median and p99 their highest, RSS the highest.
 * The label, strategy, concurrency and instances are the first slice's (all are alike).
 */
export function mergeSlices(slices: CellResult[]): CellResult {
  const [first] = slices;
  if (first === undefined) throw new Error('mergeSlices needs at least one slice');
  const users = slices.reduce((sum, slice) => sum + slice.users, 0);
  const durationS = slices.reduce((sum, slice) => sum + slice.durationS, 0);
  const weighted = (perUser: (slice: CellResult) => number | null | undefined): number | null => {
    if (users === 0) return null;
    let total = 0;
    for (const slice of slices) {
      const value = perUser(slice);
      if (value == null) return null;
      total += value * slice.users;
    }
    return total / users;
  };
  const highest = (values: Array<number | null>): number | null =>
    values.some((value) => value === null) ? null : Math.max(...(values as number[]));
  const summed = (values: Array<number | undefined>): number | undefined =>
    values.some((value) => value === undefined)
      ? undefined
      : (values as number[]).reduce((sum, value) => sum + value, 0);
  const counterWrites = summed(slices.map((slice) => slice.counterWrites));
  return {
    ...first,
    durationS,
    users,
    usersPerSecond: durationS > 0 ? users / durationS : 0,
    p50Ms: median(slices.map((slice) => slice.p50Ms)),
    p99Ms: Math.max(...slices.map((slice) => slice.p99Ms)),
    commandsPerUser: weighted((slice) => slice.commandsPerUser),
    duplicateKeyRetriesPerUser: weighted((slice) => slice.duplicateKeyRetriesPerUser),
    transactionRetriesPerUser: weighted((slice) => slice.transactionRetriesPerUser),
    writeConflictsPerUser: weighted((slice) => slice.writeConflictsPerUser),
    failedRequests: slices.reduce((sum, slice) => sum + slice.failedRequests, 0),
    retryableRefusals: slices.reduce((sum, slice) => sum + slice.retryableRefusals, 0),
    cpuMsPerUser: {
      service: weighted((slice) => slice.cpuMsPerUser.service),
      database: weighted((slice) => slice.cpuMsPerUser.database),
      client: weighted((slice) => slice.cpuMsPerUser.client),
    },
    peakRssMb: highest(slices.map((slice) => slice.peakRssMb)),
    ...(counterWrites === undefined ? {} : { counterWrites }),
  };
}
