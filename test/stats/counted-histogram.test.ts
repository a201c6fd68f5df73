/**
 * CountedHistogram against prom-client's own Histogram: the same observations, scraped from a
 * registry each, give the same samples (names, labels, cumulative bucket counts, sum and count).
 */
import { Histogram, Registry } from 'prom-client';
import { CountedHistogram } from '../../src/stats/counted-histogram';

const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15];
const LABELS = ['operation_type', 'operation_name', 'outcome'] as const;
type Label = (typeof LABELS)[number];

/** Every sample line of a text exposition, its labels sorted, with HELP and TYPE lines. */
function samples(text: string): string[] {
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const sample = /^([\w:]+)\{(.*)\} (\S+)$/.exec(line);
      if (sample === null) return line;
      const labels = sample[2].split(/,(?=\w+=")/).sort();
      return `${sample[1]}{${labels.join(',')}} ${sample[3]}`;
    })
    .sort();
}

function pair() {
  const theirs = new Registry();
  const ours = new Registry();
  const config = { name: 'request_seconds', help: 'Requests.', labelNames: [...LABELS] };
  const reference = new Histogram({ ...config, buckets: BUCKETS, registers: [theirs] });
  const counted = new CountedHistogram<Label>({ ...config, buckets: BUCKETS, registers: [ours] });
  return { theirs, ours, reference, counted };
}

test('the same observations give the same exposition as prom-client', async () => {
  const { theirs, ours, reference, counted } = pair();
  const sets: Record<Label, string>[] = [
    { operation_type: 'mutation', operation_name: 'Signup', outcome: 'success' },
    { operation_type: 'query', operation_name: 'anonymous', outcome: 'error' },
    { operation_type: 'none', operation_name: 'anonymous', outcome: 'error' },
  ];
  // Values on bounds, between them, below the first, above the last (only in +Inf), and zero.
  const values = [0, 0.001, 0.005, 0.0051, 0.3, 1, 2.4999, 15, 15.0001, 120];
  let i = 0;
  for (const value of values) {
    for (const labels of sets.slice(0, 1 + (i++ % sets.length))) {
      reference.labels(labels).observe(value);
      counted.series(labels).observe(value);
    }
  }
  const expected = samples(await theirs.metrics());
  expect(expected.filter((line) => line.includes('_bucket')).length).toBe(3 * 13);
  expect(samples(await ours.metrics())).toEqual(expected);
  expect(await ours.getMetricsAsJSON()).toHaveLength(1);
});

test('a series is counted in one place whichever object asked for it', async () => {
  const { ours, counted } = pair();
  const labels = { operation_type: 'query', operation_name: 'Q', outcome: 'success' };
  counted.series(labels).observe(0.02);
  counted.series({ ...labels }).observe(0.03);
  const text = await ours.metrics();
  expect(text).toContain(
    'request_seconds_count{operation_type="query",operation_name="Q",outcome="success"} 2',
  );
  expect(text).toContain(
    'request_seconds_bucket{operation_type="query",operation_name="Q",outcome="success",le="0.025"} 1',
  );
});

test('non-finite values are refused and count nowhere; reset forgets every series', async () => {
  const { ours, counted } = pair();
  const series = counted.series({ operation_type: 'query', operation_name: 'Q', outcome: 'error' });
  expect(() => series.observe(Number.NaN)).toThrow(TypeError);
  expect(() => series.observe(Number.POSITIVE_INFINITY)).toThrow(TypeError);
  expect(series.count).toBe(0);
  series.observe(1);
  ours.resetMetrics();
  expect(await ours.metrics()).not.toContain('request_seconds_count');
});

test('unsorted buckets and an le label are refused at construction', () => {
  const config = { name: 'x_seconds', help: 'x', registers: [] };
  expect(() => new CountedHistogram({ ...config, labelNames: [], buckets: [1, 0.5] })).toThrow(
    TypeError,
  );
  expect(() => new CountedHistogram({ ...config, labelNames: ['le'], buckets: [1] })).toThrow(
    TypeError,
  );
});

test('a histogram without labels has one series', async () => {
  const registry = new Registry();
  const plain = new CountedHistogram({
    name: 'plain_seconds',
    help: 'x',
    labelNames: [],
    buckets: [1],
    registers: [registry],
  });
  plain.series({}).observe(0.5);
  plain.series({}).observe(2);
  const text = await registry.metrics();
  expect(text).toContain('plain_seconds_bucket{le="1"} 1');
  expect(text).toContain('plain_seconds_bucket{le="+Inf"} 2');
  expect(text).toContain('plain_seconds_count 2');
});
