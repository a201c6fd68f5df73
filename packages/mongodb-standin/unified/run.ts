/**
 * MongoDB's unified spec tests (mongodb/specifications, e.g. source/crud/tests/unified,
 * source/retryable-writes/tests/unified, source/sessions/tests) as a yardstick for the stand-in:
 *
 *   npx tsx unified/run.ts <suite dir>... [--uri <mongodb uri>] [--standalone] [--quiet]
 *
 * runs every test of each directory that the server under test would run (runOnRequirements
 * against its buildInfo version and hello topology; others are skipped and counted) through
 * driver 7.9 and prints, per suite, the refused / wrong / driver-side / runner-gap / skipped tests
 * with their reasons and a line
 * `{"suite":…,"pass":…,"refused":…,"wrong":…,"driver-side":…,"runner-gap":…,"skipped":…}`
 * (test-run.ts defines each).
 * Without --uri it starts an in-process stand-in: a one-member replica set, or a standalone with
 * --standalone. Not part of `npm test`: the spec files are not vendored (fetch them:
 * git clone https://github.com/mongodb/specifications). --quiet leaves out skipped lines.
 *
 * Implemented from the format: runOnRequirements, createEntities (client with observeEvents /
 * ignoreCommandMonitoringEvents / observeSensitiveCommands / uriOptions, database, collection,
 * session, bucket, thread), initialData, the operations of ./operations (one module per family,
 * the test runner's own in runner.ts), saveResultAsEntity, expectResult / expectError,
 * expectEvents (command, CMAP and SDAM events), expectLogMessages, outcome, the operators of
 * match.ts. Root documents may have extra fields, as the format says. Not implemented (counted
 * as runner-gap): storeEventsAsEntities, client encryption.
 */
import { startStandin, StandinOptions } from '../src';
import { profileServer } from './requirements';
import { runSuite } from './suite';

export interface RunOptions {
  uri?: string;
  standin?: StandinOptions;
  quiet?: boolean;
}

export async function runSuites(dirs: string[], options: RunOptions): Promise<number> {
  const standin = options.uri
    ? null
    : await startStandin({ log: () => undefined, ...options.standin });
  const uri = options.uri ?? standin!.uri;
  let wrong = 0;
  try {
    const server = await profileServer(uri);
    for (const dir of dirs) {
      const report = await runSuite(dir, uri, server);
      for (const line of report.lines)
        if (!(options.quiet && line.startsWith('SKIPPED'))) console.log(line);
      console.log(JSON.stringify({ suite: dir, ...report.counts }));
      wrong += report.counts.wrong;
    }
  } finally {
    await standin?.stop();
  }
  return wrong;
}

function parseArgs(argv: string[]): { dirs: string[]; options: RunOptions } {
  const uriAt = argv.indexOf('--uri');
  const uri = uriAt === -1 ? undefined : argv[uriAt + 1];
  const dirs = argv.filter((arg, i) => !arg.startsWith('--') && (uriAt === -1 || i !== uriAt + 1));
  const standin: StandinOptions = argv.includes('--standalone') ? { replSet: null } : {};
  return { dirs, options: { uri, standin, quiet: argv.includes('--quiet') } };
}

if (require.main === module) {
  const { dirs, options } = parseArgs(process.argv.slice(2));
  if (dirs.length === 0) {
    console.error(
      'usage: tsx unified/run.ts <suite dir>... [--uri mongodb://...] [--standalone] [--quiet]',
    );
    process.exitCode = 2;
  } else {
    runSuites(dirs, options).then(
      (wrong) => (process.exitCode = wrong > 0 ? 1 : 0),
      (error: unknown) => {
        console.error(error);
        process.exitCode = 1;
      },
    );
  }
}
