/**
 * Malformed input over real sockets: each case closes only its own connection with a logged
 * reason, while a driver client on the same stand-in keeps working.
 */
import net from 'node:net';
import { BSON } from 'bson';
import { MongoClient } from 'mongodb';
import { RunningStandin, startStandin } from '../src';

let standin: RunningStandin;
let client: MongoClient;
const logged: string[] = [];

beforeAll(async () => {
  standin = await startStandin({ log: (line) => logged.push(line) });
  client = await MongoClient.connect(standin.uri, { serverSelectionTimeoutMS: 5_000 });
  await client
    .db('bad_input')
    .collection('c')
    .insertOne({ _id: 1 as never });
});

afterAll(async () => {
  await client.close();
  await standin.stop();
});

/** Sends bytes on a fresh connection and resolves when the stand-in closes it. */
function sendAndAwaitClose(bytes: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(standin.port, '127.0.0.1', () => socket.write(bytes));
    const timer = setTimeout(
      () => reject(new Error('the stand-in kept the connection open')),
      5_000,
    );
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

function message(opCode: number, body: Buffer, length?: number): Buffer {
  const head = Buffer.alloc(16);
  head.writeInt32LE(length ?? 16 + body.length, 0);
  head.writeInt32LE(1, 4);
  head.writeInt32LE(opCode, 12);
  return Buffer.concat([head, body]);
}

const validBody = Buffer.concat([Buffer.alloc(5), BSON.serialize({ ping: 1, $db: 'x' })]);

test.each([
  ['a length below the header size', message(2013, validBody, 4), 'message length 4'],
  [
    'a length above the maximum message size',
    message(2013, validBody, 2_000_000_000),
    'message length 2000000000',
  ],
  ['an unknown opcode', message(1234, validBody), 'unsupported opcode 1234'],
  ['truncated BSON', message(2013, validBody.subarray(0, validBody.length - 6)), 'BSON'],
  ['an OP_MSG with no body section', message(2013, Buffer.alloc(4)), 'too short'],
])(
  '%s closes that connection with a logged reason, others keep working',
  async (_case, bytes, reason) => {
    logged.length = 0;
    await sendAndAwaitClose(bytes);
    expect(
      logged.some((line) => line.includes('closing connection') && line.includes(reason)),
    ).toBe(true);
    await expect(
      client
        .db('bad_input')
        .collection('c')
        .findOne({ _id: 1 as never }),
    ).resolves.toEqual({ _id: 1 });
  },
);

test('a client that disconnects mid-message does not disturb the stand-in', async () => {
  await new Promise<void>((resolve) => {
    const socket = net.connect(standin.port, '127.0.0.1', () => {
      socket.end(validBody.subarray(0, 10));
      resolve();
    });
  });
  await expect(client.db('bad_input').command({ ping: 1 })).resolves.toMatchObject({ ok: 1 });
});
