/**
 * The database a benchmark runs against: `MONGODB_URI` when set, otherwise the one the test harness
 * would pick (`startTestDatabase()`: memory-server, then the stand-in).
 *
 * Contract: a database the bench starts runs in a child process of its own (this file, run as a
 * script), never in the bench process, so the load generator and the driver baselines do not share
 * an event loop with the server they measure. The child prints one JSON line
 * `{ uri, backend, description }` when ready and stops its database when its stdin closes or on
 * SIGTERM, so it never outlives the bench. Startup is bounded in time.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface BenchDatabase {
  uri: string;
  /** `uri`, `memory-server` or `standin`, as the harness names them. */
  backend: string;
  /** What the database is, in words (the harness's description). */
  description: string;
  /** The process hosting the database, when the bench started it (for its CPU time). */
  pid?: number;
  stop(): Promise<void>;
}

const STARTUP_TIMEOUT_MS = 60_000;

export async function startBenchDatabase(): Promise<BenchDatabase> {
  const uri = process.env.MONGODB_URI;
  if (uri) {
    return { uri, backend: 'uri', description: 'MongoDB from MONGODB_URI', stop: async () => {} };
  }

  const child = spawn(process.execPath, ['--import', 'tsx', __filename], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ready = new Promise<{ uri: string; backend: string; description: string }>(
    (resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`database did not start within ${STARTUP_TIMEOUT_MS} ms`)),
        STARTUP_TIMEOUT_MS,
      );
      createInterface({ input: child.stdout }).once('line', (line) => {
        clearTimeout(timer);
        resolve(JSON.parse(line));
      });
      child.once('exit', (code) => reject(new Error(`database process exited (${code})`)));
    },
  );
  try {
    const started = await ready;
    return {
      ...started,
      pid: child.pid,
      stop: async () => {
        child.stdin.end();
        await exited;
      },
    };
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
}

async function serveDatabase(): Promise<void> {
  // Loaded only in this child: the bench process itself never hosts a database.
  // eslint-disable-next-line import-x/extensions -- import() is ESM under nodenext: tsc wants .js
  const { startTestDatabase, describeTestDatabase } = await import('../test/harness/database.js');
  const database = await startTestDatabase();
  let stopping = false;
  const stop = async (): Promise<void> => {
    if (stopping) return;
    stopping = true;
    await database.stop();
    process.exit(0);
  };
  process.stdin.on('end', stop).resume();
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  process.stdout.write(
    JSON.stringify({
      uri: database.uri,
      backend: database.backend,
      description: describeTestDatabase(database),
    }) + '\n',
  );
}

if (require.main === module) {
  serveDatabase().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
