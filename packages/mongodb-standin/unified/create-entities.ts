/**
 * createEntities: clients (with the events they observe), databases, collections, sessions,
 * buckets and threads. A client's observed events (command, CMAP, SDAM) are kept per client id,
 * minus the commands it ignores, the sensitive ones and the runner's own configureFailPoint. A started event's command is kept as it was sent (a BSON
 * copy taken when the event fires): driver 7.9 later changes objects the event still refers to
 * (a transaction's first command shares the client's readConcern object, which gets the next
 * transaction's afterClusterTime; the Node driver's own runner skips those tests, NODE-5924).
 */
import {
  BSON,
  ClientSession,
  CommandFailedEvent,
  CommandStartedEvent,
  CommandSucceededEvent,
  Document,
  MongoClient,
  MongoClientOptions,
  GridFSBucket,
} from 'mongodb';
import { LoggedMessage, ObservedEvent, Thread } from './entities';
import { RunnerGap } from './mismatch';
import { OperationContext } from './operations/table';

/** Commands whose events the driver redacts; the format leaves them out unless asked. */
const SENSITIVE = new Set([
  'authenticate',
  'saslStart',
  'saslContinue',
  'getnonce',
  'createUser',
  'updateUser',
  'copydbnonce',
  'copydbsaslstart',
  'copydb',
]);

/** Hello commands are sensitive when they carry speculativeAuthenticate (the driver redacts them). */
const HELLO = new Set(['hello', 'isMaster', 'ismaster']);

const COMMAND_EVENTS: Array<[string, string]> = [
  ['commandStarted', 'commandStartedEvent'],
  ['commandSucceeded', 'commandSucceededEvent'],
  ['commandFailed', 'commandFailedEvent'],
];

/** The driver's CMAP and SDAM event names, with the format's name for each. */
const MONITORING_EVENTS: Array<[string, string]> = [
  ['connectionPoolCreated', 'poolCreatedEvent'],
  ['connectionPoolReady', 'poolReadyEvent'],
  ['connectionPoolCleared', 'poolClearedEvent'],
  ['connectionPoolClosed', 'poolClosedEvent'],
  ['connectionCreated', 'connectionCreatedEvent'],
  ['connectionReady', 'connectionReadyEvent'],
  ['connectionClosed', 'connectionClosedEvent'],
  ['connectionCheckOutStarted', 'connectionCheckOutStartedEvent'],
  ['connectionCheckOutFailed', 'connectionCheckOutFailedEvent'],
  ['connectionCheckedOut', 'connectionCheckedOutEvent'],
  ['connectionCheckedIn', 'connectionCheckedInEvent'],
  ['serverDescriptionChanged', 'serverDescriptionChangedEvent'],
  ['topologyDescriptionChanged', 'topologyDescriptionChangedEvent'],
  ['serverHeartbeatStarted', 'serverHeartbeatStartedEvent'],
  ['serverHeartbeatSucceeded', 'serverHeartbeatSucceededEvent'],
  ['serverHeartbeatFailed', 'serverHeartbeatFailedEvent'],
  ['topologyOpening', 'topologyOpeningEvent'],
  ['topologyClosed', 'topologyClosedEvent'],
  ['serverOpening', 'serverOpeningEvent'],
  ['serverClosed', 'serverClosedEvent'],
];

/** The command as the wire carries it: a copy, undefined fields left out, longs kept Long. */
function asSent(command: Document): Document {
  return BSON.deserialize(BSON.serialize(command, { ignoreUndefined: true }), {
    promoteLongs: false,
  });
}

function observe(client: MongoClient, spec: Document, events: ObservedEvent[]): void {
  const observed = new Set<string>(spec.observeEvents ?? []);
  const ignored = new Set<string>([
    ...(spec.ignoreCommandMonitoringEvents ?? []),
    'configureFailPoint',
    ...(spec.observeSensitiveCommands ? [] : SENSITIVE),
  ]);
  // A redacted hello's started event has an empty command; its reply events follow it by id.
  const redacted = new Set<number>();
  const isIgnored = (event: CommandStartedEvent | CommandSucceededEvent | CommandFailedEvent) => {
    if (event instanceof CommandStartedEvent) {
      const sensitiveHello =
        HELLO.has(event.commandName) &&
        !spec.observeSensitiveCommands &&
        Object.keys(event.command).length === 0;
      if (sensitiveHello) redacted.add(event.requestId);
      return sensitiveHello || ignored.has(event.commandName);
    }
    return redacted.delete(event.requestId) || ignored.has(event.commandName);
  };
  for (const [driverName, kind] of COMMAND_EVENTS) {
    if (!observed.has(kind)) continue;
    client.on(
      driverName as 'commandStarted',
      (event: CommandStartedEvent | CommandSucceededEvent | CommandFailedEvent) => {
        if (isIgnored(event)) return;
        const recorded =
          event instanceof CommandStartedEvent
            ? { ...event, command: asSent(event.command) }
            : event;
        events.push({ kind, event: recorded as unknown as Document });
      },
    );
  }
  for (const [driverName, kind] of MONITORING_EVENTS) {
    if (!observed.has(kind)) continue;
    client.on(driverName as 'connectionCreated', (event: unknown) =>
      events.push({ kind, event: event as Document }),
    );
  }
}

/**
 * The driver's logging options for a client with observeLogMessages (component → severity):
 * each message it writes is kept as the format matches it (level, component, data).
 */
function logOptions(spec: Document, context: OperationContext): MongoClientOptions {
  if (!spec.observeLogMessages) return {};
  const logs: LoggedMessage[] = [];
  context.entities.logs.set(spec.id, logs);
  return {
    // As the Node runner (NODE-5785): driver 7.9 logs a hello reply's $clusterTime signature
    // hash as a long array, which the default 1,000 characters cut short of valid JSON.
    mongodbLogMaxDocumentLength: 1500,
    mongodbLogComponentSeverities: spec.observeLogMessages as Document,
    mongodbLogPath: {
      write: (log: Document) => {
        logs.push({ level: log.s, component: log.c, data: { ...log } });
      },
    },
  } as MongoClientOptions;
}

async function createClient(spec: Document, context: OperationContext): Promise<MongoClient> {
  if (spec.storeEventsAsEntities)
    throw new RunnerGap('runner does not implement storeEventsAsEntities');
  const client = new MongoClient(context.uri, {
    monitorCommands: true,
    // connect() checks a connection out to ping unless told not to, as the Node driver's own
    // runner tells it: the format's CMAP expectations count the connection the test's first
    // operation makes.
    ...({ __skipPingOnConnect: true } as MongoClientOptions),
    serverSelectionTimeoutMS: 5_000,
    ...(spec.uriOptions ?? {}),
    ...(spec.serverApi ? { serverApi: spec.serverApi } : {}),
    ...logOptions(spec, context),
  });
  const events: ObservedEvent[] = [];
  observe(client, spec, events);
  const { checkedOut } = context.entities;
  checkedOut.set(spec.id, 0);
  client.on('connectionCheckedOut', () => checkedOut.set(spec.id, checkedOut.get(spec.id)! + 1));
  client.on('connectionCheckedIn', () => checkedOut.set(spec.id, checkedOut.get(spec.id)! - 1));
  context.entities.events.set(spec.id, events);
  await client.connect();
  return client;
}

/**
 * A session; `sessionOptions.snapshotTime` names an entity holding the time (saveResultAsEntity).
 * Driver 7.9 predates that option, so the runner sets the session's snapshot time itself, as
 * newer drivers do when the session starts (the server side is what is measured).
 */
function startSession(spec: Document, context: OperationContext): ClientSession {
  const { snapshotTime, ...options } = (spec.sessionOptions ?? {}) as Document;
  const session = context.entities.client(spec.client).startSession(options);
  if (typeof snapshotTime === 'string')
    (session as unknown as { snapshotTime: unknown }).snapshotTime =
      context.entities.value(snapshotTime);
  return session;
}

async function createEntity(kind: string, spec: Document, context: OperationContext) {
  const { entities } = context;
  switch (kind) {
    case 'client':
      return createClient(spec, context);
    case 'database':
      return entities.client(spec.client).db(spec.databaseName, spec.databaseOptions);
    case 'collection':
      return entities
        .database(spec.database)
        .collection(spec.collectionName, spec.collectionOptions);
    case 'session':
      return startSession(spec, context);
    case 'bucket':
      return new GridFSBucket(entities.database(spec.database), spec.bucketOptions);
    case 'thread':
      return new Thread();
    default:
      throw new RunnerGap(`runner does not implement ${kind} entities`);
  }
}

export async function createEntities(list: Document[], context: OperationContext): Promise<void> {
  for (const entity of list) {
    const [kind, spec] = Object.entries(entity)[0] as [string, Document];
    context.entities.set(spec.id, await createEntity(kind, spec, context));
  }
}
