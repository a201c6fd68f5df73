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
    return { version: versionOf(String(info.version)), topology };
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
