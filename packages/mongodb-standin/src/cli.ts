/**
 * `npm run standin -- --port 27017 [--data-dir DIR] [--repl-set NAME | --standalone]
 * [--transaction-lifetime-limit-seconds N]`: runs the stand-in until SIGINT/SIGTERM, a
 * one-member replica set named NAME (default rs0) unless --standalone, aborting transactions
 * open longer than N seconds (default 60, mongod's transactionLifetimeLimitSeconds). Prints exactly one line holding its URI (`mongodb://127.0.0.1:<port>/` and
 * `?replicaSet=NAME`) once it accepts connections (scripts wait for it), saying plainly that
 * this is the stand-in, not MongoDB, and where its data lives: in DIR (kept across restarts) or
 * in memory.
 */
import { startStandin } from './index';

function optionValue(argv: string[], name: string): string | undefined {
  const at = argv.indexOf(name);
  if (at < 0) return undefined;
  const value = argv[at + 1];
  if (value === undefined || value.startsWith('--')) throw new Error(`${name} needs a value`);
  return value;
}

function parsePort(argv: string[]): number {
  const text = optionValue(argv, '--port');
  if (text === undefined) return 27017;
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`--port needs an integer between 0 and 65535, got '${text}'`);
  }
  return port;
}

/** --transaction-lifetime-limit-seconds, in milliseconds (undefined: the default, 60 s). */
function parseTransactionLifetime(argv: string[]): number | undefined {
  const name = '--transaction-lifetime-limit-seconds';
  const text = optionValue(argv, name);
  if (text === undefined) return undefined;
  const seconds = Number(text);
  if (!Number.isInteger(seconds) || seconds < 1) {
    throw new Error(`${name} needs an integer of at least 1, got '${text}'`);
  }
  return seconds * 1000;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const dataDir = optionValue(argv, '--data-dir');
  const replSet = argv.includes('--standalone') ? null : optionValue(argv, '--repl-set');
  const transactionLifetimeMs = parseTransactionLifetime(argv);
  const standin = await startStandin({
    port: parsePort(argv),
    dataDir,
    replSet,
    limits: transactionLifetimeMs === undefined ? {} : { transactionLifetimeMs },
  });
  const where =
    dataDir === undefined
      ? 'data in memory, lost on exit'
      : `data kept in ${dataDir}, ${standin.recovery!.documents} documents recovered in ${standin.recovery!.milliseconds} ms (${standin.recovery!.cpuMilliseconds} ms CPU)`;
  const mode = standin.replSet === null ? 'standalone' : `replica set ${standin.replSet}`;
  process.stdout.write(
    `MongoDB stand-in (not MongoDB; ${mode}; ${where}) listening at ${standin.uri}\n`,
  );
  const shutdown = (signal: NodeJS.Signals) => {
    process.stdout.write(`MongoDB stand-in: ${signal}, stopping\n`);
    standin.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}

main().catch((error: unknown) => {
  process.stderr.write(`MongoDB stand-in failed to start: ${(error as Error).message}\n`);
  process.exit(1);
});
