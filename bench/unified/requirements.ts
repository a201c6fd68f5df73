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

/**
 * Why a one-member replica set cannot run the test: one of its clients has readPreference
 * `secondary`, and driver 7.9 selects a server by the client's read preference to connect (an
 * explicit connect or the first operation's), so without a secondary it never connects, against
 * a real one-member mongod just as here. Such a test needs more than one member.
 */
export function missingSecondary(
  file: Document,
  test: Document,
  server: ServerProfile,
): string | null {
  if (server.topology !== 'replicaset' || server.members > 1) return null;
  const wantsSecondary = clientSpecs(file, test).some(
    (client) => String(client.uriOptions?.readPreference ?? '').toLowerCase() === 'secondary',
  );
  return wantsSecondary ? 'needs a secondary (a client reads from secondaries only)' : null;
}
