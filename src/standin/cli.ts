/**
 * `npm run standin -- --port 27017`: runs the stand-in until SIGINT/SIGTERM. Prints exactly one
 * line holding `mongodb://127.0.0.1:<port>/` once it accepts connections (scripts wait for it),
 * and says plainly that this is the in-memory stand-in, not MongoDB.
 */
import { startStandin } from './index';

function parsePort(argv: string[]): number {
  const at = argv.indexOf('--port');
  if (at < 0) return 27017;
  const port = Number(argv[at + 1]);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`--port needs an integer between 0 and 65535, got '${argv[at + 1] ?? ''}'`);
  }
  return port;
}

async function main(): Promise<void> {
  const standin = await startStandin({ port: parsePort(process.argv.slice(2)) });
  process.stdout.write(
    `MongoDB stand-in (in-memory, not MongoDB; data is lost on exit) listening at ${standin.uri}\n`,
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
