/**
 * GridFS bucket operations: download by id and by name, read whole into bytes (the format's
 * expectResult is `$$matchesHexBytes`).
 */
import { Document, GridFSBucket, GridFSBucketReadStream } from 'mongodb';
import { OperationTable } from './table';

async function readAll(stream: GridFSBucketReadStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const bucket =
  (fn: (b: GridFSBucket, args: Document) => Promise<unknown>) =>
  (args: Document, target: unknown) =>
    fn(target as GridFSBucket, args);

export const gridfsOperations: OperationTable = {
  'bucket.download': bucket((b, { id }) => readAll(b.openDownloadStream(id))),
  'bucket.downloadByName': bucket((b, { filename, ...o }) =>
    readAll(b.openDownloadStreamByName(filename, o)),
  ),
};
