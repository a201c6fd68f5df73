/**
 * Metrics by Prometheus' conventions, read from a real service's `GET /metrics` after real
 * requests: every series carries the one application prefix, counters end in `_total`, durations
 * are in seconds (no `_ms`, `_milliseconds`), and the GraphQL request histogram is labelled by
 * operation type, a bounded operation name and outcome; errors are counted by code. Fails on the
 * first name or label that breaks them, whoever adds it.
 */
import { METRIC_PREFIX, MAX_OPERATION_LABELS } from '../../src/stats';
import { CLIENT_HEADERS, startTestService, type TestService } from '../support/service';

let service: TestService;

beforeAll(async () => {
  service = await startTestService();
});

afterAll(async () => {
  await service?.stop();
});

interface Family {
  name: string;
  type: string;
  samples: Array<{ name: string; labels: Record<string, string>; value: number }>;
}

/** The families of a Prometheus text exposition, with their samples. */
function families(text: string): Family[] {
  const byName = new Map<string, Family>();
  for (const line of text.split('\n')) {
    const typed = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (typed !== null) byName.set(typed[1], { name: typed[1], type: typed[2], samples: [] });
    const sample = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (sample === null) continue;
    const family = [...byName.values()].find(
      (f) => sample[1] === f.name || sample[1].startsWith(`${f.name}_`),
    );
    const labels = Object.fromEntries(
      [...(sample[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]),
    );
    family?.samples.push({ name: sample[1], labels, value: Number(sample[3]) });
  }
  return [...byName.values()];
}

async function metrics(): Promise<Family[]> {
  const response = await fetch(`${service.url}/metrics`, { headers: CLIENT_HEADERS });
  expect(response.status).toBe(200);
  return families(await response.text());
}

test('every name is prefixed, counters end in _total, durations are in seconds', async () => {
  await service.graphql('mutation Signup { createUser(input: { name: "Named" }) { user { id } } }');
  const found = await metrics();
  expect(found.length).toBeGreaterThan(5);
  for (const family of found) {
    expect(family.name).toMatch(new RegExp(`^${METRIC_PREFIX}[a-z][a-z0-9_]*$`));
    if (family.type === 'counter') expect(family.name).toMatch(/_total$/);
    else expect(family.name).not.toMatch(/_total$/);
    expect(family.name).not.toMatch(/_(ms|milliseconds|millis|us|microseconds)($|_)/);
    if (/duration|latency|time/.test(family.name)) expect(family.name).toMatch(/_seconds$/);
    if (family.type === 'histogram') expect(family.name).toMatch(/_seconds$/);
  }
});

test('the request histogram: by operation type, name and outcome; errors by code', async () => {
  await service.graphql('query Whoami { viewer { role } }');
  await service.graphql('query Broken { nope }');
  const refused = await fetch(`${service.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"query": ',
  });
  expect(refused.status).toBe(400);
  const found = await metrics();
  const histogram = found.find(
    (f) => f.name === `${METRIC_PREFIX}graphql_request_duration_seconds`,
  );
  expect(histogram?.type).toBe('histogram');
  const counts = histogram?.samples.filter((s) => s.name.endsWith('_count')) ?? [];
  for (const sample of counts) {
    expect(Object.keys(sample.labels).sort()).toEqual([
      'operation_name',
      'operation_type',
      'outcome',
    ]);
  }
  const count = (labels: Record<string, string>) =>
    counts.find((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
  expect(count({ operation_type: 'mutation', operation_name: 'Signup', outcome: 'success' })).toBe(
    1,
  );
  expect(count({ operation_type: 'query', operation_name: 'Whoami', outcome: 'success' })).toBe(1);
  // Neither the invalid document nor the malformed body got as far as a known operation.
  expect(count({ operation_type: 'none', operation_name: 'anonymous', outcome: 'error' })).toBe(2);
  const errors = found.find((f) => f.name === `${METRIC_PREFIX}graphql_errors_total`);
  const byCode = Object.fromEntries(errors?.samples.map((s) => [s.labels.code, s.value]) ?? []);
  expect(byCode).toMatchObject({ GRAPHQL_VALIDATION_FAILED: 1, BAD_REQUEST: 1 });
});

test('operation names a client makes up are bounded: the first ones by name, then "other"', async () => {
  for (let i = 0; i < MAX_OPERATION_LABELS + 8; i += 1) {
    await service.graphql(`query Made${i} { viewer { role } }`);
  }
  const histogram = (await metrics()).find(
    (f) => f.name === `${METRIC_PREFIX}graphql_request_duration_seconds`,
  );
  const names = new Set(histogram?.samples.map((s) => s.labels.operation_name));
  expect(names.size).toBeLessThanOrEqual(MAX_OPERATION_LABELS + 1);
  expect(names).toContain('other');
});
