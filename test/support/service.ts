/**
 * Starting the real service for a test: the real HTTP server (src/http) on a free port of
 * 127.0.0.1, over a real MongoClient to the database the harness picked (TEST_MONGODB_URI).
 *
 * Each service gets a fresh database unless `dbName` is given; several services given the same
 * `dbName` share one database, as several processes would (each has its own components: its own
 * BLOCK allocator and stats); `twoInstancesOnOneDatabase` gives a file two such for all its tests.
 * The client is exposed, with command monitoring on, so a test can count the commands the service
 * sends; so is the budgets' client of their own (as src/main.ts makes it, with its own appName; the
 * service's client itself while budgets are off).
 */
import type { GraphQLFormattedError } from 'graphql';
import os from 'node:os';
import { MongoClient } from 'mongodb';
import { startStandin, type RunningStandin, type StandinOptions } from 'mongodb-standin';
import { clientOptions } from '../../src/database';
import type { ServiceComponents } from '../../src/components';
import { createComponents } from '../../src/components';
import { startHttpServer } from '../../src/http';
import type { SubscriptionBounds } from '../../src/graphql/subscription-holdings';
import { createLogger } from '../../src/logger';
import { testMongoUri, uniqueDbName } from './db';
import { PATIENT_ENV } from './domain-options';
import { readEnvironment } from './environment';

/** The admin token every test service accepts unless `env.ADMIN_TOKEN` says otherwise. */
export const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789abcdefghij';
/** The client every test service knows unless `env.CLIENT_TOKENS` says otherwise. */
export const TEST_CLIENT = { client: 'testclient', token: 'test-client-token-0123456789abcdefgh' };
/** The headers of a request with the admin token, and with the test client's token. */
export const ADMIN_HEADERS = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
export const CLIENT_HEADERS = { authorization: `Bearer ${TEST_CLIENT.token}` };

export interface GraphQLResponse<T> {
  status: number;
  body: { data?: T; errors?: GraphQLFormattedError[]; extensions?: Record<string, unknown> };
}

export interface TestService {
  url: string;
  dbName: string;
  client: MongoClient;
  /** The client the budgets charge through (`client` itself while budgets are off). */
  budgetsClient: MongoClient;
  components: ServiceComponents;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read answers freely (ARCHITECTURE.md)
  graphql<T = any>(
    query: string,
    variables?: object,
    headers?: Record<string, string>,
  ): Promise<GraphQLResponse<T>>;
  stop(): Promise<void>;
}

export interface TestServiceOptions {
  dbName?: string;
  env?: Record<string, string>;
  /** Another MongoDB to use instead of the harness's, e.g. a private stand-in to stop. */
  mongodbUri?: string;
  /** False to start without creating indexes, e.g. over a database that cannot be reached. */
  ensureIndexes?: boolean;
  /** Narrower subscription bounds, to show each bite with a few connections. */
  subscriptionBounds?: SubscriptionBounds;
}

/** POSTs one GraphQL operation as JSON; the body is parsed whatever the status. */
export async function postGraphQL<T>(
  url: string,
  query: string,
  variables?: object,
  headers: Record<string, string> = {},
): Promise<GraphQLResponse<T>> {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query, variables }),
    // Far above any request timeout of the service: a hang fails the test instead of stalling it.
    signal: AbortSignal.timeout(120_000),
  });
  const text = await response.text();
  try {
    return { status: response.status, body: JSON.parse(text) };
  } catch {
    throw new Error(`Non-JSON answer (HTTP ${response.status}): ${text.slice(0, 200)}`);
  }
}

export async function startTestService(options: TestServiceOptions = {}): Promise<TestService> {
  const dbName = options.dbName ?? uniqueDbName();
  const { config, settings } = readEnvironment({
    NODE_ENV: 'test',
    PORT: '0',
    LOG_LEVEL: 'silent',
    ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    CLIENT_TOKENS: `${TEST_CLIENT.client}:${TEST_CLIENT.token}`,
    ...options.env,
    MONGODB_DB: dbName,
  });
  const connect = (appName: string) =>
    new MongoClient(options.mongodbUri ?? testMongoUri(), {
      ...clientOptions(config, appName),
      monitorCommands: true,
      // Under jest the driver cannot load `os` itself and would send no handshake metadata, so a
      // fail point scoped to this service's appName would never reach it (see test/support/db.ts).
      runtimeAdapters: { os },
    });
  const client = connect(`test-service-${dbName}`);
  const budgetsClient =
    config.BUDGETS === null ? client : connect(`test-service-${dbName}-budgets`);
  const components = createComponents(
    client.db(dbName),
    config,
    settings,
    budgetsClient.db(dbName),
  );
  if (options.ensureIndexes ?? true) {
    await components.users.ensureIndexes();
    await components.budgets.ensureIndexes();
    // As src/main.ts does at start.
    await components.sequences.moveOwnedCounters();
  }
  const http = await startHttpServer(config, {
    client,
    components,
    logger: createLogger(config),
    host: '127.0.0.1',
    subscriptionBounds: options.subscriptionBounds,
  });
  return {
    url: http.url,
    dbName,
    client,
    budgetsClient,
    components,
    graphql: (query, variables, headers) => postGraphQL(http.url, query, variables, headers),
    stop: async () => {
      await http.close();
      // As src/main.ts does on a clean shutdown.
      await components.users.releaseHeldIds();
      await client.close();
      await budgetsClient.close();
    },
  };
}

/**
 * `startTestService` under `PATIENT_ENV`, for a claim about ids under load rather than latency:
 * its requests and commands may wait far longer than the production bounds.
 */
export function startPatientService(options: TestServiceOptions = {}): Promise<TestService> {
  return startTestService({ ...options, env: { ...PATIENT_ENV, ...options.env } });
}

/**
 * `startTestService` for a file that starts several services as its tests go: each one started is
 * stopped after the file's last test. Call it at the top level of the file.
 */
export function servicesStoppedAfterAll(): typeof startTestService {
  const started: TestService[] = [];
  afterAll(async () => {
    await Promise.all(started.map((service) => service.stop()));
  });
  return async (options) => {
    const service = await startTestService(options);
    started.push(service);
    return service;
  };
}

/** Two instances of the service on one database, as two processes of one deployment would be. */
export interface TwoInstances {
  first: TestService;
  /** Started on the first's database. */
  second: TestService;
}

export interface TwoInstancesOptions {
  /** The environment of both instances, over the test defaults. */
  env?: Record<string, string>;
  /** A stand-in of the file's own to run on, instead of the harness's database (log silent). */
  privateStandin?: StandinOptions;
}

/**
 * Two instances of the service on one fresh database, started before the file's tests and stopped
 * after them (a private stand-in after the instances). A file calls it at its top level. Jest runs
 * a file's hooks in the order they are declared: a `beforeAll` declared after the call runs once
 * both instances are up, an `afterAll` declared after it once both are stopped; one that must run
 * before they stop (closing clients of theirs) is declared before the call.
 */
export function twoInstancesOnOneDatabase(options: TwoInstancesOptions = {}): TwoInstances {
  const instances: Partial<TwoInstances> = {};
  let standin: RunningStandin | undefined;
  beforeAll(async () => {
    if (options.privateStandin !== undefined) {
      standin = await startStandin({ log: () => undefined, ...options.privateStandin });
    }
    const shared = { env: options.env, mongodbUri: standin?.uri };
    instances.first = await startTestService(shared);
    instances.second = await startTestService({ ...shared, dbName: instances.first.dbName });
  });
  afterAll(async () => {
    await Promise.all([instances.first?.stop(), instances.second?.stop()]);
    await standin?.stop();
  });
  return instances as TwoInstances;
}
