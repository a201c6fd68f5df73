/**
 * GridFS bucket operations: upload (the source given as `$$hexBytes`), download by id and by name
 * (read whole into bytes: the format's expectResult is `$$matchesHexBytes`), delete and rename by
 * id. Driver 7.9 has no deleteByName or renameByName (NODE-6511): those tests are driver-side.
 */
import { Document, GridFSBucket, GridFSBucketReadStream, ObjectId } from 'mongodb';
import { finished } from 'node:stream/promises';
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

async function upload(b: GridFSBucket, args: Document): Promise<ObjectId> {
  const { filename, source, ...options } = args;
  const stream = b.openUploadStream(filename, options);
  stream.end(Buffer.from((source as { $$hexBytes: string }).$$hexBytes, 'hex'));
  await finished(stream);
  return stream.id;
}

export const gridfsOperations: OperationTable = {
  'bucket.upload': bucket(upload),
  'bucket.delete': bucket((b, { id }) => b.delete(id)),
  'bucket.rename': bucket((b, { id, newFilename }) => b.rename(id, newFilename)),
  'bucket.download': bucket((b, { id }) => readAll(b.openDownloadStream(id))),
  'bucket.downloadByName': bucket((b, { filename, ...o }) =>
    readAll(b.openDownloadStreamByName(filename, o)),
  ),
};
