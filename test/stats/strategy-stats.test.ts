import { MAX_SEQUENCE_LABELS, StrategyStats, type CreationRecord } from '../../src/stats';
import { ID_STRATEGIES, type IdStrategy } from '../../src/strategies';

const record = (overrides: Partial<CreationRecord<IdStrategy>>): CreationRecord<IdStrategy> => ({
  strategy: 'COUNTER',
  users: 1,
  attempts: 1,
  duplicateKeyRetries: 0,
  counterRepairs: 0,
  transactionRetries: 0,
  writeConflicts: 0,
  commands: 2,
  latencyMs: 1,
  ...overrides,
});

/** The value of one series line in Prometheus text, e.g. `sequential_ids_users_created_total{strategy="BLOCK"}`. */
function seriesValue(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('StrategyStats', () => {
  test('before anything is recorded every strategy is listed at zero, with no ratios or percentiles', async () => {
    const stats = new StrategyStats(ID_STRATEGIES);
    expect(stats.snapshot()).toEqual(
      ID_STRATEGIES.map((strategy) => ({
        strategy,
        usersCreated: 0,
        insertAttempts: 0,
        duplicateKeyRetries: 0,
        counterRepairs: 0,
        transactionRetries: 0,
        writeConflicts: 0,
        commandsPerUser: null,
        p50Ms: null,
        p95Ms: null,
        p99Ms: null,
      })),
    );
    const text = await stats.metrics();
    expect(
      seriesValue(text, 'sequential_ids_users_created_total{strategy="OPTIMISTIC_LOOP"}'),
    ).toBe(0);
  });

  test('records add up per strategy, and commands per user divides commands by users created', () => {
    const stats = new StrategyStats(ID_STRATEGIES);
    stats.record(
      record({ strategy: 'OPTIMISTIC_LOOP', attempts: 3, duplicateKeyRetries: 2, commands: 6 }),
    );
    stats.record(record({ strategy: 'OPTIMISTIC_LOOP', commands: 2 }));
    stats.record(record({ strategy: 'COUNTER', attempts: 2, counterRepairs: 1, commands: 5 }));
    stats.record(record({ strategy: 'BLOCK', users: 1000, attempts: 1000, commands: 3 }));
    stats.record(
      record({ strategy: 'TRANSACTION', transactionRetries: 3, writeConflicts: 2, commands: 9 }),
    );
    stats.record(record({ strategy: 'TRANSACTION', transactionRetries: 1, commands: 4 }));
    const byStrategy = Object.fromEntries(stats.snapshot().map((s) => [s.strategy, s]));
    expect(byStrategy.OPTIMISTIC_LOOP).toMatchObject({
      usersCreated: 2,
      insertAttempts: 4,
      duplicateKeyRetries: 2,
      counterRepairs: 0,
      commandsPerUser: 4,
    });
    expect(byStrategy.COUNTER).toMatchObject({
      usersCreated: 1,
      counterRepairs: 1,
      commandsPerUser: 5,
    });
    expect(byStrategy.BLOCK.commandsPerUser).toBeCloseTo(0.003, 10);
    expect(byStrategy.TRANSACTION).toMatchObject({
      usersCreated: 2,
      transactionRetries: 4,
      writeConflicts: 2,
      commandsPerUser: 6.5,
    });
    expect(byStrategy.COUNTER).toMatchObject({ transactionRetries: 0, writeConflicts: 0 });
  });

  test('records of zeros leave their series listed at zero, and /metrics agrees with the snapshot', async () => {
    const stats = new StrategyStats(ID_STRATEGIES);
    stats.record(record({}));
    stats.record(record({ users: 0, attempts: 0, commands: 0 }));
    stats.record(record({ attempts: 2, duplicateKeyRetries: 1, counterRepairs: 1, commands: 5 }));
    const text = await stats.metrics();
    const counter = (name: string) => seriesValue(text, `${name}{strategy="COUNTER"}`);
    expect(counter('sequential_ids_users_created_total')).toBe(2);
    expect(counter('sequential_ids_user_insert_attempts_total')).toBe(3);
    expect(counter('sequential_ids_user_duplicate_key_retries_total')).toBe(1);
    expect(counter('sequential_ids_counter_repairs_total')).toBe(1);
    expect(counter('sequential_ids_user_transaction_retries_total')).toBe(0);
    expect(counter('sequential_ids_user_transaction_write_conflicts_total')).toBe(0);
    expect(counter('sequential_ids_user_creation_db_commands_total')).toBe(7);
    expect(
      seriesValue(text, 'sequential_ids_user_transaction_retries_total{strategy="BLOCK"}'),
    ).toBe(0);
    expect(stats.snapshot().find((s) => s.strategy === 'COUNTER')).toMatchObject({
      usersCreated: 2,
      insertAttempts: 3,
      duplicateKeyRetries: 1,
      counterRepairs: 1,
      transactionRetries: 0,
      writeConflicts: 0,
      commandsPerUser: 3.5,
    });
  });

  test('latency percentiles are those of the observations, within 1%', () => {
    const stats = new StrategyStats(ID_STRATEGIES);
    const latencies = Array.from({ length: 1000 }, (_, i) => (i + 1) / 10);
    for (const latencyMs of [...latencies].reverse()) stats.record(record({ latencyMs }));
    const counter = stats.snapshot()[0];
    expect(counter.p50Ms).toBeGreaterThanOrEqual(50 * 0.99);
    expect(counter.p50Ms).toBeLessThanOrEqual(50 * 1.01);
    expect(counter.p95Ms).toBeGreaterThanOrEqual(95 * 0.99);
    expect(counter.p95Ms).toBeLessThanOrEqual(95 * 1.01);
    expect(counter.p99Ms).toBeGreaterThanOrEqual(99 * 0.99);
    expect(counter.p99Ms).toBeLessThanOrEqual(99 * 1.01);
    expect(stats.snapshot()[2].p50Ms).toBeNull();
  });

  test('/metrics text carries the same totals and percentiles as the snapshot, and counter writes per sequence', async () => {
    const stats = new StrategyStats(ID_STRATEGIES);
    for (const latencyMs of [5, 10, 200]) stats.record(record({ strategy: 'BLOCK', latencyMs }));
    stats.record(record({ strategy: 'TRANSACTION', transactionRetries: 2, writeConflicts: 1 }));
    stats.recordCounterWrite('userid');
    stats.recordCounterWrite('userid');
    stats.recordCounterWrite('invoice');
    const text = await stats.metrics();
    const block = stats.snapshot()[2];
    expect(seriesValue(text, 'sequential_ids_users_created_total{strategy="BLOCK"}')).toBe(3);
    expect(
      seriesValue(text, 'sequential_ids_user_creation_db_commands_total{strategy="BLOCK"}'),
    ).toBe(6);
    expect(
      seriesValue(text, 'sequential_ids_counter_document_writes_total{sequence="userid"}'),
    ).toBe(2);
    expect(
      seriesValue(text, 'sequential_ids_counter_document_writes_total{sequence="invoice"}'),
    ).toBe(1);
    expect(
      seriesValue(text, 'sequential_ids_user_transaction_retries_total{strategy="TRANSACTION"}'),
    ).toBe(2);
    expect(
      seriesValue(
        text,
        'sequential_ids_user_transaction_write_conflicts_total{strategy="TRANSACTION"}',
      ),
    ).toBe(1);
    expect(
      seriesValue(text, 'sequential_ids_user_transaction_retries_total{strategy="BLOCK"}'),
    ).toBe(0);
    // In seconds in /metrics (Prometheus' base unit), in milliseconds in the snapshot.
    const quantile = (q: string) =>
      seriesValue(
        text,
        `sequential_ids_user_creation_duration_seconds{strategy="BLOCK",quantile="${q}"}`,
      );
    expect(quantile('0.5')).toBeCloseTo((block.p50Ms as number) / 1_000, 12);
    expect(quantile('0.99')).toBeCloseTo((block.p99Ms as number) / 1_000, 12);
    expect(stats.contentType).toMatch(/^text\/plain/);
  });

  test('counter writes of client-chosen sequence names have a bounded number of labels', async () => {
    const stats = new StrategyStats(ID_STRATEGIES);
    stats.recordCounterWrite('userid');
    for (let i = 0; i < 1000; i += 1) stats.recordCounterWrite(`tenant-${i}`);
    stats.recordCounterWrite('userid');
    const text = await stats.metrics();
    const series = text
      .split('\n')
      .filter((line) => line.startsWith('sequential_ids_counter_document_writes_total{'));
    expect(series).toHaveLength(MAX_SEQUENCE_LABELS + 1);
    expect(
      seriesValue(text, 'sequential_ids_counter_document_writes_total{sequence="userid"}'),
    ).toBe(2);
    expect(
      seriesValue(text, 'sequential_ids_counter_document_writes_total{sequence="other"}'),
    ).toBe(1000 - (MAX_SEQUENCE_LABELS - 1));
  });

  test('scraping again reads the totals again: nothing is counted twice', async () => {
    const stats = new StrategyStats(ID_STRATEGIES);
    stats.record(record({ users: 2, commands: 4 }));
    stats.recordCounterWrite('userid');
    stats.recordCounterWrite('userid');
    await stats.metrics();
    await stats.metrics();
    stats.record(record({ users: 1, commands: 2 }));
    stats.recordCounterWrite('userid');
    const text = await stats.metrics();
    const value = (series: string) => seriesValue(text, series);
    expect(value('sequential_ids_users_created_total{strategy="COUNTER"}')).toBe(3);
    expect(value('sequential_ids_user_creation_db_commands_total{strategy="COUNTER"}')).toBe(6);
    expect(value('sequential_ids_counter_document_writes_total{sequence="userid"}')).toBe(3);
  });

  test('instances are independent: each has its own registry and totals', async () => {
    const one = new StrategyStats(ID_STRATEGIES);
    const other = new StrategyStats(ID_STRATEGIES, { processMetrics: true });
    one.record(record({ users: 4 }));
    one.recordCounterWrite('userid');
    expect(other.snapshot()[0].usersCreated).toBe(0);
    const text = await other.metrics();
    expect(seriesValue(text, 'sequential_ids_users_created_total{strategy="COUNTER"}')).toBe(0);
    expect(text).not.toContain('sequential_ids_counter_document_writes_total{');
    expect(text).toContain('process_cpu_user_seconds_total');
    expect(await one.metrics()).not.toContain('process_cpu_user_seconds_total');
  });
});
