/**
 * A snapshot: the whole store as of one instant, so a restart replays only the journal written
 * since. Capturing is synchronous and cheap (stored documents are never mutated in place, so
 * the snapshot holds references, not copies); writing is asynchronous, in chunks, while the
 * server keeps serving. The file is written as `snapshot.tmp`, fsynced, renamed over
 * `snapshot`, and the directory fsynced: a crash at any point leaves either the old snapshot or
 * the new one, never a partial one; a write that fails (a full disk) removes `snapshot.tmp`, so
 * a failed snapshot holds no space. Records (record-file.ts): a header
 * `{ snapshot: 1, journalFrom }` naming the first journal generation not contained in it, per
 * collection `{ collection: { db, name, indexes, count, changeStreamPreAndPostImages? } }`
 * followed by its `count` documents, then `{ records: <count> }` followed by that many journal extension records
 * (durable-state.ts), then `{ end: <collections> }`, whose absence marks the file as incomplete.
 */
import { FileHandle, open, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { IndexSpec } from '../engine/indexes';
import { Store } from '../engine/store';
import { Document } from '../engine/values';
import { RecordEncoder } from './record-encoder';
import { decodeRecords, writeFully } from './record-file';

export const SNAPSHOT_FILE = 'snapshot';
const TEMPORARY_FILE = 'snapshot.tmp';
/** bytes gathered before each write, so a large snapshot yields to the event loop between writes */
const WRITE_CHUNK_BYTES = 4 * 1024 * 1024;

interface CapturedCollection {
  db: string;
  name: string;
  /** present only when enabled, so snapshots without it read as before */
  changeStreamPreAndPostImages?: true;
  indexes: IndexSpec[];
  documents: Document[];
}

export interface CapturedStore {
  journalFrom: number;
  collections: CapturedCollection[];
  /** journal extension records (durable-state.ts) */
  records: Document[];
}

export function captureStore(
  store: Store,
  journalFrom: number,
  records: Document[],
): CapturedStore {
  const collections: CapturedCollection[] = [];
  for (const db of store.databaseNames()) {
    for (const collection of store.collections(db)) {
      collections.push({
        db,
        name: collection.name,
        ...(collection.preAndPostImages && { changeStreamPreAndPostImages: true as const }),
        indexes: collection.indexes.slice(1).map((index) => index.spec),
        documents: [...collection.all()],
      });
    }
  }
  return { journalFrom, collections, records };
}

export async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export async function writeSnapshot(dir: string, captured: CapturedStore): Promise<void> {
  const temporary = path.join(dir, TEMPORARY_FILE);
  const handle = await open(temporary, 'w');
  try {
    await writeRecords(handle, captured);
    await handle.sync();
  } catch (error) {
    await handle.close();
    await rm(temporary, { force: true });
    throw error;
  }
  await handle.close();
  await rename(temporary, path.join(dir, SNAPSHOT_FILE));
  await syncDirectory(dir);
}

async function writeRecords(handle: FileHandle, captured: CapturedStore): Promise<void> {
  const encoder = new RecordEncoder();
  let chunk: Buffer[] = [];
  let chunkBytes = 0;
  const add = async (payload: Document) => {
    const record = encoder.encode(payload);
    chunk.push(record);
    chunkBytes += record.length;
    if (chunkBytes >= WRITE_CHUNK_BYTES) {
      await writeFully(handle, chunk);
      chunk = [];
      chunkBytes = 0;
    }
  };
  await add({ snapshot: 1, journalFrom: captured.journalFrom });
  for (const { documents, ...collection } of captured.collections) {
    await add({ collection: { ...collection, count: documents.length } });
    for (const document of documents) await add(document);
  }
  await add({ records: captured.records.length });
  for (const record of captured.records) await add(record);
  await add({ end: captured.collections.length });
  await writeFully(handle, chunk);
}

/**
 * Loads the snapshot into an empty store, its extension records through `apply`; returns the
 * first journal generation to replay.
 */
export async function loadSnapshot(
  dir: string,
  store: Store,
  apply: (record: Document, file: string) => void,
): Promise<number> {
  await rm(path.join(dir, TEMPORARY_FILE), { force: true });
  const file = path.join(dir, SNAPSHOT_FILE);
  let buffer: Buffer;
  try {
    buffer = await readFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 1;
    throw error;
  }
  const { records } = decodeRecords(buffer, file);
  const header = records[0];
  if (Number(header?.snapshot) !== 1 || records[records.length - 1]?.end === undefined) {
    throw new Error(`${file} is not a complete stand-in snapshot`);
  }
  let next = 1;
  while (next < records.length - 1) {
    if (records[next].records !== undefined) {
      const end = next + 1 + Number(records[next].records);
      for (next++; next < end; next++) apply(records[next], file);
      continue;
    }
    const { db, name, indexes, count, changeStreamPreAndPostImages } = records[next++]
      .collection as {
      db: string;
      name: string;
      indexes: IndexSpec[];
      count: number;
      changeStreamPreAndPostImages?: boolean;
    };
    const { collection } = store.obtain(db, name);
    if (changeStreamPreAndPostImages) collection.setPreAndPostImages(true);
    for (const spec of indexes) collection.addIndex(spec);
    const end = next + Number(count);
    while (next < end) collection.insert(records[next++]);
  }
  return Number(header.journalFrom);
}
