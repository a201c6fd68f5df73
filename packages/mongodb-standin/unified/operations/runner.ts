/**
 * The test runner's own operations: failPoint (remembered so the test turns it off at its end),
 * createEntities during a test, waiting for and counting a client's events, threads, sleeping,
 * topology descriptions, and the number of connections a client has checked out.
 */
import { Document, MongoClient } from 'mongodb';
import { setTimeout as sleep } from 'node:timers/promises';
import { createEntities } from '../create-entities';
import { eventMatches } from '../expect';
import { Matcher } from '../match';
import { Mismatch } from '../mismatch';
import { OperationContext, OperationTable } from './table';

/** How long waitForEvent and waitForPrimaryChange wait at most (the format's default is 10 s). */
const WAIT_LIMIT_MS = 10_000;
const POLL_MS = 10;

async function setFailPoint(client: MongoClient, failPoint: Document, context: OperationContext) {
  await client.db('admin').command(failPoint);
  context.entities.failPoints.push({ client, name: failPoint.configureFailPoint });
  return undefined;
}

function countEvents(args: Document, context: OperationContext): number {
  const matcher = new Matcher(context.entities);
  const events = context.entities.events.get(args.client) ?? [];
  return events.filter((observed) => eventMatches(args.event, observed, matcher)).length;
}

/** Polls `done` until it holds or `limitMs` pass; false when it never held. */
async function waitUntil(done: () => boolean, limitMs: number): Promise<boolean> {
  for (const start = Date.now(); !done(); await sleep(POLL_MS))
    if (Date.now() - start > limitMs) return false;
  return true;
}

interface TopologyDescription {
  type: string;
  servers: Map<string, { type: string; address: string }>;
}

function topologyOf(client: MongoClient): TopologyDescription {
  const topology = (client as unknown as { topology?: { description: TopologyDescription } })
    .topology;
  if (!topology) throw new Mismatch('the client is not connected');
  return topology.description;
}

function primaryOf(description: TopologyDescription): string | null {
  for (const server of description.servers.values())
    if (server.type === 'RSPrimary') return server.address;
  return null;
}

export const runnerOperations: OperationTable = {
  'testRunner.failPoint': (args, _t, context) =>
    setFailPoint(context.entities.client(args.client), args.failPoint, context),
  'testRunner.targetedFailPoint': (args, _t, context) =>
    // One member: the session's pinned server is the only one.
    setFailPoint(
      (args.session as unknown as { client: MongoClient }).client,
      args.failPoint,
      context,
    ),
  'testRunner.createEntities': async (args, _t, context) => {
    await createEntities(args.entities, context);
    return undefined;
  },
  'testRunner.waitForEvent': async (args, _t, context) => {
    if (!(await waitUntil(() => countEvents(args, context) >= args.count, WAIT_LIMIT_MS)))
      throw new Mismatch(
        `${args.client} saw ${countEvents(args, context)} of ${args.count} ${Object.keys(args.event)[0]} in ${WAIT_LIMIT_MS} ms`,
      );
    return undefined;
  },
  'testRunner.assertEventCount': async (args, _t, context) => {
    const count = countEvents(args, context);
    if (count !== args.count)
      throw new Mismatch(
        `${args.client} saw ${count} ${Object.keys(args.event)[0]}, expected ${args.count}`,
      );
    return undefined;
  },
  'testRunner.wait': async (args) => {
    await sleep(args.ms as number);
    return undefined;
  },
  'testRunner.runOnThread': async (args, _t, context) => {
    context.entities.thread(args.thread).run(() => context.runOne(args.operation));
    return undefined;
  },
  'testRunner.waitForThread': async (args, _t, context) => {
    await context.entities.thread(args.thread).settled();
    return undefined;
  },
  'testRunner.recordTopologyDescription': async (args, _t, context) => {
    const { type, servers } = topologyOf(context.entities.client(args.client));
    context.entities.set(args.id, { type, servers: new Map(servers) });
    return undefined;
  },
  'testRunner.assertTopologyType': async (args, _t, context) => {
    const { type } = context.entities.value(args.topologyDescription) as TopologyDescription;
    if (type !== args.topologyType)
      throw new Mismatch(`topology type ${type}, expected ${args.topologyType}`);
    return undefined;
  },
  'testRunner.waitForPrimaryChange': async (args, _t, context) => {
    const client = context.entities.client(args.client);
    const prior = primaryOf(
      context.entities.value(args.priorTopologyDescription) as TopologyDescription,
    );
    const changed = () => {
      const now = primaryOf(topologyOf(client));
      return now !== null && now !== prior;
    };
    if (!(await waitUntil(changed, (args.timeoutMS as number | undefined) ?? WAIT_LIMIT_MS)))
      throw new Mismatch(`the primary did not change from ${prior}`);
    return undefined;
  },
  'testRunner.assertNumberConnectionsCheckedOut': async (args, _t, context) => {
    context.entities.client(args.client);
    if (typeof args.connections !== 'number')
      throw new Mismatch('assertNumberConnectionsCheckedOut needs connections');
    const count = context.entities.checkedOut.get(args.client);
    if (count !== args.connections)
      throw new Mismatch(
        `${args.client} has ${count} connections checked out, expected ${args.connections}`,
      );
    return undefined;
  },
};
