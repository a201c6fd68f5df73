/**
 * MongoDB's unified CRUD spec tests against the stand-in (or --uri): kept as the CRUD suite's
 * entry point; the runner is unified/ (run.ts says what it implements).
 *
 *   npx tsx unified/crud-spec.ts <source/crud/tests/unified> [--uri mongodb://...] [--standalone]
 */
import { runSuites } from './run';

const argv = process.argv.slice(2);
const uriAt = argv.indexOf('--uri');
const dir = argv[0];
if (!dir || dir.startsWith('--')) {
  console.error(
    'usage: tsx unified/crud-spec.ts <source/crud/tests/unified> [--uri mongodb://...] [--standalone]',
  );
  process.exitCode = 2;
} else {
  runSuites([dir], {
    uri: uriAt === -1 ? undefined : argv[uriAt + 1],
    standin: argv.includes('--standalone') ? { replSet: null } : {},
    quiet: true,
  }).then(
    (wrong) => (process.exitCode = wrong > 0 ? 1 : 0),
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
