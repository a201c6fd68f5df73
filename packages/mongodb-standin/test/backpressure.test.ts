/**
 * Replies respect backpressure. The slow reader pipelines 100 finds of 10 MB of documents
 * on a socket it never reads: without backpressure the stand-in queued every reply (RSS
 * 119 -> 1,167 MB, kept after the client closed). Now a connection's next command waits until
 * its last reply was taken by the socket, so the stand-in holds about one reply: its resident
 * memory, read from /proc in the stand-in's own process (the CLI), stays under 300 MB and comes
 * back to within 50 MB of where it started once the client closes. A connection with more
 * replies unsent than `maxQueuedReplyBytes` is closed; a slow reader that does read gets every
 * reply, in order.
 */
import { readFile } from 'node:fs/promises';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { BSON } from 'bson';
import { MongoClient } from 'mongodb';
import { startStandin } from '../src';
import { killed, startCli } from './cli-process';
import { freshDataDir } from './data-dir';

const dataDir = freshDataDir('standin-backpressure-');
const MB = 1024 * 1024;

function opMsg(body: object, requestId: number): Buffer {
  const payload = Buffer.concat([Buffer.alloc(5), BSON.serialize(body)]);
  const header = Buffer.alloc(16);
  header.writeInt32LE(16 + payload.length, 0);
  header.writeInt32LE(requestId, 4);
  header.writeInt32LE(2013, 12);
  return Buffer.concat([header, payload]);
}

/** `count` finds of every document of `database.c`, as one write of pipelined messages. */
function pipelinedFinds(database: string, count: number): Buffer {
  return Buffer.concat(
    Array.from({ length: count }, (_, i) => opMsg({ find: 'c', filter: {}, $db: database }, i + 1)),
  );
}

/** A connection that has sent `bytes` and reads nothing until resumed. */
async function pipelining(port: number, bytes: Buffer): Promise<net.Socket> {
  const socket = net.connect(port, '127.0.0.1');
  socket.pause();
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.write(bytes);
  return socket;
}

async function residentMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

async function fill(uri: string, database: string, documents: number): Promise<void> {
  const client = await MongoClient.connect(uri, { serverSelectionTimeoutMS: 5_000 });
  try {
    for (let i = 0; i < documents; i++)
      await client
        .db(database)
        .collection('c')
        .insertOne({ _id: i as never, s: 'x'.repeat(MB) });
  } finally {
    await client.close();
  }
}

test('100 pipelined 10 MB finds never read: resident memory stays bounded and comes back', async () => {
  const cli = await startCli(dataDir.path);
  try {
    const pid = cli.child.pid!;
    await fill(cli.uri, 'slow', 10);
    const start = await residentMb(pid);
    const reader = await pipelining(cli.port, pipelinedFinds('slow', 100));
    let peak = start;
    for (let sample = 0; sample < 30; sample++) {
      await sleep(100);
      peak = Math.max(peak, await residentMb(pid));
    }
    reader.destroy();
    let after = await residentMb(pid);
    for (let sample = 0; sample < 100 && after > start + 50; sample++) {
      await sleep(100);
      after = await residentMb(pid);
    }
    expect(peak).toBeLessThan(300);
    expect(after).toBeLessThanOrEqual(start + 50);
    // and it still serves everyone else
    const client = await MongoClient.connect(cli.uri, { serverSelectionTimeoutMS: 5_000 });
    await expect(client.db('slow').collection('c').countDocuments()).resolves.toBe(10);
    await client.close();
  } finally {
    await killed(cli.child);
  }
}, 120_000);

test('a connection with more unsent replies than maxQueuedReplyBytes is closed', async () => {
  const logged: string[] = [];
  const standin = await startStandin({
    log: (line) => logged.push(line),
    limits: { maxQueuedReplyBytes: 2 * MB },
  });
  try {
    await fill(standin.uri, 'queued', 3);
    const reader = await pipelining(standin.port, pipelinedFinds('queued', 5));
    for (let wait = 0; wait < 50 && !logged.some((line) => line.includes('unread')); wait++)
      await sleep(100);
    expect(logged.filter((line) => line.includes('bytes of replies unread'))).toHaveLength(1);
    reader.destroy();
  } finally {
    await standin.stop();
  }
});

test('a slow reader that reads gets every reply, in order', async () => {
  const standin = await startStandin({ log: () => undefined });
  try {
    await fill(standin.uri, 'slowly', 2);
    const reader = await pipelining(standin.port, pipelinedFinds('slowly', 20));
    await sleep(500);
    let received = Buffer.alloc(0);
    const responseTo: number[] = [];
    await new Promise<void>((resolve) => {
      reader.on('data', (chunk: Buffer) => {
        received = Buffer.concat([received, chunk]);
        while (received.length >= 4 && received.length >= received.readInt32LE(0)) {
          const length = received.readInt32LE(0);
          responseTo.push(received.readInt32LE(8));
          expect(BSON.deserialize(received.subarray(21, length))).toMatchObject({ ok: 1 });
          received = received.subarray(length);
        }
        if (responseTo.length === 20) resolve();
      });
      reader.resume();
    });
    expect(responseTo).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    reader.destroy();
  } finally {
    await standin.stop();
  }
});
