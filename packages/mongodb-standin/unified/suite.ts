/** Runs every test of every `*.json` file in one suite directory and counts the verdicts. */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { BSON, Document } from 'mongodb';
import { ServerProfile } from './requirements';
import { runTest, Verdict } from './test-run';

export interface SuiteReport {
  suite: string;
  counts: Record<Verdict, number>;
  /** one line per refused or wrong test, and per skipped one with its reason */
  lines: string[];
}

export function readSuite(dir: string): Array<{ name: string; file: Document }> {
  return readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => ({
      name,
      file: BSON.EJSON.parse(readFileSync(path.join(dir, name), 'utf8'), {
        relaxed: true,
      }) as Document,
    }));
}

export async function runSuite(
  dir: string,
  uri: string,
  server: ServerProfile,
): Promise<SuiteReport> {
  const report: SuiteReport = {
    suite: dir,
    counts: { pass: 0, refused: 0, wrong: 0, 'driver-side': 0, 'runner-gap': 0, skipped: 0 },
    lines: [],
  };
  for (const { name, file } of readSuite(dir)) {
    for (const test of file.tests as Document[]) {
      const { verdict, reason } = await runTest(file, test, uri, server);
      report.counts[verdict]++;
      if (verdict !== 'pass')
        report.lines.push(`${verdict.toUpperCase()} ${name} :: ${test.description} :: ${reason}`);
    }
  }
  return report;
}
