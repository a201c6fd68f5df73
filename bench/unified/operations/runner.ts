/**
 * The test runner's own operations: failPoint (remembered so the test turns it off at its end)
 * and createEntities during a test.
 */
import { Document, MongoClient } from 'mongodb';
import { createEntities } from '../create-entities';
import { OperationContext, OperationTable } from './table';

async function setFailPoint(client: MongoClient, failPoint: Document, context: OperationContext) {
  await client.db('admin').command(failPoint);
  context.entities.failPoints.push({ client, name: failPoint.configureFailPoint });
  return undefined;
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
};
