/**
 * `npm run bench:faults [-- --seconds S --clients C --workload transaction|block|gapless|gaplessYearly]`:
 * the fault run at its full scale (by default the first three workloads; `gaplessYearly` passes
 * New Year on the database's clock, test/reliability/kill-run.ts). For each workload, 2 service
 * processes × C clients (default 32) for S
 * seconds (default 30) on a private stand-in, with `failCommand` fail points set in turn and one
 * process killed with SIGKILL mid-run and started again (test/reliability/kill-run.ts); then what
 * the database holds, checked. Prints the figures as Markdown and exits 1 when a promise broke.
 * Run it niced on a shared machine (`nice -n 10 npm run bench:faults`): it starts 3 service
 * processes per workload and loads them for the whole run.
 */
import { runKillRun, type KillRunReport } from '../test/reliability/kill-run';
import { WORKLOADS, type WorkloadName } from '../test/reliability/kill-run-workloads';

const WORKLOAD_NAMES = Object.keys(WORKLOADS) as WorkloadName[];

interface Options {
  seconds: number;
  clients: number;
  workloads: WorkloadName[];
}

function parseOptions(argv: string[]): Options {
  const options: Options = {
    seconds: 30,
    clients: 32,
    workloads: ['transaction', 'block', 'gapless'],
  };
  for (let i = 0; i < argv.length; i += 1) {
    const [name, inline] = argv[i].split('=', 2);
    const value = inline ?? argv[++i];
    if (name === '--seconds' || name === '--clients') {
      const n = Number(value);
      if (!Number.isInteger(n) || n < 1 || n > 600)
        throw new Error(`${name} takes a whole number from 1 to 600`);
      options[name === '--seconds' ? 'seconds' : 'clients'] = n;
    } else if (name === '--workload' && WORKLOAD_NAMES.includes(value as WorkloadName)) {
      options.workloads = [value as WorkloadName];
    } else {
      throw new Error(
        `unknown option ${argv[i]} (known: --seconds S, --clients C, --workload ${WORKLOAD_NAMES.join('|')})`,
      );
    }
  }
  return options;
}

function describe(report: KillRunReport): string {
  const { result, kill } = report;
  const perUser = (n: number) =>
    report.transactionStats.usersCreated === 0
      ? 'n/a'
      : (n / report.transactionStats.usersCreated).toFixed(3);
  const lines = [
    `## ${report.workload}: ${report.instances} processes × ${report.clients / report.instances} clients`,
    '',
    `- ran ${report.seconds.toFixed(1)} s (load average ${report.loadAverage.start.toFixed(1)} at start, ${report.loadAverage.end.toFixed(1)} at end)`,
    `- acknowledged: ${result.acknowledged} (${(result.acknowledged / report.seconds).toFixed(0)}/s); highest stored: ${result.highest}; holes: ${result.holes}; duplicates: ${result.duplicates}; unresolved: ${result.unresolved}`,
    `- ${Object.entries(result.counts)
      .map(([name, n]) => `${name} ${n}`)
      .join(', ')}`,
    `- kill -9 of pid ${kill.pid} at ${kill.atSeconds.toFixed(1)} s with ${kill.inFlight} requests in flight to it; replacement ready ${kill.restartedAfterSeconds?.toFixed(1)} s later`,
    `- acknowledged per second: ${report.timeline.join(' ')}`,
    `- answers per send: ${Object.entries(report.answers)
      .map(([code, n]) => `${code} ${n}`)
      .join(', ')}`,
    `- fail points fired: ${report.failPoints.map((f) => `${f.name} ×${f.fired}`).join('; ')}`,
  ];
  if (report.workload === 'transaction') {
    const { usersCreated, transactionRetries, writeConflicts } = report.transactionStats;
    lines.push(
      `- strategyStats (last read from each process): ${usersCreated} users, ${transactionRetries} transaction retries (${perUser(transactionRetries)}/user), ${writeConflicts} write conflicts (${perUser(writeConflicts)}/user)`,
    );
  }
  lines.push(
    report.problems.length === 0
      ? '- every promise held'
      : `- BROKEN PROMISES:\n${report.problems.map((p) => `  - ${p}`).join('\n')}`,
  );
  return lines.join('\n');
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  let broken = false;
  for (const workload of options.workloads) {
    const report = await runKillRun({
      workload,
      instances: 2,
      clientsPerInstance: options.clients,
      seconds: options.seconds,
      killAt: 0.5,
      failPointEveryMs: 500,
      transactionLifetimeMs: 5_000,
      holdSeconds: 2,
      log: (line) => process.stderr.write(`bench:faults ${workload}: ${line}\n`),
    });
    process.stdout.write(`${describe(report)}\n\n`);
    broken ||= report.problems.length > 0;
  }
  process.exit(broken ? 1 : 0);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `bench:faults failed: ${error instanceof Error ? error.stack : String(error)}\n`,
  );
  process.exit(1);
});
