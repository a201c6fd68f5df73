/**
 * Process entry: tune the heap, read config, connect (or start the embedded database), ensure
 * indexes, start HTTP, print the URL; on SIGINT/SIGTERM fail readiness, keep serving for
 * SHUTDOWN_GRACE_MS (a second signal cuts it short), then drain requests, close the client and the
 * embedded database, exit 0. Nothing else lives here.
 *
 * The heap: after each full collection V8 lets the old generation grow to up to 4× its live size
 * before the next one, so under load a process's resident memory followed its throughput (mostly
 * garbage not yet collected). `HEAP_GROWING_PERCENT` caps that growth; V8 reads it at each
 * collection, so setting it here, before any load, holds for `npm start`, the bench and the tests
 * alike. Measured with `npm run bench:compare`: peak RSS of COUNTER@64 168 → 138 MB at
 * the same CPU per user, of 1,000-user batches at 64 253 → 162 MB.
 */
// First of all: when tracing is asked for, its instrumentations must hook the modules below.
import './telemetry/start';
import { setFlagsFromString } from 'node:v8';
import { ConfigError, loadEnvironment, type Config } from './config';
import { connectDatabase, startEmbeddedDatabase, type EmbeddedDatabase } from './database/index';
import { createComponents } from './components';
import { startHttpServer } from './http/index';
import { createLogger, type Logger } from './logger';
import { STRATEGY_SETTINGS } from './strategies/index';
import { stopTracing, tracingEnabled } from './telemetry/index';

async function databaseUri(
  config: Config,
  logger: Logger,
): Promise<{ uri: string; embedded?: EmbeddedDatabase }> {
  if (config.MONGODB_URI !== undefined) return { uri: config.MONGODB_URI };
  if (config.NODE_ENV === 'production') {
    throw new ConfigError(
      'MONGODB_URI is required when NODE_ENV=production (no embedded database in production)',
    );
  }
  const embedded = await startEmbeddedDatabase(logger, {
    force: config.EMBEDDED_DB,
    dbName: config.MONGODB_DB,
  });
  return { uri: embedded.uri, embedded };
}

const HEAP_GROWING_PERCENT = 50;

async function main(): Promise<void> {
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  const { config, settings: strategySettings } = loadEnvironment(STRATEGY_SETTINGS);
  const logger = createLogger(config);
  const { uri, embedded } = await databaseUri(config, logger);
  const client = await connectDatabase(uri, config);
  const components = createComponents(client.db(config.MONGODB_DB), config, strategySettings);
  await components.users.ensureIndexes();
  await components.budgets.ensureIndexes();
  const namespaces = await components.sequences.moveOwnedCounters();
  if (namespaces.moved.length > 0 || namespaces.conflicts.length > 0) {
    logger[namespaces.conflicts.length > 0 ? 'warn' : 'info'](
      namespaces,
      `0.3 sequences moved into their owner's namespace: ${namespaces.moved.length}; left in place (their new id is taken): ${namespaces.conflicts.length}`,
    );
  }
  const http = await startHttpServer(config, { client, components, logger });
  let endGrace: (() => void) | undefined;
  const stop = async (signal: NodeJS.Signals) => {
    if (endGrace !== undefined) {
      endGrace();
      return;
    }
    http.failReadiness();
    const graceMs = config.SHUTDOWN_GRACE_MS;
    logger.info({ signal, graceMs }, 'not ready; serving during the grace period, then draining');
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, graceMs);
      endGrace = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    logger.info('draining requests and shutting down');
    try {
      await http.close();
      const blockIds = await components.users.releaseHeldIds();
      logger[blockIds.leftUnused > 0 ? 'warn' : 'info'](
        { blockIds },
        `BLOCK ids: ${blockIds.givenBack} given back to the counter, ${blockIds.leftUnused} left unused (gaps)`,
      );
      await client.close();
      await embedded?.stop();
      await stopTracing();
      logger.info('stopped');
      process.exit(0);
    } catch (err) {
      logger.error({ err }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  // Announced only once a signal would drain: whoever waits for this line may stop us at once.
  logger.info(
    { url: `${http.url}/graphql`, database: config.MONGODB_DB, tracing: tracingEnabled() },
    `service ready at ${http.url}/graphql`,
  );
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError) {
    console.error(err.message);
  } else {
    console.error('The service could not start:', err);
  }
  process.exit(1);
});
