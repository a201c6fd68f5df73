/**
 * runOnRequirements of the unified test format, judged against the server under test: its
 * version (buildInfo) and topology (hello). A test runs when any one requirement is met; the
 * reasons of the unmet ones are what the skip is counted under.
 */
import { Document, MongoClient } from 'mongodb';

export type Topology = 'single' | 'replicaset' | 'sharded' | 'load-balanced';

export interface ServerProfile {
  version: number[];
  topology: Topology;
  /** members hello lists (1 for a standalone) */
  members: number;
}

function versionOf(text: string): number[] {
  return text.split('.').map(Number);
}

function compareVersions(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}

/** Asks the server what it is: its buildInfo version and the topology its hello describes. */
export async function profileServer(uri: string): Promise<ServerProfile> {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 5_000, directConnection: true });
  try {
    const admin = client.db('admin');
    const info = await admin.command({ buildInfo: 1 });
    const hello = await admin.command({ hello: 1 });
    const topology: Topology =
      hello.msg === 'isdbgrid' ? 'sharded' : hello.setName ? 'replicaset' : 'single';
    const members = Array.isArray(hello.hosts) ? hello.hosts.length : 1;
    return { version: versionOf(String(info.version)), topology, members };
  } finally {
    await client.close();
  }
}

function unmetReason(req: Document, server: ServerProfile): string | null {
  if (req.minServerVersion && compareVersions(server.version, versionOf(req.minServerVersion)) < 0)
    return `needs ${req.minServerVersion}`;
  if (req.maxServerVersion && compareVersions(server.version, versionOf(req.maxServerVersion)) > 0)
    return `needs at most ${req.maxServerVersion}`;
  if (req.topologies && !req.topologies.includes(server.topology))
    return `needs ${req.topologies.join('/')}`;
  if (req.serverless === 'require') return 'needs serverless';
  if (req.auth === true) return 'needs auth';
  if (req.csfle) return 'needs csfle';
  if (req.serverParameters) return 'needs server parameters';
  return null;
}

/** Why this server would not run a test with these requirements, or null when it would. */
export function unmetRequirement(
  requirements: Document[] | undefined,
  server: ServerProfile,
): string | null {
  if (!requirements) return null;
  const reasons = requirements.map((req) => unmetReason(req, server));
  return reasons.includes(null) ? null : reasons.join(' | ');
}

/** Every client entity of the file and of the test's own createEntities operations. */
function clientSpecs(file: Document, test: Document): Document[] {
  const created = (test.operations as Document[])
    .filter((op) => op.object === 'testRunner' && op.name === 'createEntities')
    .flatMap((op) => op.arguments.entities as Document[]);
  return [...(file.createEntities ?? []), ...created]
    .map((entity: Document) => entity.client)
    .filter(Boolean);
}

/** An operation of the test's (or nested in one) for which `wants` holds. */
function someOperation(operations: Document[], wants: (op: Document) => boolean): boolean {
  return operations.some(
    (op) =>
      wants(op) ||
      (Array.isArray(op.arguments?.operations) && someOperation(op.arguments.operations, wants)) ||
      (op.arguments?.operation !== undefined && someOperation([op.arguments.operation], wants)),
  );
}

const readsSecondary = (readPreference: unknown) =>
  String((readPreference as Document | undefined)?.mode ?? readPreference ?? '').toLowerCase() ===
  'secondary';

/** Operations whose readPreference is a transaction's option, not a server to select. */
const TRANSACTION_STARTS = new Set(['startTransaction', 'withTransaction']);

/**
 * An operation that selects a server by a secondary-only read preference: outside a session and
 * a transaction's options, and expected to succeed (in a transaction such a read preference is
 * an error the test expects, which a one-member set gives as well).
 */
const selectsSecondary = (op: Document) =>
  readsSecondary(op.arguments?.readPreference) &&
  !TRANSACTION_STARTS.has(op.name) &&
  op.arguments?.session === undefined &&
  op.expectError === undefined;

/**
 * Topology changes a one-member set gives a client before it closes: the seed taken in, then
 * the member discovered. A test waiting for more counts the members of a larger set (the drivers'
 * test replica set has three), though its runOnRequirements say only `replicaset`; a real
 * one-member mongod fails it too.
 */
const ONE_MEMBER_TOPOLOGY_CHANGES = 2;

/** Tests that count one event per member some other way, with why a one-member set cannot. */
const COUNTS_MEMBERS: Record<string, string> = {
  'replicaset-logging :: Successful heartbeat':
    'waits 10 s for 3 heartbeats: one per member at once; one member gives one, then one each heartbeatFrequencyMS (10 s)',
};

const countsMoreMembers = (op: Document) =>
  op.name === 'waitForEvent' &&
  op.arguments?.event?.topologyDescriptionChangedEvent !== undefined &&
  op.arguments.count > ONE_MEMBER_TOPOLOGY_CHANGES;

/**
 * Why a one-member replica set cannot run the test, or null:
 * - one of its clients, or one of its operations (selectsSecondary), reads from secondaries only:
 *   driver 7.9 selects a server by that read preference, so without a secondary it never runs,
 *   against a real one-member mongod just as here;
 * - it waits for another member to become primary (waitForPrimaryChange);
 * - it waits for the topology changes of a larger set (countsMoreMembers), or counts members
 *   otherwise (COUNTS_MEMBERS).
 */
export function missingSecondary(
  file: Document,
  test: Document,
  server: ServerProfile,
): string | null {
  if (server.topology !== 'replicaset' || server.members > 1) return null;
  const wantsSecondary =
    clientSpecs(file, test).some((client) => readsSecondary(client.uriOptions?.readPreference)) ||
    someOperation(test.operations as Document[], selectsSecondary);
  if (wantsSecondary) return 'needs a secondary (it reads from secondaries only)';
  if (someOperation(test.operations as Document[], (op) => op.name === 'waitForPrimaryChange'))
    return 'needs a second member to become primary';
  if (someOperation(test.operations as Document[], countsMoreMembers))
    return `needs more members: it waits for more than ${ONE_MEMBER_TOPOLOGY_CHANGES} topology changes`;
  const counted = COUNTS_MEMBERS[`${file.description} :: ${test.description}`];
  return counted ? `needs more members: ${counted}` : null;
}
