/**
 * createEntities: clients (with the events they observe), databases, collections and sessions.
 * A client's observed command events are kept per client id, minus the ones it ignores and the
 * runner's own configureFailPoint. A started event's command is kept as it was sent (a BSON
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
  GridFSBucket,
} from 'mongodb';
import { ObservedEvent } from './entities';
import { Mismatch } from './mismatch';
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

const EVENT_NAMES: Array<[string, ObservedEvent['kind']]> = [
  ['commandStarted', 'commandStartedEvent'],
  ['commandSucceeded', 'commandSucceededEvent'],
  ['commandFailed', 'commandFailedEvent'],
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
  for (const [driverName, kind] of EVENT_NAMES) {
    if (!observed.has(kind)) continue;
    client.on(
      driverName as 'commandStarted',
      (event: CommandStartedEvent | CommandSucceededEvent | CommandFailedEvent) => {
        if (ignored.has(event.commandName)) return;
        const recorded =
          event instanceof CommandStartedEvent
            ? { ...event, command: asSent(event.command) }
            : event;
        events.push({ kind, event: recorded as unknown as Document });
      },
    );
  }
}

async function createClient(spec: Document, context: OperationContext): Promise<MongoClient> {
  if (spec.storeEventsAsEntities)
    throw new Mismatch('runner does not implement storeEventsAsEntities');
  const client = new MongoClient(context.uri, {
    monitorCommands: true,
    serverSelectionTimeoutMS: 5_000,
    ...(spec.uriOptions ?? {}),
    ...(spec.serverApi ? { serverApi: spec.serverApi } : {}),
  });
  const events: ObservedEvent[] = [];
  observe(client, spec, events);
  await client.connect();
  context.entities.events.set(spec.id, events);
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
    default:
      throw new Mismatch(`runner does not implement ${kind} entities`);
  }
}

export async function createEntities(list: Document[], context: OperationContext): Promise<void> {
  for (const entity of list) {
    const [kind, spec] = Object.entries(entity)[0] as [string, Document];
    context.entities.set(spec.id, await createEntity(kind, spec, context));
  }
}
