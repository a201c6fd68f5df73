/**
 * One command sent as a raw OP_MSG on a socket of its own, for what the driver will not send
 * (a database name it refuses, a document above the size its serializer takes), so the
 * server's own answer is what the test sees. Documents may be given as BSON bytes, built by
 * hand where js-bson's serializer cannot hold them. Speaks to the first host of the test URI
 * unless told otherwise, without authentication, as the rest of the conformance suite does.
 */
import net from 'node:net';
import { BSON, Document } from 'bson';
import { testMongoUri } from '../support/db';

const OP_MSG = 2013;

function hostAndPort(): { host: string; port: number } {
  const match = /^mongodb:\/\/(?:[^@/]*@)?([^,/?:]+)(?::(\d+))?/.exec(testMongoUri());
  if (!match) throw new Error(`cannot read a host from ${testMongoUri()}`);
  return { host: match[1], port: Number(match[2] ?? 27017) };
}

/** The BSON bytes of `{ _id, s: <string of about `bytes` bytes> }`, built without js-bson. */
export function bsonWithString(id: number, bytes: number): Buffer {
  const text = Buffer.alloc(bytes, 'x');
  const parts = [
    Buffer.from([0x10]),
    Buffer.from('_id\0'),
    Buffer.alloc(4),
    Buffer.from([0x02]),
    Buffer.from('s\0'),
    Buffer.alloc(4),
    text,
    Buffer.from([0, 0]),
  ];
  parts[2].writeInt32LE(id);
  parts[5].writeInt32LE(bytes + 1);
  const size = 4 + parts.reduce((sum, part) => sum + part.length, 0);
  const head = Buffer.alloc(4);
  head.writeInt32LE(size);
  return Buffer.concat([head, ...parts]);
}

/**
 * Sends `body` (with `sequence`, an OP_MSG document sequence, when given) to `server` (default:
 * the test database's) and returns the reply.
 */
export function rawCommand(
  body: Document,
  sequence?: { name: string; documents: Buffer[] },
  server = hostAndPort(),
): Promise<Document> {
  const sections: Buffer[] = [Buffer.alloc(4), Buffer.from([0]), Buffer.from(BSON.serialize(body))];
  if (sequence) {
    const payload = Buffer.concat([Buffer.from(`${sequence.name}\0`), ...sequence.documents]);
    const size = Buffer.alloc(4);
    size.writeInt32LE(payload.length + 4);
    sections.push(Buffer.from([1]), size, payload);
  }
  const rest = Buffer.concat(sections);
  const header = Buffer.alloc(16);
  header.writeInt32LE(16 + rest.length, 0);
  header.writeInt32LE(1, 4);
  header.writeInt32LE(OP_MSG, 12);
  const { host, port } = server;
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, host, () => socket.write(Buffer.concat([header, rest])));
    let received = Buffer.alloc(0);
    socket.setTimeout(30_000, () => socket.destroy(new Error('no reply within 30 s')));
    socket.on('data', (chunk) => {
      received = Buffer.concat([received, chunk]);
      if (received.length < 4 || received.length < received.readInt32LE(0)) return;
      socket.destroy();
      // header (16), flags (4), section kind 0 (1), the reply document
      resolve(BSON.deserialize(received.subarray(21, received.readInt32LE(0))));
    });
    socket.on('error', reject);
    socket.on('close', () => reject(new Error('the server closed the connection without a reply')));
  });
}
