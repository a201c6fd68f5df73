/**
 * The paired rounds' turns (bench/turns.ts): every order of the sides, and one side's slices merged
 * into its cell.
 */
import type { CellResult } from '../../bench/report';
import { mergeSlices, ordersOf } from '../../bench/turns';
import { cell } from './cell';

describe('ordersOf', () => {
  it('gives every order once', () => {
    expect(ordersOf(['raw', 'counter', 'floor'])).toEqual([
      ['raw', 'counter', 'floor'],
      ['raw', 'floor', 'counter'],
      ['counter', 'raw', 'floor'],
      ['counter', 'floor', 'raw'],
      ['floor', 'raw', 'counter'],
      ['floor', 'counter', 'raw'],
    ]);
    expect(ordersOf(['raw', 'counter'])).toEqual([
      ['raw', 'counter'],
      ['counter', 'raw'],
    ]);
  });

  it('puts each side in each place, and after each other side, equally often', () => {
    const orders = ordersOf(['raw', 'counter', 'floor']);
    const places = new Map<string, number>();
    const follows = new Map<string, number>();
    for (const order of orders) {
      order.forEach((side, place) => {
        places.set(`${side}@${place}`, (places.get(`${side}@${place}`) ?? 0) + 1);
        if (place > 0) {
          const pair = `${order[place - 1]}>${side}`;
          follows.set(pair, (follows.get(pair) ?? 0) + 1);
        }
      });
    }
    expect([...places.values()]).toEqual(Array(9).fill(2));
    expect([...follows.values()]).toEqual(Array(6).fill(2));
  });
});

describe('mergeSlices', () => {
  const slice = (
    users: number,
    durationS: number,
    serviceMs: number,
    extra: Partial<CellResult> = {},
  ) =>
    cell('COUNTER', 64, {
      users,
      durationS,
      usersPerSecond: users / durationS,
      cpuMsPerUser: { service: serviceMs, database: serviceMs / 2, client: null },
      counterWrites: users,
      ...extra,
    });

  it("sums users and time, and weights per-user figures by each slice's users", () => {
    const merged = mergeSlices([
      slice(1_000, 2, 0.6, { p50Ms: 30, p99Ms: 90, failedRequests: 1 }),
      slice(3_000, 2, 0.4, { p50Ms: 20, p99Ms: 70, commandsPerUser: 3 }),
      slice(2_000, 2, 0.5, { p50Ms: 25, p99Ms: 120, peakRssMb: 130 }),
    ]);
    expect(merged).toMatchObject({
      label: 'COUNTER',
      users: 6_000,
      durationS: 6,
      usersPerSecond: 1_000,
      p50Ms: 25,
      p99Ms: 120,
      failedRequests: 1,
      peakRssMb: 130,
      counterWrites: 6_000,
    });
    // (1,000 × 0.6 + 3,000 × 0.4 + 2,000 × 0.5) / 6,000 ms of service CPU per user.
    expect(merged.cpuMsPerUser.service).toBeCloseTo(2_800 / 6_000, 10);
    expect(merged.cpuMsPerUser.database).toBeCloseTo(1_400 / 6_000, 10);
    expect(merged.cpuMsPerUser.client).toBeNull();
    expect(merged.commandsPerUser).toBeCloseTo((2_000 + 9_000 + 4_000) / 6_000, 10);
  });

  it('is the slice itself when there is one', () => {
    const only = slice(1_500, 12, 0.5);
    expect(mergeSlices([only])).toEqual(only);
  });

  it('leaves a figure unmeasured when a slice did not measure it, and refuses no slices', () => {
    const merged = mergeSlices([slice(10, 1, 0.5), slice(10, 1, 0.5, { peakRssMb: null })]);
    expect(merged.peakRssMb).toBeNull();
    expect(() => mergeSlices([])).toThrow('at least one slice');
  });
});
