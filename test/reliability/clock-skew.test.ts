/**
 * Two service processes whose clocks are 5 s apart (one 2.5 s ahead of the machine, one 2.5 s
 * behind: ../support/skewed-clock.cjs) allocate from one yearly sequence while the database's
 * clock passes New Year's Eve midnight in Berlin: no formatted number is issued twice, each year's
 * numbers are 1..n, and once a 2027 number was answered no request sent later gets a 2026 one.
 * The period is the database's to decide, so the processes' clocks cannot split a year.
 *
 * The database is a stand-in of this file's own, its clock set by the test (mongod has none to
 * set); the processes are real (`src/main.ts`), so each has a clock of its own.
 */
import path from 'node:path';
import { startStandin, type RunningStandin } from 'mongodb-standin';
import { uniqueDbName } from '../support/db';
import {
  MAIN_PROCESS_TIMEOUT_MS,
  startMainProcess,
  type MainProcess,
} from '../support/main-process';
import { postGraphQL } from '../support/service';

const SKEWED_CLOCK = path.join(__dirname, '..', 'support', 'skewed-clock.cjs');
const NEW_YEAR_IN_BERLIN = Date.parse('2026-12-31T23:00:00.000Z');
const ALLOCATE = `mutation { allocateSequence(name: "invoice") {
  range { period formatted } error { code message } } }`;

let now = NEW_YEAR_IN_BERLIN - 60_000;
let standin: RunningStandin;
const processes: MainProcess[] = [];
/** Each process's base URL (`http://127.0.0.1:<port>`). */
const urls: string[] = [];

beforeAll(async () => {
  standin = await startStandin({ log: () => undefined, clock: () => now });
  const dbName = uniqueDbName('skew');
  for (const skew of ['2500', '-2500']) {
    const main = startMainProcess(
      { NODE_ENV: 'test', MONGODB_URI: standin.uri, MONGODB_DB: dbName, CLOCK_SKEW_MS: skew },
      { nodeArgs: ['--require', SKEWED_CLOCK] },
    );
    processes.push(main);
    urls.push(await main.ready);
  }
}, 2 * MAIN_PROCESS_TIMEOUT_MS);

afterAll(async () => {
  for (const main of processes) main.child.kill('SIGTERM');
  await Promise.all(processes.map((main) => main.exited));
  await standin?.stop();
});

test('the processes run on clocks 5 s apart', async () => {
  // A sequence without a period is stamped `updatedAt` by the process that allocated from it.
  const stamps: number[] = [];
  await postGraphQL(
    urls[0],
    'mutation { createSequence(input: { name: "stamp" }) { error { code } } }',
  );
  for (const url of urls) {
    const before = Date.now();
    const { body } = await postGraphQL<{ allocateSequence: { sequence: { updatedAt: string } } }>(
      url,
      'mutation { allocateSequence(name: "stamp") { sequence { updatedAt } } }',
    );
    const after = Date.now();
    stamps.push(Date.parse(body.data!.allocateSequence.sequence.updatedAt) - (before + after) / 2);
  }
  // 2.5 s ahead and 2.5 s behind, give or take the requests' own time.
  expect(stamps[0]).toBeGreaterThan(2_000);
  expect(stamps[1]).toBeLessThan(-2_000);
});

test('across New Year on the database’s clock: no number twice, each year 1..n, no 2026 after a 2027', async () => {
  const defined = await postGraphQL(
    urls[0],
    `mutation { createSequence(input: { name: "invoice", format: "INV-{YYYY}-{seq:6}", period: YEARLY, timeZone: "Europe/Berlin" }) { error { code } } }`,
  );
  expect(defined.body.data).toEqual({ createSequence: { error: null } });
  now = NEW_YEAR_IN_BERLIN - 1_000;
  const answers: Array<{ period: string; formatted: string; sentAt: number }> = [];
  let event = 0;
  let first2027AnsweredAt = Infinity;
  await Promise.all(
    Array.from({ length: 8 }, async (_, client) => {
      for (let i = 0; i < 25; i += 1) {
        if (answers.length >= 100) now = NEW_YEAR_IN_BERLIN;
        const sentAt = (event += 1);
        const { body } = await postGraphQL<{
          allocateSequence: { range: { period: string; formatted: string[] } };
        }>(urls[client % 2], ALLOCATE);
        const answeredAt = (event += 1);
        const range = body.data!.allocateSequence.range;
        if (range.period === '2027')
          first2027AnsweredAt = Math.min(first2027AnsweredAt, answeredAt);
        answers.push({ period: range.period, formatted: range.formatted[0], sentAt });
      }
    }),
  );
  expect(new Set(answers.map((answer) => answer.formatted)).size).toBe(200);
  for (const year of ['2026', '2027']) {
    const numbers = answers
      .filter((answer) => answer.period === year)
      .map((answer) => {
        expect(answer.formatted.startsWith(`INV-${year}-`)).toBe(true);
        return Number(answer.formatted.slice(-6));
      })
      .sort((a, b) => a - b);
    expect(numbers.length).toBeGreaterThan(0);
    expect(numbers).toEqual(Array.from({ length: numbers.length }, (_, i) => i + 1));
  }
  const sentLater = answers.filter((answer) => answer.sentAt > first2027AnsweredAt);
  expect(sentLater.length).toBeGreaterThan(0);
  for (const answer of sentLater) expect(answer.period).toBe('2027');
});
