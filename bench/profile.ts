/**
 * `npm run bench:profile [-- --seconds N] [-- --strategy S] [-- --concurrency C]
 * [-- --node-args FLAGS] [-- ENTRY]`: one service process under `node --cpu-prof`, loaded with
 * `createUser` (COUNTER at concurrency 64 unless told otherwise) after a warm-up, then stopped;
 * prints where its CPU time went (./profile-split.ts) and the functions with the most self time.
 * The profile stays in `bench/cpu-profiles/` (git-ignored). ENTRY is a built entry point
 * (`dist/main.js` unless given), run with the `node` flags of `--node-args`, as in
 * `npm run bench:compare`: `--node-args "--import tsx" bench/floor-service.ts` profiles the floor
 * under the same load, to compare where each spends its CPU.
 *
 * Contract: the database and the service run as in `npm run bench` (their own processes, on
 * 127.0.0.1, a fresh database dropped at the end); the load is bounded in time (1 to 60 s). The
 * profile covers the process's whole life, warm-up and start-up included, so keep the measured
 * part long against them (the default 10 s against a 2 s warm-up).
 */
import { readFile, readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { isIdStrategy } from '../src/strategies';
import { startBenchDatabase } from './database';
import { runHttpLoad, type LoadShape } from './http-load';
import {
  profileSplit,
  profileTable,
  topFunctions,
  type CpuProfile,
  type SampleWindow,
} from './profile-split';
import { metricValue, startServiceFleet } from './service-processes';

const PROFILE_DIR = join(__dirname, 'cpu-profiles');
const WARM_UP_SECONDS = 2;

interface Options {
  seconds: number;
  strategy: LoadShape['strategy'];
  concurrency: number;
  entry?: string;
  nodeArgs: string[];
}

function parseOptions(argv: string[]): Options {
  const options: Options = { seconds: 10, strategy: 'COUNTER', concurrency: 64, nodeArgs: [] };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (i === argv.length - 1 && !flag.startsWith('--')) {
      options.entry = resolve(flag);
    } else if (flag === '--node-args' && value !== undefined) {
      options.nodeArgs = value.split(' ').filter((arg) => arg !== '');
    } else if (flag === '--seconds' && Number(value) >= 1 && Number(value) <= 60) {
      options.seconds = Number(value);
    } else if (flag === '--strategy' && isIdStrategy(value)) {
      options.strategy = value;
    } else if (flag === '--concurrency' && Number.isInteger(Number(value)) && Number(value) >= 1) {
      options.concurrency = Math.min(256, Number(value));
    } else {
      throw new Error(
        'options: --seconds 1..60, --strategy COUNTER|OPTIMISTIC_LOOP|BLOCK, --concurrency N, ' +
          '--node-args "FLAGS", then a built entry point if not dist/main.js',
      );
    }
  }
  return options;
}

/** The newest profile written since `since` (ms since the epoch). */
async function newestProfile(since: number): Promise<string> {
  const files = (await readdir(PROFILE_DIR)).filter((f) => f.endsWith('.cpuprofile'));
  const dated = await Promise.all(
    files.map(async (f) => ({
      path: join(PROFILE_DIR, f),
      t: (await stat(join(PROFILE_DIR, f))).mtimeMs,
    })),
  );
  const newest = dated.filter((d) => d.t >= since).sort((a, b) => b.t - a.t)[0];
  if (newest === undefined) throw new Error(`no profile written to ${PROFILE_DIR}`);
  return newest.path;
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const database = await startBenchDatabase();
  const dbName = `profile_${Date.now().toString(36)}`;
  const started = Date.now();
  const fleet = await startServiceFleet({
    instances: 1,
    mongodbUri: database.uri,
    dbName,
    blockSize: 100,
    blockSizeMax: 10_000,
    nodeArgs: [...options.nodeArgs, '--cpu-prof', '--cpu-prof-dir', PROFILE_DIR],
    entry: options.entry,
  });
  let measured: { started: number; ended: number; users: number } | undefined;
  try {
    const shape: LoadShape = { strategy: options.strategy, usersPerRequest: 1 };
    const urls = fleet.processes.map((p) => p.url);
    const { headers } = fleet;
    await runHttpLoad({ urls, shape, connections: 8, durationS: WARM_UP_SECONDS, headers });
    const before = await fleet.metrics();
    const loadStarted = Date.now();
    const load = await runHttpLoad({
      urls,
      shape,
      connections: options.concurrency,
      durationS: options.seconds,
      headers,
    });
    const ended = Date.now();
    const users =
      metricValue(await fleet.metrics(), 'sequential_ids_users_created_total', options.strategy) -
      metricValue(before, 'sequential_ids_users_created_total', options.strategy);
    measured = { started: loadStarted, ended, users };
    process.stderr.write(
      `profile: ${options.strategy}@${options.concurrency} for ${options.seconds} s, ` +
        `${users} users, p50 ${load.p50Ms} ms, p99 ${load.p99Ms} ms, ${load.failedRequests} failed\n`,
    );
  } finally {
    await fleet.stop();
  }
  const exited = Date.now();
  const file = await newestProfile(started);
  const profile = JSON.parse(await readFile(file, 'utf8')) as CpuProfile;
  // The profile ends when the process exits: the measured load is this far before its end.
  const window: SampleWindow | undefined = measured && {
    startMsBeforeEnd: exited - measured.started,
    endMsBeforeEnd: exited - measured.ended,
  };
  const split = profileSplit(profile, window);
  const perUser =
    measured === undefined || measured.users === 0
      ? ''
      : `Busy ${(split.busyMs / measured.users).toFixed(3)} ms per user created\n\n`;
  const top = topFunctions(profile, 40, window).map((f) => `| ${f.name} | ${f.ms.toFixed(0)} |`);
  process.stdout.write(
    `${file}\n\n${perUser}${profileTable(split)}\n\n| Function | Self ms |\n| --- | --- |\n${top.join('\n')}\n`,
  );
  await database.stop();
}

main().catch((error: unknown) => {
  process.stderr.write(`profile failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
