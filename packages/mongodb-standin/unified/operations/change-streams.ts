/**
 * Change stream operations: createChangeStream on a client, database or collection (the format
 * has the aggregate run when the stream is created, while the driver's watch() is lazy: the
 * stream's cursor is initialized through the hook the driver exposes for unified runners),
 * iterateUntilDocumentOrError (the next event, waiting), iterateOnce (one getMore's worth, no
 * event required) and close; and collection.rename, which these tests use to make rename events.
 */
import { ChangeStream, Collection, Document } from 'mongodb';
import { OperationTable } from './table';

interface Watchable {
  watch(pipeline: Document[], options: Document): ChangeStream;
}

async function createChangeStream(args: Document, target: unknown): Promise<ChangeStream> {
  const { pipeline = [], ...options } = args;
  const stream = (target as Watchable).watch(pipeline, options);
  await (stream as unknown as { cursor: { cursorInit(): Promise<void> } }).cursor.cursorInit();
  return stream;
}

const stream = (fn: (s: ChangeStream) => Promise<unknown>) => (_args: Document, target: unknown) =>
  fn(target as ChangeStream);

export const changeStreamOperations: OperationTable = {
  'client.createChangeStream': createChangeStream,
  'database.createChangeStream': createChangeStream,
  'collection.createChangeStream': createChangeStream,
  'collection.rename': (args, target) =>
    (target as Collection).rename(args.to as string, args).then(() => undefined),
  'changeStream.iterateUntilDocumentOrError': stream((s) => s.next()),
  'changeStream.iterateOnce': stream((s) => s.tryNext().then(() => undefined)),
  'changeStream.close': stream((s) => s.close().then(() => undefined)),
};
